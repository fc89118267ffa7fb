r"""The Transformer of *Attention Is All You Need*: encoder and decoder layers, their stacks, the whole model.

An encoder layer is self-attention then a position-wise feed-forward network, each wrapped in
a residual connection and a LayerNorm; ``norm_first`` moves the norm inside the residual
(pre-norm):

.. math::
    \text{post-norm:}\quad x \leftarrow \mathrm{LN}(x + \mathrm{Sublayer}(x)) \qquad
    \text{pre-norm:}\quad x \leftarrow x + \mathrm{Sublayer}(\mathrm{LN}(x))

with :math:`\mathrm{FF}(x) = W_2\,\sigma(W_1 x + b_1) + b_2`. A decoder layer adds a
cross-attention block (queries from the target, keys and values from the encoder's output,
the *memory*) between the two. Masks follow ``MultiheadAttention``: boolean True, or a float
added to the scores (``-inf`` hides). Parameter names, shapes, initialization and state-dict
keys are PyTorch's, so checkpoints load both ways.
"""

from __future__ import annotations

import copy
import math
import warnings
from typing import Any, Callable, Optional, Union

from ... import creation, dtypes
from ...autograd import is_grad_enabled
from ...tensor import Tensor
from .. import functional as F
from .. import init
from ..functional.attention import canonical_mask
from .activation import GELU, ReLU
from .attention import MultiheadAttention
from .container import ModuleList
from .dropout import Dropout
from .linear import Linear
from .module import Module
from .normalization import LayerNorm

__all__ = ["Transformer", "TransformerDecoder", "TransformerDecoderLayer", "TransformerEncoder", "TransformerEncoderLayer"]

Activation = Union[str, Callable[[Tensor], Tensor]]
#: the defaults PyTorch gives every Transformer layer
DEFAULT_FEEDFORWARD = 2048
DEFAULT_DROPOUT = 0.1
DEFAULT_LAYER_NORM_EPS = 1e-5
#: ``activation_relu_or_gelu``: PyTorch's record of which built-in activation a layer uses
OTHER_ACTIVATION, RELU_ACTIVATION, GELU_ACTIVATION = 0, 1, 2


#: the activations a layer names by string; a layer keeps these as their name, so it saves as data
NAMED_ACTIVATIONS: dict[str, Callable[[Tensor], Tensor]] = {"relu": F.relu, "gelu": F.gelu}


def _activation_fn(activation: Activation) -> Callable[[Tensor], Tensor]:
    """The callable for ``"relu"``/``"gelu"``; any other callable unchanged."""
    if not isinstance(activation, str):
        return activation
    if activation not in NAMED_ACTIVATIONS:
        raise RuntimeError(f"activation should be relu/gelu, not {activation}")
    return NAMED_ACTIVATIONS[activation]


class _ActivationAttribute:
    """The ``activation`` attribute of the Transformer layers, as PyTorch's: a function or a module.

    ``F.relu`` and ``F.gelu`` are kept as their names (``_activation_name``), so a layer with
    either saves whole (``minitorch.save(model)``); a module activation is a registered child,
    any other callable a plain attribute.
    """

    @property
    def activation(self) -> Callable[[Tensor], Tensor]:
        state = self.__dict__
        if "activation" in state["_modules"]:
            return state["_modules"]["activation"]
        name = state.get("_activation_name")
        return NAMED_ACTIVATIONS[name] if name is not None else state["_activation_fn"]

    @activation.setter
    def activation(self, value: Callable[[Tensor], Tensor]) -> None:  # a module value never gets here: it registers
        names = [name for name, fn in NAMED_ACTIVATIONS.items() if fn is value]
        self.__dict__.pop("_activation_name" if not names else "_activation_fn", None)
        if names:
            self.__dict__["_activation_name"] = names[0]
        else:
            self.__dict__["_activation_fn"] = value


def _clones(module: Module, n: int) -> ModuleList:
    """``n`` independent deep copies of ``module`` (each starts with the same parameter values)."""
    return ModuleList([copy.deepcopy(module) for _ in range(n)])


def _sequence_length(src: Tensor, batch_first: bool) -> int:
    """The sequence length of ``(S, E)``, ``(S, N, E)`` or, batch first, ``(N, S, E)``."""
    return src.shape[1] if src.dim() == 3 and batch_first else src.shape[0]


def _square_causal_mask(size: int, device: Any = None, dtype: Any = None) -> Tensor:
    """``(size, size)``: 0 on and below the diagonal, -inf above (key ``j`` after query ``i``)."""
    return creation.full((size, size), -math.inf, dtype=dtype, device=device).triu(1)


def _detect_is_causal_mask(mask: Optional[Tensor], is_causal: Optional[bool], size: Optional[int]) -> bool:
    """``is_causal`` when given; otherwise whether ``mask`` equals the square causal mask of ``size``."""
    if is_causal is not None or mask is None:
        return bool(is_causal)
    size = size if size is not None else mask.shape[-2]
    causal = _square_causal_mask(size, device=mask.device, dtype=mask.dtype)
    return tuple(mask.shape) == tuple(causal.shape) and bool((mask == causal).all().item())


class TransformerEncoderLayer(_ActivationAttribute, Module):
    """Self-attention and a feed-forward network, each with a residual connection and a LayerNorm."""

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = DEFAULT_FEEDFORWARD,
                 dropout: float = DEFAULT_DROPOUT, activation: Activation = F.relu,
                 layer_norm_eps: float = DEFAULT_LAYER_NORM_EPS, batch_first: bool = False, norm_first: bool = False,
                 bias: bool = True, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        kwargs = {"device": device, "dtype": dtype}
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first, **kwargs)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **kwargs)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **kwargs)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kwargs)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kwargs)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        activation = _activation_fn(activation)
        if activation is F.relu or isinstance(activation, ReLU):
            self.activation_relu_or_gelu = RELU_ACTIVATION
        elif activation is F.gelu or isinstance(activation, GELU):
            self.activation_relu_or_gelu = GELU_ACTIVATION
        else:
            self.activation_relu_or_gelu = OTHER_ACTIVATION
        self.activation = activation

    def forward(self, src: Tensor, src_mask: Optional[Tensor] = None, src_key_padding_mask: Optional[Tensor] = None,
                is_causal: bool = False) -> Tensor:
        """``src`` ``(S, N, E)`` (``(N, S, E)`` batch first, or ``(S, E)``) through the layer."""
        src_key_padding_mask = canonical_mask(src_key_padding_mask, "src_key_padding_mask", src.dtype, src_mask, "src_mask")
        src_mask = canonical_mask(src_mask, "src_mask", src.dtype)
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal)
            return x + self._ff_block(self.norm2(x))
        x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal))
        return self.norm2(x + self._ff_block(x))

    def _sa_block(self, x: Tensor, attn_mask: Optional[Tensor], key_padding_mask: Optional[Tensor],
                  is_causal: bool = False) -> Tensor:
        out = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, need_weights=False,
                             is_causal=is_causal)[0]
        return self.dropout1(out)

    def _ff_block(self, x: Tensor) -> Tensor:
        return self.dropout2(self.linear2(self.dropout(self.activation(self.linear1(x)))))


class TransformerDecoderLayer(_ActivationAttribute, Module):
    """Self-attention over the target, attention over the memory, a feed-forward network; each residual and normed."""

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = DEFAULT_FEEDFORWARD,
                 dropout: float = DEFAULT_DROPOUT, activation: Activation = F.relu,
                 layer_norm_eps: float = DEFAULT_LAYER_NORM_EPS, batch_first: bool = False, norm_first: bool = False,
                 bias: bool = True, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        kwargs = {"device": device, "dtype": dtype}
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first, bias=bias, **kwargs)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first, bias=bias,
                                                 **kwargs)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **kwargs)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **kwargs)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kwargs)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kwargs)
        self.norm3 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kwargs)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.dropout3 = Dropout(dropout)
        self.activation = _activation_fn(activation)

    def forward(self, tgt: Tensor, memory: Tensor, tgt_mask: Optional[Tensor] = None,
                memory_mask: Optional[Tensor] = None, tgt_key_padding_mask: Optional[Tensor] = None,
                memory_key_padding_mask: Optional[Tensor] = None, tgt_is_causal: bool = False,
                memory_is_causal: bool = False) -> Tensor:
        """``tgt`` ``(T, N, E)`` through the layer, attending to ``memory`` ``(S, N, E)`` (batch first: N leads)."""
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask, memory_key_padding_mask, memory_is_causal)
            return x + self._ff_block(self.norm3(x))
        x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal))
        x = self.norm2(x + self._mha_block(x, memory, memory_mask, memory_key_padding_mask, memory_is_causal))
        return self.norm3(x + self._ff_block(x))

    def _sa_block(self, x: Tensor, attn_mask: Optional[Tensor], key_padding_mask: Optional[Tensor],
                  is_causal: bool = False) -> Tensor:
        out = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, is_causal=is_causal,
                             need_weights=False)[0]
        return self.dropout1(out)

    def _mha_block(self, x: Tensor, mem: Tensor, attn_mask: Optional[Tensor], key_padding_mask: Optional[Tensor],
                   is_causal: bool = False) -> Tensor:
        out = self.multihead_attn(x, mem, mem, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                                  is_causal=is_causal, need_weights=False)[0]
        return self.dropout2(out)

    def _ff_block(self, x: Tensor) -> Tensor:
        return self.dropout3(self.linear2(self.dropout(self.activation(self.linear1(x)))))


def _why_no_nested_tensor(layer: Module) -> str:
    """Why PyTorch would not run an encoder of copies of ``layer`` on nested tensors ("" when it would)."""
    name = "encoder_layer"
    if not isinstance(layer, TransformerEncoderLayer):
        return f"{name} was not TransformerEncoderLayer"
    if layer.norm_first:
        return f"{name}.norm_first was True"
    if not layer.self_attn.batch_first:
        return f"{name}.self_attn.batch_first was not True(use batch_first for better inference performance)"
    if not layer.self_attn._qkv_same_embed_dim:
        return f"{name}.self_attn._qkv_same_embed_dim was not True"
    if layer.self_attn.in_proj_bias is None:
        return f"{name}.self_attn was passed bias=False"
    if not layer.activation_relu_or_gelu:
        return f"{name}.activation_relu_or_gelu was not True"
    if layer.norm1.eps != layer.norm2.eps:
        return f"{name}.norm1.eps was not equal to {name}.norm2.eps"
    if layer.self_attn.num_heads % 2 == 1:
        return f"{name}.self_attn.num_heads is odd"
    return ""


def _as_left_aligned(padded: list[list[bool]]) -> list[list[bool]]:
    """Each row of ``padded`` (True: padding) as its count of real tokens followed by padding."""
    return [[i >= row.count(False) for i in range(len(row))] for row in padded]


class TransformerEncoder(Module):
    """``num_layers`` copies of ``encoder_layer`` in turn, then ``norm`` if given.

    Like PyTorch, an encoder that could run on nested tensors (``use_nested_tensor``) in
    inference (eval mode, no gradient wanted) with a left-aligned ``src_key_padding_mask``
    and no ``mask`` returns zeros at the padded positions (before ``norm``): PyTorch drops
    those positions there and pads the result back with zeros. ``mask_check=False`` skips
    the check that the padding is left-aligned, as PyTorch does (see ``_nested_padding``).
    """

    def __init__(self, encoder_layer: TransformerEncoderLayer, num_layers: int, norm: Optional[Module] = None,
                 enable_nested_tensor: bool = True, mask_check: bool = True) -> None:
        super().__init__()
        self.layers = _clones(encoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm
        self.enable_nested_tensor = enable_nested_tensor
        self.use_nested_tensor = enable_nested_tensor
        self.mask_check = mask_check
        why_not = _why_no_nested_tensor(encoder_layer)
        if enable_nested_tensor and why_not:
            warnings.warn(f"enable_nested_tensor is True, but self.use_nested_tensor is False because {why_not}",
                          stacklevel=2)
            self.use_nested_tensor = False

    def _nested_padding(self, src: Tensor, mask: Optional[Tensor], key_padding_mask: Optional[Tensor]) -> Optional[Tensor]:
        """The boolean ``(N, S)`` padding PyTorch's nested-tensor path would drop, or None when it would not run.

        The path treats every nonzero of a float mask as padding and, with ``mask_check=False``,
        a row of ``n`` real tokens as its first ``n`` positions (it does not check the row is
        left-aligned).
        """
        first = self.layers[0]
        if (not self.use_nested_tensor or first.training or src.dim() != 3 or key_padding_mask is None
                or mask is not None):
            return None
        weights = [src, *first.self_attn.parameters(), *first.norm1.parameters(), *first.norm2.parameters(),
                   *first.linear1.parameters(), *first.linear2.parameters()]
        if is_grad_enabled() and any(t.requires_grad for t in weights):
            return None
        padded = (key_padding_mask != 0).tolist()
        aligned = _as_left_aligned(padded)
        if self.mask_check and aligned != padded:
            return None
        return creation.tensor(aligned, dtype=dtypes.bool_, device=src.device)

    def forward(self, src: Tensor, mask: Optional[Tensor] = None, src_key_padding_mask: Optional[Tensor] = None,
                is_causal: Optional[bool] = None) -> Tensor:
        """``src`` through every layer; ``is_causal=None`` detects whether ``mask`` is the causal mask."""
        src_key_padding_mask = canonical_mask(src_key_padding_mask, "src_key_padding_mask", src.dtype, mask, "mask")
        mask = canonical_mask(mask, "mask", src.dtype)
        padded = self._nested_padding(src, mask, src_key_padding_mask)
        layer_padding = src_key_padding_mask if padded is None else canonical_mask(padded, "", src.dtype)
        first = self.layers[0]
        is_causal = _detect_is_causal_mask(mask, is_causal, _sequence_length(src, first.self_attn.batch_first))
        output = src
        for layer in self.layers:
            output = layer(output, src_mask=mask, is_causal=is_causal, src_key_padding_mask=layer_padding)
        if padded is not None:
            output = output.masked_fill(padded.unsqueeze(-1), 0.0)
        return self.norm(output) if self.norm is not None else output


class TransformerDecoder(Module):
    """``num_layers`` copies of ``decoder_layer`` in turn, each attending to the same memory, then ``norm`` if given."""

    def __init__(self, decoder_layer: TransformerDecoderLayer, num_layers: int, norm: Optional[Module] = None) -> None:
        super().__init__()
        self.layers = _clones(decoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, tgt: Tensor, memory: Tensor, tgt_mask: Optional[Tensor] = None,
                memory_mask: Optional[Tensor] = None, tgt_key_padding_mask: Optional[Tensor] = None,
                memory_key_padding_mask: Optional[Tensor] = None, tgt_is_causal: Optional[bool] = None,
                memory_is_causal: bool = False) -> Tensor:
        """``tgt`` through every layer; ``tgt_is_causal=None`` detects whether ``tgt_mask`` is the causal mask."""
        length = _sequence_length(tgt, self.layers[0].self_attn.batch_first)
        tgt_is_causal = _detect_is_causal_mask(tgt_mask, tgt_is_causal, length)
        output = tgt
        for layer in self.layers:
            output = layer(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                           tgt_key_padding_mask=tgt_key_padding_mask, memory_key_padding_mask=memory_key_padding_mask,
                           tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)
        return self.norm(output) if self.norm is not None else output


class Transformer(Module):
    """An encoder over the source and a decoder over the target that attends to the encoded source.

    Every parameter of two or more dimensions is re-initialised Xavier-uniform (PyTorch's choice);
    the encoder and decoder each end with a LayerNorm.
    """

    def __init__(self, d_model: int = 512, nhead: int = 8, num_encoder_layers: int = 6, num_decoder_layers: int = 6,
                 dim_feedforward: int = DEFAULT_FEEDFORWARD, dropout: float = DEFAULT_DROPOUT,
                 activation: Activation = F.relu, custom_encoder: Optional[Module] = None,
                 custom_decoder: Optional[Module] = None, layer_norm_eps: float = DEFAULT_LAYER_NORM_EPS,
                 batch_first: bool = False, norm_first: bool = False, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__()
        kwargs = {"device": device, "dtype": dtype}
        layer_args = (d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps, batch_first, norm_first, bias)
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            self.encoder = TransformerEncoder(TransformerEncoderLayer(*layer_args, **kwargs), num_encoder_layers,
                                              LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kwargs))
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            self.decoder = TransformerDecoder(TransformerDecoderLayer(*layer_args, **kwargs), num_decoder_layers,
                                              LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kwargs))
        self._reset_parameters()
        self.d_model = d_model
        self.nhead = nhead
        self.batch_first = batch_first

    def forward(self, src: Tensor, tgt: Tensor, src_mask: Optional[Tensor] = None, tgt_mask: Optional[Tensor] = None,
                memory_mask: Optional[Tensor] = None, src_key_padding_mask: Optional[Tensor] = None,
                tgt_key_padding_mask: Optional[Tensor] = None, memory_key_padding_mask: Optional[Tensor] = None,
                src_is_causal: Optional[bool] = None, tgt_is_causal: Optional[bool] = None,
                memory_is_causal: bool = False) -> Tensor:
        """Encode ``src`` ``(S, N, E)``, decode ``tgt`` ``(T, N, E)`` against it: ``(T, N, E)`` (batch first: N leads)."""
        batch_dim = 0 if self.batch_first else 1
        if src.dim() == 3 and src.shape[batch_dim] != tgt.shape[batch_dim]:
            raise RuntimeError("the batch number of src and tgt must be equal")
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise RuntimeError("the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask, is_causal=src_is_causal)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask, memory_key_padding_mask=memory_key_padding_mask,
                            tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)

    @staticmethod
    def generate_square_subsequent_mask(sz: int, device: Any = None, dtype: Any = None) -> Tensor:
        """The float causal mask ``(sz, sz)``: -inf above the diagonal (the future), 0 elsewhere."""
        return _square_causal_mask(sz, device=device, dtype=dtype)

    def _reset_parameters(self) -> None:
        """Xavier-uniform for every matrix (and higher) parameter."""
        for p in self.parameters():
            if p.dim() > 1:
                init.xavier_uniform_(p)

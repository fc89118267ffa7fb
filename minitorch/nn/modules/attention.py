r"""``MultiheadAttention``: project queries, keys and values, attend in ``num_heads`` heads, project back.

Parameters, as PyTorch names them: ``in_proj_weight`` ``(3E, E)`` stacking the query, key
and value projections (or ``q_proj_weight``/``k_proj_weight``/``v_proj_weight`` when
``kdim``/``vdim`` differ from ``embed_dim``), ``in_proj_bias`` ``(3E,)`` and the output
projection ``out_proj``. Inputs are ``(L, N, E)``, or ``(N, L, E)`` with ``batch_first``,
or unbatched ``(L, E)``. ``add_bias_kv`` adds the learned ``bias_k``/``bias_v`` ``(1, 1, E)``,
one extra key and value position; ``add_zero_attn`` one more of zeros.
"""

from __future__ import annotations

from typing import Any, Optional

from ... import creation
from ...tensor import Tensor
from .. import init
from ..functional.attention import canonical_mask, multi_head_attention
from ..parameter import Parameter
from .linear import NonDynamicallyQuantizableLinear
from .module import Module

__all__ = ["MultiheadAttention"]


class MultiheadAttention(Module):
    """Multi-head attention with PyTorch's constructor, parameters, initialization and call."""

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, bias: bool = True, add_bias_kv: bool = False,
                 add_zero_attn: bool = False, kdim: Optional[int] = None, vdim: Optional[int] = None,
                 batch_first: bool = False, device: Any = None, dtype: Any = None) -> None:
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} and num_heads={num_heads} instead")
        super().__init__()
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        assert self.head_dim * num_heads == self.embed_dim, "embed_dim must be divisible by num_heads"
        kwargs = {"device": device, "dtype": dtype}
        if not self._qkv_same_embed_dim:
            self.q_proj_weight = Parameter(creation.empty((embed_dim, embed_dim), **kwargs))
            self.k_proj_weight = Parameter(creation.empty((embed_dim, self.kdim), **kwargs))
            self.v_proj_weight = Parameter(creation.empty((embed_dim, self.vdim), **kwargs))
            self.register_parameter("in_proj_weight", None)
        else:
            self.in_proj_weight = Parameter(creation.empty((3 * embed_dim, embed_dim), **kwargs))
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(creation.empty(3 * embed_dim, **kwargs))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, **kwargs)
        if add_bias_kv:
            self.bias_k = Parameter(creation.empty((1, 1, embed_dim), **kwargs))
            self.bias_v = Parameter(creation.empty((1, 1, embed_dim), **kwargs))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self) -> None:
        """Xavier-uniform projections, zero biases, Xavier-normal ``bias_k``/``bias_v`` (PyTorch's defaults)."""
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            init.xavier_normal_(self.bias_v)

    def _projections(self) -> tuple[Tensor, Tensor, Tensor, Optional[Tensor], Optional[Tensor], Optional[Tensor]]:
        """The query, key and value weights and biases (slices of the packed ones when packed)."""
        e = self.embed_dim
        if self._qkv_same_embed_dim:
            w = self.in_proj_weight
            weights = (w[:e], w[e : 2 * e], w[2 * e :])
        else:
            weights = (self.q_proj_weight, self.k_proj_weight, self.v_proj_weight)
        b = self.in_proj_bias
        biases = (None, None, None) if b is None else (b[:e], b[e : 2 * e], b[2 * e :])
        return (*weights, *biases)

    def forward(self, query: Tensor, key: Tensor, value: Tensor, key_padding_mask: Optional[Tensor] = None,
                need_weights: bool = True, attn_mask: Optional[Tensor] = None, average_attn_weights: bool = True,
                is_causal: bool = False) -> tuple[Tensor, Optional[Tensor]]:
        """Attention output (the query's shape) and, if ``need_weights``, the attention weights."""
        if query.dim() not in (2, 3):
            raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received {query.dim()}-D query tensor")
        if is_causal and attn_mask is None:
            raise RuntimeError(
                "Need attn_mask if specifying the is_causal hint. You may use the Transformer module method "
                "`generate_square_subsequent_mask` to create this mask."
            )
        if query.shape[-1] != self.embed_dim:
            raise AssertionError(f"was expecting embedding dimension of {self.embed_dim}, but got {query.shape[-1]}")
        key_padding_mask = canonical_mask(key_padding_mask, "key_padding_mask", query.dtype, attn_mask, "attn_mask")
        attn_mask = canonical_mask(attn_mask, "attn_mask", query.dtype)
        batched = query.dim() == 3
        if not batched:
            query, key, value = query.unsqueeze(0), key.unsqueeze(0), value.unsqueeze(0)
            if key_padding_mask is not None:
                key_padding_mask = key_padding_mask.unsqueeze(0)
        elif not self.batch_first:
            query, key, value = query.transpose(0, 1), key.transpose(0, 1), value.transpose(0, 1)
        out, weights = multi_head_attention(
            query, key, value, self.num_heads, *self._projections(), self.out_proj.weight, self.out_proj.bias,
            key_padding_mask=key_padding_mask, need_weights=need_weights, attn_mask=attn_mask,
            average_attn_weights=average_attn_weights, dropout_p=self.dropout, training=self.training,
            bias_k=self.bias_k, bias_v=self.bias_v, add_zero_attn=self.add_zero_attn,
        )
        if not batched:
            return out.squeeze(0), None if weights is None else weights.squeeze(0)
        if not self.batch_first:
            out = out.transpose(0, 1)
        return out, weights

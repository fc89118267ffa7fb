r"""Recurrent layers ``RNN``, ``LSTM`` and ``GRU``: stacked, optionally bidirectional, over
padded or packed batches of sequences.

Parameters, as PyTorch names and shapes them, for layer ``k`` (``_reverse`` appended for
the backward direction), ``G`` gates (1 for RNN, 4 for LSTM, 3 for GRU) and ``P`` the
size of the hidden state (``proj_size`` for a projected LSTM, else ``hidden_size``):
``weight_ih_lk`` ``(G·H, input)``, ``weight_hh_lk`` ``(G·H, P)``, ``bias_ih_lk`` and
``bias_hh_lk`` ``(G·H,)``, and ``weight_hr_lk`` ``(P, H)`` with a projection. All start
uniform in :math:`\pm 1/\sqrt{H}`.

Each layer and direction is one input projection of all steps (one matmul) followed by
the time loop of :mod:`._rnn_scan`. A packed batch is padded once (in the order of
decreasing length) and run with a mask; the output is packed again at the end.
"""

from __future__ import annotations

import math
import numbers
import warnings
from typing import Any, NamedTuple, Optional

import numpy as np

from ... import creation, dtypes
from ...tensor import Tensor
from .. import init
from ..functional import dropout as dropout_fn
from ..functional import index_select, linear
from ..parameter import Parameter
from ..utils.rnn import PackedSequence
from ._rnn_scan import GRUScan, LSTMScan, RNNScan
from ._repr import changed_options
from .module import Module
from .rnn_cell import GRUCell, LSTMCell, RNNCell, RNNCellBase  # PyTorch keeps the cells in this module too

__all__ = ["GRU", "GRUCell", "LSTM", "LSTMCell", "RNN", "RNNBase", "RNNCell", "RNNCellBase"]

#: gates per mode: how many ``hidden_size`` blocks ``weight_ih``/``weight_hh`` stack
GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


class LayerWeights(NamedTuple):
    """The parameters of one layer in one direction (``None`` for those the layer has not)."""

    w_ih: Tensor
    w_hh: Tensor
    b_ih: Optional[Tensor]
    b_hh: Optional[Tensor]
    w_hr: Optional[Tensor]


def _check_constructor(input_size: Any, hidden_size: Any, num_layers: int, bias: Any, batch_first: Any,
                       dropout: Any, proj_size: int) -> None:
    """PyTorch's argument checks, in PyTorch's order."""
    if not isinstance(dropout, numbers.Number) or isinstance(dropout, bool) or not 0 <= dropout <= 1:
        raise ValueError("dropout should be a number in range [0, 1] representing the probability of an element being zeroed")
    if dropout > 0 and num_layers == 1:
        warnings.warn(
            "dropout option adds dropout after all but last recurrent layer, so non-zero dropout expects "
            f"num_layers greater than 1, but got dropout={dropout} and num_layers={num_layers}",
            stacklevel=3,
        )
    for name, value in (("bias", bias), ("batch_first", batch_first)):
        if not isinstance(value, bool):
            raise TypeError(f"{name} should be of type bool, got: {type(value).__name__}")
    for name, value in (("input_size", input_size), ("hidden_size", hidden_size)):
        if not isinstance(value, int):
            raise TypeError(f"{name} should be of type int, got: {type(value).__name__}")
        if value <= 0:
            raise ValueError(f"{name} must be greater than zero")
    if num_layers <= 0:
        raise ValueError("num_layers must be greater than zero")
    if proj_size < 0:
        raise ValueError("proj_size should be a positive integer or zero to disable projections")
    if proj_size >= hidden_size:
        raise ValueError("proj_size has to be smaller than hidden_size")


def _packed_layout(batch_sizes: Tensor) -> tuple[np.ndarray, np.ndarray]:
    """For a packed batch: ``rows[t, j]``, the packed row of step ``t`` of the ``j``-th longest
    sequence (0 where it has ended: a row the mask ignores), and ``running[t, j]``."""
    sizes = np.asarray(batch_sizes.tolist(), dtype=np.int64)
    offsets = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    rank = np.arange(int(sizes[0]))[None, :]
    running = rank < sizes[:, None]
    return np.where(running, offsets[:, None] + rank, 0), running


class RNNBase(Module):
    """What ``RNN``, ``LSTM`` and ``GRU`` share: parameters, checks and the loop over layers and directions."""

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False, proj_size: int = 0,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        if mode not in GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout) if isinstance(dropout, numbers.Number) else dropout
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        _check_constructor(input_size, hidden_size, num_layers, bias, batch_first, dropout, proj_size)
        gate_size = GATES[mode] * hidden_size
        state_size = proj_size if proj_size > 0 else hidden_size
        directions = 2 if bidirectional else 1
        factory = {"device": device, "dtype": dtype}
        self._flat_weights_names: list[str] = []
        self._all_weights: list[list[str]] = []
        for layer in range(num_layers):
            layer_input_size = input_size if layer == 0 else state_size * directions
            for direction in range(directions):
                shapes = {"weight_ih": (gate_size, layer_input_size), "weight_hh": (gate_size, state_size)}
                if bias:
                    shapes.update(bias_ih=(gate_size,), bias_hh=(gate_size,))
                if proj_size > 0:
                    shapes["weight_hr"] = (proj_size, hidden_size)
                suffix = "_reverse" if direction == 1 else ""
                names = [f"{kind}_l{layer}{suffix}" for kind in shapes]
                for name, shape in zip(names, shapes.values()):
                    setattr(self, name, Parameter(creation.empty(shape, **factory)))
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        r"""Every parameter uniform in :math:`[-1/\sqrt{H}, 1/\sqrt{H}]` (PyTorch's rule)."""
        bound = 1.0 / math.sqrt(self.hidden_size)
        for weight in self.parameters():
            init.uniform_(weight, -bound, bound)

    @property
    def _flat_weights(self) -> list[Optional[Tensor]]:
        return [getattr(self, name, None) for name in self._flat_weights_names]

    @property
    def all_weights(self) -> list[list[Parameter]]:
        """The parameters of each layer and direction, in PyTorch's order."""
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    def flatten_parameters(self) -> None:
        """Nothing to do: the weights are used where they are (PyTorch compacts them for cuDNN)."""

    def extra_repr(self) -> str:
        return f"{self.input_size}, {self.hidden_size}" + changed_options(self, {
            "proj_size": 0, "num_layers": 1, "bias": True, "batch_first": False, "dropout": 0, "bidirectional": False})

    # ---- checks (PyTorch's names, so subclasses written for PyTorch keep working) ----

    def check_input(self, input: Tensor, batch_sizes: Optional[Tensor]) -> None:  # noqa: A002
        weight_dtype = self.weight_ih_l0.dtype
        if input.dtype is not weight_dtype:
            raise ValueError(
                f"RNN input dtype ({input.dtype}) does not match weight dtype ({weight_dtype}). "
                f"Convert input: input.to({weight_dtype}), or convert model: model.to({input.dtype})"
            )
        expected_dim = 2 if batch_sizes is not None else 3
        if input.dim() != expected_dim:
            raise RuntimeError(f"input must have {expected_dim} dimensions, got {input.dim()}")
        if self.input_size != input.shape[-1]:
            raise RuntimeError(
                f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got {input.shape[-1]}"
            )

    def get_expected_hidden_size(self, input: Tensor, batch_sizes: Optional[Tensor]) -> tuple[int, int, int]:  # noqa: A002
        if batch_sizes is not None:
            batch = int(batch_sizes[0])
        else:
            batch = input.shape[0] if self.batch_first else input.shape[1]
        directions = 2 if self.bidirectional else 1
        size = self.proj_size if self.proj_size > 0 else self.hidden_size
        return (self.num_layers * directions, batch, size)

    def check_hidden_size(self, hx: Tensor, expected_hidden_size: tuple[int, int, int],
                          msg: str = "Expected hidden size {}, got {}") -> None:
        if tuple(hx.shape) != expected_hidden_size:
            raise RuntimeError(msg.format(expected_hidden_size, list(hx.shape)))

    def check_forward_args(self, input: Tensor, hidden: Tensor, batch_sizes: Optional[Tensor]) -> None:  # noqa: A002
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def permute_hidden(self, hx: Tensor, permutation: Optional[Tensor]) -> Tensor:
        """The batch entries of ``hx`` (dimension 1) in the order ``permutation``."""
        return hx if permutation is None else index_select(hx, 1, permutation)

    # ---- the computation ----

    def _state_sizes(self) -> tuple[int, ...]:
        """The last dimension of each state tensor: ``(P,)``, or ``(P, H)`` for an LSTM."""
        size = self.proj_size if self.proj_size > 0 else self.hidden_size
        return (size, self.hidden_size) if self.mode == "LSTM" else (size,)

    def _weights(self, layer: int, direction: int) -> LayerWeights:
        """Looked up by name on every call, so ``to()``, ``load_state_dict`` and reassigned parameters take effect."""
        suffix = "_reverse" if direction == 1 else ""
        kinds = ("weight_ih", "weight_hh", "bias_ih", "bias_hh", "weight_hr")
        return LayerWeights(*(getattr(self, f"{kind}_l{layer}{suffix}", None) for kind in kinds))

    def _run_direction(self, seq: Tensor, weights: LayerWeights, initial: tuple[Tensor, ...], mask: Optional[Tensor],
                       reverse: bool) -> tuple[Tensor, tuple[Tensor, ...]]:
        """One layer, one direction: the ``(T, B, P)`` output and the final states (each ``(B, *)``)."""
        steps, batch = seq.shape[0], seq.shape[1]
        bias = weights.b_ih
        if self.mode != "GRU" and weights.b_ih is not None:
            bias = weights.b_ih + weights.b_hh  # both only ever add to the pre-activation
        xw = linear(seq.reshape(steps * batch, seq.shape[2]), weights.w_ih, bias).view(steps, batch, weights.w_ih.shape[0])
        last = 0 if reverse else steps - 1
        if self.mode == "LSTM":
            out, c_n = LSTMScan.apply(xw, weights.w_hh, weights.w_hr, initial[0], initial[1], mask, reverse=reverse)
            return out, (out[last], c_n)
        if self.mode == "GRU":
            out = GRUScan.apply(xw, weights.w_hh, weights.b_hh, initial[0], mask, reverse=reverse)
        else:
            nonlinearity = "tanh" if self.mode == "RNN_TANH" else "relu"
            out = RNNScan.apply(xw, weights.w_hh, initial[0], mask, reverse=reverse, nonlinearity=nonlinearity)
        return out, (out[last],)

    def _run_layers(self, seq: Tensor, hidden: tuple[Tensor, ...], mask: Optional[Tensor]) -> tuple[Tensor, tuple[Tensor, ...]]:
        """All layers over ``seq`` ``(T, B, input_size)`` from the states ``hidden`` (each ``(L·D, B, *)``)."""
        directions = 2 if self.bidirectional else 1
        finals: list[tuple[Tensor, ...]] = []
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(directions):
                index = layer * directions + direction
                initial = tuple(state[index] for state in hidden)
                out, final = self._run_direction(seq, self._weights(layer, direction), initial, mask, direction == 1)
                outputs.append(out)
                finals.append(final)
            seq = outputs[0] if directions == 1 else creation.cat(outputs, dim=2)
            if self.dropout > 0 and self.training and layer < self.num_layers - 1:
                seq = dropout_fn(seq, self.dropout, training=True)
        return seq, tuple(creation.stack([final[k] for final in finals]) for k in range(len(hidden)))

    def _zeros_hidden(self, batch: int, like: Tensor) -> tuple[Tensor, ...]:
        directions = 2 if self.bidirectional else 1
        return tuple(
            creation.zeros((self.num_layers * directions, batch, size), dtype=like.dtype, device=like.device)
            for size in self._state_sizes()
        )

    def _check_hidden(self, input: Tensor, hidden: tuple[Tensor, ...], batch_sizes: Optional[Tensor]) -> None:  # noqa: A002
        if self.mode == "LSTM":
            self.check_forward_args(input, hidden, batch_sizes)
        else:
            self.check_forward_args(input, hidden[0], batch_sizes)

    def _forward_packed(self, packed: PackedSequence, hidden: Optional[tuple[Tensor, ...]]) -> tuple[PackedSequence, tuple[Tensor, ...]]:
        data, batch_sizes, sorted_indices, unsorted_indices = packed
        self.check_input(data, batch_sizes)
        rows, running = _packed_layout(batch_sizes)
        steps, batch = rows.shape
        if hidden is None:
            hidden = self._zeros_hidden(batch, data)
        self._check_hidden(data, hidden, batch_sizes)
        hidden = tuple(self.permute_hidden(h, sorted_indices) for h in hidden)
        index = creation.tensor(rows.reshape(-1), dtype=dtypes.int64, device=data.device)
        seq = index_select(data, 0, index).view(steps, batch, data.shape[1])
        mask = creation.tensor(running[:, :, None], dtype=data.dtype, device=data.device)
        out, finals = self._run_layers(seq, hidden, mask)
        step_of_row, rank_of_row = np.nonzero(running)  # row order of a packed batch: by step, then rank
        packed_rows = creation.tensor(step_of_row * batch + rank_of_row, dtype=dtypes.int64, device=data.device)
        out_data = index_select(out.reshape(steps * batch, out.shape[2]), 0, packed_rows)
        finals = tuple(self.permute_hidden(h, unsorted_indices) for h in finals)
        return PackedSequence(out_data, batch_sizes, sorted_indices, unsorted_indices), finals

    def _forward_padded(self, input: Tensor, hidden: Optional[tuple[Tensor, ...]]) -> tuple[Tensor, tuple[Tensor, ...]]:  # noqa: A002
        """``input`` of 3 dimensions, ``hidden`` already of 3 dimensions each (or ``None``)."""
        batch = input.shape[0] if self.batch_first else input.shape[1]
        if hidden is None:
            hidden = self._zeros_hidden(batch, input)
        self._check_hidden(input, hidden, None)
        seq = input.transpose(0, 1) if self.batch_first else input
        if seq.shape[0] == 0:
            raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
        out, finals = self._run_layers(seq, hidden, None)
        return (out.transpose(0, 1) if self.batch_first else out), finals

    def _forward(self, input: Any, hidden: Optional[tuple[Tensor, ...]], hidden_dims: tuple[int, ...],
                 dims_message: str) -> tuple[Any, tuple[Tensor, ...]]:
        """Dispatch on packed, batched and unbatched input; ``dims_message`` words a hidden of the wrong rank."""
        if isinstance(input, PackedSequence):
            return self._forward_packed(input, hidden)
        name = "RNN" if self.mode.startswith("RNN") else self.mode
        if input.dim() not in (2, 3):
            tensor_word = " tensor" if name == "RNN" else ""
            raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.dim()}D{tensor_word} instead")
        batched = input.dim() == 3
        if hidden is not None:
            expected = 3 if batched else 2
            if any(dim != expected for dim in hidden_dims):
                kind = "batched 3-D" if batched else "unbatched 2-D"
                raise RuntimeError(dims_message.format(kind=kind, dim=expected))
            if not batched:
                hidden = tuple(h.unsqueeze(1) for h in hidden)
        if not batched:
            input = input.unsqueeze(0 if self.batch_first else 1)
        out, finals = self._forward_padded(input, hidden)
        if not batched:
            out = out.squeeze(0 if self.batch_first else 1)
            finals = tuple(h.squeeze(1) for h in finals)
        return out, finals


class RNN(RNNBase):
    r"""Elman RNN: :math:`h_t = \tanh(x_t W_{ih}^\top + b_{ih} + h_{t-1} W_{hh}^\top + b_{hh})` (or ReLU).

    ``RNN(input_size, hidden_size, num_layers=1, nonlinearity='tanh', bias=True, batch_first=False,
    dropout=0.0, bidirectional=False)``; returns ``(output, h_n)``.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        modes = {"tanh": "RNN_TANH", "relu": "RNN_RELU"}
        if self.nonlinearity not in modes:
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__(modes[self.nonlinearity], *args, **kwargs)

    def forward(self, input: Any, hx: Optional[Tensor] = None) -> tuple[Any, Tensor]:  # noqa: A002
        dims = () if hx is None else (hx.dim(),)
        message = "For {kind} input, hx should also be {dim}-D but got " + (f"{dims[0]}-D tensor" if dims else "")
        out, (h_n,) = self._forward(input, None if hx is None else (hx,), dims, message)
        return out, h_n


class LSTM(RNNBase):
    r"""Long short-term memory, optionally with a projection of the hidden state (``proj_size``).

    ``LSTM(input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
    bidirectional=False, proj_size=0)``; returns ``(output, (h_n, c_n))``.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__("LSTM", *args, **kwargs)

    def get_expected_cell_size(self, input: Tensor, batch_sizes: Optional[Tensor]) -> tuple[int, int, int]:  # noqa: A002
        expected = self.get_expected_hidden_size(input, batch_sizes)
        return (expected[0], expected[1], self.hidden_size)

    def check_forward_args(self, input: Tensor, hidden: tuple[Tensor, Tensor],  # type: ignore[override] # noqa: A002
                           batch_sizes: Optional[Tensor]) -> None:
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden[0], self.get_expected_hidden_size(input, batch_sizes), "Expected hidden[0] size {}, got {}")
        self.check_hidden_size(hidden[1], self.get_expected_cell_size(input, batch_sizes), "Expected hidden[1] size {}, got {}")

    def permute_hidden(self, hx: Any, permutation: Optional[Tensor]) -> Any:
        if isinstance(hx, tuple):
            return tuple(super(LSTM, self).permute_hidden(h, permutation) for h in hx)
        return super().permute_hidden(hx, permutation)

    def forward(self, input: Any, hx: Optional[tuple[Tensor, Tensor]] = None) -> tuple[Any, tuple[Tensor, Tensor]]:  # noqa: A002
        dims = () if hx is None else (hx[0].dim(), hx[1].dim())
        message = "For {kind} input, hx and cx should also be {dim}-D but got " + (
            f"({dims[0]}-D, {dims[1]}-D) tensors" if dims else ""
        )
        out, (h_n, c_n) = self._forward(input, None if hx is None else (hx[0], hx[1]), dims, message)
        return out, (h_n, c_n)


class GRU(RNNBase):
    r"""Gated recurrent unit.

    ``GRU(input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
    bidirectional=False)``; returns ``(output, h_n)``.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input: Any, hx: Optional[Tensor] = None) -> tuple[Any, Tensor]:  # noqa: A002
        dims = () if hx is None else (hx.dim(),)
        message = "For {kind} input, hx should also be {dim}-D but got " + (f"{dims[0]}-D tensor" if dims else "")
        out, (h_n,) = self._forward(input, None if hx is None else (hx,), dims, message)
        return out, h_n

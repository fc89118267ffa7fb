r"""One step of a recurrent layer: ``RNNCell``, ``LSTMCell`` and ``GRUCell``.

Parameters as PyTorch names them: ``weight_ih`` ``(G·H, input_size)``, ``weight_hh``
``(G·H, H)``, ``bias_ih`` and ``bias_hh`` ``(G·H,)``, all uniform in :math:`\pm 1/\sqrt{H}`.
A cell takes a batch ``(B, input_size)`` or one sample ``(input_size,)``. Its step is the
time loop of :mod:`._rnn_scan` run for one step, so a cell and a layer compute alike.
"""

from __future__ import annotations

import math
from typing import Any, Optional

from ... import creation
from ...tensor import Tensor
from .. import init
from ..functional import linear
from ..parameter import Parameter
from ._rnn_scan import NONLINEARITIES, GRUScan, LSTMScan, RNNScan
from ._repr import changed_options
from .module import Module

__all__ = ["GRUCell", "LSTMCell", "RNNCell", "RNNCellBase"]


class RNNCellBase(Module):
    """The parameters and checks the three cells share."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool, num_chunks: int, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        factory = {"device": device, "dtype": dtype}
        self.weight_ih = Parameter(creation.empty((num_chunks * hidden_size, input_size), **factory))
        self.weight_hh = Parameter(creation.empty((num_chunks * hidden_size, hidden_size), **factory))
        if bias:
            self.bias_ih = Parameter(creation.empty(num_chunks * hidden_size, **factory))
            self.bias_hh = Parameter(creation.empty(num_chunks * hidden_size, **factory))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        r"""Every parameter uniform in :math:`[-1/\sqrt{H}, 1/\sqrt{H}]` (PyTorch's rule)."""
        bound = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -bound, bound)

    def extra_repr(self) -> str:
        defaults = {"bias": True, "nonlinearity": "tanh"} if hasattr(self, "nonlinearity") else {"bias": True}
        return f"{self.input_size}, {self.hidden_size}" + changed_options(self, defaults)

    def _batched(self, input: Tensor, hidden: Optional[tuple[Tensor, ...]], states: int) -> tuple[Tensor, tuple[Tensor, ...], bool]:  # noqa: A002
        """``input`` as ``(B, input_size)``, the states as ``(B, H)`` (zeros if not given), and whether it was a batch.

        Checks the shapes as PyTorch's cell kernels do, in their words.
        """
        batched = input.dim() == 2
        if not batched:
            input = input.unsqueeze(0)
        if hidden is None:
            zeros = creation.zeros((input.shape[0], self.hidden_size), dtype=input.dtype, device=input.device)
            hidden = (zeros,) * states
        elif not batched:
            hidden = tuple(h.unsqueeze(0) for h in hidden)
        if input.size(1) != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input.size(1)} expected {self.input_size}")
        for label, h in enumerate(hidden):
            if input.size(0) != h.size(0):
                raise RuntimeError(f"Input batch size {input.size(0)} doesn't match hidden{label} batch size {h.size(0)}")
            if h.size(1) != self.hidden_size:
                raise RuntimeError(f"hidden{label} has inconsistent hidden_size: got {h.size(1)}, expected {self.hidden_size}")
        return input, hidden, batched

    def _check_dims(self, input: Tensor, hx: Optional[Tensor]) -> None:  # noqa: A002
        name = type(self).__name__
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if hx is not None and hx.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected hidden to be 1D or 2D, got {hx.dim()}D instead")


class RNNCell(RNNCellBase):
    r""":math:`h' = \tanh(x W_{ih}^\top + b_{ih} + h W_{hh}^\top + b_{hh})` (or ReLU); ``h`` defaults to zeros."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, nonlinearity: str = "tanh",
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input: Tensor, hx: Optional[Tensor] = None) -> Tensor:  # noqa: A002
        self._check_dims(input, hx)
        if self.nonlinearity not in NONLINEARITIES:
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        input, (h,), batched = self._batched(input, None if hx is None else (hx,), states=1)
        bias = None if self.bias_ih is None else self.bias_ih + self.bias_hh
        xw = linear(input, self.weight_ih, bias).unsqueeze(0)
        out = RNNScan.apply(xw, self.weight_hh, h, None, nonlinearity=self.nonlinearity)[0]
        return out if batched else out.squeeze(0)


class LSTMCell(RNNCellBase):
    r"""One LSTM step: returns ``(h', c')`` from ``input`` and ``(h, c)`` (zeros if not given).

    .. math::
        (i, f, g, o) = (\sigma, \sigma, \tanh, \sigma)(x W_{ih}^\top + b_{ih} + h W_{hh}^\top + b_{hh}), \quad
        c' = f c + i g, \quad h' = o \tanh c'
    """

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device: Any = None, dtype: Any = None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device, dtype=dtype)

    def forward(self, input: Tensor, hx: Optional[tuple[Tensor, Tensor]] = None) -> tuple[Tensor, Tensor]:  # noqa: A002
        if input.dim() not in (1, 2):
            raise ValueError(f"LSTMCell: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if hx is not None:
            for index, value in enumerate(hx):
                if value.dim() not in (1, 2):
                    raise ValueError(f"LSTMCell: Expected hx[{index}] to be 1D or 2D, got {value.dim()}D instead")
            if len(hx) != 2:
                raise RuntimeError("lstm_cell expects two hidden states")
        input, (h, c), batched = self._batched(input, None if hx is None else tuple(hx), states=2)
        bias = None if self.bias_ih is None else self.bias_ih + self.bias_hh
        xw = linear(input, self.weight_ih, bias).unsqueeze(0)
        states, c_new = LSTMScan.apply(xw, self.weight_hh, None, h, c, None)
        h_new = states[0]
        return (h_new, c_new) if batched else (h_new.squeeze(0), c_new.squeeze(0))


class GRUCell(RNNCellBase):
    r"""One GRU step: :math:`r, z = \sigma(\cdot)`, :math:`n = \tanh(x W_{in}^\top + b_{in} + r (h W_{hn}^\top + b_{hn}))`,
    :math:`h' = (1 - z) n + z h`; ``h`` defaults to zeros."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device: Any = None, dtype: Any = None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device, dtype=dtype)

    def forward(self, input: Tensor, hx: Optional[Tensor] = None) -> Tensor:  # noqa: A002
        self._check_dims(input, hx)
        input, (h,), batched = self._batched(input, None if hx is None else (hx,), states=1)
        xw = linear(input, self.weight_ih, self.bias_ih).unsqueeze(0)
        out = GRUScan.apply(xw, self.weight_hh, self.bias_hh, h, None)[0]
        return out if batched else out.squeeze(0)

"""Raw fused LSTM time loop: check the operands, allocate the sequence buffers, run the backend's
:class:`~.backends.base.RecurrentKernels`.

The dispatch layer of :class:`minitorch.nn.modules._rnn_scan.LSTMScan` (no graph recorded), as
:mod:`.dispatch` is for the other ops. The kernels index their buffers without bounds checks,
so every shape, dtype and layout is checked here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple, cast

from . import dtypes
from .backends.base import RecurrentKernels, offers
from .dispatch import _result, backend_of

if TYPE_CHECKING:
    from .tensor import Tensor

#: the dtypes the fused kernels take
FUSED_DTYPES = (dtypes.float32, dtypes.float64)
#: gates of an LSTM (i, f, g, o)
GATES = 4


class LstmSequence(NamedTuple):
    """What the forward pass leaves: the states of every step and what backward reads."""

    hs: "Tensor"  # (T, B, H) hidden states
    cs: "Tensor"  # (T, B, H) cell states
    gates: "Tensor"  # (T, B, 4H) i, f, g, o
    slopes: "Tensor"  # (T, B, 4H) each gate's derivative with respect to its pre-activation
    tanh_c: "Tensor"  # (T, B, H)


def fused_lstm_fits(xw: "Tensor", w_hh: "Tensor", h0: "Tensor", c0: "Tensor") -> bool:
    """Whether :func:`lstm_forward_op` takes these: ``xw`` ``(T, B, 4H)``, ``w_hh`` ``(4H, H)``,
    ``h0`` and ``c0`` ``(B, H)`` (no projection), one float dtype and one device, whose backend
    offers the kernels."""
    shapes = (xw._data.shape, w_hh._data.shape, h0._data.shape, c0._data.shape)
    if len(shapes[0]) != 3 or any(len(shape) != 2 for shape in shapes[1:]):
        return False
    steps, batch, width = shapes[0]
    size = shapes[3][1]
    return (
        width == GATES * size and shapes[1] == (width, size) and shapes[2] == (batch, size) == shapes[3]
        and xw._data.dtype in FUSED_DTYPES
        and all(t._data.dtype is xw._data.dtype and t._device == xw._device for t in (w_hh, h0, c0))
        and offers(backend_of(xw), RecurrentKernels)
    )


def _kernels(xw: "Tensor", w_hh: "Tensor", h0: "Tensor", c0: "Tensor") -> RecurrentKernels:
    """``xw``'s backend, once the operands are checked (ValueError naming them otherwise)."""
    if not fused_lstm_fits(xw, w_hh, h0, c0):
        described = ", ".join(f"{name} {list(t.shape)} {t.dtype} {t.device}"
                              for name, t in (("xw", xw), ("w_hh", w_hh), ("h0", h0), ("c0", c0)))
        raise ValueError(f"lstm kernel: the {backend_of(xw).name} backend's fused LSTM takes xw (T, B, 4H), "
                         f"w_hh (4H, H), h0 and c0 (B, H), float32 or float64 on one device; got {described}")
    return cast(RecurrentKernels, backend_of(xw))


def lstm_forward_op(xw: "Tensor", w_hh: "Tensor", h0: "Tensor", c0: "Tensor", reverse: bool) -> LstmSequence:
    """Every step of one LSTM direction over ``xw`` (the input's share of the gates, biases in)."""
    kernels = _kernels(xw, w_hh, h0, c0)
    xw, c0 = xw.contiguous(), c0.contiguous()
    steps, batch, width = xw._data.shape
    size = width // GATES
    dtype, device = xw._data.dtype, xw._device
    sequence = LstmSequence(
        hs=_result((steps, batch, size), dtype, device), cs=_result((steps, batch, size), dtype, device),
        gates=_result((steps, batch, width), dtype, device), slopes=_result((steps, batch, width), dtype, device),
        tanh_c=_result((steps, batch, size), dtype, device),
    )
    if steps and batch and size:
        hw = _result((batch, width), dtype, device)
        # one copy of W_hh^T laid out row by row: each step's matmul reads it faster (49 vs 59 us
        # for (32, 128) @ (128, 512) float32)
        w_hh_t = w_hh.t().contiguous()
        kernels.lstm_forward(xw._data, w_hh_t._data, h0._data, c0._data, reverse, sequence.gates._data,
                             sequence.slopes._data, sequence.tanh_c._data, sequence.cs._data, sequence.hs._data,
                             hw._data)
    return sequence


def lstm_backward_op(grad: "Tensor", w_hh: "Tensor", c0: "Tensor", sequence: LstmSequence,
                     reverse: bool) -> tuple["Tensor", "Tensor", "Tensor"]:
    """``(grad_pre, grad_h0, grad_c0)`` from ``grad`` ``(T, B, 2H)``, the gradients of the hidden and
    cell states of every step side by side."""
    steps, batch, width = sequence.gates._data.shape
    size = width // GATES
    dtype, device = sequence.gates._data.dtype, sequence.gates._device
    if grad._data.shape != (steps, batch, 2 * size) or grad._data.dtype is not dtype or grad._device != device:
        raise ValueError(f"lstm backward: the gradient must be {[steps, batch, 2 * size]} {dtype} on {device}; "
                         f"got {list(grad.shape)} {grad.dtype} {grad.device}")
    kernels = _kernels(sequence.gates, w_hh, c0, c0)  # the gates stand where xw stood: (T, B, 4H)
    grad, c0 = grad.contiguous(), c0.contiguous()
    grad_pre = _result((steps, batch, width), dtype, device)
    grad_h0, grad_c0 = _result((batch, size), dtype, device), _result((batch, size), dtype, device)
    if steps and batch and size:
        kernels.lstm_backward(grad._data, w_hh._data, reverse, sequence.gates._data, sequence.slopes._data,
                              sequence.tanh_c._data, sequence.cs._data, c0._data, grad_h0._data,
                              grad_c0._data, grad_pre._data)
    return grad_pre, grad_h0, grad_c0

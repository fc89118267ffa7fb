"""Raw fused LSTM and GRU time loops: check the operands, allocate the sequence buffers, run the
backend's :class:`~.backends.base.RecurrentKernels`.

The dispatch layer of :class:`minitorch.nn.modules._rnn_scan.LSTMScan` and ``GRUScan`` (no graph recorded), as
:mod:`.dispatch` is for the other ops. The kernels index their buffers without bounds checks,
so every shape, dtype and layout is checked here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple, Optional, cast

from . import dtypes
from .backends.base import RecurrentKernels, offers
from .dispatch import _result, backend_of, map_op

if TYPE_CHECKING:
    from .tensor import Tensor

#: the dtypes the fused kernels take
FUSED_DTYPES = (dtypes.float32, dtypes.float64)
#: gates of an LSTM (i, f, g, o)
LSTM_GATES = 4
#: gates of a GRU (r, z, n)
GRU_GATES = 3


class LstmSequence(NamedTuple):
    """What the forward pass leaves: the states of every step and what backward reads."""

    hs: "Tensor"  # (T, B, H) hidden states
    cs: "Tensor"  # (T, B, H) cell states
    gates: "Tensor"  # (T, B, 4H) i, f, g, o
    slopes: "Tensor"  # (T, B, 4H) each gate's derivative with respect to its pre-activation
    tanh_c: "Tensor"  # (T, B, H)


def _fits(gates: int, xw: "Tensor", w_hh: "Tensor", *states: "Tensor") -> bool:
    """``xw`` ``(T, B, gates * H)``, ``w_hh`` ``(gates * H, H)``, each state ``(B, H)``; one float
    dtype and one device, whose backend offers the kernels."""
    shapes = (xw._data.shape, w_hh._data.shape, *(state._data.shape for state in states))
    if len(shapes[0]) != 3 or any(len(shape) != 2 for shape in shapes[1:]):
        return False
    steps, batch, width = shapes[0]
    size = shapes[-1][1]
    return (
        width == gates * size and shapes[1] == (width, size) and all(shape == (batch, size) for shape in shapes[2:])
        and xw._data.dtype in FUSED_DTYPES
        and all(t._data.dtype is xw._data.dtype and t._device == xw._device for t in (w_hh, *states))
        and offers(backend_of(xw), RecurrentKernels)
    )


def fused_lstm_fits(xw: "Tensor", w_hh: "Tensor", h0: "Tensor", c0: "Tensor") -> bool:
    """Whether :func:`lstm_forward_op` takes these: ``xw`` ``(T, B, 4H)``, ``w_hh`` ``(4H, H)``,
    ``h0`` and ``c0`` ``(B, H)`` (no projection), one float dtype and one device, whose backend
    offers the kernels."""
    return _fits(LSTM_GATES, xw, w_hh, h0, c0)


def fused_gru_fits(xw: "Tensor", w_hh: "Tensor", b_hh: "Optional[Tensor]", h0: "Tensor") -> bool:
    """Whether :func:`gru_forward_op` takes these: ``xw`` ``(T, B, 3H)``, ``w_hh`` ``(3H, H)``,
    ``b_hh`` ``(3H,)`` or None and ``h0`` ``(B, H)``, as :func:`fused_lstm_fits`."""
    bias_fits = b_hh is None or (
        b_hh._data.shape == (w_hh._data.shape[0],) and b_hh._data.dtype is xw._data.dtype and b_hh._device == xw._device
    )
    return bias_fits and _fits(GRU_GATES, xw, w_hh, h0)


def _checked_backend(fits: bool, layer: str, takes: str, **operands: "Optional[Tensor]") -> RecurrentKernels:
    """The first operand's backend when the operands ``fits``, else a ValueError naming each of them."""
    first = next(iter(operands.values()))
    if not fits:
        described = ", ".join(f"{name} {list(t.shape)} {t.dtype} {t.device}"
                              for name, t in operands.items() if t is not None)
        raise ValueError(f"{layer.lower()} kernel: the {backend_of(first).name} backend's fused {layer} takes {takes}, "
                         f"float32 or float64 on one device; got {described}")
    return cast(RecurrentKernels, backend_of(first))


def _kernels(xw: "Tensor", w_hh: "Tensor", h0: "Tensor", c0: "Tensor") -> RecurrentKernels:
    """``xw``'s backend, once the operands are checked (ValueError naming them otherwise)."""
    return _checked_backend(fused_lstm_fits(xw, w_hh, h0, c0), "LSTM", "xw (T, B, 4H), w_hh (4H, H), h0 and c0 (B, H)",
                            xw=xw, w_hh=w_hh, h0=h0, c0=c0)


def lstm_forward_op(xw: "Tensor", w_hh: "Tensor", h0: "Tensor", c0: "Tensor", reverse: bool) -> LstmSequence:
    """Every step of one LSTM direction over ``xw`` (the input's share of the gates, biases in)."""
    kernels = _kernels(xw, w_hh, h0, c0)
    xw, c0 = xw.contiguous(), c0.contiguous()
    steps, batch, width = xw._data.shape
    size = width // LSTM_GATES
    dtype, device = xw._data.dtype, xw._device
    sequence = LstmSequence(
        hs=_result((steps, batch, size), dtype, device), cs=_result((steps, batch, size), dtype, device),
        gates=_result((steps, batch, width), dtype, device), slopes=_result((steps, batch, width), dtype, device),
        tanh_c=_result((steps, batch, size), dtype, device),
    )
    if steps and batch and size:
        hw = _result((batch, width), dtype, device)
        # W_hh^T as a view: the backend packs it once for all steps, from any layout
        kernels.lstm_forward(xw._data, w_hh.t()._data, h0._data, c0._data, reverse, sequence.gates._data,
                             sequence.slopes._data, sequence.tanh_c._data, sequence.cs._data, sequence.hs._data,
                             hw._data)
    return sequence


def _zeros(shape: tuple[int, ...], like: "Tensor") -> "Tensor":
    """New zeros of ``shape`` in ``like``'s dtype and on its device."""
    zeros = _result(shape, like._data.dtype, like._device)
    zeros._raw_fill(0)
    return zeros


def _checked_gradient(grad: "Tensor", what: str, shape: tuple[int, ...], like: "Tensor") -> "Tensor":
    """``grad``, once it is of ``shape`` and of ``like``'s dtype and device (a ValueError naming them otherwise)."""
    dtype, device = like._data.dtype, like._device
    if grad._data.shape != shape or grad._data.dtype is not dtype or grad._device != device:
        raise ValueError(f"lstm backward: the gradient of the {what} must be {list(shape)} {dtype} on {device}; "
                         f"got {list(grad.shape)} {grad.dtype} {grad.device}")
    return grad


def lstm_backward_op(grad_h: "Optional[Tensor]", grad_c: "Optional[Tensor]", w_hh: "Tensor", c0: "Tensor",
                     sequence: LstmSequence, reverse: bool) -> tuple["Tensor", "Tensor", "Tensor"]:
    """``(grad_pre, grad_h0, grad_c0)`` from ``grad_h`` ``(T, B, H)``, the gradient of the hidden
    state of every step, and ``grad_c`` ``(B, H)``, that of the final cell state (None: zero)."""
    steps, batch, width = sequence.gates._data.shape
    size = width // LSTM_GATES
    gates = sequence.gates
    if grad_h is None:
        grad_h = _zeros((steps, batch, size), gates)
    else:  # only read by the kernels
        grad_h = _checked_gradient(grad_h, "hidden states", (steps, batch, size), gates).contiguous()
    # the cell gradient is carried back in place, from the final state's to c0's: a copy of its own
    grad_c0 = (_zeros((batch, size), gates) if grad_c is None
               else map_op("copy", _checked_gradient(grad_c, "final cell state", (batch, size), gates)))
    grad_h0 = _zeros((batch, size), gates)  # h_n's own gradient arrives in grad_h
    kernels = _kernels(gates, w_hh, c0, c0)  # the gates stand where xw stood: (T, B, 4H)
    c0 = c0.contiguous()
    grad_pre = _result((steps, batch, width), gates._data.dtype, gates._device)
    if steps and batch and size:
        kernels.lstm_backward(grad_h._data, w_hh._data, reverse, gates._data, sequence.slopes._data,
                              sequence.tanh_c._data, sequence.cs._data, c0._data, grad_h0._data,
                              grad_c0._data, grad_pre._data)
    return grad_pre, grad_h0, grad_c0


class GruSequence(NamedTuple):
    """What a GRU forward pass leaves: the states of every step and what backward reads."""

    hs: "Tensor"  # (T, B, H) hidden states
    rzn: "Tensor"  # (T, B, 3H) the gates r, z, n
    hwn: "Tensor"  # (T, B, H) the hidden state's share of n, bias in


def gru_forward_op(xw: "Tensor", w_hh: "Tensor", b_hh: "Optional[Tensor]", h0: "Tensor", reverse: bool) -> GruSequence:
    """Every step of one GRU direction over ``xw`` (the input's share of the gates, ``b_ih`` in)."""
    kernels = _checked_backend(fused_gru_fits(xw, w_hh, b_hh, h0), "GRU",
                               "xw (T, B, 3H), w_hh (3H, H), b_hh (3H,) or none, h0 (B, H)",
                               xw=xw, w_hh=w_hh, b_hh=b_hh, h0=h0)
    xw, h0 = xw.contiguous(), h0.contiguous()
    steps, batch, width = xw._data.shape
    size = width // GRU_GATES
    dtype, device = xw._data.dtype, xw._device
    sequence = GruSequence(hs=_result((steps, batch, size), dtype, device),
                           rzn=_result((steps, batch, width), dtype, device),
                           hwn=_result((steps, batch, size), dtype, device))
    if steps and batch and size:
        bias = _result((0,), dtype, device) if b_hh is None else b_hh.contiguous()
        kernels.gru_forward(xw._data, w_hh.t()._data, bias._data, h0._data, reverse, sequence.rzn._data,
                            sequence.hwn._data, sequence.hs._data, _result((batch, width), dtype, device)._data)
    return sequence


def gru_backward_op(grad: "Tensor", w_hh: "Tensor", h0: "Tensor", sequence: GruSequence,
                    reverse: bool) -> tuple["Tensor", "Tensor", "Tensor"]:
    """``(grad_xw, grad_hw, grad_h0)`` from ``grad`` ``(T, B, H)``, the gradients of every step's state:
    ``grad_hw`` ``(T, B, 3H)`` is the gradient of each step's ``h_{t-1} W_hh^T + b_hh``."""
    steps, batch, width = sequence.rzn._data.shape
    size = width // GRU_GATES
    dtype, device = sequence.rzn._data.dtype, sequence.rzn._device
    if grad._data.shape != (steps, batch, size) or grad._data.dtype is not dtype or grad._device != device:
        raise ValueError(f"gru backward: the gradient must be {[steps, batch, size]} {dtype} on {device}; "
                         f"got {list(grad.shape)} {grad.dtype} {grad.device}")
    if not fused_gru_fits(sequence.rzn, w_hh, None, h0):
        raise ValueError(f"gru backward: w_hh {list(w_hh.shape)} and h0 {list(h0.shape)} do not fit the "
                         f"forward's gates {[steps, batch, width]} ({dtype} on {device})")
    kernels = cast(RecurrentKernels, backend_of(grad))
    grad = grad.contiguous()
    grad_x, grad_hw = _result((steps, batch, width), dtype, device), _result((steps, batch, width), dtype, device)
    grad_h0, direct = _result((batch, size), dtype, device), _result((batch, size), dtype, device)
    if steps and batch and size:
        kernels.gru_backward(grad._data, w_hh._data, reverse, sequence.rzn._data, sequence.hwn._data,
                             sequence.hs._data, h0.contiguous()._data, grad_h0._data, direct._data,
                             grad_x._data, grad_hw._data)
    return grad_x, grad_hw, grad_h0

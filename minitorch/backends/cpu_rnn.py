r"""One LSTM or GRU time step in one kernel each way: the CPU's :class:`~.base.RecurrentKernels`.

With :math:`a = xw_t + h_{t-1} W_{hh}^\top` (the matmul runs before the kernel) in PyTorch's
gate order :math:`i, f, g, o`, the forward step is

.. math::
    i = \sigma(a_i), \; f = \sigma(a_f), \; g = \tanh(a_g) = 2\sigma(2a_g) - 1, \; o = \sigma(a_o),
    \quad c_t = f c_{t-1} + i g, \quad h_t = o \tanh c_t

and the backward step, from the gradients :math:`\delta h`, :math:`\delta c` reaching the step
(what later steps carried back, plus the output's own for :math:`\delta h`),

.. math::
    \delta c \mathrel{+}= \delta h\, o\, (1 - \tanh^2 c_t), \quad
    \delta a = (\delta c\, g,\; \delta c\, c_{t-1},\; \delta c\, i,\; \delta h \tanh c_t) \odot
    \sigma'_{\mathrm{gates}}, \quad \delta c_{t-1} = \delta c\, f

(:math:`\delta h_{t-1} = \delta a\, W_{hh}` is the next matmul). Written with the primitives,
as :func:`minitorch.nn.modules._rnn_scan.lstm_step` is, a step is a dozen ops forward and more
backward, each a few microseconds of Python on a ``(32, 128)`` state: more than the arithmetic.
Here each step is one pass over the state, and the sequence's buffers ``(T, B, ...)`` are
written in place at step ``t``.

Buffers: ``xw``, ``gates`` (the gate values, ``g`` as tanh), ``slopes`` (each gate's derivative
with respect to its pre-activation) and ``grad_pre`` are ``(T, B, 4H)``; ``tanh_c``, ``cs`` and
``hs`` are ``(T, B, H)``; ``hw``, ``c0``, ``carried_c`` are ``(B, H)`` or ``(B, 4H)``. All are
contiguous, of one float dtype; the caller (:mod:`minitorch.rnn_dispatch`) has checked them.
The gates use the same sigmoid and tanh as the primitives (:mod:`.vector_math` in float32).
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np
from numba import njit, types
from numba.extending import overload

from ..tensor_data import TensorData
from . import kernel_cache
from .cpu_kernels import KERNEL_OPTIONS, SCALAR_OPTIONS
from .vector_math import sigmoid32, tanh32

#: ``matmul(a, b, out)``: the backend's product of two matrices into ``out``
Matmul = Callable[[TensorData, TensorData, TensorData], None]

# cached under a digest of this file's source (see :mod:`.kernel_cache`)
kernel_cache.register(__file__)


def gate_sigmoid(x: Any) -> Any:
    r""":math:`\sigma(x)` in ``x``'s precision, in the form that cannot overflow on either side."""
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    z = math.exp(x)
    return z / (1.0 + z)


def _float32_sigmoid(x: Any) -> Any:
    return sigmoid32(x)  # the float32 primitive's own sigmoid


@overload(gate_sigmoid, inline="always", jit_options=SCALAR_OPTIONS)
def _gate_sigmoid(x: Any) -> Any:
    return _float32_sigmoid if x == types.float32 else gate_sigmoid


def gate_tanh(x: Any) -> Any:
    r""":math:`\tanh x` in ``x``'s precision."""
    return math.tanh(x)


def _float32_tanh(x: Any) -> Any:
    return tanh32(x)  # the float32 primitive's own tanh


@overload(gate_tanh, inline="always", jit_options=SCALAR_OPTIONS)
def _gate_tanh(x: Any) -> Any:
    return _float32_tanh if x == types.float32 else gate_tanh


@njit(inline="always", **KERNEL_OPTIONS)
def _block(row: np.ndarray, index: int, size: int) -> np.ndarray:
    """Block ``index`` (``i, f, g, o = 0, 1, 2, 3``) of ``size`` elements of a row of gates, as a view."""
    return row[index * size : (index + 1) * size]


@njit(**KERNEL_OPTIONS)
def lstm_forward_kernel(
    t: int, prev: int, xw: np.ndarray, hw: np.ndarray, c0: np.ndarray,
    gates: np.ndarray, slopes: np.ndarray, tanh_c: np.ndarray, cs: np.ndarray, hs: np.ndarray,
) -> None:
    """Step ``t`` from step ``prev``'s cell state (``c0`` when ``prev < 0``).

    Per row, plain loops over few arrays, which LLVM runs in SIMD lanes: the sigmoids of each
    gate block, then the states. (Per step of a (32, 128) float32 state, on the reference
    machine: one loop over all ten arrays 221 us, the four blocks in one loop that branches on
    the block 77 us, these loops 39 us.)
    """
    batch, size = c0.shape
    one, two, four = xw.dtype.type(1), xw.dtype.type(2), xw.dtype.type(4)
    for b in range(batch):
        x, h_share, gate, slope = xw[t, b], hw[b], gates[t, b], slopes[t, b]
        for k in range(2 * size):  # i and f
            s = gate_sigmoid(x[k] + h_share[k])
            gate[k] = s
            slope[k] = s - s * s
        x_g, h_g, g, slope_g = _block(x, 2, size), _block(h_share, 2, size), _block(gate, 2, size), _block(slope, 2, size)
        for k in range(size):  # g = tanh a = 2 sigma(2a) - 1, its slope 4 sigma'(2a)
            s = gate_sigmoid((x_g[k] + h_g[k]) * two)
            g[k] = s * two - one
            slope_g[k] = (s - s * s) * four
        x_o, h_o, o, slope_o = _block(x, 3, size), _block(h_share, 3, size), _block(gate, 3, size), _block(slope, 3, size)
        for k in range(size):  # o
            s = gate_sigmoid(x_o[k] + h_o[k])
            o[k] = s
            slope_o[k] = s - s * s
        c_old = c0[b] if prev < 0 else cs[prev, b]
        i, f = _block(gate, 0, size), _block(gate, 1, size)
        tanh_row, c_row, h_row = tanh_c[t, b], cs[t, b], hs[t, b]
        for j in range(size):
            c = f[j] * c_old[j] + i[j] * g[j]
            tanh_of_c = gate_tanh(c)
            tanh_row[j] = tanh_of_c
            c_row[j] = c
            h_row[j] = o[j] * tanh_of_c


@njit(**KERNEL_OPTIONS)
def lstm_backward_kernel(
    t: int, prev: int, grad: np.ndarray, carried_h: np.ndarray, carried_c: np.ndarray,
    gates: np.ndarray, slopes: np.ndarray, tanh_c: np.ndarray, cs: np.ndarray, c0: np.ndarray,
    grad_pre: np.ndarray,
) -> None:
    """Step ``t``'s pre-activation gradient into ``grad_pre[t]``; ``carried_c`` becomes the cell
    state's gradient one step back. ``grad`` ``(T, B, H)``: the gradient of each step's hidden state."""
    batch, size = c0.shape
    for b in range(batch):
        outer_h, d_h_row, d_c_row = grad[t, b], carried_h[b], carried_c[b]
        gate, slope, tanh_row = gates[t, b], slopes[t, b], tanh_c[t, b]
        c_old, d_pre = c0[b] if prev < 0 else cs[prev, b], grad_pre[t, b]
        i, f, g, o = _block(gate, 0, size), _block(gate, 1, size), _block(gate, 2, size), _block(gate, 3, size)
        slope_i, slope_f = _block(slope, 0, size), _block(slope, 1, size)
        slope_g, slope_o = _block(slope, 2, size), _block(slope, 3, size)
        d_i, d_f, d_g, d_o = _block(d_pre, 0, size), _block(d_pre, 1, size), _block(d_pre, 2, size), _block(d_pre, 3, size)
        for j in range(size):
            d_h = d_h_row[j] + outer_h[j]
            d_c = d_c_row[j]
            tanh_of_c = tanh_row[j]
            d_out_o = d_h * o[j]
            d_c = d_c + d_out_o - d_out_o * tanh_of_c * tanh_of_c
            d_i[j] = d_c * g[j] * slope_i[j]
            d_f[j] = d_c * c_old[j] * slope_f[j]
            d_g[j] = d_c * i[j] * slope_g[j]
            d_o[j] = d_h * tanh_of_c * slope_o[j]
            d_c_row[j] = d_c * f[j]


def _array(td: TensorData) -> np.ndarray:
    """The contiguous view ``td`` as a NumPy array of its shape (the kernels index it unchecked)."""
    if not td.is_contiguous():
        raise ValueError(f"the recurrent kernels take contiguous buffers; got shape {td.shape}, strides {td.strides}")
    return td.storage[td.offset : td.offset + td.size].reshape(td.shape)


def _step_view(sequence: TensorData, t: int) -> TensorData:
    """Step ``t`` of a contiguous ``(T, B, H)`` buffer, as a ``(B, H)`` view."""
    rows, width = sequence.shape[1], sequence.shape[2]
    return TensorData(sequence.storage, (rows, width), (width, 1), sequence.offset + t * rows * width)


def _order(steps: int, reverse: bool) -> range:
    return range(steps - 1, -1, -1) if reverse else range(steps)


def _forward_steps(matmul: Matmul, kernel: Any, arrays: list[np.ndarray], steps: int, reverse: bool,
                   h0: TensorData, hs: TensorData, w_hh_t: TensorData, hw: TensorData) -> None:
    """The forward time loop: ``hw = h_{t-1} @ w_hh_t``, then ``kernel(t, prev, *arrays)``."""
    prev = -1
    for t in _order(steps, reverse):
        matmul(h0 if prev < 0 else _step_view(hs, prev), w_hh_t, hw)
        kernel(t, prev, *arrays)
        prev = t


def _backward_steps(matmul: Matmul, kernel: Any, arrays: list[np.ndarray], steps: int, reverse: bool,
                    products: TensorData, w_hh: TensorData, carried: TensorData) -> None:
    """The backward time loop, the forward's order reversed: ``kernel(t, prev, *arrays)``, then
    ``carried = products[t] @ w_hh`` (the gradient sent to the step before through the matmul)."""
    order = list(_order(steps, reverse))
    for k in range(len(order) - 1, -1, -1):
        t = order[k]
        kernel(t, order[k - 1] if k else -1, *arrays)
        matmul(_step_view(products, t), w_hh, carried)


def lstm_forward(matmul: Matmul, xw: TensorData, w_hh_t: TensorData, h0: TensorData, c0: TensorData, reverse: bool,
                 gates: TensorData, slopes: TensorData, tanh_c: TensorData, cs: TensorData, hs: TensorData,
                 hw: TensorData) -> None:
    """Every step of one direction: ``hw = h_{t-1} @ w_hh_t`` by ``matmul``, then :func:`lstm_forward_kernel`."""
    arrays = [_array(td) for td in (xw, hw, c0, gates, slopes, tanh_c, cs, hs)]
    _forward_steps(matmul, lstm_forward_kernel, arrays, xw.shape[0], reverse, h0, hs, w_hh_t, hw)


def lstm_backward(matmul: Matmul, grad: TensorData, w_hh: TensorData, reverse: bool, gates: TensorData,
                  slopes: TensorData, tanh_c: TensorData, cs: TensorData, c0: TensorData, carried_h: TensorData,
                  carried_c: TensorData, grad_pre: TensorData) -> None:
    """Every step of one direction in reverse: :func:`lstm_backward_kernel`, then
    ``carried_h = grad_pre[t] @ w_hh`` by ``matmul``. ``carried_h`` and ``carried_c`` come in as the
    gradients of the final hidden and cell states (beyond ``grad``'s) and end as those of ``h0`` and ``c0``."""
    arrays = [_array(td) for td in (grad, carried_h, carried_c, gates, slopes, tanh_c, cs, c0, grad_pre)]
    _backward_steps(matmul, lstm_backward_kernel, arrays, grad.shape[0], reverse, grad_pre, w_hh, carried_h)


# ---- GRU ----
#
# With hw = h_{t-1} W_hh^T + b_hh (the matmul runs before the kernel, the bias is added here)
# in PyTorch's gate order r, z, n:
#   r, z = sigmoid(xw_t + hw)_{r,z},  n = tanh(xw_{t,n} + r hw_n),  h_t = n + z (h_{t-1} - n)
# and backward, with dh the gradient reaching h_t:
#   dn = dh (1 - z) (1 - n^2),  dr = dn hw_n r (1 - r),  dz = dh (h_{t-1} - n) z (1 - z)
#   d(xw_t) = (dr, dz, dn),  d(hw) = (dr, dz, dn r),  dh_{t-1} = d(hw) W_hh + dh z
# Buffers: ``rzn`` (T, B, 3H) the gates r, z, n; ``hwn`` (T, B, H) the hidden state's share of n
# (bias in); ``hs`` (T, B, H); ``grad_x``, ``grad_hw`` (T, B, 3H).


@njit(**KERNEL_OPTIONS)
def gru_forward_kernel(
    t: int, prev: int, xw: np.ndarray, hw: np.ndarray, b_hh: np.ndarray, h0: np.ndarray,
    rzn: np.ndarray, hwn: np.ndarray, hs: np.ndarray,
) -> None:
    """Step ``t`` from step ``prev``'s state (``h0`` when ``prev < 0``); ``b_hh`` empty: no bias."""
    batch, size = h0.shape
    has_bias = b_hh.size > 0
    for b in range(batch):
        x, share, gate = xw[t, b], hw[b], rzn[t, b]
        h_old, share_n, h_row = h0[b] if prev < 0 else hs[prev, b], hwn[t, b], hs[t, b]
        if has_bias:
            for k in range(3 * size):
                share[k] = share[k] + b_hh[k]
        for k in range(2 * size):  # r and z
            gate[k] = gate_sigmoid(x[k] + share[k])
        for j in range(size):
            n = gate_tanh(x[2 * size + j] + gate[j] * share[2 * size + j])
            gate[2 * size + j] = n
            share_n[j] = share[2 * size + j]
            h_row[j] = n + gate[size + j] * (h_old[j] - n)


@njit(**KERNEL_OPTIONS)
def gru_backward_kernel(
    t: int, prev: int, grad: np.ndarray, carried: np.ndarray, direct: np.ndarray,
    rzn: np.ndarray, hwn: np.ndarray, hs: np.ndarray, h0: np.ndarray, grad_x: np.ndarray, grad_hw: np.ndarray,
) -> None:
    """Step ``t``'s gradients into ``grad_x[t]`` and ``grad_hw[t]``, from ``carried + direct``
    (what step ``t + 1`` sent back: through ``W_hh``, and straight through ``z``) plus ``grad[t]``;
    ``direct`` becomes this step's ``dh z``."""
    batch, size = h0.shape
    one = grad.dtype.type(1)
    for b in range(batch):
        outer, through, straight = grad[t, b], carried[b], direct[b]
        gate, share_n, h_old = rzn[t, b], hwn[t, b], h0[b] if prev < 0 else hs[prev, b]
        d_x, d_hw = grad_x[t, b], grad_hw[t, b]
        for j in range(size):
            d_h = (through[j] + straight[j]) + outer[j]
            r, z, n = gate[j], gate[size + j], gate[2 * size + j]
            d_n = (d_h - d_h * z) * (one - n * n)
            d_r = d_n * share_n[j] * (r - r * r)
            d_z = d_h * (h_old[j] - n) * (z - z * z)
            d_x[j], d_x[size + j], d_x[2 * size + j] = d_r, d_z, d_n
            d_hw[j], d_hw[size + j], d_hw[2 * size + j] = d_r, d_z, d_n * r
            straight[j] = d_h * z


def gru_forward(matmul: Matmul, xw: TensorData, w_hh_t: TensorData, b_hh: TensorData, h0: TensorData,
                reverse: bool, rzn: TensorData, hwn: TensorData, hs: TensorData, hw: TensorData) -> None:
    """Every step of one direction: ``hw = h_{t-1} @ w_hh_t`` by ``matmul``, then :func:`gru_forward_kernel`."""
    arrays = [_array(td) for td in (xw, hw, b_hh, h0, rzn, hwn, hs)]
    _forward_steps(matmul, gru_forward_kernel, arrays, xw.shape[0], reverse, h0, hs, w_hh_t, hw)


def gru_backward(matmul: Matmul, grad: TensorData, w_hh: TensorData, reverse: bool, rzn: TensorData,
                 hwn: TensorData, hs: TensorData, h0: TensorData, carried: TensorData, direct: TensorData,
                 grad_x: TensorData, grad_hw: TensorData) -> None:
    """Every step in reverse: :func:`gru_backward_kernel`, then ``carried = grad_hw[t] @ w_hh`` by
    ``matmul``; at the end ``carried`` (plus the last ``direct``) is the gradient of ``h0``."""
    arrays = [_array(td) for td in (grad, carried, direct, rzn, hwn, hs, h0, grad_x, grad_hw)]
    arrays[1][...] = 0
    arrays[2][...] = 0
    _backward_steps(matmul, gru_backward_kernel, arrays, grad.shape[0], reverse, grad_hw, w_hh, carried)
    np.add(arrays[1], arrays[2], out=arrays[1])

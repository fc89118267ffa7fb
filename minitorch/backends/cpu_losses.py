r"""Cross-entropy of logits with class indices, one kernel each way: the CPU's :class:`~.base.LossKernels`.

Forward, for each row :math:`i` of the logits :math:`x` and its target :math:`y_i`:

.. math:: \log p_i = \mathrm{log\_softmax}(x_i), \qquad \ell_i = -\log p_{i y_i}

and backward, with :math:`g_i` the gradient reaching :math:`\ell_i` and :math:`d` the divisor of
the mean (1 for a sum or no reduction):

.. math:: \frac{\partial L}{\partial x_{ic}} = w_i \,(p_{ic} - [c = y_i]), \qquad w_i = g_i / d

A row whose target is ``ignore_index`` has :math:`\ell_i = 0` and no gradient. Written with the
primitives this is a log-softmax, a gather, a product, a sum and a division forward, and five
kernels and four temporaries backward; on a classifier's ``(64, 10)`` logits those are
microseconds of Python each, more than the arithmetic. Here a row is read while it is in cache
and only the results are written.

The arithmetic is the primitives': the rows' log-softmax is :mod:`.cpu_log_softmax`'s, and the
gradient rounds :math:`w_i` to the logits' dtype and computes :math:`p_{ic} w_i - w_i` as the
primitives do. The kernels do not check the targets: the dispatch layer
(:func:`minitorch.loss_dispatch.cross_entropy_op`) has checked them with :func:`target_range`.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ..tensor_data import TensorData
from . import kernel_cache
from .cpu_kernels import KERNEL_OPTIONS, launch, prange_only, reduce_run, serial_twin, unary_into
from .cpu_log_softmax import log_softmax_row
# plain names: Numba types a global name as a compile-time constant (see :mod:`.cpu_log_softmax`)
from .opcodes import EXP, SUM

# cached under a digest of this file's source (see :mod:`.kernel_cache`)
kernel_cache.register(__file__)


@njit(**KERNEL_OPTIONS)
def target_range_kernel(target: np.ndarray, ignore_index: int) -> tuple[int, int, int]:
    """The smallest and largest target other than ``ignore_index``, and how many there are
    (``(0, 0, 0)`` when every target is ignored)."""
    low = high = counted = 0
    for t in target:
        if t != ignore_index:
            if counted == 0 or t < low:
                low = t
            if counted == 0 or t > high:
                high = t
            counted += 1
    return low, high, counted


@njit(parallel=prange_only(), **KERNEL_OPTIONS)
def cross_entropy_kernel(log_p: np.ndarray, losses: np.ndarray, x: np.ndarray, target: np.ndarray,
                         rows: int, width: int, ignore_index: int) -> float:
    """Each row's log-softmax of the contiguous ``(rows, width)`` logits ``x`` into ``log_p``, its
    loss into ``losses``; returns the losses' sum, accumulated in float64 (``width >= 1``)."""
    log_totals = np.empty(rows, log_p.dtype)
    for r in prange(rows):
        log_softmax_row(log_p, x, np.int64(r), width, log_totals)
        t = target[r]
        losses[r] = 0 if t == ignore_index else -log_p[r * width + t]
    return reduce_run(SUM, 0.0, losses)


@njit(parallel=prange_only(), **KERNEL_OPTIONS)
def cross_entropy_grad_kernel(grad_x: np.ndarray, log_p: np.ndarray, target: np.ndarray, grad: np.ndarray,
                              grad_step: int, divisor, rows: int, width: int, ignore_index: int) -> None:
    """``grad_x[i, c] = w_i (exp(log_p[i, c]) - [c = target_i])`` with ``w_i = grad[i * grad_step] / divisor``
    (``grad_step`` 0: one gradient for every row); 0 for an ignored row. ``divisor`` has the logits' dtype."""
    for r in prange(rows):
        row = grad_x[r * width : (r + 1) * width]
        t = target[r]
        if t == ignore_index:
            for c in range(width):
                row[c] = 0
            continue
        w = grad[r * grad_step] / divisor
        for c in range(width):
            unary_into(EXP, log_p[r * width + c], row, c)
        for c in range(width):
            row[c] = row[c] * w
        row[t] = row[t] - w


#: the kernels above without threads, for small batches (see :func:`.cpu_kernels.serial_twin`)
cross_entropy_kernel_serial = serial_twin(cross_entropy_kernel, **KERNEL_OPTIONS)
cross_entropy_grad_kernel_serial = serial_twin(cross_entropy_grad_kernel, **KERNEL_OPTIONS)


def target_range(target: TensorData, ignore_index: int) -> tuple[int, int, int]:
    """:meth:`.base.LossKernels.target_range` of an int64 vector."""
    low, high, counted = target_range_kernel(target.contiguous_buffer(), ignore_index)
    return int(low), int(high), int(counted)


def cross_entropy(x: TensorData, target: TensorData, ignore_index: int, log_p: TensorData,
                  losses: TensorData) -> float:
    """:meth:`.base.LossKernels.cross_entropy` of a float32 or float64 matrix with at least one column."""
    rows, width = x.shape
    return float(launch(x.size, cross_entropy_kernel, cross_entropy_kernel_serial, log_p.buffer, losses.buffer,
                        x.contiguous_buffer(), target.contiguous_buffer(), rows, width, ignore_index))


def cross_entropy_backward(log_p: TensorData, target: TensorData, ignore_index: int, grad: TensorData,
                           divisor: int, grad_x: TensorData) -> None:
    """:meth:`.base.LossKernels.cross_entropy_backward`; ``grad_x`` is contiguous."""
    rows, width = log_p.shape
    dtype = log_p.storage.dtype
    launch(log_p.size, cross_entropy_grad_kernel, cross_entropy_grad_kernel_serial, grad_x.buffer, log_p.contiguous_buffer(), target.contiguous_buffer(), grad.contiguous_buffer().astype(dtype, copy=False),
           1 if grad.shape else 0, dtype.type(divisor), rows, width, ignore_index)

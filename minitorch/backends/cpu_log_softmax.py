r"""Log-softmax along the rows of a matrix in one kernel: the CPU's :meth:`~.base.Backend.log_softmax`.

.. math:: y_j = (x_j - m) - \log \sum_k e^{x_k - m}, \qquad m = \max_k x_k

Written with the primitives, this is five kernels and two temporaries: the max, the shifted
rows, their exponentials, the sum and its log, and the difference. Here each row is read
three times while it is still in cache, and nothing but ``out`` is written. The arithmetic is
the primitives', step for step, but for the log: the max of the ``reduce`` kernels, each
shifted value in the row's dtype, the exponentials of :mod:`.opcodes` (the vectorised float32
ones of :mod:`.vector_math`), their sum accumulated in float64, and its log taken in float64
before it is rounded (the primitives round the sum first). A row holding NaN gives NaN, and one
of ``-inf`` alone gives NaN, as in PyTorch.

It also keeps a first training step short: cross-entropy no longer compiles ``max``, ``sub``
and ``log`` kernels of its own.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from . import kernel_cache
from .cpu_kernels import KERNEL_OPTIONS, prange_only, reduce_run, reduce_step, serial_twin, unary_into
# the op codes as plain names: Numba types a global name as a compile-time constant, so only
# each op's own branch of the op table compiles (an attribute of the module would be an int64)
from .opcodes import EXP, LOG, MAX, SUM

# cached under a digest of this file's source and of the scalar bodies (see :mod:`.kernel_cache`)
kernel_cache.register(__file__)


@njit(inline="always", **KERNEL_OPTIONS)
def log_softmax_row(out: np.ndarray, a: np.ndarray, row_index: int, width: int, log_totals: np.ndarray) -> None:
    """Row ``row_index`` of ``a`` into the same places of ``out``; ``log_totals[row_index]`` is scratch."""
    start = row_index * width
    row, result = a[start : start + width], out[start : start + width]
    top = row[0]
    for j in range(1, width):
        top = reduce_step(MAX, top, row[j])
    for j in range(width):
        unary_into(EXP, row[j] - top, result, j)
    # the reduce kernels' own sum: compiled apart with ``reassoc`` (split over SIMD lanes), while
    # this function, without it, keeps every other operation in the order written
    total = reduce_run(SUM, 0.0, result)
    unary_into(LOG, total, log_totals, row_index)
    shift = log_totals[row_index]
    for j in range(width):
        result[j] = (row[j] - top) - shift


@njit(parallel=prange_only(), **KERNEL_OPTIONS)
def log_softmax_kernel(out: np.ndarray, a: np.ndarray, rows: int, width: int) -> None:
    """Every row of the contiguous ``(rows, width)`` matrix ``a`` into ``out`` (``width >= 1``)."""
    log_totals = np.empty(rows, out.dtype)  # each row's log of its sum, rounded to out's dtype
    for r in prange(rows):
        log_softmax_row(out, a, np.int64(r), width, log_totals)


#: :func:`log_softmax_kernel` without threads, for small matrices (see :func:`.cpu_kernels.serial_twin`)
log_softmax_kernel_serial = serial_twin(log_softmax_kernel, **KERNEL_OPTIONS)

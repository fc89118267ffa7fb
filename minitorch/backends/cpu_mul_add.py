r"""``out = a * b + c`` rounded once: the CPU's :class:`~.base.MulAddKernels`.

The ops PyTorch computes with a fused multiply-add (see :mod:`.fused_multiply_add`) reach the
backend as this one op: ``add(x, y, alpha=)`` is :math:`y \cdot \alpha + x`, ``lerp`` is
:math:`w (e - s) + s`, ``addcmul`` is :math:`(v t_1) t_2 + x`. An optimizer's
``p.add_(g, alpha=-lr)`` is the op with ``c`` the output itself, and runs in one pass with no
temporary: the loops read ``c`` through ``out`` (a load and a store of one element, which LLVM
vectorises; see :mod:`.cpu_in_place`), so ``c`` is first copied into ``out`` when it is another
tensor.

The loops take ``out`` as one run (row-major, or dense in another order) and ``a`` and ``b``
laid out as ``out`` or as one element read everywhere. Other layouts are first copied into that
form: the op serves optimizers and interpolations, whose operands are whole tensors.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ..memory_formats import is_non_overlapping_and_dense
from ..tensor_data import TensorData, contiguous_strides
from . import kernel_cache
from .cpu_kernels import CHUNK, KERNEL_OPTIONS, kernel_only, launch, prange_only, serial_twin
from .fused_multiply_add import fma

# cached under a digest of this file's source and of what it compiles in (see :mod:`.kernel_cache`)
kernel_cache.register(__file__)

#: the NumPy dtypes the loops compute in (16-bit floats come widened to float32)
MUL_ADD_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


@kernel_only(**KERNEL_OPTIONS)
def mul_add_run(out: np.ndarray, a: np.ndarray, a_step: int, b: np.ndarray, b_step: int, start: int, n: int) -> None:
    """``out[i] = fma(a[i * a_step], b[i * b_step], out[i])`` for ``start <= i < start + n``; steps 1 or 0."""
    part = out[start : start + n]
    if a_step == 1 and b_step == 1:
        a_part, b_part = a[start : start + n], b[start : start + n]
        for j in range(n):
            part[j] = fma(a_part[j], b_part[j], part[j])
    elif a_step == 1:  # ``x.add_(y, alpha=a)``: a number times a tensor
        a_part, y = a[start : start + n], b[0]
        for j in range(n):
            part[j] = fma(a_part[j], y, part[j])
    elif b_step == 1:  # ``lerp`` by a number: the weight times a tensor
        x, b_part = a[0], b[start : start + n]
        for j in range(n):
            part[j] = fma(x, b_part[j], part[j])
    else:
        x, y = a[0], b[0]
        for j in range(n):
            part[j] = fma(x, y, part[j])


@njit(parallel=prange_only(), **KERNEL_OPTIONS)
def mul_add_kernel(out: np.ndarray, a: np.ndarray, a_step: int, b: np.ndarray, b_step: int, n: int) -> None:
    """:func:`mul_add_run` over ``n`` elements, a task per chunk of ``CHUNK`` elements."""
    for task in prange((n + CHUNK - 1) // CHUNK):
        start = np.int64(task) * CHUNK
        mul_add_run(out, a, a_step, b, b_step, start, min(CHUNK, n - start))


#: :func:`mul_add_kernel` without threads, for small tensors (see :func:`.cpu_kernels.serial_twin`)
mul_add_kernel_serial = serial_twin(mul_add_kernel, **KERNEL_OPTIONS)


def _one_run(td: TensorData) -> bool:
    """Whether ``td``'s elements are the ``size`` positions from its first: row-major, or dense in
    another order (channels-last)."""
    return td.strides == contiguous_strides(td.shape) or is_non_overlapping_and_dense(td.shape, td.strides)


def _step(operand: TensorData, out: TensorData) -> int | None:
    """``operand``'s step along ``out``'s run: 1 laid out as ``out`` (and, in ``out``'s storage, at
    its very elements), 0 a single element not in ``out``'s storage, else None."""
    if operand.storage is out.storage:
        return 1 if _is_view_of(operand, out) else None
    if operand.shape == out.shape and operand.strides == out.strides:
        return 1
    return 0 if operand.size == 1 else None


def _laid_out_as(operand: TensorData, out: TensorData) -> TensorData:
    """``operand`` broadcast to ``out``'s shape, in ``out``'s layout, in memory of its own."""
    copy = TensorData(np.empty(out.size, out.storage.dtype), out.shape, out.strides)
    copy.numpy_view()[...] = operand.numpy_view()
    return copy


def _is_view_of(operand: TensorData, out: TensorData) -> bool:
    """Whether ``operand`` is exactly ``out``: the same elements of the same storage."""
    return operand.storage is out.storage and (operand.offset, operand.shape, operand.strides) == (
        out.offset, out.shape, out.strides)


def mul_add(a: TensorData, b: TensorData, c: TensorData, out: TensorData) -> None:
    """:meth:`.base.MulAddKernels.mul_add` for float32 and float64 operands of one dtype, each
    broadcast to ``out``'s shape; ``out`` may be ``c`` itself (an in-place update)."""
    if out.size == 0:
        return
    in_place = _is_view_of(c, out)
    if not _one_run(out) or (not in_place and (a.storage is out.storage or b.storage is out.storage)):
        # into a fresh run (copying c into out first would overwrite an operand), then stored
        result = TensorData(np.empty(out.size, out.storage.dtype), out.shape)
        mul_add(a, b, c, result)
        out.numpy_view()[...] = result.numpy_view()
        return
    if not in_place:
        out.numpy_view()[...] = c.numpy_view()  # c broadcast into out: the loops add to out
    a_step, b_step = _step(a, out), _step(b, out)
    if a_step is None:
        a, a_step = _laid_out_as(a, out), 1
    if b_step is None:
        b, b_step = _laid_out_as(b, out), 1
    launch(out.size, mul_add_kernel, mul_add_kernel_serial, out.buffer, a.buffer, a_step, b.buffer, b_step, out.size)

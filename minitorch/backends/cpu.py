"""The CPU backend: compiled Numba kernels (in :mod:`.cpu_kernels`) over strided storage.

This module is the thin Python side: it turns op names into op codes and views' shapes and
strides into int64 arrays, broadcasts operand strides to ``out``'s shape, and hands the
kernels layouts they are fast on (a contiguous last dimension for a reduction, contiguous
rows of ``b`` and ``out`` for a matmul). Three dtype details live here too:

* ``copy`` into another dtype (``.to(dtype)``) is NumPy's cast (:func:`_cast`);
* Numba has no float16 arithmetic on the CPU, so float16 operands are widened to float32
  copies and a float16 ``out`` is computed in float32 and rounded into place
  (:func:`_through_float32`), which is also what NumPy does for half precision;
* bool inputs are read as uint8 (the same bytes), so every op has integer arithmetic to
  compile to; a bool ``out`` stays bool, so a result stored into it becomes ``x != 0``.

Reductions accumulate in float64 (float inputs) or int64 (integer and bool inputs) and round
once into ``out``: a float32 sum of 10^7 terms keeps its full precision, at no measurable
cost since summing is limited by memory bandwidth.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from .. import dtypes
from ..tensor_data import TensorData, expand_strides, strides_from_shape
from . import cpu_kernels as kernels
from .base import ARG_REDUCE_OPS, BINARY_OPS, REDUCE_OPS, UNARY_OPS, check_reduce_shapes

_HALF = np.dtype(np.float16)
_BOOL = np.dtype(np.bool_)


def _check_op_codes() -> None:
    """The kernels' op codes must cover exactly the op names every backend shares."""
    for names, codes in (
        (UNARY_OPS, kernels.UNARY_CODES),
        (BINARY_OPS, kernels.BINARY_CODES),
        (REDUCE_OPS, kernels.REDUCE_CODES),
        (ARG_REDUCE_OPS, kernels.ARG_REDUCE_CODES),
    ):
        if set(names) != set(codes):
            raise RuntimeError(f"cpu kernels know ops {sorted(codes)}, the backend interface {sorted(names)}")


_check_op_codes()


def _code(codes: dict[str, int], op: str) -> int:
    """The op code of ``op``, or a ValueError naming the known ops."""
    code = codes.get(op)
    if code is None:
        raise ValueError(f"unknown op {op!r}; expected one of {sorted(codes)}")
    return code


def _layout(td: TensorData) -> tuple[np.ndarray, np.ndarray]:
    """``td``'s shape and strides as int64 arrays (made once per view, then cached on it).

    A 0-d view reads as shape ``(1,)``: the kernels need at least one dimension.
    """
    cached = getattr(td, "_cpu_layout", None)
    if cached is None or cached[0] is not td.shape or cached[1] is not td.strides:
        shape, strides = (td.shape, td.strides) if td.dims else ((1,), (1,))
        cached = (td.shape, td.strides, np.array(shape, np.int64), np.array(strides, np.int64))
        td._cpu_layout = cached  # type: ignore[attr-defined]
    return cached[2], cached[3]


def _strides_in(a: TensorData, out: TensorData) -> np.ndarray:
    """``a``'s strides broadcast to ``out``'s shape (0 along broadcast dimensions).

    The last broadcast is cached on ``a`` too: a bias added to the same shape every step.
    """
    if a.shape == out.shape:
        return _layout(a)[1]
    cached = getattr(a, "_cpu_broadcast", None)
    if cached is None or cached[0] is not a.strides or cached[1] != out.shape:
        strides = np.array(expand_strides(a.shape, a.strides, out.shape), np.int64)
        cached = (a.strides, out.shape, strides)
        a._cpu_broadcast = cached  # type: ignore[attr-defined]
    return cached[2]


def _matrix_strides(a: TensorData, batch: tuple[int, ...]) -> np.ndarray:
    """The strides of a stack of matrices, its batch dimensions broadcast to ``batch``."""
    if a.shape[:-2] == batch:
        return _layout(a)[1]
    return np.array(expand_strides(a.shape[:-2], a.strides[:-2], batch) + a.strides[-2:], np.int64)


def _operand(td: TensorData) -> np.ndarray:
    """The buffer a kernel reads: bool as uint8, so integer arithmetic compiles for it."""
    buffer = td.storage[td.offset :]
    return buffer.view(np.uint8) if buffer.dtype == _BOOL else buffer


def _cast(a: TensorData, out: TensorData) -> None:
    """``copy`` into another dtype (how ``.to(dtype)`` works): NumPy's cast, broadcasting ``a``.

    NumPy's strided copy is as fast as a kernel here, and a kernel would be compiled
    anew for each of the 30-odd pairs of dtypes.
    """
    with np.errstate(invalid="ignore", over="ignore"):  # NaN or inf into an int, overflow into float16
        out.numpy_view()[...] = a.numpy_view()


def _widened(td: TensorData) -> TensorData:
    """A contiguous float32 copy of a float16 view."""
    return TensorData(td.numpy_view().astype(np.float32).reshape(-1), td.shape)


def _through_float32(method: Callable[..., None], *args: object) -> None:
    """Call ``method`` with float32 stand-ins for its float16 views (Numba has no float16).

    Float16 inputs become float32 copies; a float16 ``out`` (always the last argument) is
    computed into a float32 temporary and then rounded into place.
    """
    *inputs, out = args
    assert isinstance(out, TensorData)
    inputs = [_widened(x) if isinstance(x, TensorData) and x.storage.dtype == _HALF else x for x in inputs]
    if out.storage.dtype != _HALF:
        method(*inputs, out)
        return
    temp = TensorData(np.empty(out.size, np.float32), out.shape)
    method(*inputs, temp)
    with np.errstate(over="ignore"):  # beyond float16's range is inf, as a float16 op gives
        out.numpy_view()[...] = temp.storage.reshape(out.shape)


def _reduce_layout(
    a: TensorData, out: TensorData, dim: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    """``a``'s buffer, shape and strides, ``out``'s strides and ``dim``, as the reduce kernel needs them.

    The kernel reads ``a`` along its last dimension, which must be contiguous. So the
    dimension with the smallest stride moves last (the same reordering for ``a`` and
    ``out`` changes nothing else; it keeps a transposed input cache-friendly), and if its
    stride is still not 1 (a sliced or expanded view) the kernel gets a contiguous copy.
    Returns ``(buffer, shape, a_strides, out_strides, dim)``.
    """
    shape, a_strides = _layout(a)
    out_strides = _layout(out)[1]
    if a.dims == 0 or a.size == 0 or (a.shape[-1] > 1 and a.strides[-1] == 1):
        return _operand(a), shape, a_strides, out_strides, dim
    spread = [(s if s != 0 else np.inf, d) for d, (n, s) in enumerate(zip(a.shape, a.strides)) if n > 1]
    if not spread:  # a single element
        return _operand(a), shape, a_strides, out_strides, dim
    inner = min(spread)[1]
    order = [d for d in range(a.dims) if d != inner] + [inner]
    if inner != a.dims - 1:
        shape, a_strides, out_strides, dim = shape[order], a_strides[order], out_strides[order], order.index(dim)
    if a.strides[inner] == 1:
        return _operand(a), shape, a_strides, out_strides, dim
    copy = np.ascontiguousarray(a.numpy_view().transpose(order))
    strides = np.array(strides_from_shape(copy.shape), np.int64)
    return _operand(TensorData(copy.reshape(-1), copy.shape)), shape, strides, out_strides, dim


def _accumulator_start(op: str, buffer: np.ndarray) -> float | int:
    """Where a sum or product starts, typed as the accumulator: float64 for floats, else int64."""
    start = 1 if op == "prod" else 0
    return float(start) if buffer.dtype.kind == "f" else start


class CpuBackend:
    """Numba implementation of :class:`~minitorch.backends.base.Backend`."""

    name = "cpu"

    def empty(self, size: int, dtype: dtypes.dtype) -> np.ndarray:
        return np.empty(size, dtype=dtype.numpy)

    def map(self, op: str, a: TensorData, out: TensorData) -> None:
        code = _code(kernels.UNARY_CODES, op)
        if out.size == 0:
            return
        if code == kernels.COPY and (a.storage.dtype != out.storage.dtype or out.storage.dtype == _HALF):
            return _cast(a, out)
        if a.storage.dtype == _HALF or out.storage.dtype == _HALF:
            return _through_float32(self.map, op, a, out)
        shape, out_strides = _layout(out)
        kernels.map_kernel(code, out.buffer, shape, out_strides, _operand(a), _strides_in(a, out))

    def zip(self, op: str, a: TensorData, b: TensorData, out: TensorData) -> None:
        code = _code(kernels.BINARY_CODES, op)
        if out.size == 0:
            return
        if a.storage.dtype == _HALF or b.storage.dtype == _HALF or out.storage.dtype == _HALF:
            return _through_float32(self.zip, op, a, b, out)
        shape, out_strides = _layout(out)
        a_strides, b_strides = _strides_in(a, out), _strides_in(b, out)
        kernels.zip_kernel(code, out.buffer, shape, out_strides, _operand(a), a_strides, _operand(b), b_strides)

    def reduce(self, op: str, a: TensorData, dim: int, out: TensorData) -> None:
        code = _code(kernels.REDUCE_CODES, op)
        check_reduce_shapes(a, dim, out)
        if out.size == 0:
            return
        if a.storage.dtype == _HALF or out.storage.dtype == _HALF:
            return _through_float32(self.reduce, op, a, dim, out)
        buffer, shape, a_strides, out_strides, dim = _reduce_layout(a, out, dim)
        start = _accumulator_start(op, buffer)
        kernels.reduce_kernel(code, out.buffer, out_strides, buffer, shape, a_strides, dim, start)

    def arg_reduce(self, op: str, a: TensorData, dim: int, out: TensorData) -> None:
        code = _code(kernels.ARG_REDUCE_CODES, op)
        check_reduce_shapes(a, dim, out)
        if out.size == 0:
            return
        if a.storage.dtype == _HALF:
            return _through_float32(self.arg_reduce, op, a, dim, out)
        shape, a_strides = _layout(a)
        kernels.arg_reduce_kernel(code, out.buffer, _layout(out)[1], _operand(a), shape, a_strides, dim)

    def matmul(self, a: TensorData, b: TensorData, out: TensorData) -> None:
        if out.size == 0:
            return
        if a.storage.dtype == _HALF or b.storage.dtype == _HALF or out.storage.dtype == _HALF:
            return _through_float32(self.matmul, a, b, out)
        m = out.shape[-1]
        if m > 1 and b.strides[-1] != 1:
            # the kernel's inner loop runs along rows of b: give it contiguous rows
            b = TensorData(np.ascontiguousarray(b.numpy_view()).reshape(-1), b.shape)
        if m > 1 and out.strides[-1] != 1:  # the same for out: compute apart, then copy in
            temp = TensorData(np.empty(out.size, out.storage.dtype), out.shape)
            self.matmul(a, b, temp)
            out.numpy_view()[...] = temp.storage.reshape(out.shape)
            return
        batch = out.shape[:-2]
        shape, out_strides = _layout(out)
        a_strides, b_strides = _matrix_strides(a, batch), _matrix_strides(b, batch)
        k = a.shape[-1]
        kernels.matmul_kernel(out.buffer, shape, out_strides, _operand(a), a_strides, _operand(b), b_strides, k)

    # ---- indexing primitives (step 5): kernels and their layouts in :mod:`.cpu_index_kernels` ----

    def accumulate(self, src: TensorData, out: TensorData) -> None:
        from . import cpu_index_kernels

        cpu_index_kernels.accumulate(src, out)

    def gather(self, a: TensorData, dim: int, index: TensorData, out: TensorData) -> None:
        from . import cpu_index_kernels

        cpu_index_kernels.gather(a, dim, index, out)

    def scatter_add(self, src: TensorData, dim: int, index: TensorData, out: TensorData) -> None:
        from . import cpu_index_kernels

        cpu_index_kernels.scatter_add(src, dim, index, out)

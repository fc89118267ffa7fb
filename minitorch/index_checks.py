"""What the gather and scatter-add kernels rely on, checked before any backend runs them.

The kernels do not check bounds (Numba's compiled loops cannot afford to): an index value
outside the indexed dimension, or an index larger than an operand in another dimension,
makes them read or write memory the tensor does not own, which gives garbage or kills
the process. :func:`~minitorch.dispatch.gather_op` and :func:`~minitorch.dispatch.scatter_add_op`,
the only way to those kernels, run :func:`check_gather` and :func:`check_scatter` first.

The checks raise PyTorch's errors in PyTorch's order (dtypes, ranks, shapes, values) and,
as PyTorch, treat a 0-d tensor as one of shape ``(1,)`` and skip the index's dtype, rank,
shape and values when it is empty (there is nothing to read or write). Index values are read on the host, each stored element once (a
broadcast index, like ``index_select``'s, is read at its stored size).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

import numpy as np

from . import dtypes
from .backends import backend_for
from .tensor_data import Shape, TensorData

if TYPE_CHECKING:
    from .tensor import Tensor

INDEX_DTYPES = (dtypes.int64, dtypes.int32)


def nonempty_shape(shape: Shape) -> Shape:
    """``shape``, with a 0-d shape read as ``(1,)`` (how PyTorch's gather and scatter see it)."""
    return shape if shape else (1,)


def stored_index_values(index: "Tensor") -> np.ndarray:
    """The values of ``index`` on the host, each stored element once.

    Broadcast (stride 0) dimensions are read at position 0 only; the elements keep their
    row-major order, so the first bad value found here is the first of the whole index.
    """
    data = index._data
    shape = tuple(1 if stride == 0 else size for size, stride in zip(data.shape, data.strides))
    stored = TensorData(data.storage, shape, data.strides, data.offset)
    if isinstance(data.storage, np.ndarray):
        return stored.numpy_view()
    return backend_for(index._device.type).download(stored)


def first_out_of_range(index: "Tensor", size: int) -> Optional[int]:
    """The first value of ``index`` (row-major) outside ``[0, size)``, or None when all lie inside."""
    if index._data.size == 0:
        return None
    values = stored_index_values(index)
    if values.min() >= 0 and values.max() < size:  # the common case: two quick passes
        return None
    return int(values[(values < 0) | (values >= size)][0])


def check_index_dtype(op: str, index: "Tensor") -> None:
    if index._data.dtype not in INDEX_DTYPES:
        raise RuntimeError(f"{op}(): Expected dtype int32/int64 for index")


def _check_values(index: "Tensor", dim: int, shape: Shape) -> None:
    size = shape[dim]
    bad = first_out_of_range(index, size)
    if bad is not None:
        raise RuntimeError(f"index {bad} is out of bounds for dimension {dim} with size {size}")


def check_gather(a: "Tensor", dim: int, index: "Tensor") -> None:
    """PyTorch's errors for ``gather(a, dim, index)`` (``dim`` already normalised).

    Guarantees for the kernel: ``index`` is int32/int64 with ``a``'s rank,
    ``index.shape[d] <= a.shape[d]`` for ``d != dim``, and every value lies in ``[0, a.shape[dim])``.
    """
    if index._data.size == 0:  # PyTorch checks nothing, not even the dtype, for an empty index
        return
    check_index_dtype("gather", index)
    a_shape, index_shape = nonempty_shape(a._data.shape), nonempty_shape(index._data.shape)
    if len(a_shape) != len(index_shape):
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    for d, (n, m) in enumerate(zip(index_shape, a_shape)):
        if d != dim and n > m:
            raise RuntimeError(
                f"Size does not match at dimension {d} expected index {list(index.shape)} to be no larger "
                f"than self {list(a.shape)} apart from dimension {dim}"
            )
    _check_values(index, dim, a_shape)


def check_scatter(out: "Tensor", dim: int, index: "Tensor", src: "Tensor") -> None:
    """PyTorch's errors for ``scatter_add(out, dim, index, src)`` (``dim`` already normalised).

    Guarantees for the kernel, on top of :func:`check_gather`'s (with ``out`` for ``a``):
    ``src`` has ``out``'s dtype and ``index``'s rank, and ``index.shape[d] <= src.shape[d]`` for every ``d``.
    """
    if index._data.size:
        check_index_dtype("scatter", index)
    if src._data.dtype is not out._data.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    if index._data.size == 0:
        return
    out_shape, index_shape = nonempty_shape(out._data.shape), nonempty_shape(index._data.shape)
    src_shape = nonempty_shape(src._data.shape)
    if len(out_shape) != len(index_shape):
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    too_large = any(n > m for d, (n, m) in enumerate(zip(index_shape, out_shape)) if d != dim)
    if not too_large:
        for d, n in enumerate(index_shape):
            if d >= len(src_shape):  # PyTorch asks src for a size it lacks
                bound = len(src_shape)
                raise IndexError(f"Dimension out of range (expected to be in range of [{-bound}, {bound - 1}], but got {d})")
            if n > src_shape[d]:
                too_large = True
                break
    if len(src_shape) != len(index_shape):
        raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
    if too_large:
        raise RuntimeError(
            f"Expected index {list(index.shape)} to be no larger than self {list(out.shape)} apart from "
            f"dimension {dim} and to be no larger size than src {list(src.shape)}"
        )
    _check_values(index, dim, out_shape)

r"""Storage, shape and strides: how an n-dimensional tensor lives in flat memory.

A tensor's elements sit in a 1-D ``storage``. The element at ``index`` (one integer per
dimension) is at position

.. math:: \mathrm{offset} + \sum_i \mathrm{index}_i \cdot \mathrm{strides}_i

so a transpose, a slice or a broadcast is a new (shape, strides, offset) over the same
storage: no element is copied. Broadcasting is a stride of 0.
"""

from __future__ import annotations

import functools
import math
from typing import Optional, Sequence

import numpy as np
import numpy.typing as npt

from . import dtypes

Storage = npt.NDArray
Shape = tuple[int, ...]
Strides = tuple[int, ...]
Index = npt.NDArray[np.int64]


class IndexingError(RuntimeError):
    """An index outside a tensor's shape."""


def index_to_position(index: Sequence[int] | Index, strides: Sequence[int] | Strides) -> int:
    r"""Position in storage (relative to the offset) of a multidimensional index.

    .. math:: \mathrm{position} = \sum_i \mathrm{index}_i \cdot \mathrm{strides}_i
    """
    # BEGIN SOLUTION 2.1
    position = 0
    for i, s in zip(index, strides):
        position += int(i) * int(s)
    return position
    # END SOLUTION


def to_index(ordinal: int, shape: Shape, out_index: Index) -> None:
    """Write into ``out_index`` the index of the ``ordinal``-th element in row-major order.

    Row-major: the last dimension varies fastest, as in a C array.
    """
    # BEGIN SOLUTION 2.1
    remaining = ordinal
    for d in range(len(shape) - 1, -1, -1):
        out_index[d] = remaining % shape[d]
        remaining //= shape[d]
    # END SOLUTION


def broadcast_index(big_index: Index, big_shape: Shape, shape: Shape, out_index: Index) -> None:
    """Map an index of the broadcast shape ``big_shape`` to an index of the smaller ``shape``.

    Shapes align on the right; a dimension of size 1 in ``shape`` always takes index 0, and
    dimensions that ``shape`` lacks on the left are dropped.
    """
    # BEGIN SOLUTION 2.2
    extra = len(big_shape) - len(shape)
    for d in range(len(shape)):
        out_index[d] = 0 if shape[d] == 1 else big_index[d + extra]
    # END SOLUTION


def shape_broadcast(shape1: Shape, shape2: Shape) -> Shape:
    """The shape two shapes broadcast to, or an error that names both.

    Raises:
        IndexingError: when a pair of aligned sizes differ and neither is 1.
    """
    # BEGIN SOLUTION 2.2
    ndim = max(len(shape1), len(shape2))
    padded1 = (1,) * (ndim - len(shape1)) + tuple(shape1)
    padded2 = (1,) * (ndim - len(shape2)) + tuple(shape2)
    result = []
    for d, (a, b) in enumerate(zip(padded1, padded2)):
        if a != b and a != 1 and b != 1:
            raise IndexingError(
                f"The size of tensor a ({a}) must match the size of tensor b ({b}) at "
                f"non-singleton dimension {d}: shapes {list(shape1)} and {list(shape2)} don't broadcast"
            )
        result.append(b if a == 1 else a)
    return tuple(result)
    # END SOLUTION


def strides_from_shape(shape: Shape) -> Strides:
    """Contiguous (row-major) strides of ``shape``, in elements."""
    # BEGIN SOLUTION 2.1
    strides = []
    step = 1
    for size in reversed(shape):
        strides.append(step)
        step *= max(size, 1)
    return tuple(reversed(strides))
    # END SOLUTION


def check_new_shape(shape: Sequence[int]) -> None:
    """PyTorch's error for a tensor shape with a negative size (the first one is named)."""
    for size in shape:
        if size < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {size}: {list(shape)}")


def expand_strides(shape: Shape, strides: Strides, target: Shape) -> Strides:
    """Strides that read a ``shape``/``strides`` tensor as if it had the larger shape ``target``.

    Broadcast dimensions get stride 0, so every index along them reads the same element.
    Every size of ``target`` must be known (no -1 left) and non-negative.
    """
    extra = len(target) - len(shape)
    if extra < 0:
        raise IndexingError(f"can't expand shape {list(shape)} to fewer dimensions {list(target)}")
    for d in range(extra):
        if target[d] == -1:
            raise IndexingError(f"The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension {d}")
        if target[d] < 0:
            raise IndexingError(_negative_expand_message(shape, target, d))
    result = [0] * extra
    for d, (size, stride) in enumerate(zip(shape, strides)):
        if size == target[d + extra]:
            result.append(stride)
        elif size == 1:
            if target[d + extra] < 0:
                raise IndexingError(_negative_expand_message(shape, target, d + extra))
            result.append(0)
        else:
            raise IndexingError(
                f"The expanded size of the tensor ({target[d + extra]}) must match the existing "
                f"size ({size}) at non-singleton dimension {d + extra}.  Target sizes: {list(target)}.  "
                f"Tensor sizes: {list(shape)}"
            )
    return tuple(result)


def _negative_expand_message(shape: Shape, target: Shape, d: int) -> str:
    return (
        f"The expanded size of the tensor ({target[d]}) must be non-negative (-1 keeps an existing size) at "
        f"dimension {d}.  Target sizes: {list(target)}.  Tensor sizes: {list(shape)}"
    )


def view_strides(shape: Shape, strides: Strides, new_shape: Shape) -> Optional[Strides]:
    """Strides that show the same elements in ``new_shape`` without a copy, or None.

    A view is possible when every group of old dimensions that the new shape merges or
    splits is laid out contiguously with respect to each other.
    """
    if len(shape) == 0 or math.prod(shape) == 0:
        return contiguous_strides(tuple(new_shape))
    if strides == contiguous_strides(tuple(shape)):  # contiguous: any shape of as many elements
        return contiguous_strides(tuple(new_shape))
    new_strides = [0] * len(new_shape)
    view_d = len(new_shape) - 1
    chunk_base_stride = strides[-1]
    tensor_numel = 1
    view_numel = 1
    for tensor_d in range(len(shape) - 1, -1, -1):
        tensor_numel *= shape[tensor_d]
        chunk_ends = tensor_d == 0 or (
            shape[tensor_d - 1] != 1 and strides[tensor_d - 1] != tensor_numel * chunk_base_stride
        )
        if chunk_ends:
            while view_d >= 0 and (view_numel < tensor_numel or new_shape[view_d] == 1):
                new_strides[view_d] = view_numel * chunk_base_stride
                view_numel *= new_shape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if tensor_d > 0:
                chunk_base_stride = strides[tensor_d - 1]
                tensor_numel = 1
                view_numel = 1
    if view_d != -1:
        return None
    return tuple(new_strides)


@functools.lru_cache(maxsize=4096)
def contiguous_strides(shape: Shape) -> Strides:
    """:func:`strides_from_shape`, remembered: every new tensor needs the strides of its shape."""
    return strides_from_shape(shape)


class TensorData:
    """A view of flat ``storage``: shape, strides and offset, all counted in elements.

    Made for every tensor an op returns, so the constructor does no more than it must; its
    dtype is a plain attribute (read several times by every op), passed in by the ops that
    know it and otherwise looked up from the storage.
    """

    # slots: quicker to make and to read than a dict of attributes
    __slots__ = ("storage", "shape", "strides", "offset", "size", "dims", "dtype")

    def __init__(self, storage: Storage, shape: Sequence[int], strides: Optional[Sequence[int]] = None, offset: int = 0) -> None:
        self.storage = storage
        self.shape: Shape = tuple(map(int, shape))
        self.strides: Strides = contiguous_strides(self.shape) if strides is None else tuple(map(int, strides))
        self.offset = int(offset)
        if len(self.strides) != len(self.shape):
            raise IndexingError(f"strides {self.strides} don't match shape {self.shape}")
        self.size = math.prod(self.shape)
        self.dims = len(self.shape)
        self.dtype: dtypes.dtype = dtypes.from_numpy_dtype(storage.dtype)

    @classmethod
    def contiguous(cls, storage: Storage, shape: Shape, size: int, offset: int = 0,
                   dtype: Optional[dtypes.dtype] = None) -> "TensorData":
        """A row-major view of ``storage`` from ``offset``, for a ``shape`` of ``size`` elements
        that already is a tuple of ints (and ``dtype``, the storage's, where the caller knows it).

        What every op's result is made with: the constructor's conversions and checks,
        skipped, are most of the cost of a small op's result.
        """
        td = cls.__new__(cls)
        td.storage, td.shape, td.strides, td.offset = storage, shape, contiguous_strides(shape), offset
        td.size, td.dims = size, len(shape)
        td.dtype = dtypes.from_numpy_dtype(storage.dtype) if dtype is None else dtype
        return td

    def restrided(self, shape: Shape, strides: Strides, offset: Optional[int] = None) -> "TensorData":
        """Another view of this storage: ``shape`` and ``strides`` already tuples of ints of one
        length (a view op computed them), ``offset`` this one's unless given. What the view ops
        make theirs with: the constructor's conversions and checks, skipped."""
        td = TensorData.__new__(TensorData)
        td.storage, td.shape, td.strides = self.storage, shape, strides
        td.offset = self.offset if offset is None else offset
        td.size, td.dims, td.dtype = math.prod(shape), len(shape), self.dtype
        return td

    def narrowed(self, dim: int, start: int, length: int) -> "TensorData":
        """The view of ``length`` positions from ``start`` along ``dim`` (checked by the caller)."""
        shape = self.shape[:dim] + (length,) + self.shape[dim + 1 :]
        return self.restrided(shape, self.strides, self.offset + start * self.strides[dim])

    def selected(self, dim: int, index: int) -> "TensorData":
        """The view at ``index`` along ``dim`` (checked by the caller), that dimension removed."""
        return self.restrided(self.shape[:dim] + self.shape[dim + 1 :], self.strides[:dim] + self.strides[dim + 1 :],
                              self.offset + index * self.strides[dim])

    def unsqueezed(self, dim: int) -> "TensorData":
        """The same elements with a new dimension of size 1 at ``dim`` (``0 <= dim <= dims``)."""
        step = self.strides[dim] * self.shape[dim] if dim < self.dims else 1  # any step: it is never taken
        return self.restrided(self.shape[:dim] + (1,) + self.shape[dim:], self.strides[:dim] + (step,) + self.strides[dim:])

    @property
    def buffer(self) -> Storage:
        """The storage seen from this view's first element (``storage[offset:]``), what kernels read."""
        return self.storage[self.offset :] if self.offset else self.storage

    def is_contiguous(self) -> bool:
        """True when the elements are laid out in row-major order with no gaps: the strides of
        size-1 dimensions do not matter, and a view without elements always is (as PyTorch's)."""
        if not self.size:
            return True
        expected = 1
        for size, stride in zip(reversed(self.shape), reversed(self.strides)):
            if size != 1 and stride != expected:
                return False
            expected *= size
        return True

    def index(self, index: Sequence[int]) -> int:
        """Absolute storage position of ``index``, checked against the shape."""
        if len(index) != self.dims:
            raise IndexingError(f"index {tuple(index)} must have {self.dims} entries for shape {self.shape}")
        for i, size in zip(index, self.shape):
            if not 0 <= i < size:
                raise IndexingError(f"index {tuple(index)} out of range for shape {self.shape}")
        return self.offset + index_to_position(index, self.strides)

    def permute(self, *order: int) -> "TensorData":
        """The same storage with dimensions reordered: dimension ``i`` of the result is ``order[i]``."""
        if sorted(order) != list(range(self.dims)):
            raise IndexingError(f"permute order {order} is not a permutation of the {self.dims} dimensions")
        return self.restrided(tuple([self.shape[o] for o in order]), tuple([self.strides[o] for o in order]))

    def contiguous_buffer(self) -> np.ndarray:
        """The view's ``size`` values in row-major order as a flat array: a slice of :attr:`buffer`
        where the view is contiguous (which runs on to the end of the storage), else a copy (host
        storage only, as :meth:`numpy_view`)."""
        return self.buffer[: self.size] if self.is_contiguous() else np.ascontiguousarray(self.numpy_view()).reshape(-1)

    def numpy_view(self) -> np.ndarray:
        """A NumPy array sharing this view's memory (same shape and strides)."""
        if not isinstance(self.storage, np.ndarray):
            raise RuntimeError("this view's storage lives on a GPU: copy it to the host first (Tensor.cpu())")
        itemsize = self.storage.itemsize
        strides = [s * itemsize for s in self.strides]
        if self.size and self.storage.flags.c_contiguous:  # direct: a few times quicker than as_strided
            return np.ndarray(self.shape, self.storage.dtype, self.storage, self.offset * itemsize, strides)
        return np.lib.stride_tricks.as_strided(self.buffer, shape=self.shape, strides=strides)

    def __repr__(self) -> str:
        return f"TensorData(shape={self.shape}, strides={self.strides}, offset={self.offset}, dtype={self.storage.dtype})"

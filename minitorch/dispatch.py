"""Raw tensor compute: allocate the result, pick the device's backend, run one primitive.

These helpers sit between autograd :class:`~minitorch.autograd.function.Function` forwards
and the backends. They know shapes, dtypes and devices; they record no graph.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional, Sequence

import numpy as np

from . import dtypes
from .backends import backend_for
from .tensor_data import TensorData, shape_broadcast

if TYPE_CHECKING:
    from .backends.base import Backend
    from .device import device
    from .tensor import Tensor


def check_same_device(*tensors: "Tensor") -> "device":
    """The common device of ``tensors``, or PyTorch's error naming two that differ."""
    first = tensors[0].device
    for t in tensors[1:]:
        if t.device != first:
            raise RuntimeError(
                "Expected all tensors to be on the same device, but found at least two devices, "
                f"{first} and {t.device}!"
            )
    return first


def backend_of(t: "Tensor") -> "Backend":
    return backend_for(t.device.type)


def empty(shape: Sequence[int], dtype: dtypes.dtype, device: "device") -> "Tensor":
    """A new contiguous tensor with uninitialised values."""
    from .tensor import Tensor

    shape = tuple(shape)
    size = int(np.prod(shape, dtype=np.int64))
    storage = backend_for(device.type).empty(size, dtype)
    return Tensor._make(TensorData(storage, shape), device)


def map_op(op: str, a: "Tensor", out_dtype: Optional[dtypes.dtype] = None, out: Optional["Tensor"] = None) -> "Tensor":
    """``op`` applied to each element of ``a`` (into ``out`` when given)."""
    if out is None:
        out = empty(a.shape, out_dtype or a.dtype, a.device)
    backend_of(a).map(op, a._data, out._data)
    return out


def zip_op(op: str, a: "Tensor", b: "Tensor", out_dtype: Optional[dtypes.dtype] = None, out: Optional["Tensor"] = None) -> "Tensor":
    """``op`` on pairs of elements of ``a`` and ``b`` broadcast together."""
    check_same_device(a, b)
    if out is None:
        out = empty(shape_broadcast(a.shape, b.shape), out_dtype or a.dtype, a.device)
    backend_of(a).zip(op, a._data, b._data, out._data)
    return out


def reduce_op(op: str, a: "Tensor", dim: int, out_dtype: Optional[dtypes.dtype] = None) -> "Tensor":
    """Reduce ``a`` along ``dim``, keeping it as a dimension of size 1."""
    out = empty(a.shape[:dim] + (1,) + a.shape[dim + 1 :], out_dtype or a.dtype, a.device)
    backend_of(a).reduce(op, a._data, dim, out._data)
    return out


def arg_reduce_op(op: str, a: "Tensor", dim: int) -> "Tensor":
    """int64 positions along ``dim`` of the max (``argmax``) or min (``argmin``), keepdim."""
    out = empty(a.shape[:dim] + (1,) + a.shape[dim + 1 :], dtypes.int64, a.device)
    backend_of(a).arg_reduce(op, a._data, dim, out._data)
    return out


def matmul_op(a: "Tensor", b: "Tensor") -> "Tensor":
    """Batched product of same-rank operands ``(..., n, k) @ (..., k, m)``."""
    check_same_device(a, b)
    batch = shape_broadcast(a.shape[:-2], b.shape[:-2])
    out = empty(batch + (a.shape[-2], b.shape[-1]), a.dtype, a.device)
    backend_of(a).matmul(a._data, b._data, out._data)
    return out

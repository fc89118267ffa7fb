"""Raw tensor compute: allocate the result, pick the device's backend, run one primitive.

These helpers sit between autograd :class:`~minitorch.autograd.function.Function` forwards
and the backends. They know shapes, dtypes and devices; they record no graph.

Every op on a small tensor spends most of its time here and in the layers above, not in a
kernel, so the common case goes first: operands already on one device (the same device
object, tested by identity before equality) and of one shape.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Optional, Sequence, cast

from . import dtypes
from .backends import backend_for
from .backends.base import ConcatKernels, MulAddKernels, offers
from .index_checks import check_gather, check_scatter
from .memory_formats import result_strides
from .tensor_data import Strides, TensorData, check_new_shape, shape_broadcast

if TYPE_CHECKING:
    from .backends.base import Backend
    from .device import DeviceLike, device
    from .tensor import Tensor


def check_same_device(*tensors: "Tensor") -> "device":
    """The common device of ``tensors``, or PyTorch's error naming two that differ."""
    first = tensors[0]._device
    for t in tensors[1:]:
        if t._device is not first and t._device != first:
            # as PyTorch words it: the accelerator first
            one, other = (t.device, first) if first.type == "cpu" else (first, t.device)
            raise RuntimeError(
                "Expected all tensors to be on the same device, but found at least two devices, "
                f"{one} and {other}!"
            )
    return first


def resolve_device(value: "DeviceLike") -> "device":
    """``value`` as a device this process can compute on: ``'cuda'`` means ``cuda:0``.

    Raises RuntimeError when no GPU (nor Numba's simulator) is usable, or for a device
    index past the last GPU.
    """
    from .device import as_device, device

    target = as_device(value)
    if target.type == "cpu":
        return target
    if target.type == "meta":  # one meta device, without an index (``meta:0`` is the same)
        return device("meta")
    count = backend_for(target.type).device_count()
    index = target.index or 0
    if index >= count:
        raise RuntimeError(
            f"CUDA error: invalid device ordinal: {target} asked for, but this machine has {count} CUDA device(s)"
        )
    return device(target.type, index)


def transfer(t: "Tensor", target: "DeviceLike") -> "Tensor":
    """A copy of ``t``'s values on ``target`` (no graph recorded).

    With the backends' ``upload``/``download``, the only place where values cross between
    the host and a GPU.
    """
    tensor = tensor_class()
    target = resolve_device(target)
    if target == t.device:
        return t
    source = backend_for(t.device.type)
    if target.type == "cpu":
        host = source.download(t._data)
        return tensor._make(TensorData(host.reshape(-1), t.shape), target)
    host = t._data.numpy_view() if t.device.type == "cpu" else source.download(t._data)
    return tensor._make(TensorData(backend_for(target.type).upload(host), t.shape), target)


def backend_of(t: "Tensor") -> "Backend":
    return backend_for(t._device.type)


def empty(shape: Sequence[int], dtype: dtypes.dtype, device: "device") -> "Tensor":
    """A new contiguous tensor with uninitialised values."""
    shape = tuple(map(int, shape))
    check_new_shape(shape)
    return _result(shape, dtype, device)


def _result(shape: tuple[int, ...], dtype: dtypes.dtype, device: "device") -> "Tensor":
    """:func:`empty` for a ``shape`` taken from operands (already a tuple of ints)."""
    return _result_from(backend_for(device.type), shape, dtype, device)


def _result_from(backend: "Backend", shape: tuple[int, ...], dtype: dtypes.dtype, device: "device") -> "Tensor":
    """:func:`_result` by ``device``'s backend, already looked up by an op that calls it next."""
    size = math.prod(shape)
    return _TENSOR_CLASS._make(TensorData.contiguous(backend.empty(size, dtype), shape, size, 0, dtype), device)


def empty_laid_out(shape: tuple[int, ...], strides: Strides, dtype: dtypes.dtype, device: "device") -> "Tensor":
    """A new tensor with uninitialised values whose elements lie in its storage by ``strides``:
    a dense layout of ``shape`` (a memory format's: :func:`.memory_formats.copy_strides`), so
    the storage holds exactly as many elements."""
    out = _result(shape, dtype, device)
    out._data.strides = strides
    return out


def _follow_layout(out: "Tensor", operand: TensorData) -> None:
    """Give ``out``, an elementwise result just made (row-major, nobody else holds it), the
    channels-last layout of ``operand`` where PyTorch's result keeps it
    (:func:`.memory_formats.result_strides`). Its storage holds the same elements either way."""
    strides = result_strides(out._data.shape, operand.shape, operand.strides)
    if strides is not None:
        out._data.strides = strides


def reshaped_result(out: "Tensor", shape: tuple[int, ...]) -> "Tensor":
    """``out``, a result an op has just made, in ``shape`` (as many elements): a reduction's
    ``(n, 1)`` read as ``(n,)``.

    ``out.view(shape)`` would record a view; a fresh result is contiguous and holds all of its
    storage, so the new shape needs only its own strides. Not for a tensor anyone else holds.
    """
    data = out._data
    return _TENSOR_CLASS._make(TensorData.contiguous(data.storage, shape, data.size), out._device)


def _check_fits(out: "Tensor", *operands: "Tensor") -> None:
    """Raise unless every operand broadcasts to exactly ``out``'s shape (else a kernel would
    read outside it); PyTorch's message for an in-place op."""
    target = out._data.shape
    for operand in operands:
        if operand._data.shape != target:
            broadcast = tuple(shape_broadcast(operand._data.shape, target))
            if broadcast != target:
                raise RuntimeError(f"output with shape {list(target)} doesn't match the broadcast shape {list(broadcast)}")


def map_op(op: str, a: "Tensor", out_dtype: Optional[dtypes.dtype] = None, out: Optional["Tensor"] = None) -> "Tensor":
    """``op`` applied to each element of ``a`` (into ``out`` when given)."""
    backend = backend_for(a._device.type)  # (backend_of, written out: once per op)
    if out is None:
        a_data = a._data
        out = _result_from(backend, a_data.shape, out_dtype or a_data.dtype, a._device)
        if a_data.dims > 3 and a_data.strides != out._data.strides and op != "copy":  # "copy": clone, cast
            _follow_layout(out, a_data)
    else:
        check_same_device(out, a)
        _check_fits(out, a)
    backend.map(op, a._data, out._data)
    return out


def zip_op(op: str, a: "Tensor", b: "Tensor", out_dtype: Optional[dtypes.dtype] = None, out: Optional["Tensor"] = None) -> "Tensor":
    """``op`` on pairs of elements of ``a`` and ``b`` broadcast together."""
    a_data, b_data = a._data, b._data
    backend = backend_for(a._device.type)  # (backend_of, written out: once per op)
    if out is None:
        if b._device is not a._device:
            check_same_device(a, b)
        a_shape, b_shape = a_data.shape, b_data.shape
        if a_shape == b_shape or not b_shape:  # ``not``: a 0-d operand (``x * 2``) takes the other's shape
            shape = a_shape
        else:
            shape = b_shape if not a_shape else tuple(shape_broadcast(a_shape, b_shape))
        out = _result_from(backend, shape, out_dtype or a_data.dtype, a._device)
        if len(shape) > 3 and a_data.strides != out._data.strides:  # the first operand of the whole shape decides
            _follow_layout(out, a_data if a_data.shape == shape else b_data)
    else:
        check_same_device(a, b, out)
        _check_fits(out, a, b)
    backend.zip(op, a_data, b_data, out._data)
    return out


def mul_add_op(a: "Tensor", b: "Tensor", c: "Tensor", out: Optional["Tensor"] = None) -> "Tensor":
    r""":math:`a b + c` with one rounding, as PyTorch's ``add(alpha=)``, ``lerp`` and ``addcmul``
    compute (three tensors of one dtype, broadcast together; into ``out`` when given, which may be
    ``c`` itself). Integers, and a backend without :class:`~.backends.base.MulAddKernels`, get a
    ``mul`` and an ``add`` (exact for integers)."""
    dtype = a._data.dtype
    if b._data.dtype is not dtype or c._data.dtype is not dtype or (out is not None and out._data.dtype is not dtype):
        named = ", ".join(str(t.dtype) for t in (a, b, c) + (() if out is None else (out,)))
        raise TypeError(f"mul_add takes tensors of one dtype, got {named}")
    backend = backend_for(a._device.type)
    if not (dtype.is_floating_point and offers(backend, MulAddKernels)):
        return zip_op("add", zip_op("mul", a, b), c, out=out)
    if out is None:
        check_same_device(a, b, c)
        shape = tuple(shape_broadcast(shape_broadcast(a._data.shape, b._data.shape), c._data.shape))
        out = _result_from(backend, shape, dtype, a._device)
    else:
        check_same_device(a, b, c, out)
        _check_fits(out, a, b, c)
    cast("MulAddKernels", backend).mul_add(a._data, b._data, c._data, out._data)
    return out


def _reduced(shape: tuple[int, ...], dim: int) -> tuple[int, ...]:
    """``shape`` with dimension ``dim`` set to 1 (what a reduction along ``dim`` keeps)."""
    return shape[:dim] + (1,) + shape[dim + 1 :]


def reduce_op(op: str, a: "Tensor", dim: int, out_dtype: Optional[dtypes.dtype] = None) -> "Tensor":
    """Reduce ``a`` along ``dim``, keeping it as a dimension of size 1."""
    backend = backend_for(a._device.type)  # (backend_of, written out: once per op)
    out = _result_from(backend, _reduced(a._data.shape, dim), out_dtype or a._data.dtype, a._device)
    backend.reduce(op, a._data, dim, out._data)
    return out


def arg_reduce_op(op: str, a: "Tensor", dim: int) -> "Tensor":
    """int64 positions along ``dim`` of the max (``argmax``) or min (``argmin``), keepdim."""
    out = _result(_reduced(a._data.shape, dim), dtypes.int64, a._device)
    backend_of(a).arg_reduce(op, a._data, dim, out._data)
    return out


def matmul_op(a: "Tensor", b: "Tensor", out_dtype: Optional[dtypes.dtype] = None) -> "Tensor":
    """Batched product of same-rank operands ``(..., n, k) @ (..., k, m)`` (of ``a``'s dtype unless told)."""
    if b._device is not a._device:
        check_same_device(a, b)
    a_shape, b_shape = a._data.shape, b._data.shape
    if len(a_shape) == 2:  # two matrices: no batch
        shape = (a_shape[0], b_shape[1])
    else:
        batch = a_shape[:-2]
        if batch != b_shape[:-2]:
            batch = tuple(shape_broadcast(batch, b_shape[:-2]))
        shape = batch + (a_shape[-2], b_shape[-1])
    backend = backend_for(a._device.type)  # (backend_of, written out: once per op)
    out = _result_from(backend, shape, out_dtype or a._data.dtype, a._device)
    backend.matmul(a._data, b._data, out._data)
    return out


def cat_op(parts: Sequence[TensorData], dim: int, out: "Tensor") -> "Tensor":
    """Copy the views ``parts`` one after another along ``dim`` into ``out``: of ``out``'s dtype
    and device, of its shape but along ``dim``, where their lengths add up to ``out``'s (the
    caller checks)."""
    backend = backend_of(out)
    if offers(backend, ConcatKernels):
        cast(ConcatKernels, backend).cat(parts, dim, out._data)
        return out
    start = 0
    for part in parts:
        length = part.shape[dim]
        backend.map("copy", part, out._data.narrowed(dim, start, length))
        start += length
    return out


def accumulate_op(src: "Tensor", out: "Tensor") -> "Tensor":
    """``out[i] += src[i]`` for every index of ``out``, correct when ``out``'s view overlaps itself."""
    check_same_device(src, out)
    _check_fits(out, src)
    backend_of(out).accumulate(src._data, out._data)
    return out


def _at_least_1d(data: TensorData) -> TensorData:
    """``data``, a 0-d view read as shape ``(1,)`` (what the gather/scatter kernels index)."""
    return data if data.dims else TensorData(data.storage, (1,), (1,), data.offset)


def _kernel_index(index: "Tensor") -> TensorData:
    """A checked index as the kernels take it: int64, at least 1-d."""
    if index._data.dtype is not dtypes.int64:
        index = map_op("copy", index, out_dtype=dtypes.int64)
    return _at_least_1d(index._data)


def gather_op(a: "Tensor", dim: int, index: "Tensor") -> "Tensor":
    """``out[i] = a[i with i[dim] = index[i]]``, ``out`` shaped like ``index`` (``dim`` normalised).

    Raises PyTorch's errors for an index the kernels cannot take safely
    (:func:`~minitorch.index_checks.check_gather`) before any backend runs.
    """
    check_same_device(a, index)
    check_gather(a, dim, index)
    out = _result(index._data.shape, a._data.dtype, a._device)
    if out._data.size:
        backend_of(a).gather(_at_least_1d(a._data), dim, _kernel_index(index), _at_least_1d(out._data))
    return out


def scatter_add_op(src: "Tensor", dim: int, index: "Tensor", out: "Tensor") -> "Tensor":
    """``out[i with i[dim] = index[i]] += src[i]`` over ``index``'s shape (``dim`` normalised).

    Raises PyTorch's errors for an index or ``src`` the kernels cannot take safely
    (:func:`~minitorch.index_checks.check_scatter`) before any backend runs.
    """
    check_same_device(src, index, out)
    check_scatter(out, dim, index, src)
    if index._data.size:
        backend_of(out).scatter_add(_at_least_1d(src._data), dim, _kernel_index(index), _at_least_1d(out._data))
    return out


def log_softmax_op(a: "Tensor") -> "Tensor":
    """``a - log(sum(exp(a)))`` along the rows of the 2-D floating ``a``, stably (no graph)."""
    if a.dim() != 2 or not a._data.dtype.is_floating_point:
        raise ValueError(f"log_softmax_op takes a floating matrix, got shape {tuple(a.shape)} of {a._data.dtype}")
    out = _result(a._data.shape, a._data.dtype, a._device)
    backend_of(a).log_softmax(a._data, out._data)
    return out


_TENSOR_CLASS: "Optional[type[Tensor]]" = None


def register_tensor_type(cls: "type[Tensor]") -> None:
    """Make ``cls`` the class results are made of (``tensor.py`` registers ``Tensor``, so this
    module, below it, never imports it)."""
    global _TENSOR_CLASS
    _TENSOR_CLASS = cls


def tensor_class() -> "type[Tensor]":
    """The registered :class:`~minitorch.tensor.Tensor` class."""
    if _TENSOR_CLASS is None:
        raise RuntimeError("no tensor type registered: import minitorch first")
    return _TENSOR_CLASS


"""Functions that make tensors: from data, filled with a value, ranges, and random values.

Each takes PyTorch's keyword arguments ``dtype``, ``device`` and ``requires_grad``.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Optional, Sequence

import numpy as np

from . import dtypes
from .device import DeviceLike, as_device
from .dispatch import empty as empty_on_device, resolve_device
from .generator import Generator, default_generator_of
from .shapes import normalize_dim, shape_from_args
from .tensor import Tensor, _move_to_device
from .tensor_data import check_new_shape
from .ops.views import Cat


def _check_can_require_grad(dtype: dtypes.dtype, requires_grad: bool) -> None:
    """A factory's ``requires_grad=True`` needs a floating point dtype (PyTorch's wording)."""
    if requires_grad and not dtype.is_floating_point:
        raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")


def _new_shape(size: tuple[Any, ...]) -> tuple[int, ...]:
    """The shape a factory was asked for, checked: ints, none negative."""
    shape = shape_from_args(size)
    check_new_shape(shape)
    return shape


def _finish(array: np.ndarray, dtype: Any, device: DeviceLike, requires_grad: bool) -> Tensor:
    """A tensor owning ``array`` (converted to ``dtype``) on ``device`` (copied there from the host)."""
    if dtype is not None:
        array = array.astype(dtypes.as_dtype(dtype).numpy, copy=False)
    _check_can_require_grad(dtypes.from_numpy_dtype(array.dtype), requires_grad)
    t = Tensor._from_numpy_array(array if array.flags.c_contiguous else array.copy(order="C"))
    target = resolve_device(device)
    if target.type != "cpu":
        t = _move_to_device(t, target)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _infer_numpy(data: Any, keep_float64: bool = False) -> np.ndarray:
    """NumPy array of nested lists/numbers with PyTorch's dtype inference.

    ``keep_float64``: Python floats stay float64 (an explicit ``dtype`` follows), so that
    ``tensor([0.1], dtype=float64)`` is not rounded through the default float32.
    """
    if isinstance(data, Tensor):
        return data.detach()._host_numpy().copy()
    if isinstance(data, np.ndarray):
        return data.copy()
    if isinstance(data, (list, tuple)) and any(isinstance(x, Tensor) for x in data):
        data = [_infer_numpy(x) for x in data]
    array = np.array(data)
    if array.dtype == object:
        raise TypeError(f"can't build a tensor from {type(data).__name__} with ragged or non-numeric entries")
    if array.dtype.kind == "f" and not keep_float64:
        array = array.astype(dtypes.get_default_dtype().numpy)
    elif array.dtype.kind in "iu" and not isinstance(data, np.ndarray):
        array = array.astype(np.int64)
    elif array.dtype.kind not in "biuf":
        raise TypeError(f"can't build a tensor from data of NumPy kind {array.dtype}")
    return array


def tensor(data: Any, *, dtype: Any = None, device: DeviceLike = None, requires_grad: bool = False) -> Tensor:
    """A new tensor copying ``data`` (nested lists, numbers, NumPy arrays, tensors).

    Floats become float32, ints int64 and bools bool, unless ``dtype`` says otherwise.
    """
    return _finish(_infer_numpy(data, keep_float64=dtype is not None), dtype, device, requires_grad)


def as_tensor(data: Any, dtype: Any = None, device: DeviceLike = None) -> Tensor:
    """Like :func:`tensor`, but shares memory with a tensor or NumPy array when nothing must change."""
    if isinstance(data, Tensor):
        return data.to(device=as_device(device) if device is not None else data.device, dtype=dtype or data.dtype)
    if isinstance(data, np.ndarray) and (dtype is None or dtypes.as_dtype(dtype).numpy == data.dtype) and as_device(device).type == "cpu":
        return from_numpy(data)
    return tensor(data, dtype=dtype, device=device)


def from_numpy(array: np.ndarray) -> Tensor:
    """A tensor sharing ``array``'s memory: writes to one show in the other."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(array).__name__})")
    dtypes.from_numpy_dtype(array.dtype)
    if any(s < 0 for s in array.strides):
        raise ValueError("At least one stride in the given numpy array is negative; copy it first (array.copy())")
    return Tensor._from_numpy_array(array)


def _filled(shape: tuple[int, ...], value: Any, dtype: Any, device: DeviceLike, requires_grad: bool) -> Tensor:
    check_new_shape(shape)
    target = dtypes.as_dtype(dtype) if dtype is not None else dtypes.scalar_dtype(value)
    _check_can_require_grad(target, requires_grad)
    on = resolve_device(device)
    if on.type != "cpu":  # filled on the device: only the value crosses from the host
        t = empty_on_device(shape, target, on)
        t._raw_fill(value)
        return t.requires_grad_(True) if requires_grad else t
    return _finish(np.full(shape, value, dtype=target.numpy), None, device, requires_grad)


def zeros(*size: Any, dtype: Any = None, device: DeviceLike = None, requires_grad: bool = False) -> Tensor:
    shape = shape_from_args(size)
    if any(s < 0 for s in shape):
        raise RuntimeError(f"zeros: Dimension size must be non-negative. (size {list(shape)})")
    return _filled(shape, 0.0, dtype or dtypes.get_default_dtype(), device, requires_grad)


def ones(*size: Any, dtype: Any = None, device: DeviceLike = None, requires_grad: bool = False) -> Tensor:
    return _filled(shape_from_args(size), 1.0, dtype or dtypes.get_default_dtype(), device, requires_grad)


def full(size: Sequence[int], fill_value: Any, *, dtype: Any = None, device: DeviceLike = None, requires_grad: bool = False) -> Tensor:
    """A tensor of ``size`` filled with ``fill_value`` (dtype inferred from it, as PyTorch)."""
    return _filled(shape_from_args((size,)), fill_value, dtype, device, requires_grad)


def empty(*size: Any, dtype: Any = None, device: DeviceLike = None, requires_grad: bool = False) -> Tensor:
    """A tensor whose values are whatever memory held (here: zeros, for reproducibility)."""
    return _filled(shape_from_args(size), 0.0, dtype or dtypes.get_default_dtype(), device, requires_grad)


def _like(maker: Callable[..., Tensor], t: Tensor, *args: Any, dtype: Any, device: DeviceLike,
          requires_grad: bool) -> Tensor:
    """``maker(t.shape, *args)`` with ``t``'s dtype and device unless others are given."""
    return maker(t.shape, *args, dtype=dtype if dtype is not None else t.dtype,
                 device=device if device is not None else t.device, requires_grad=requires_grad)


def zeros_like(t: Tensor, *, dtype: Any = None, device: DeviceLike = None, requires_grad: bool = False) -> Tensor:
    """Zeros of ``t``'s shape, dtype and device."""
    return _like(zeros, t, dtype=dtype, device=device, requires_grad=requires_grad)


def ones_like(t: Tensor, *, dtype: Any = None, device: DeviceLike = None, requires_grad: bool = False) -> Tensor:
    """Ones of ``t``'s shape, dtype and device."""
    return _like(ones, t, dtype=dtype, device=device, requires_grad=requires_grad)


def empty_like(t: Tensor, *, dtype: Any = None, device: DeviceLike = None, requires_grad: bool = False) -> Tensor:
    """An uninitialised tensor of ``t``'s shape, dtype and device."""
    return _like(empty, t, dtype=dtype, device=device, requires_grad=requires_grad)


def full_like(t: Tensor, fill_value: Any, *, dtype: Any = None, device: DeviceLike = None, requires_grad: bool = False) -> Tensor:
    """``fill_value`` in ``t``'s shape, dtype and device."""
    return _like(full, t, fill_value, dtype=dtype, device=device, requires_grad=requires_grad)


def _generator(device: DeviceLike, generator: Any = None) -> np.random.Generator:
    """``generator``'s stream, else the generator of ``device``'s kind: cuda tensors draw from the
    cuda device's own (on the host, then copied to the device), so their draws leave the cpu
    sequence alone."""
    if generator is not None:
        if not isinstance(generator, Generator):
            raise TypeError(f"generator must be a minitorch.Generator, not {type(generator).__name__}")
        return generator.numpy_generator()
    return default_generator_of(as_device(device).type).numpy_generator()


def _random_float_dtype(dtype: Any) -> dtypes.dtype:
    target = dtypes.as_dtype(dtype) if dtype is not None else dtypes.get_default_dtype()
    if not target.is_floating_point:
        raise RuntimeError(f"random floats need a floating point dtype, got {target}")
    return target


def rand(*size: Any, generator: Any = None, dtype: Any = None, device: DeviceLike = None,
         requires_grad: bool = False) -> Tensor:
    """Uniform samples in :math:`[0, 1)`."""
    target = _random_float_dtype(dtype)
    return _finish(_generator(device, generator).random(_new_shape(size)), target, device, requires_grad)


def randn(*size: Any, generator: Any = None, dtype: Any = None, device: DeviceLike = None,
          requires_grad: bool = False) -> Tensor:
    """Standard normal samples."""
    target = _random_float_dtype(dtype)
    return _finish(_generator(device, generator).standard_normal(_new_shape(size)), target, device, requires_grad)


def rand_like(t: Tensor, *, dtype: Any = None, device: DeviceLike = None, requires_grad: bool = False) -> Tensor:
    """Uniform samples in :math:`[0, 1)` of ``t``'s shape, dtype and device."""
    return _like(rand, t, dtype=dtype, device=device, requires_grad=requires_grad)


def randn_like(t: Tensor, *, dtype: Any = None, device: DeviceLike = None, requires_grad: bool = False) -> Tensor:
    """Standard normal samples of ``t``'s shape, dtype and device."""
    return _like(randn, t, dtype=dtype, device=device, requires_grad=requires_grad)


def randint(*args: Any, generator: Any = None, dtype: Any = None, device: DeviceLike = None,
            requires_grad: bool = False) -> Tensor:
    """``randint(high, size)`` or ``randint(low, high, size)``: integers in ``[low, high)``, int64."""
    if len(args) == 2:
        low, (high, size) = 0, args
    elif len(args) == 3:
        low, high, size = args
    else:
        raise TypeError("randint() expects (high, size) or (low, high, size)")
    if high <= low:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    values = _generator(device, generator).integers(low, high, size=_new_shape((size,)))
    return _finish(values, dtype or dtypes.int64, device, requires_grad)


def randperm(n: int, *, generator: Any = None, dtype: Any = None, device: DeviceLike = None,
             requires_grad: bool = False) -> Tensor:
    """A random permutation of ``0 .. n-1`` (int64 unless ``dtype`` says otherwise), drawn from
    ``generator`` or the device's default generator."""
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    source = _generator(device, generator)
    return _finish(source.permutation(n), dtype or dtypes.int64, device, requires_grad)


def arange(*args: Any, dtype: Any = None, device: DeviceLike = None, requires_grad: bool = False) -> Tensor:
    """``arange(end)``, ``arange(start, end)``, ``arange(start, end, step)``; int64 unless a bound is a float."""
    if not 1 <= len(args) <= 3:
        raise TypeError("arange() expects 1 to 3 positional arguments")
    start, end, step = (0, args[0], 1) if len(args) == 1 else (args[0], args[1], args[2] if len(args) == 3 else 1)
    if not (math.isfinite(start) and math.isfinite(end)):
        raise RuntimeError(f"unsupported range: {start} -> {end}")
    if step == 0 or math.isnan(step):
        raise RuntimeError("step must be nonzero")
    if (end - start) * step < 0:
        raise RuntimeError(f"upper bound and lower bound inconsistent with step sign (start={start}, end={end}, step={step})")
    count = max(0, math.ceil((end - start) / step))
    inferred = dtypes.int64 if all(isinstance(v, (int, np.integer)) for v in (start, end, step)) else dtypes.get_default_dtype()
    values = start + step * np.arange(count, dtype=np.float64 if inferred.is_floating_point else np.int64)
    return _finish(values, dtype or inferred, device, requires_grad)


def linspace(start: float, end: float, steps: int, *, dtype: Any = None, device: DeviceLike = None, requires_grad: bool = False) -> Tensor:
    if steps < 0:
        raise RuntimeError(f"number of steps must be non-negative, got {steps}")
    return _finish(np.linspace(start, end, steps), dtype or dtypes.get_default_dtype(), device, requires_grad)


def eye(n: int, m: Optional[int] = None, *, dtype: Any = None, device: DeviceLike = None, requires_grad: bool = False) -> Tensor:
    """The ``n`` x ``m`` identity matrix (``m = n`` by default)."""
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
    if m is not None and m < 0:
        raise RuntimeError(f"m must be greater or equal to 0, got {m}")
    return _finish(np.eye(n, m if m is not None else n), dtype or dtypes.get_default_dtype(), device, requires_grad)


def cat(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    """Join tensors of equal shape (except along ``dim``) along ``dim``, promoting dtypes."""
    from .dispatch import check_same_device
    from .tensor import result_dtype

    tensors = [t for t in tensors]
    if not tensors:
        raise RuntimeError("cat(): expected a non-empty list of Tensors")
    # PyTorch skips legacy empty 1-D tensors of shape (0,)
    kept = [t for t in tensors if not (t.dim() == 1 and t.shape[0] == 0)] or tensors[:1]
    check_same_device(*kept)
    reference = kept[0]
    if reference.dim() == 0:
        raise RuntimeError("zero-dimensional tensor (at position 0) cannot be concatenated")
    d = normalize_dim(dim, reference.dim())
    for position, t in enumerate(kept):
        if t.dim() != reference.dim() or any(a != b for i, (a, b) in enumerate(zip(t.shape, reference.shape)) if i != d):
            raise RuntimeError(
                f"Sizes of tensors must match except in dimension {d}. Expected {list(reference.shape)} "
                f"(ignoring dimension {d}) but got {list(t.shape)} for tensor number {position} in the list."
            )
    target = result_dtype(*kept)
    return Cat.apply(*[t.to(target) for t in kept], dim=d)


concat = cat


def stack(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    """Join tensors of the same shape along a new dimension ``dim``."""
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    for position, t in enumerate(tensors):
        if t.shape != tensors[0].shape:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got {list(tensors[0].shape)} at entry 0 and "
                f"{list(t.shape)} at entry {position}"
            )
    d = normalize_dim(dim, tensors[0].dim() + 1)
    return cat([t.unsqueeze(d) for t in tensors], d)


def is_tensor(obj: Any) -> bool:
    return isinstance(obj, Tensor)


def numel(t: Tensor) -> int:
    return t.numel()

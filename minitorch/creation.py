"""Functions that make tensors: from data, filled with a value, ranges, and random values.

Each takes PyTorch's keyword arguments ``dtype``, ``device`` and ``requires_grad``.
"""

from __future__ import annotations

import functools
import math
import warnings
from typing import Any, Callable, Optional, Sequence, TypeVar

import numpy as np

from . import draws, dtypes
from .device import DeviceLike, as_device
from .dispatch import check_same_device, empty as empty_on_device, resolve_device
from .generator import Generator, default_generator_of
from .memory_formats import contiguous_format, copy_strides, check_memory_format, preserve_format
from .rounding import fused_multiply_add
from .shapes import normalize_dim, shape_from_args
from .tensor import Tensor, _move_to_device, result_dtype
from .tensor_data import TensorData, check_new_shape
from .ops.views import Cat, Stack, is_legacy_empty
from .out_argument import user_stacklevel, write_out

F = TypeVar("F", bound=Callable[..., Any])


def _accepts_size_keyword(function: F) -> F:
    """Let ``function(*size)`` also take its size as ``size=``, as PyTorch's ``zeros(size=(2, 3))``."""

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if "size" in kwargs:
            if args:
                raise TypeError(f"{function.__name__}() got multiple values for argument 'size'")
            args = (kwargs.pop("size"),)
        return function(*args, **kwargs)

    return wrapper  # type: ignore[return-value]


#: PyTorch's warning (its range factories') for an ``arange`` into an ``out`` of another number of elements
ARANGE_RESIZE_WARNING = (
    "The number of elements in the out tensor of shape {shape} is {numel} which does not match the computed number "
    "of elements {count}. Note that this may occur as a result of rounding error. The out tensor will be resized to "
    "a tensor of shape ({count},)."
)


def _written(out: Optional[Tensor], result: Tensor, op: str) -> Tensor:
    """``result``, or written into ``out`` by PyTorch's rules (:func:`~minitorch.out_argument.write_out`):
    a factory makes its values in ``out``'s dtype, on its device, and resizes it without a warning."""
    return write_out(result, out, op, factory=True)


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
        with np.errstate(over="ignore"):  # beyond a 16-bit float's range is inf
            array = dtypes.cast_array(array, dtypes.as_dtype(dtype).numpy)
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
    if isinstance(data, np.generic) and not isinstance(data, np.object_):  # a NumPy number keeps its dtype, as in PyTorch
        return _infer_numpy(np.array(data))
    if isinstance(data, (list, tuple)) and any(isinstance(x, Tensor) for x in data):
        data = [_infer_numpy(x) for x in data]
    array = np.array(data)
    if array.dtype == object:
        raise TypeError(f"can't build a tensor from {type(data).__name__} with ragged or non-numeric entries")
    if array.dtype.kind == "f" and not keep_float64:
        array = array.astype(dtypes.get_default_dtype().numpy)
    elif array.dtype.kind in "iu" and not isinstance(data, np.ndarray):
        array = array.astype(np.int64)
    elif array.dtype.kind not in "biuf" and not dtypes.is_low_precision(array.dtype):  # bfloat16's kind is "V"
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
    else:  # NumPy fills the storage, wrapped as it is (``_finish``'s layout checks cost more than the fill)
        size = math.prod(shape)
        t = Tensor._make(TensorData.contiguous(np.full(size, value, dtype=target.numpy), shape, size, 0, target), on)
    return t.requires_grad_(True) if requires_grad else t


def _dtype_or_out(dtype: Any, out: Optional[Tensor], default: Optional[dtypes.dtype] = None) -> Any:
    """The dtype to make: ``dtype``, else ``out``'s (PyTorch fills ``out`` in its own dtype), else ``default``."""
    if dtype is not None:
        return dtype
    if isinstance(out, Tensor):
        return out.dtype
    return default


@_accepts_size_keyword
def zeros(*size: Any, out: Optional[Tensor] = None, dtype: Any = None, device: DeviceLike = None,
          requires_grad: bool = False) -> Tensor:
    shape = shape_from_args(size)
    if any(s < 0 for s in shape):
        raise RuntimeError(f"zeros: Dimension size must be non-negative. (size {list(shape)})")
    target = _dtype_or_out(dtype, out, dtypes.get_default_dtype())
    return _written(out, _filled(shape, 0.0, target, device, requires_grad), "zeros")


@_accepts_size_keyword
def ones(*size: Any, out: Optional[Tensor] = None, dtype: Any = None, device: DeviceLike = None,
         requires_grad: bool = False) -> Tensor:
    target = _dtype_or_out(dtype, out, dtypes.get_default_dtype())
    return _written(out, _filled(shape_from_args(size), 1.0, target, device, requires_grad), "ones")


def full(size: Sequence[int], fill_value: Any, *, out: Optional[Tensor] = None, dtype: Any = None,
         device: DeviceLike = None, requires_grad: bool = False) -> Tensor:
    """A tensor of ``size`` filled with ``fill_value`` (dtype inferred from it, as PyTorch)."""
    filled = _filled(shape_from_args((size,)), fill_value, _dtype_or_out(dtype, out), device, requires_grad)
    return _written(out, filled, "full")


@_accepts_size_keyword
def empty(*size: Any, out: Optional[Tensor] = None, dtype: Any = None, device: DeviceLike = None,
          requires_grad: bool = False, memory_format: Any = None) -> Tensor:
    """A tensor whose values are whatever memory held (here: zeros, for reproducibility), laid
    out in ``memory_format`` (row-major by default)."""
    target = _dtype_or_out(dtype, out, dtypes.get_default_dtype())
    made = _filled(shape_from_args(size), 0.0, target, device, requires_grad)
    return _written(out, in_memory_format(made, None, memory_format, "empty"), "empty")


def in_memory_format(made: Tensor, like: Optional[Tensor], memory_format: Any, op: str) -> Tensor:
    """``made``, a tensor a factory has just made (row-major, holding all of its storage, held by
    nobody else), with its elements laid out in ``memory_format`` instead: ``preserve_format``
    takes ``like``'s layout (PyTorch's rule, :func:`~minitorch.memory_formats.copy_strides`).
    Nothing moves: equal values stay equal, random ones read as drawn in storage order (as
    PyTorch's). PyTorch's errors for a format of another rank and for ``preserve_format``
    without ``like``."""
    if memory_format is None or memory_format is contiguous_format:
        return made
    fmt = check_memory_format(memory_format, op)
    if fmt is preserve_format and like is None:
        raise RuntimeError("unsupported memory format Preserve")
    data = made._data
    strides = copy_strides(data.shape, (like if like is not None else made)._data.strides, fmt)
    made._data = TensorData(data.storage, data.shape, strides, data.offset)
    return made


def _like(maker: Callable[..., Tensor], t: Tensor, *args: Any, dtype: Any, device: DeviceLike,
          requires_grad: bool, memory_format: Any) -> Tensor:
    """``maker(t.shape, *args)`` with ``t``'s dtype and device unless others are given, laid out
    in ``memory_format`` (row-major unless given: see :func:`in_memory_format`)."""
    made = maker(t.shape, *args, dtype=dtype if dtype is not None else t.dtype,
                 device=device if device is not None else t.device, requires_grad=requires_grad)
    return in_memory_format(made, t, memory_format, f"{maker.__name__}_like")


def zeros_like(input: Tensor, *, dtype: Any = None, device: DeviceLike = None,  # noqa: A002 - PyTorch's name
               requires_grad: bool = False, memory_format: Any = None) -> Tensor:
    """Zeros of ``input``'s shape, dtype and device."""
    return _like(zeros, input, dtype=dtype, device=device, requires_grad=requires_grad, memory_format=memory_format)


def ones_like(input: Tensor, *, dtype: Any = None, device: DeviceLike = None,  # noqa: A002
              requires_grad: bool = False, memory_format: Any = None) -> Tensor:
    """Ones of ``input``'s shape, dtype and device."""
    return _like(ones, input, dtype=dtype, device=device, requires_grad=requires_grad, memory_format=memory_format)


def empty_like(input: Tensor, *, dtype: Any = None, device: DeviceLike = None,  # noqa: A002
               requires_grad: bool = False, memory_format: Any = None) -> Tensor:
    """An uninitialised tensor of ``input``'s shape, dtype and device."""
    return _like(empty, input, dtype=dtype, device=device, requires_grad=requires_grad, memory_format=memory_format)


def full_like(input: Tensor, fill_value: Any, *, dtype: Any = None, device: DeviceLike = None,  # noqa: A002
              requires_grad: bool = False, memory_format: Any = None) -> Tensor:
    """``fill_value`` in ``input``'s shape, dtype and device."""
    return _like(full, input, fill_value, dtype=dtype, device=device, requires_grad=requires_grad,
                 memory_format=memory_format)


def _generator(device: DeviceLike, generator: Any = None) -> Generator:
    """``generator``, else the generator of ``device``'s kind: cuda tensors draw from the cuda
    device's own (on the host, then copied to the device), so their draws leave the cpu
    sequence alone."""
    if generator is not None:
        if not isinstance(generator, Generator):
            raise TypeError(f"generator must be a minitorch.Generator, not {type(generator).__name__}")
        return generator
    return default_generator_of(as_device(device).type)


def _random_float_dtype(dtype: Any) -> dtypes.dtype:
    target = dtypes.as_dtype(dtype) if dtype is not None else dtypes.get_default_dtype()
    if not target.is_floating_point:
        raise RuntimeError(f"random floats need a floating point dtype, got {target}")
    return target


@_accepts_size_keyword
def rand(*size: Any, generator: Any = None, out: Optional[Tensor] = None, dtype: Any = None,
         device: DeviceLike = None, requires_grad: bool = False) -> Tensor:
    """Uniform samples in :math:`[0, 1)`."""
    target = _random_float_dtype(_dtype_or_out(dtype, out))
    shape = _new_shape(size)
    values = draws.uniform(_generator(device, generator).stream(), math.prod(shape), target.numpy)
    return _written(out, _finish(values.reshape(shape), target, device, requires_grad), "rand")


@_accepts_size_keyword
def randn(*size: Any, generator: Any = None, out: Optional[Tensor] = None, dtype: Any = None,
          device: DeviceLike = None, requires_grad: bool = False) -> Tensor:
    """Standard normal samples."""
    target = _random_float_dtype(_dtype_or_out(dtype, out))
    shape = _new_shape(size)
    values = draws.normal(_generator(device, generator).stream(), math.prod(shape), target.numpy)
    return _written(out, _finish(values.reshape(shape), target, device, requires_grad), "randn")


def rand_like(t: Tensor, *, dtype: Any = None, device: DeviceLike = None, requires_grad: bool = False,
              memory_format: Any = None) -> Tensor:
    """Uniform samples in :math:`[0, 1)` of ``t``'s shape, dtype and device."""
    return _like(rand, t, dtype=dtype, device=device, requires_grad=requires_grad, memory_format=memory_format)


def randn_like(t: Tensor, *, dtype: Any = None, device: DeviceLike = None, requires_grad: bool = False,
               memory_format: Any = None) -> Tensor:
    """Standard normal samples of ``t``'s shape, dtype and device."""
    return _like(randn, t, dtype=dtype, device=device, requires_grad=requires_grad, memory_format=memory_format)


def _overload(op: str, names: tuple[str, ...], args: tuple[Any, ...], keywords: dict[str, Any],
              defaults: dict[str, Any]) -> dict[str, Any]:
    """Bind ``args`` to ``names`` in order and merge ``keywords``, PyTorch's errors for clashes."""
    if len(args) > len(names):
        raise TypeError(f"{op}() takes at most {len(names)} positional arguments ({len(args)} given)")
    bound = dict(zip(names, args))
    for name in sorted(keywords.keys() & bound.keys()):
        raise TypeError(f"{op}() got multiple values for argument '{name}'")
    bound.update(keywords)
    for name, value in defaults.items():
        bound.setdefault(name, value)
    for name in names:
        if name not in bound:
            raise TypeError(f"{op}() missing required argument '{name}'")
    return bound


def randint(*args: Any, low: Any = None, high: Any = None, size: Any = None, generator: Any = None,
            out: Optional[Tensor] = None, dtype: Any = None, device: DeviceLike = None,
            requires_grad: bool = False) -> Tensor:
    """``randint(high, size)`` or ``randint(low, high, size)``: integers in ``[low, high)``, int64."""
    keywords = {name: value for name, value in (("low", low), ("high", high), ("size", size)) if value is not None}
    # the overloads randint(high, size) and randint(low, high, size)
    short = "low" not in keywords and len(args) + len(keywords) == 2
    names = ("high", "size") if short else ("low", "high", "size")
    bound = _overload("randint", names, args, keywords, {"low": 0})
    low, high, size = bound["low"], bound["high"], bound["size"]
    if high <= low:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    shape = _new_shape((size,))
    values = draws.integers(_generator(device, generator).stream(), math.prod(shape), int(low), int(high)).reshape(shape)
    return _written(out, _finish(values, _dtype_or_out(dtype, out, dtypes.int64), device, requires_grad), "randint")


def randperm(n: int, *, generator: Any = None, dtype: Any = None, device: DeviceLike = None,
             requires_grad: bool = False) -> Tensor:
    """A random permutation of ``0 .. n-1`` (int64 unless ``dtype`` says otherwise), drawn from
    ``generator`` or the device's default generator."""
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    order = draws.permutation(_generator(device, generator).stream(), int(n))
    return _finish(order, dtype or dtypes.int64, device, requires_grad)


def arange(*args: Any, start: Any = None, end: Any = None, step: Any = None, out: Optional[Tensor] = None,
           dtype: Any = None, device: DeviceLike = None, requires_grad: bool = False) -> Tensor:
    """``arange(end)``, ``arange(start, end)``, ``arange(start, end, step)``; int64 unless a bound is a float."""
    keywords = {name: value for name, value in (("start", start), ("end", end), ("step", step)) if value is not None}
    # the overloads arange(end) and arange(start, end, step=1)
    names = ("end",) if len(args) == 1 and "end" not in keywords else ("start", "end", "step")
    bound = _overload("arange", names, args, keywords, {"start": 0, "step": 1})
    start, end, step = bound["start"], bound["end"], bound["step"]
    if not (math.isfinite(start) and math.isfinite(end)):
        raise RuntimeError(f"unsupported range: {start} -> {end}")
    if step == 0 or math.isnan(step):
        raise RuntimeError("step must be nonzero")
    if (end - start) * step < 0:
        raise RuntimeError(f"upper bound and lower bound inconsistent with step sign (start={start}, end={end}, step={step})")
    count = max(0, math.ceil((end - start) / step))
    inferred = dtypes.int64 if all(isinstance(v, (int, np.integer)) for v in (start, end, step)) else dtypes.get_default_dtype()
    values = start + step * np.arange(count, dtype=np.float64 if inferred.is_floating_point else np.int64)
    if isinstance(out, Tensor) and 0 < out.numel() != count:
        warnings.warn(ARANGE_RESIZE_WARNING.format(shape=list(out.shape), numel=out.numel(), count=count),
                      UserWarning, stacklevel=user_stacklevel())
    return _written(out, _finish(values, _dtype_or_out(dtype, out, inferred), device, requires_grad), "arange")


def linspace(start: float, end: float, steps: int, *, dtype: Any = None, device: DeviceLike = None, requires_grad: bool = False) -> Tensor:
    if steps < 0:
        raise RuntimeError(f"number of steps must be non-negative, got {steps}")
    target = dtypes.as_dtype(dtype) if dtype is not None else dtypes.get_default_dtype()
    return _finish(_evenly_spaced(start, end, steps, target.numpy), target, device, requires_grad)


def _evenly_spaced(start: float, end: float, steps: int, kind: np.dtype) -> np.ndarray:
    r"""``linspace``'s values as PyTorch's CPU kernel rounds them: the first half counted up from
    ``start``, the second down from ``end`` (so both ends are exact),

    .. math:: x_i = s + h\,i \ (i < n/2), \qquad x_i = e - h\,(n - 1 - i) \ (i \ge n/2), \qquad h = \frac{e - s}{n - 1},

    with :math:`s, e, h` in the output dtype, bit-equal to PyTorch's: its compiler fuses each
    multiply-add into one rounding, which float32 gets here by computing in float64 and float64 by
    :func:`.rounding.fused_multiply_add`; float16 and bfloat16 round after each operation (the count
    :math:`i` too) as PyTorch's 16-bit arithmetic does; integer dtypes step in float64 and truncate."""
    if steps <= 1:
        return np.array([start] * steps, dtype=np.float64).astype(kind)
    half_way = steps // 2
    up_counts = np.arange(half_way)  # i for the first half; n - 1 - i for the second
    down_counts = np.arange(steps - half_way - 1, -1, -1)
    if kind in dtypes.LOW_PRECISION_NUMPY:  # float16 and bfloat16: 16-bit arithmetic
        half, single = kind.type, np.float32
        s, e = half(start), half(end)
        with np.errstate(over="ignore", invalid="ignore"):  # a count past half's range is inf there too (0 * inf: NaN)
            step = single(half(single(e - s) / single(half(steps - 1))))
            up = single(s) + single(half(step * up_counts.astype(half).astype(single)))
            down = single(e) - single(half(step * down_counts.astype(half).astype(single)))
        return np.concatenate([up, down]).astype(half)
    if kind == np.float32:
        s, e = np.float32(start), np.float32(end)
        step = np.float64((e - s) / np.float32(steps - 1))
        return np.concatenate([np.float64(s) + step * up_counts, np.float64(e) - step * down_counts]).astype(kind)
    # float64, and integers stepped in float64
    s, e = float(kind.type(start)), float(kind.type(end))
    step = (e - s) / (steps - 1)
    up = fused_multiply_add(np.full(half_way, step), up_counts.astype(np.float64), np.full(half_way, s))
    down = fused_multiply_add(np.full(steps - half_way, -step), down_counts.astype(np.float64), np.full(steps - half_way, e))
    return np.concatenate([up, down]).astype(kind)


def eye(n: int, m: Optional[int] = None, *, dtype: Any = None, device: DeviceLike = None, requires_grad: bool = False) -> Tensor:
    """The ``n`` x ``m`` identity matrix (``m = n`` by default)."""
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
    if m is not None and m < 0:
        raise RuntimeError(f"m must be greater or equal to 0, got {m}")
    return _finish(np.eye(n, m if m is not None else n), dtype or dtypes.get_default_dtype(), device, requires_grad)


def _all_of_dtype(tensors: list[Tensor], dtype: dtypes.dtype) -> list[Tensor]:
    """``tensors``, each converted to ``dtype`` where it is of another."""
    return [t if t._data.dtype == dtype else t.to(dtype) for t in tensors]


def cat(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    """Join tensors of equal shape (except along ``dim``) along ``dim``, promoting dtypes.

    As PyTorch, a legacy empty tensor of shape ``(0,)`` may stand beside tensors of any shape:
    it adds nothing (and its gradient is empty), but its dtype takes part in the promotion."""
    tensors = [t for t in tensors]
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    kept = [t for t in tensors if not is_legacy_empty(t)]
    if not kept:  # legacy empties only: PyTorch checks no dim, and joins them along their one dim
        check_same_device(*tensors)
        return Cat.apply(*_all_of_dtype(tensors, result_dtype(*tensors)), dim=0)
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
    return Cat.apply(*_all_of_dtype(tensors, result_dtype(*tensors)), dim=d)


concat = cat


def stack(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    """Join tensors of the same shape along a new dimension ``dim``, promoting dtypes."""
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    shape = tensors[0].shape
    for position, t in enumerate(tensors):
        if t.shape != shape:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got {list(shape)} at entry 0 and "
                f"{list(t.shape)} at entry {position}"
            )
    check_same_device(*tensors)
    d = normalize_dim(dim, len(shape) + 1)
    target = result_dtype(*tensors)
    return Stack.apply(*_all_of_dtype(tensors, target), dim=d)


def is_tensor(obj: Any) -> bool:
    return isinstance(obj, Tensor)


def numel(t: Tensor) -> int:
    return t.numel()

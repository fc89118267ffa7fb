"""Small top-level functions older and newer PyTorch scripts call: ``concatenate``, ``unflatten``,
``scalar_tensor``, ``asarray``, ``empty_strided``, ``randint_like``, ``typename``,
``set_default_tensor_type``, ``is_inference_mode_enabled`` and the inter-op thread count.
"""

from __future__ import annotations

import os
import warnings
from typing import Any, Optional, Sequence

import numpy as np

from . import dtypes
from .autograd.grad_mode import is_inference_mode_enabled
from .creation import cat, from_numpy, in_memory_format, randint, tensor, zeros
from .device import DeviceLike, set_default_device
from .legacy_types import LegacyTensorType
from .ops.strided import as_strided
from .tensor import Tensor

__all__ = [
    "asarray", "concatenate", "empty_strided", "get_num_interop_threads", "is_inference_mode_enabled",
    "randint_like", "scalar_tensor", "set_default_tensor_type", "set_num_interop_threads", "typename", "unflatten",
]


def concatenate(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    """NumPy's name of :func:`cat`."""
    return cat(tensors, dim)


def unflatten(input: Tensor, dim: int, sizes: Sequence[int]) -> Tensor:  # noqa: A002
    """``input.unflatten(dim, sizes)``: dimension ``dim`` split into ``sizes`` (one may be -1)."""
    return input.unflatten(dim, sizes)


def scalar_tensor(s: Any, *, dtype: Any = None, device: DeviceLike = None, requires_grad: bool = False) -> Tensor:
    """A 0-dim tensor holding ``s``, of the default float dtype unless ``dtype`` says otherwise."""
    kind = dtypes.get_default_dtype() if dtype is None else dtype
    return tensor(s, dtype=kind, device=device, requires_grad=requires_grad)


def empty_strided(size: Sequence[int], stride: Sequence[int], *, dtype: Any = None, device: DeviceLike = None,
                  requires_grad: bool = False) -> Tensor:
    """An uninitialised (here: zeroed) tensor of ``size`` laid out with ``stride``."""
    size, stride = tuple(size), tuple(stride)
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(s < 0 for s in size):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(size)}: {list(size)}")
    extent = 0 if 0 in size else 1 + sum((s - 1) * st for s, st in zip(size, stride))
    storage = zeros(extent, dtype=dtype, device=device)
    return as_strided(storage, size, stride).requires_grad_(requires_grad)


def asarray(obj: Any, *, dtype: Any = None, device: DeviceLike = None, copy: Optional[bool] = None,
            requires_grad: bool = False) -> Tensor:
    """``obj`` as a tensor, sharing memory with a tensor or NumPy array when it can (``copy=None``),
    always copying with ``copy=True`` and refusing to copy with ``copy=False``."""
    if isinstance(obj, Tensor) or isinstance(obj, np.ndarray):
        source = obj if isinstance(obj, Tensor) else from_numpy(obj)
        kind = source.dtype if dtype is None else dtypes.as_dtype(dtype)
        if copy is False and (kind != source.dtype or (device is not None and source.device != device)):
            names = dtypes.scalar_type_name
            raise ValueError(f"can't alias tensor with dtype '{names(source.dtype)}' into dtype '{names(kind)}'.")
        result = source.to(device=device if device is not None else source.device, dtype=kind)
        if copy and result is source:
            result = source.clone()
        if requires_grad:
            result = result.detach().requires_grad_(True) if result is source else result.requires_grad_(True)
        return result
    return tensor(obj, dtype=dtype, device=device, requires_grad=requires_grad)


def randint_like(input: Tensor, *args: int, dtype: Any = None, device: DeviceLike = None,  # noqa: A002
                 requires_grad: bool = False, generator: Any = None, memory_format: Any = None) -> Tensor:
    """Random integers in ``[low, high)`` (``randint_like(x, high)`` or ``(x, low, high)``), shaped as
    ``input`` and of its dtype unless ``dtype`` says otherwise (laid out in ``memory_format``,
    row-major unless given)."""
    if len(args) not in (1, 2):
        raise TypeError(f"randint_like() takes (input, high) or (input, low, high), got {len(args)} bounds")
    low, high = (0, args[0]) if len(args) == 1 else args
    made = randint(low, high, tuple(input.shape), generator=generator,
                   dtype=input.dtype if dtype is None else dtype,
                   device=input.device if device is None else device, requires_grad=requires_grad)
    return in_memory_format(made, input, memory_format, "randint_like")


def typename(obj: Any) -> str:
    """The type of ``obj`` by its full name: ``'torch.FloatTensor'`` for a tensor, as PyTorch prints it."""
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module = obj.__class__.__module__ or ""
        qualname = obj.__class__.__qualname__
    return qualname if module in ("", "builtins") else f"{module}.{qualname}"


_LEGACY_NAMES = {
    "FloatTensor": dtypes.float32, "DoubleTensor": dtypes.float64, "HalfTensor": dtypes.float16,
    "BFloat16Tensor": dtypes.bfloat16,
}


def set_default_tensor_type(t: Any) -> None:
    """The deprecated way to set the default float dtype: ``torch.DoubleTensor`` or ``'torch.DoubleTensor'``;
    a ``'torch.cuda.FloatTensor'`` also makes CUDA the default device."""
    warnings.warn("torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
                  "torch.set_default_dtype() and torch.set_default_device() as alternatives.", UserWarning,
                  stacklevel=2)
    cuda = False
    if isinstance(t, str):
        module, _, name = t.rpartition(".")
        if module.split(".")[0] not in ("torch", "minitorch") or name not in _LEGACY_NAMES and not name.endswith(
                "Tensor"):
            raise ModuleNotFoundError(f"No module named '{t.split('.')[0]}'")
        cuda = module.endswith(".cuda")
        kind = _LEGACY_NAMES.get(name)
    elif isinstance(t, LegacyTensorType):
        kind = t.legacy_dtype
    else:
        raise TypeError("invalid type object: only floating-point types are supported as the default type")
    if kind is None or not kind.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    dtypes.set_default_dtype(kind)
    set_default_device("cuda" if cuda else None)


class _InteropThreads:
    """PyTorch's inter-op pool size: minitorch runs ops one after another, so it is only recorded."""

    count = os.cpu_count() or 1
    was_set = False


def get_num_interop_threads() -> int:
    """The number of threads PyTorch would use for inter-op parallelism."""
    return _InteropThreads.count


def set_num_interop_threads(nthreads: int) -> None:
    """Set it, once per process and to a positive number, as PyTorch allows."""
    if nthreads <= 0:
        raise RuntimeError("set_num_interop_threads expects a positive integer")
    if _InteropThreads.was_set:
        raise RuntimeError("Error: cannot set number of interop threads after parallel work has started or "
                           "set_num_interop_threads called")
    _InteropThreads.count, _InteropThreads.was_set = nthreads, True


FUNCTIONS = {name: globals()[name] for name in __all__}

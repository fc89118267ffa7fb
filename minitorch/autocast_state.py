"""The state of automatic mixed precision (``torch.autocast``), per device type and thread.

Inside ``minitorch.autocast(device_type, dtype=...)`` (bfloat16 or float16) the ops that gain most from lower
precision (matrix products, linear layers, convolutions) run in ``dtype``, and the ops that
need range (the losses; softmax too on cuda) run in float32, whatever dtype their inputs arrive in. The
ops ask :func:`lower_precision` or :func:`full_precision` for their inputs. Until autocast is
first turned on, :data:`ever_enabled` is False and the hot ops (matmul, linear, convolution)
test only that flag, without calling in here.

As in PyTorch, only floating tensors other than float64 are cast, and only on the device type
whose autocast is on. The context manager lives in :mod:`minitorch.amp`.
"""

from __future__ import annotations

import functools
import threading
from typing import Any, Callable, TypeVar

from . import dtypes

F = TypeVar("F", bound=Callable[..., Any])

#: the dtype each device type's autocast uses unless told otherwise (PyTorch's defaults)
DEFAULT_DTYPES = {"cuda": dtypes.float16, "cpu": dtypes.bfloat16}
#: the floating dtypes autocast casts (float64 is left alone, as in PyTorch)
CASTABLE = (dtypes.float32, *dtypes.LOW_PRECISION_FLOATS)


class _State(threading.local):
    def __init__(self) -> None:
        self.enabled: dict[str, bool] = {}
        self.dtype: dict[str, dtypes.dtype] = dict(DEFAULT_DTYPES)
        self.nesting = 0
        self.cache_enabled = True


_state = _State()
#: False until autocast has been turned on in any thread (it stays True after: a cheap,
#: conservative test for the hot ops; the per-thread, per-device state decides the casts)
ever_enabled = False


def is_autocast_enabled(device_type: str = "cuda") -> bool:
    return _state.enabled.get(device_type, False)


def set_autocast_enabled(device_type: str, enabled: bool) -> None:
    global ever_enabled
    _state.enabled[device_type] = enabled
    ever_enabled = ever_enabled or enabled


def get_autocast_dtype(device_type: str) -> dtypes.dtype:
    return _state.dtype.get(device_type, dtypes.float16)


def set_autocast_dtype(device_type: str, dtype: dtypes.dtype) -> None:
    _state.dtype[device_type] = dtype


def is_autocast_cache_enabled() -> bool:
    return _state.cache_enabled


def set_autocast_cache_enabled(enabled: bool) -> None:
    _state.cache_enabled = enabled


def autocast_increment_nesting() -> int:
    _state.nesting += 1
    return _state.nesting


def autocast_decrement_nesting() -> int:
    _state.nesting -= 1
    return _state.nesting


def _cast_all(values: tuple[Any, ...], wanted: dtypes.dtype, eligible: tuple[dtypes.dtype, ...],
              device_types: tuple[str, ...] = ("cpu", "cuda")) -> tuple[Any, ...]:
    """``values`` with each tensor of an ``eligible`` dtype on an autocast device cast to ``wanted``."""
    out = []
    for value in values:
        dtype = getattr(value, "dtype", None)
        if (dtype in eligible and dtype is not wanted and value.device.type in device_types
                and is_autocast_enabled(value.device.type)):
            value = value.to(wanted)
        out.append(value)
    return tuple(out)


def lower_precision(*values: Any) -> tuple[Any, ...]:
    """The inputs of a matrix product, linear layer or convolution, in autocast's dtype when it is on."""
    if not ever_enabled:
        return values
    first = next((v for v in values if getattr(v, "dtype", None) is not None), None)
    if first is None or not is_autocast_enabled(first.device.type):
        return values
    return _cast_all(values, get_autocast_dtype(first.device.type), CASTABLE)


def full_precision(*values: Any, device_types: tuple[str, ...] = ("cpu", "cuda")) -> tuple[Any, ...]:
    """The inputs of a loss (on any device) or a softmax (on cuda only, as in PyTorch's lists), in
    float32 when autocast is on for ``device_types`` (float64 stays float64)."""
    if not ever_enabled:
        return values
    return _cast_all(values, dtypes.float32, dtypes.LOW_PRECISION_FLOATS, device_types)


def runs_in_full_precision(function: F) -> F:
    """Make ``function`` (a loss) take its tensor arguments in float32 when autocast is on."""

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if ever_enabled:
            args = full_precision(*args)
            kwargs = dict(zip(kwargs, full_precision(*kwargs.values())))
        return function(*args, **kwargs)

    return wrapper  # type: ignore[return-value]

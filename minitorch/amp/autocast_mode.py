r"""``autocast``: run the ops inside a ``with`` block in lower precision where it is safe.

.. code-block:: python

    with minitorch.autocast(device_type="cpu", dtype=minitorch.bfloat16):
        logits = model(x)                 # matmuls, linear layers, convolutions in bfloat16
        loss = F.cross_entropy(logits, y)  # losses and softmax in float32

Which op runs in which precision is decided in :mod:`minitorch.autocast_state`. As in PyTorch,
``dtype`` is bfloat16 (cpu's default) or float16 (cuda's); asking for another dtype warns and
disables autocast. As in PyTorch, autocast
for ``"cuda"`` on a machine without a GPU warns and does nothing.
"""

from __future__ import annotations

import functools
import warnings
from typing import Any, Callable, Optional

from .. import autocast_state, dtypes
from ..cuda import is_available as cuda_is_available

#: the device types autocast knows
AUTOCAST_DEVICE_TYPES = ("cpu", "cuda")
#: the dtypes autocast can run ops in
SUPPORTED_DTYPES = (dtypes.bfloat16, dtypes.float16)


def is_autocast_available(device_type: str) -> bool:
    """Whether ``device_type`` has an autocast."""
    return device_type in AUTOCAST_DEVICE_TYPES


class autocast:  # noqa: N801 - PyTorch's name
    """Context manager (and decorator) that turns mixed precision on for ``device_type``."""

    def __init__(self, device_type: str, dtype: Optional[dtypes.dtype] = None, enabled: bool = True,
                 cache_enabled: Optional[bool] = None) -> None:
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        if not is_autocast_available(device_type):
            raise RuntimeError(f"User specified an unsupported autocast device_type '{device_type}'")
        self.device = device_type
        self.fast_dtype = autocast_state.get_autocast_dtype(device_type) if dtype is None else dtypes.as_dtype(dtype)
        self._cache_enabled = autocast_state.is_autocast_cache_enabled() if cache_enabled is None else cache_enabled
        if enabled and device_type == "cuda" and not cuda_is_available():
            warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.", stacklevel=2)
            enabled = False
        elif enabled and self.fast_dtype not in SUPPORTED_DTYPES:
            name = device_type.upper()
            warnings.warn(
                f"In {name} autocast, but the target dtype is not supported. Disabling autocast.\n"
                f"{name} Autocast only supports dtypes of {', '.join(map(str, SUPPORTED_DTYPES))} currently.",
                stacklevel=2,
            )
            enabled = False
        self._enabled = enabled

    def __enter__(self) -> "autocast":
        self.prev = autocast_state.is_autocast_enabled(self.device)
        self.prev_fastdtype = autocast_state.get_autocast_dtype(self.device)
        self.prev_cache_enabled = autocast_state.is_autocast_cache_enabled()
        autocast_state.set_autocast_enabled(self.device, self._enabled)
        autocast_state.set_autocast_dtype(self.device, self.fast_dtype)
        autocast_state.autocast_increment_nesting()
        autocast_state.set_autocast_cache_enabled(self._cache_enabled)
        return self

    def __exit__(self, *exc_info: Any) -> bool:
        autocast_state.autocast_decrement_nesting()
        autocast_state.set_autocast_enabled(self.device, self.prev)
        autocast_state.set_autocast_dtype(self.device, self.prev_fastdtype)
        autocast_state.set_autocast_cache_enabled(self.prev_cache_enabled)
        return False

    def __call__(self, function: Callable[..., Any]) -> Callable[..., Any]:
        if not callable(function):
            raise TypeError(
                f"autocast()(func) requires a callable, but got {type(function).__name__}. "
                "Did you mean to use autocast as a context manager? For example:\n"
                "    with torch.autocast(device_type=...):\n"
                "        ..."
            )

        @functools.wraps(function)
        def decorated(*args: Any, **kwargs: Any) -> Any:
            with autocast(self.device, self.fast_dtype, self._enabled, self._cache_enabled):
                return function(*args, **kwargs)

        return decorated

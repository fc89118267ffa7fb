"""``minitorch.cuda.amp``: the older spelling of :mod:`minitorch.amp` for the ``"cuda"`` device.

PyTorch keeps ``torch.cuda.amp.autocast(...)`` and ``torch.cuda.amp.GradScaler(...)`` with a
deprecation warning pointing to ``torch.amp``; these do the same.
"""

from __future__ import annotations

import warnings

from .. import dtypes
from .autocast_mode import autocast as _autocast
from .grad_scaler import GradScaler as _GradScaler


class autocast(_autocast):  # noqa: N801 - PyTorch's name
    """``minitorch.amp.autocast("cuda", ...)`` by its deprecated name."""

    def __init__(self, enabled: bool = True, dtype: dtypes.dtype = dtypes.float16, cache_enabled: bool = True) -> None:
        warnings.warn(
            "`torch.cuda.amp.autocast(args...)` is deprecated. Please use `torch.amp.autocast('cuda', args...)` instead.",
            FutureWarning, stacklevel=2,
        )
        super().__init__("cuda", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)


class GradScaler(_GradScaler):
    """``minitorch.amp.GradScaler("cuda", ...)`` by its deprecated name."""

    def __init__(self, init_scale: float = 2.0**16, growth_factor: float = 2.0, backoff_factor: float = 0.5,
                 growth_interval: int = 2000, enabled: bool = True) -> None:
        warnings.warn(
            "`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use `torch.amp.GradScaler('cuda', args...)` instead.",
            FutureWarning, stacklevel=2,
        )
        super().__init__("cuda", init_scale, growth_factor, backoff_factor, growth_interval, enabled)

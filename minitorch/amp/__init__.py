"""Automatic mixed precision, with PyTorch's names: :class:`autocast` and :class:`GradScaler`."""

from __future__ import annotations

from .autocast_mode import autocast, is_autocast_available
from .grad_scaler import GradScaler

__all__ = ["GradScaler", "autocast", "is_autocast_available"]

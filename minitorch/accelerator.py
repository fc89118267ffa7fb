"""``minitorch.accelerator``: the device-agnostic view of the one accelerator minitorch knows, CUDA."""

from __future__ import annotations

from typing import Optional

from . import cuda
from .device import device


def is_available() -> bool:
    """True when a CUDA device (or Numba's CUDA simulator) can run minitorch's kernels."""
    return cuda.is_available()


def device_count() -> int:
    return cuda.device_count() if cuda.is_available() else 0


def current_accelerator(check_available: bool = False) -> Optional[device]:
    """``device('cuda')`` when an accelerator is present, else None."""
    return device("cuda") if is_available() else None


def synchronize(device_index: Optional[int] = None) -> None:
    if is_available():
        cuda.synchronize()


def _require_accelerator() -> None:
    if not is_available():
        raise RuntimeError("Cannot access accelerator device when none is available.")


def current_device_index() -> int:
    """The index of the current accelerator (always 0: minitorch uses one per process)."""
    _require_accelerator()
    return cuda.current_device()


def set_device_index(device: object, /) -> None:
    """Select the accelerator by index (minitorch has one per process: 0)."""
    _require_accelerator()
    cuda.set_device(device)


set_device_idx = set_device_index

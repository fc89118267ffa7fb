"""Devices: where a tensor's storage lives, and so which backend computes on it."""

from __future__ import annotations

from typing import Optional, Union

DEVICE_TYPES = ("cpu", "cuda", "meta")


class device:  # noqa: N801 - PyTorch's spelling
    """``device('cpu')``, ``device('cuda')``, ``device('cuda:0')`` or ``device('cuda', 0)``."""

    #: the package that exports it, as PyTorch names its public classes (``<class 'minitorch.device'>``)
    __module__ = "minitorch"

    def __init__(self, spec: Union[str, "device"], index: Optional[int] = None) -> None:
        if isinstance(spec, device):
            self.type, self.index = spec.type, spec.index
            return
        if not isinstance(spec, str):
            raise TypeError(f"device() expects a string like 'cpu' or 'cuda:0', got {spec!r}")
        kind, _, number = spec.partition(":")
        if kind not in DEVICE_TYPES:
            expected = ", ".join(DEVICE_TYPES)
            raise RuntimeError(f"Expected one of {expected} device type at start of device string: {spec}")
        if number:
            if not number.isdigit():
                raise RuntimeError(f"Invalid device string: '{spec}'")
            if index is not None:
                raise RuntimeError(f"device index given twice: '{spec}' and {index}")
            index = int(number)
        if kind == "cpu" and index not in (None, 0):
            raise RuntimeError(f"CPU device index must be 0 or absent, got {index}")
        self.type = kind
        self.index = index

    def __enter__(self) -> "device":
        """``with device('cuda'):`` makes this the default device of factory functions inside the block."""
        _DEFAULT_STACK.append(get_default_device())
        set_default_device(self)
        return self

    def __exit__(self, *exc_info: object) -> None:
        set_default_device(_DEFAULT_STACK.pop())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str):
            other = device(other)
        if not isinstance(other, device):
            return NotImplemented
        return self.type == other.type and (self.index or 0) == (other.index or 0)

    def __hash__(self) -> int:
        return hash((self.type, self.index or 0))

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"


DeviceLike = Union[str, device, None]

CPU = device("cpu")


#: where factory functions put tensors when no ``device=`` is given (see ``set_default_device``)
_default_device = CPU
#: the defaults that ``with device(...):`` blocks replaced, innermost last
_DEFAULT_STACK: list[device] = []


def set_default_device(value: DeviceLike) -> None:
    """Make ``value`` the device of tensors made without ``device=`` (``None`` restores the CPU)."""
    global _default_device
    _default_device = CPU if value is None else as_device(value)


def get_default_device() -> device:
    return _default_device


def as_device(value: DeviceLike) -> device:
    """``None`` means the default device (the CPU unless ``set_default_device`` changed it); strings are parsed."""
    if value is None:
        return _default_device
    return value if isinstance(value, device) else device(value)

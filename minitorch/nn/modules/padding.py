"""Padding layers: fixed amounts of constant, reflected, replicated or circular padding of the
last one or two dimensions, each a call of :func:`minitorch.nn.functional.pad`."""

from __future__ import annotations

from typing import Sequence, Union

from ...tensor import Tensor
from .. import functional as F
from .module import Module

__all__ = [
    "CircularPad1d", "CircularPad2d", "ConstantPad1d", "ConstantPad2d", "ReflectionPad1d", "ReflectionPad2d",
    "ReplicationPad1d", "ReplicationPad2d", "ZeroPad1d", "ZeroPad2d",
]

Padding = Union[int, Sequence[int]]


def _amounts(padding: Padding, pairs: int) -> tuple[int, ...]:
    """``padding`` as amounts for :func:`~minitorch.nn.functional.pad` (last dimension first): one
    number pads every side alike; a sequence is kept as given (``pad`` checks it)."""
    if isinstance(padding, Sequence):
        return tuple(padding)
    return (padding,) * (2 * pairs)


class _PadNd(Module):
    """Pads the last ``PAIRS`` dimensions in ``MODE`` by the amounts fixed at construction."""

    MODE = "constant"
    PAIRS = 1

    def __init__(self, padding: Padding) -> None:
        super().__init__()
        self.padding = _amounts(padding, self.PAIRS)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002 - PyTorch's argument name
        return F.pad(input, self.padding, self.MODE)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    def __init__(self, padding: Padding, value: float) -> None:
        super().__init__(padding)
        self.value = value

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pad the last dimension with ``value``."""


class ConstantPad2d(_ConstantPadNd):
    """Pad the last two dimensions with ``value``."""

    PAIRS = 2


class ZeroPad1d(ConstantPad1d):
    """Pad the last dimension with zeros."""

    def __init__(self, padding: Padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    """Pad the last two dimensions with zeros."""

    def __init__(self, padding: Padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _ReflectionPadNd(_PadNd):
    MODE = "reflect"


class ReflectionPad1d(_ReflectionPadNd):
    """Pad the last dimension with its mirror image (edge not repeated)."""


class ReflectionPad2d(_ReflectionPadNd):
    """Pad the last two dimensions with their mirror images."""

    PAIRS = 2


class _ReplicationPadNd(_PadNd):
    MODE = "replicate"


class ReplicationPad1d(_ReplicationPadNd):
    """Pad the last dimension by repeating its edge values."""


class ReplicationPad2d(_ReplicationPadNd):
    """Pad the last two dimensions by repeating their edge values."""

    PAIRS = 2


class _CircularPadNd(_PadNd):
    """Circular padding; the layer checks the input's rank itself, as PyTorch's does."""

    MODE = "circular"

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        ranks = (self.PAIRS + 1, self.PAIRS + 2)  # unbatched or batched
        if input.dim() not in ranks:
            raise ValueError(f"expected {ranks[0]}D or {ranks[1]}D input (got {input.dim()}D input)")
        return super().forward(input)


class CircularPad1d(_CircularPadNd):
    """Pad the last dimension by wrapping around."""


class CircularPad2d(_CircularPadNd):
    """Pad the last two dimensions by wrapping around."""

    PAIRS = 2

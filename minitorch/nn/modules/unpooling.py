"""Max unpooling layers: the partial inverses of ``MaxPool1d/2d/3d`` with ``return_indices=True``."""

from __future__ import annotations

from typing import Optional, Sequence

from ...tensor import Tensor
from ..functional import unpooling as U
from ..functional._utils import IntOrTuple
from .module import Module

__all__ = ["MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d"]


def _as_tuple(value: IntOrTuple, n: int) -> tuple[int, ...]:
    """PyTorch's ``_single``/``_pair``/``_triple``: a sequence as a tuple, one int repeated ``n`` times."""
    return (value,) * n if isinstance(value, int) else tuple(value)


class _MaxUnpoolNd(Module):
    _dims = 0

    def __init__(self, kernel_size: IntOrTuple, stride: Optional[IntOrTuple] = None, padding: IntOrTuple = 0) -> None:
        super().__init__()
        self.kernel_size = _as_tuple(kernel_size, self._dims)
        self.stride = _as_tuple(stride if stride is not None else kernel_size, self._dims)
        self.padding = _as_tuple(padding, self._dims)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    """Puts ``(N, C, L)`` pooled values back where ``MaxPool1d`` found them; zeros elsewhere."""

    _dims = 1

    def forward(self, input: Tensor, indices: Tensor,  # noqa: A002 - PyTorch's argument name
                output_size: Optional[Sequence[int]] = None) -> Tensor:
        return U.max_unpool1d(input, indices, self.kernel_size, self.stride, self.padding, output_size)


class MaxUnpool2d(_MaxUnpoolNd):
    """Puts ``(N, C, H, W)`` pooled values back where ``MaxPool2d`` found them; zeros elsewhere."""

    _dims = 2

    def forward(self, input: Tensor, indices: Tensor,  # noqa: A002
                output_size: Optional[Sequence[int]] = None) -> Tensor:
        return U.max_unpool2d(input, indices, self.kernel_size, self.stride, self.padding, output_size)


class MaxUnpool3d(_MaxUnpoolNd):
    """Puts ``(N, C, D, H, W)`` pooled values back where ``MaxPool3d`` found them; zeros elsewhere."""

    _dims = 3

    def forward(self, input: Tensor, indices: Tensor,  # noqa: A002
                output_size: Optional[Sequence[int]] = None) -> Tensor:
        return U.max_unpool3d(input, indices, self.kernel_size, self.stride, self.padding, output_size)

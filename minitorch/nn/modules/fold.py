"""``Unfold`` and ``Fold``: :func:`~minitorch.nn.functional.unfold` and ``fold`` as layers."""

from __future__ import annotations

from ...tensor import Tensor
from .. import functional as F
from ..functional._utils import IntOrTuple
from .module import Module

__all__ = ["Fold", "Unfold"]


class Unfold(Module):
    """The sliding blocks of a batch of images as columns ("im2col"), no parameters."""

    def __init__(self, kernel_size: IntOrTuple, dilation: IntOrTuple = 1, padding: IntOrTuple = 0,
                 stride: IntOrTuple = 1) -> None:
        super().__init__()
        self.kernel_size, self.dilation, self.padding, self.stride = kernel_size, dilation, padding, stride

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002 - PyTorch's argument name
        return F.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, dilation={self.dilation}, padding={self.padding}, stride={self.stride}"


class Fold(Module):
    """Columns of blocks added back into images of ``output_size`` ("col2im"), no parameters."""

    def __init__(self, output_size: IntOrTuple, kernel_size: IntOrTuple, dilation: IntOrTuple = 1,
                 padding: IntOrTuple = 0, stride: IntOrTuple = 1) -> None:
        super().__init__()
        self.output_size, self.kernel_size = output_size, kernel_size
        self.dilation, self.padding, self.stride = dilation, padding, stride

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.fold(input, self.output_size, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self) -> str:
        return (f"output_size={self.output_size}, kernel_size={self.kernel_size}, dilation={self.dilation}, "
                f"padding={self.padding}, stride={self.stride}")

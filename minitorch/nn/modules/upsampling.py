"""Upsampling layers: :func:`~minitorch.nn.functional.interpolate` with its settings kept."""

from __future__ import annotations

from typing import Optional, Sequence, Union

from ...tensor import Tensor
from .. import functional as F
from .module import Module

__all__ = ["Upsample", "UpsamplingBilinear2d", "UpsamplingNearest2d"]

Size = Union[int, Sequence[int], None]
Scale = Union[float, Sequence[float], None]


class Upsample(Module):
    """Resize ``(N, C, *spatial)`` input to ``size`` or by ``scale_factor`` (see ``F.interpolate``)."""

    def __init__(self, size: Size = None, scale_factor: Scale = None, mode: str = "nearest",
                 align_corners: Optional[bool] = None, recompute_scale_factor: Optional[bool] = None) -> None:
        super().__init__()
        self.name = type(self).__name__
        self.size = size
        if isinstance(scale_factor, (list, tuple)):
            self.scale_factor: Scale = tuple(float(s) for s in scale_factor)
        else:
            self.scale_factor = float(scale_factor) if scale_factor else None
        self.mode = mode
        self.align_corners = align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.interpolate(input, self.size, self.scale_factor, self.mode, self.align_corners,
                             recompute_scale_factor=self.recompute_scale_factor)

    def extra_repr(self) -> str:
        shown = f"scale_factor={self.scale_factor!r}" if self.scale_factor is not None else f"size={self.size!r}"
        return f"{shown}, mode={self.mode!r}"


class UpsamplingNearest2d(Upsample):
    """Nearest-neighbour upsampling of ``(N, C, H, W)`` input."""

    def __init__(self, size: Size = None, scale_factor: Scale = None) -> None:
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    """Bilinear upsampling of ``(N, C, H, W)`` input with ``align_corners=True``."""

    def __init__(self, size: Size = None, scale_factor: Scale = None) -> None:
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)

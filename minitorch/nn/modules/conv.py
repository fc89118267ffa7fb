r"""Convolution layers: a learnable ``(out_channels, in_channels/groups, *kernel_size)`` weight and
an optional bias, applied with :func:`~minitorch.nn.functional.conv2d` (or ``conv1d``)."""

from __future__ import annotations

import math
from typing import Any, Union

from ... import creation
from ...tensor import Tensor
from .. import functional as F
from .. import init
from ..functional._utils import IntOrTuple
from ._weights import register_weight_and_bias
from .module import Module

__all__ = ["Conv1d", "Conv2d"]

PADDING_MODES = ("zeros", "reflect", "replicate", "circular")
#: PyTorch's default init: kaiming-uniform with this negative slope, bound 1/sqrt(fan_in)
DEFAULT_INIT_SLOPE = math.sqrt(5)


def _tuple(value: IntOrTuple, n: int) -> tuple[int, ...]:
    return (value,) * n if isinstance(value, int) else tuple(value)


class _ConvNd(Module):
    """What Conv1d and Conv2d share: arguments, parameters, initialization, repr."""

    _spatial: int = 2

    def __init__(self, in_channels: int, out_channels: int, kernel_size: IntOrTuple, stride: IntOrTuple = 1,
                 padding: Union[str, IntOrTuple] = 0, dilation: IntOrTuple = 1, groups: int = 1, bias: bool = True,
                 padding_mode: str = "zeros", device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        n = self._spatial
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if padding_mode not in PADDING_MODES:
            raise ValueError(f"padding_mode must be one of {list(PADDING_MODES)}, but got padding_mode='{padding_mode}'")
        if isinstance(padding, str):
            if padding not in ("valid", "same"):
                raise ValueError(f"Invalid padding string {padding!r}, should be one of ['valid', 'same']")
            if padding == "same" and any(s != 1 for s in _tuple(stride, n)):
                raise ValueError("padding='same' is not supported for strided convolutions")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = _tuple(kernel_size, n)
        self.stride = _tuple(stride, n)
        self.padding = padding if isinstance(padding, str) else _tuple(padding, n)
        self.dilation = _tuple(dilation, n)
        self.transposed = False
        self.output_padding = (0,) * n
        self.groups = groups
        self.padding_mode = padding_mode
        register_weight_and_bias(
            self, creation.empty((out_channels, in_channels // groups, *self.kernel_size), device=device, dtype=dtype),
            creation.empty(out_channels, device=device, dtype=dtype) if bias else None,
        )
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Kaiming-uniform weight (a = sqrt(5)); bias uniform in :math:`\\pm 1/\\sqrt{\\text{fan\\_in}}`."""
        init.kaiming_uniform_(self.weight, a=DEFAULT_INIT_SLOPE)
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def _padded_input(self, input: Tensor) -> tuple[Tensor, Union[str, tuple[int, ...]]]:  # noqa: A002
        """For a non-zero ``padding_mode``: the input padded by ``F.pad``, and padding 0 left for the conv."""
        if self.padding_mode == "zeros":
            return input, self.padding
        n = self._spatial
        if isinstance(self.padding, str):
            totals = [d * (k - 1) for k, d in zip(self.kernel_size, self.dilation)] if self.padding == "same" else [0] * n
            pairs = [(t // 2, t - t // 2) for t in totals]
        else:
            pairs = [(p, p) for p in self.padding]
        flat = [amount for pair in reversed(pairs) for amount in pair]
        return F.pad(input, flat, mode=self.padding_mode), (0,) * n

    def extra_repr(self) -> str:
        n = self._spatial
        s = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        if self.padding != (0,) * n:
            s += f", padding={self.padding}"
        if self.dilation != (1,) * n:
            s += f", dilation={self.dilation}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s


class Conv1d(_ConvNd):
    """1-D convolution over ``(N, C_in, L)`` (or ``(C_in, L)``) input."""

    _spatial = 1

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002 - PyTorch's argument name
        x, padding = self._padded_input(input)
        return F.conv1d(x, self.weight, self.bias, self.stride, padding, self.dilation, self.groups)


class Conv2d(_ConvNd):
    """2-D convolution over ``(N, C_in, H, W)`` (or ``(C_in, H, W)``) input."""

    _spatial = 2

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        x, padding = self._padded_input(input)
        return F.conv2d(x, self.weight, self.bias, self.stride, padding, self.dilation, self.groups)

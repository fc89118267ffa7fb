r"""Convolution layers: a learnable ``(out_channels, in_channels/groups, *kernel_size)`` weight and
an optional bias, applied with :func:`~minitorch.nn.functional.conv2d` (or ``conv1d``); and the
transposed convolutions, whose weight is ``(in_channels, out_channels/groups, *kernel_size)``,
applied with :func:`~minitorch.nn.functional.conv_transpose2d` (or ``conv_transpose1d``)."""

from __future__ import annotations

import math
from typing import Any, Optional, Sequence, Union

from ... import creation
from ...tensor import Tensor
from .. import functional as F
from .. import init
from ..functional._utils import IntOrTuple
from ._weights import register_weight_and_bias
from .module import Module

__all__ = ["Conv1d", "Conv2d", "ConvTranspose1d", "ConvTranspose2d"]

PADDING_MODES = ("zeros", "reflect", "replicate", "circular")
#: PyTorch's default init: kaiming-uniform with this negative slope, bound 1/sqrt(fan_in)
DEFAULT_INIT_SLOPE = math.sqrt(5)


def _tuple(value: IntOrTuple, n: int) -> tuple[int, ...]:
    return (value,) * n if isinstance(value, int) else tuple(value)


class _ConvNd(Module):
    """What the convolutions share: arguments, parameters, initialization, repr.

    A transposed convolution's weight is ``(in_channels, out_channels/groups, *kernel_size)``.
    """

    _spatial: int = 2
    _transposed: bool = False

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
        self.transposed = self._transposed
        self.output_padding = (0,) * n
        self.groups = groups
        self.padding_mode = padding_mode
        channels = (in_channels, out_channels // groups) if self.transposed else (out_channels, in_channels // groups)
        register_weight_and_bias(
            self, creation.empty((*channels, *self.kernel_size), device=device, dtype=dtype),
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
        if self.output_padding != (0,) * n:
            s += f", output_padding={self.output_padding}"
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


class Conv3d(_ConvNd):
    """3-D convolution over ``(N, C_in, D, H, W)`` (or ``(C_in, D, H, W)``) input."""

    _spatial = 3

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        x, padding = self._padded_input(input)
        return F.conv3d(x, self.weight, self.bias, self.stride, padding, self.dilation, self.groups)


class _ConvTransposeNd(_ConvNd):
    """What ConvTranspose1d and ConvTranspose2d share: ``output_padding``, and ``output_size`` in forward."""

    _transposed = True

    def __init__(self, in_channels: int, out_channels: int, kernel_size: IntOrTuple, stride: IntOrTuple = 1,
                 padding: IntOrTuple = 0, output_padding: IntOrTuple = 0, groups: int = 1, bias: bool = True,
                 dilation: IntOrTuple = 1, padding_mode: str = "zeros", device: Any = None, dtype: Any = None) -> None:
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias, padding_mode,
                         device, dtype)
        self.output_padding = _tuple(output_padding, self._spatial)

    def _output_padding(self, input: Tensor, output_size: Optional[Sequence[int]]) -> tuple[int, ...]:  # noqa: A002
        """``output_padding``, or the one that makes the output exactly ``output_size``.

        A stride ``s`` convolution maps ``s`` output lengths to the same input length, so
        ``output_size`` picks one of the ``s`` lengths a transposed convolution can produce.
        """
        if output_size is None:
            return self.output_padding
        n = self._spatial
        leading = 2 if input.dim() == n + 2 else 1
        sizes = list(output_size)
        if len(sizes) == leading + n:
            sizes = sizes[leading:]
        if len(sizes) != n:
            raise ValueError(f"ConvTranspose{n}D: for {input.dim()}D input, output_size must have {n} or {leading + n} "
                             f"elements (got {len(sizes)})")
        smallest = [(size - 1) * s - 2 * p + d * (k - 1) + 1 for size, s, p, d, k in
                    zip(input.shape[-n:], self.stride, self.padding, self.dilation, self.kernel_size)]
        largest = [low + s - 1 for low, s in zip(smallest, self.stride)]
        if any(not low <= size <= high for size, low, high in zip(sizes, smallest, largest)):
            raise ValueError(f"requested an output size of {output_size}, but valid sizes range from {smallest} to "
                             f"{largest} (for an input of {input.size()[2:]})")
        return tuple(size - low for size, low in zip(sizes, smallest))


class ConvTranspose1d(_ConvTransposeNd):
    """1-D transposed convolution over ``(N, C_in, L)`` (or ``(C_in, L)``) input."""

    _spatial = 1

    def forward(self, input: Tensor, output_size: Optional[Sequence[int]] = None) -> Tensor:  # noqa: A002
        return F.conv_transpose1d(input, self.weight, self.bias, self.stride, self.padding,
                                  self._output_padding(input, output_size), self.groups, self.dilation)


class ConvTranspose2d(_ConvTransposeNd):
    """2-D transposed convolution over ``(N, C_in, H, W)`` (or ``(C_in, H, W)``) input."""

    _spatial = 2

    def forward(self, input: Tensor, output_size: Optional[Sequence[int]] = None) -> Tensor:  # noqa: A002
        return F.conv_transpose2d(input, self.weight, self.bias, self.stride, self.padding,
                                  self._output_padding(input, output_size), self.groups, self.dilation)


class ConvTranspose3d(_ConvTransposeNd):
    """3-D transposed convolution over ``(N, C_in, D, H, W)`` (or ``(C_in, D, H, W)``) input."""

    _spatial = 3

    def forward(self, input: Tensor, output_size: Optional[Sequence[int]] = None) -> Tensor:  # noqa: A002
        return F.conv_transpose3d(input, self.weight, self.bias, self.stride, self.padding,
                                  self._output_padding(input, output_size), self.groups, self.dilation)

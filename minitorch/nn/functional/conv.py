r"""Convolution as a window view and one matrix product ("im2col").

For an input of shape ``(N, C, *spatial)`` and a weight of shape ``(O, C/groups, *kernel)``:

1. pad the spatial dimensions with zeros;
2. view every kernel-sized window (:func:`~minitorch.ops.windows.windows`: no copy),
   giving ``(N, C, *out_spatial, *kernel)``;
3. lay the windows out as columns, ``(groups, C/groups \cdot \prod kernel, N \cdot \prod out_spatial)``
   (the one copy of the input, :math:`\prod\mathrm{kernel}` times larger);
4. multiply: ``weight`` seen as ``(groups, O/groups, C/groups \cdot \prod kernel)`` times the
   columns is ``(groups, O/groups, N \cdot \prod out_spatial)``: the output, channels first.

.. math:: y[n, o, \mathbf{p}] = b_o + \sum_{c, \mathbf{k}} w[o, c, \mathbf{k}]\,
   x[n, c, \mathbf{p} \cdot \mathrm{stride} + \mathbf{k} \cdot \mathrm{dilation} - \mathrm{padding}]

The backward needs nothing new: the matrix product's rules give the gradients of the
weight and the columns, and the window view's backward adds the columns' gradients back
onto the (overlapping) input positions.
"""

from __future__ import annotations

import math
from typing import Optional, Union

from ...backends.base import ConvGeometry
from ...conv_dispatch import has_direct_conv
from ...ops.conv import Convolution
from ...ops.windows import ConstantPad, window_count, windows
from ...tensor import Tensor
from ._utils import IntOrTuple, ntuple, shape_list
from ... import autocast_state

Padding = Union[str, IntOrTuple]
PADDING_MODES = ("valid", "same")


def _padding_pairs(padding: Padding, kernel: tuple[int, ...], stride: tuple[int, ...],
                   dilation: tuple[int, ...], name: str) -> tuple[tuple[int, int], ...]:
    """``(before, after)`` zeros per spatial dimension; ``'same'`` puts the odd one after."""
    n = len(kernel)
    if isinstance(padding, str):
        if padding not in PADDING_MODES:
            raise RuntimeError(f"Invalid padding string: '{padding}' (expected one of {list(PADDING_MODES)})")
        if padding == "valid":
            return ((0, 0),) * n
        if any(s != 1 for s in stride):
            raise RuntimeError("padding='same' is not supported for strided convolutions")
        totals = [d * (k - 1) for k, d in zip(kernel, dilation)]
        return tuple((t // 2, t - t // 2) for t in totals)
    return tuple((p, p) for p in ntuple(padding, n, "padding"))


def _as_2d(values: tuple[int, ...]) -> list[int]:
    """A 1-D convolution's parameters as PyTorch words them: it runs 1-D as 2-D with height 1."""
    return [1, *values] if len(values) == 1 else list(values)


def _geometry_2d(steps: tuple[int, ...], pads: tuple[tuple[int, int], ...], dilations: tuple[int, ...],
                 groups: int) -> ConvGeometry:
    """A 1-D or 2-D convolution's geometry as a 2-D one's (a 1-D one has height 1)."""
    if len(steps) == 1:
        steps, pads, dilations = (1, *steps), ((0, 0), *pads), (1, *dilations)
    return ConvGeometry(stride=(steps[0], steps[1]), padding=(pads[0], pads[1]), dilation=(dilations[0], dilations[1]),
                        groups=groups)


def _check_conv_geometry(padding: Padding, steps: tuple[int, ...], dilations: tuple[int, ...]) -> None:
    """PyTorch's errors for a negative padding, or a stride or dilation below 1."""
    if not isinstance(padding, str) and any(p < 0 for p in ntuple(padding, len(steps), "padding")):
        raise RuntimeError("negative padding is not supported")
    if any(s <= 0 for s in steps):
        raise RuntimeError("non-positive stride is not supported")
    if any(d < 0 for d in dilations):
        raise RuntimeError("dilation should be greater than zero")
    if any(d == 0 for d in dilations):
        raise RuntimeError(f"dilation should be greater than zero, but got {_as_2d(dilations)}")


def check_ranks_and_groups(name: str, n: int, input: Tensor, weight: Tensor, groups: int) -> None:  # noqa: A002
    """PyTorch's first errors of an ``n``-d (transposed) convolution: the input's and the
    weight's ranks, then a positive group count."""
    if input.dim() not in (n + 1, n + 2):
        raise RuntimeError(
            f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to {name}, but got input of size: {shape_list(input.shape)}"
        )
    if weight.dim() != n + 2:
        raise RuntimeError("weight should have at least three dimensions" if n == 1 else
                           f"Expected {n + 2}-dimensional weight for {n + 2}-dimensional input, but got {weight.dim()}-dimensional weight of size {shape_list(weight.shape)} instead")
    if groups < 1:
        raise RuntimeError("non-positive groups is not supported")


def _check_conv_args(name: str, n: int, input: Tensor, weight: Tensor, bias: Optional[Tensor], groups: int,  # noqa: A002
                     padding: Padding, steps: tuple[int, ...], dilations: tuple[int, ...]) -> None:
    """PyTorch's errors for a wrong rank, padding, stride, dilation, channel count, group split,
    bias size or an empty kernel, in PyTorch's order."""
    check_ranks_and_groups(name, n, input, weight, groups)
    _check_conv_geometry(padding, steps, dilations)
    out_channels = weight.shape[0]
    if out_channels % groups:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but got weight of size "
            f"[{shape_list(weight.shape)}] instead"
        )
    channels = input.shape[0 if input.dim() == n + 1 else 1]
    if channels != weight.shape[1] * groups:
        batched = input if input.dim() == n + 2 else input.unsqueeze(0)
        raise RuntimeError(
            f"Given groups={groups}, weight of size {shape_list(weight.shape)}, expected input{shape_list(batched.shape)} "
            f"to have {weight.shape[1] * groups} channels, but got {channels} channels instead"
        )
    if bias is not None and (bias.dim() != 1 or bias.shape[0] != out_channels):
        raise RuntimeError(
            f"Given weight of size {shape_list(weight.shape)}, expected bias to be 1-dimensional with {out_channels} "
            f"elements, but got bias of size {shape_list(bias.shape)} instead"
        )
    if any(k <= 0 for k in weight.shape[2:]):
        height, width = _as_2d(tuple(weight.shape[2:]))
        raise RuntimeError(f"kernel size should be greater than zero, but got kernel_height: {height} kernel_width: {width}")


def _conv(name: str, n: int, input: Tensor, weight: Tensor, bias: Optional[Tensor], stride: IntOrTuple,  # noqa: A002
          padding: Padding, dilation: IntOrTuple, groups: int) -> Tensor:
    """Convolution over the last ``n`` dimensions (see the module docstring)."""
    if autocast_state.ever_enabled:
        input, weight, bias = autocast_state.lower_precision(input, weight, bias)
    steps = ntuple(stride, n, "stride")
    dilations = ntuple(dilation, n, "dilation")
    _check_conv_args(name, n, input, weight, bias, groups, padding, steps, dilations)
    unbatched = input.dim() == n + 1
    x = input.unsqueeze(0) if unbatched else input
    kernel = tuple(weight.shape[2:])
    pads = _padding_pairs(padding, kernel, steps, dilations, name)
    padded = [size + b + a for size, (b, a) in zip(x.shape[2:], pads)]
    if any(p < d * (k - 1) + 1 for p, k, d in zip(padded, kernel, dilations)):
        raise RuntimeError(
            f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). Kernel size: "
            f"({' x '.join(str(d * (k - 1) + 1) for k, d in zip(kernel, dilations))}). Kernel size can't be greater "
            f"than actual input size"
        )
    # BEGIN SOLUTION 5.3
    geometry = _geometry_2d(steps, pads, dilations, groups) if n <= 2 else None
    if geometry is not None and has_direct_conv(x, weight, bias, geometry):
        # the backend's own kernels (the CPU's), where they pay: no columns (see minitorch.ops.conv)
        out = Convolution.apply(x, weight, bias, geometry)
        return out.squeeze(0) if unbatched else out
    if any(b or a for b, a in pads):
        x = ConstantPad.apply(x, ((0, 0), (0, 0)) + pads, 0.0)
    batch, channels = x.shape[0], x.shape[1]
    out_channels = weight.shape[0]
    spatial = tuple(range(2, n + 2))
    out_sizes = tuple(window_count(p, k, s, d) for p, k, s, d in zip(padded, kernel, steps, dilations))
    cols = windows(x, spatial, kernel, steps, dilations)  # (N, C, *out_sizes, *kernel)
    cols = cols.view(batch, groups, channels // groups, *cols.shape[2:])
    # (G, C/G, *kernel, N, *out_sizes): one row per weight of a group, one column per output
    # position of every sample, so one product per group covers the whole batch
    order = (1, 2) + tuple(range(3 + n, 3 + 2 * n)) + (0,) + tuple(range(3, 3 + n))
    cols = cols.permute(*order).reshape(groups, (channels // groups) * math.prod(kernel), batch * math.prod(out_sizes))
    w = weight.reshape(groups, out_channels // groups, -1)
    out = (w @ cols).view(out_channels, batch, *out_sizes).transpose(0, 1)
    if bias is not None:
        out = out + bias.view(out_channels, *(1,) * n)
    # END SOLUTION
    return out.squeeze(0) if unbatched else out


def conv1d(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None, stride: IntOrTuple = 1,  # noqa: A002
           padding: Padding = 0, dilation: IntOrTuple = 1, groups: int = 1) -> Tensor:
    """1-D convolution (cross-correlation) of ``(N, C, L)`` or ``(C, L)`` input with ``(O, C/groups, K)`` weight."""
    return _conv("conv1d", 1, input, weight, bias, stride, padding, dilation, groups)


def conv2d(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None, stride: IntOrTuple = 1,  # noqa: A002
           padding: Padding = 0, dilation: IntOrTuple = 1, groups: int = 1) -> Tensor:
    """2-D convolution (cross-correlation) of ``(N, C, H, W)`` or ``(C, H, W)`` input with ``(O, C/groups, KH, KW)`` weight."""
    return _conv("conv2d", 2, input, weight, bias, stride, padding, dilation, groups)


def conv3d(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None, stride: IntOrTuple = 1,  # noqa: A002
           padding: Padding = 0, dilation: IntOrTuple = 1, groups: int = 1) -> Tensor:
    """3-D convolution of ``(N, C, D, H, W)`` or ``(C, D, H, W)`` input with ``(O, C/groups, KD, KH, KW)`` weight."""
    return _conv("conv3d", 3, input, weight, bias, stride, padding, dilation, groups)

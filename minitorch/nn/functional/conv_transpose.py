r"""Transposed convolution as one matrix product and a fold ("col2im").

A convolution reads each output position from a window of the input; a transposed
convolution runs the same wiring backwards: every input position spreads its value,
weighted by the kernel, over a window of the output. With an input ``(N, C, *spatial)`` and
a weight ``(C, O/groups, *kernel)``:

1. multiply: the weight seen as ``(groups, O/groups \cdot \prod kernel, C/groups)`` times the input
   seen as ``(groups, C/groups, N \cdot \prod spatial)`` gives every input position's
   contribution to each kernel offset of each output channel: the columns;
2. fold the columns (:func:`~minitorch.ops.fold.fold`): the contribution of input position
   :math:`i` at kernel offset :math:`j` lands on :math:`i \cdot \mathrm{stride} + j \cdot \mathrm{dilation}`
   of a "full" output of length :math:`(n - 1)\,\mathrm{stride} + \mathrm{dilation}(k - 1) + 1`;
3. crop ``padding`` from both ends of the full output, and extend its end by ``output_padding``
   zeros (the positions a strided convolution of the result would skip).

.. math:: y[n, o, \mathbf{q}] = b_o + \sum_{c, \mathbf{k}} w[c, o, \mathbf{k}]\,
   x[n, c, \mathbf{p}] \quad\text{over}\quad \mathbf{p} \cdot \mathrm{stride} + \mathbf{k} \cdot \mathrm{dilation}
   = \mathbf{q} + \mathrm{padding}

This is exactly the gradient of :func:`~minitorch.nn.functional.conv2d` with respect to its
input, and the backward is that convolution again: the fold's gradient is the window view
(im2col), and the matrix product's rules do the rest.

Where the backend convolves directly and expects its kernels to beat the fold at these shapes
(:func:`~minitorch.conv_dispatch.has_direct_conv_transpose`), a 1-D or 2-D transposed
convolution is instead one op on those kernels, as the input gradient of that convolution
(:class:`~minitorch.ops.conv.TransposedConvolution`). Convolving the output gives back exactly
the input's positions only when ``output_padding < stride`` in every dimension; a larger
``output_padding`` (allowed below the dilation) takes the fold.
"""

from __future__ import annotations

import math
from typing import Optional

from ...conv_dispatch import has_direct_conv_transpose
from ...ops.conv import TransposedConvolution
from ...ops.fold import fold
from ...ops.windows import ConstantPad
from ...tensor import Tensor
from ._utils import IntOrTuple, ntuple, shape_list
from .conv import _as_2d, _geometry_2d, check_ranks_and_groups
from ... import autocast_state


def output_sizes(sizes: tuple[int, ...], kernel: tuple[int, ...], steps: tuple[int, ...], pads: tuple[int, ...],
                 extra: tuple[int, ...], dilations: tuple[int, ...]) -> tuple[int, ...]:
    r"""Output length per dimension: :math:`(n - 1)s - 2p + d(k - 1) + \mathrm{output\_padding} + 1`."""
    return tuple((n - 1) * s - 2 * p + d * (k - 1) + e + 1
                 for n, k, s, p, e, d in zip(sizes, kernel, steps, pads, extra, dilations))


def _check_args(name: str, n: int, input: Tensor, weight: Tensor, bias: Optional[Tensor], groups: int,  # noqa: A002
                steps: tuple[int, ...], pads: tuple[int, ...], extra: tuple[int, ...], dilations: tuple[int, ...]) -> None:
    """PyTorch's errors for a wrong rank, geometry, group split, channel count or bias, in its order."""
    check_ranks_and_groups(name, n, input, weight, groups)
    if any(p < 0 for p in pads):
        raise RuntimeError("negative padding is not supported")
    if any(e < 0 for e in extra):
        raise RuntimeError("negative output_padding is not supported")
    if any(s <= 0 for s in steps):
        raise RuntimeError("non-positive stride is not supported")
    if any(d <= 0 for d in dilations):
        raise RuntimeError(f"dilation should be greater than zero, but got {_as_2d(dilations)}")
    if weight.shape[0] % groups:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but got weight of size "
            f"[{shape_list(weight.shape)}] instead"
        )
    channels = input.shape[0 if input.dim() == n + 1 else 1]
    if channels != weight.shape[0]:
        batched = input if input.dim() == n + 2 else input.unsqueeze(0)
        raise RuntimeError(
            f"Given transposed=1, weight of size {shape_list(weight.shape)}, expected input{shape_list(batched.shape)} "
            f"to have {weight.shape[0]} channels, but got {channels} channels instead"
        )
    out_channels = weight.shape[1] * groups
    if bias is not None and (bias.dim() != 1 or bias.shape[0] != out_channels):
        raise RuntimeError(
            f"Given transposed=1, weight of size {shape_list(weight.shape)}, expected bias to be 1-dimensional with "
            f"{out_channels} elements, but got bias of size {shape_list(bias.shape)} instead"
        )
    if any(k <= 0 for k in weight.shape[2:]):
        height, width = _as_2d(tuple(weight.shape[2:]))
        raise RuntimeError(f"kernel size should be greater than zero, but got kernel_height: {height} kernel_width: {width}")
    if any(e >= s and e >= d for e, s, d in zip(extra, steps, dilations)):
        e_h, e_w = (0, *extra) if n == 1 else extra  # 1-D is worded as 2-D of height 1, no output padding
        (s_h, s_w), (d_h, d_w) = _as_2d(steps), _as_2d(dilations)
        raise RuntimeError(
            f"output padding must be smaller than either stride or dilation, but got output_padding_height: {e_h} "
            f"output_padding_width: {e_w} stride_height: {s_h} stride_width: {s_w} dilation_height: {d_h} dilation_width: {d_w}"
        )
    if input.dtype != weight.dtype:
        raise RuntimeError(f"Input type ({input.type()}) and weight type ({weight.type()}) should be the same or input "
                           f"should be a MKLDNN tensor and weight is a dense tensor")
    sizes = tuple(input.shape[-n:])
    if any(s == 0 for s in sizes):
        batched = input if input.dim() == n + 2 else input.unsqueeze(0)
        raise RuntimeError(f"Only zero batch or zero channel inputs are supported, but got input shape: "
                           f"{shape_list(batched.shape[:2] + tuple(_as_2d(sizes)))}")
    outs = output_sizes(sizes, tuple(weight.shape[2:]), steps, pads, extra, dilations)
    if any(o < 1 for o in outs):
        raise RuntimeError(
            f"Given input size per channel: ({' x '.join(map(str, _as_2d(sizes)))}). Calculated output size per channel: "
            f"({' x '.join(map(str, _as_2d(outs)))}). Output size is too small"
        )


def _conv_transpose(name: str, n: int, input: Tensor, weight: Tensor, bias: Optional[Tensor],  # noqa: A002
                    stride: IntOrTuple, padding: IntOrTuple, output_padding: IntOrTuple, groups: int,
                    dilation: IntOrTuple) -> Tensor:
    """Transposed convolution over the last ``n`` dimensions (see the module docstring)."""
    if autocast_state.ever_enabled:
        input, weight, bias = autocast_state.lower_precision(input, weight, bias)
    if isinstance(padding, str):
        raise TypeError(f"{name}(): argument 'padding' must be tuple of ints, not str")
    steps, pads = ntuple(stride, n, "stride"), ntuple(padding, n, "padding")
    extra, dilations = ntuple(output_padding, n, "output_padding"), ntuple(dilation, n, "dilation")
    _check_args(name, n, input, weight, bias, groups, steps, pads, extra, dilations)
    unbatched = input.dim() == n + 1
    x = input.unsqueeze(0) if unbatched else input
    batch, channels, sizes = x.shape[0], x.shape[1], tuple(x.shape[2:])
    kernel = tuple(weight.shape[2:])
    group_out = weight.shape[1]
    if n <= 2 and all(e < s for e, s in zip(extra, steps)) and weight.numel():
        geometry = _geometry_2d(steps, tuple((p, p) for p in pads), dilations, groups)
        out_shape = (batch, groups * group_out, *output_sizes(sizes, kernel, steps, pads, extra, dilations))
        if has_direct_conv_transpose(x, weight, bias, geometry, out_shape):
            # the backend's own kernels, where they pay: no columns, no fold (see minitorch.ops.conv);
            # a weight without elements (no input or output channels) keeps the fold's empty results
            out = TransposedConvolution.apply(x, weight, bias, geometry, out_shape)
            return out.squeeze(0) if unbatched else out
    # (G, C/G, N * prod(sizes)): one row per input channel of a group, one column per input position
    rows = x.reshape(batch, groups, channels // groups, math.prod(sizes)).permute(1, 2, 0, 3)
    rows = rows.reshape(groups, channels // groups, batch * math.prod(sizes))
    w = weight.reshape(groups, channels // groups, group_out * math.prod(kernel)).transpose(1, 2)
    cols = (w @ rows).view(groups, group_out, *kernel, batch, *sizes)
    # as windows (N, G, O/G, *sizes, *kernel) of the full output, a view: no copy
    order = (2 + n, 0, 1) + tuple(range(3 + n, 3 + 2 * n)) + tuple(range(2, 2 + n))
    full_sizes = tuple((size - 1) * s + d * (k - 1) + 1 for size, k, s, d in zip(sizes, kernel, steps, dilations))
    spatial = tuple(range(3, 3 + n))
    full = fold(cols.permute(*order), (batch, groups, group_out, *full_sizes), spatial, kernel, steps, dilations)
    full = full.view(batch, groups * group_out, *full_sizes)
    # crop the padding; output_padding beyond what the padding leaves becomes zeros at the end
    out = full[(slice(None), slice(None)) + tuple(slice(p, f - p + min(e, p)) for p, e, f in zip(pads, extra, full_sizes))]
    if any(e > p for p, e in zip(pads, extra)):
        out = ConstantPad.apply(out, ((0, 0), (0, 0)) + tuple((0, max(e - p, 0)) for p, e in zip(pads, extra)), 0.0)
    if bias is not None:
        out = out + bias.view(groups * group_out, *(1,) * n)
    return out.squeeze(0) if unbatched else out


def conv_transpose1d(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None, stride: IntOrTuple = 1,  # noqa: A002
                     padding: IntOrTuple = 0, output_padding: IntOrTuple = 0, groups: int = 1,
                     dilation: IntOrTuple = 1) -> Tensor:
    """1-D transposed convolution of ``(N, C, L)`` or ``(C, L)`` input with ``(C, O/groups, K)`` weight."""
    return _conv_transpose("conv_transpose1d", 1, input, weight, bias, stride, padding, output_padding, groups, dilation)


def conv_transpose2d(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None, stride: IntOrTuple = 1,  # noqa: A002
                     padding: IntOrTuple = 0, output_padding: IntOrTuple = 0, groups: int = 1,
                     dilation: IntOrTuple = 1) -> Tensor:
    """2-D transposed convolution of ``(N, C, H, W)`` or ``(C, H, W)`` input with ``(C, O/groups, KH, KW)`` weight."""
    return _conv_transpose("conv_transpose2d", 2, input, weight, bias, stride, padding, output_padding, groups, dilation)


def conv_transpose3d(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None, stride: IntOrTuple = 1,  # noqa: A002
                     padding: IntOrTuple = 0, output_padding: IntOrTuple = 0, groups: int = 1,
                     dilation: IntOrTuple = 1) -> Tensor:
    """3-D transposed convolution of ``(N, C, D, H, W)`` or ``(C, D, H, W)`` input with ``(C, O/groups, KD, KH, KW)`` weight."""
    return _conv_transpose("conv_transpose3d", 3, input, weight, bias, stride, padding, output_padding, groups, dilation)

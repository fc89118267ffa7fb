r"""Resampling: ``interpolate`` (nearest, linear, area) and pixel (un)shuffle.

Nearest and linear interpolation are separable: each spatial dimension is resampled in
turn, by picking input positions with ``index_select``. Output position :math:`i` of a
dimension resized from :math:`n` to :math:`m` reads, with :math:`r = n/m` (or
``1/scale_factor`` when one is given and not recomputed):

* ``'nearest'``: input :math:`\min(\lfloor i\,r \rfloor, n - 1)`;
* ``'nearest-exact'``: input :math:`\min(\lfloor (i + \tfrac12)\,r \rfloor, n - 1)` (pixel centres);
* ``'linear'`` (and its 2-D and 3-D forms): the source coordinate
  :math:`x = \max(r\,(i + \tfrac12) - \tfrac12,\ 0)`, or :math:`x = i\,\frac{n-1}{m-1}` with
  ``align_corners=True``, between :math:`j = \lfloor x \rfloor` and :math:`j + 1` (clamped):

  .. math:: y_i = (1 - \lambda)\,x_j + \lambda\,x_{j+1}, \qquad \lambda = x - j

Source positions are computed as PyTorch computes them (in the input's precision, the nearest
modes rounded to single precision before the floor), so the same inputs give the same picks.
* ``'bicubic'`` (4-D input): the source coordinate :math:`x = r\,(i + \tfrac12) - \tfrac12` (not
  clamped), or :math:`i\,\frac{n-1}{m-1}` with ``align_corners=True``; with :math:`j = \lfloor x \rfloor`
  and :math:`t = x - j`, the four inputs :math:`j-1 .. j+2` (clamped to the edge) weighted by Keys'
  cubic convolution kernel with :math:`a = -0.75`, as PyTorch:

  .. math:: W(d) = \begin{cases} (a+2)|d|^3 - (a+3)|d|^2 + 1 & |d| \le 1 \\
            a|d|^3 - 5a|d|^2 + 8a|d| - 4a & 1 < |d| < 2 \end{cases}

``'area'`` is adaptive average pooling. The gradients come from ``index_select`` and the
elementwise products.

Pixel shuffle moves :math:`r^2` channels into an :math:`r \times r` block of pixels
(``(*, C r^2, H, W) -> (*, C, H r, W r)``); pixel unshuffle undoes it. Both are a view,
a permutation and a copy, recorded as one node with PyTorch's name (``PixelShuffleBackward0``).
"""

from __future__ import annotations

import math
import warnings
from typing import Optional, Sequence, Union

import numpy as np

from ... import creation, dtypes
from ...autograd.composite import composite
from ...ops.indexing import index_select
from ...shapes import check_storage_size
from ...tensor import Tensor
from .pooling import adaptive_avg_pool1d, adaptive_avg_pool2d
from .upsampling_antialias import interpolate_antialias

Size = Union[int, Sequence[int], None]
Scale = Union[float, Sequence[float], None]

#: what PyTorch's message lists, and what it accepts without align_corners
LISTED_MODES = "nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact"
NEAREST_MODES = ("nearest", "area", "nearest-exact")
#: the linear family by number of spatial dimensions
LINEAR_MODES = {1: "linear", 2: "bilinear", 3: "trilinear"}
AXIS_NAMES = ("D", "H", "W")


def _output_sizes(input: Tensor, size: Size, scale_factor: Scale,  # noqa: A002
                  recompute_scale_factor: Optional[bool], mode: str) -> tuple[list[int], list[Optional[float]]]:
    """The output size per spatial dimension and the scale each source position uses
    (``None``: the ratio of the sizes), with PyTorch's argument checks in its order."""
    dim = input.dim() - 2
    spatial = list(input.shape[2:])
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(
                    f"Input and output must have the same number of spatial dimensions, but got input with spatial "
                    f"dimensions of {spatial} and output size of {size}. Please provide input tensor in (N, C, d1, d2, "
                    f"...,dK) format and output size in (o1, o2, ...,oK) format."
                )
            if not all(isinstance(s, int) for s in size):
                raise TypeError(f"expected size to be one of int or Tuple[int] or Tuple[int, int] or "
                                f"Tuple[int, int, int], but got size with types {[type(s) for s in size]}")
            outs = [int(s) for s in size]
        else:
            outs = [int(size)] * dim
        scales: list[Optional[float]] = [None] * dim
    elif scale_factor is not None:
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError(
                    f"Input and scale_factor must have the same number of spatial dimensions, but got input with "
                    f"spatial dimensions of {spatial} and scale_factor of shape {scale_factor}. Please provide input "
                    f"tensor in (N, C, d1, d2, ...,dK) format and scale_factor in (s1, s2, ...,sK) format."
                )
            scales = [float(s) for s in scale_factor]
        else:
            scales = [float(scale_factor)] * dim
        outs = [int(n * s) for n, s in zip(spatial, scales)]  # truncated toward zero, as PyTorch's C++ does
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if recompute_scale_factor or (mode == "area" and size is None):
        outs = [math.floor(float(n) * s) for n, s in zip(spatial, scales)]  # type: ignore[operator]
        scales = [None] * dim
    return outs, scales


def _check_sizes(spatial: Sequence[int], outs: Sequence[int]) -> None:
    if any(n <= 0 for n in spatial) or any(o <= 0 for o in outs):
        names = AXIS_NAMES[-len(spatial):]
        shown_in = ", ".join(f"{a}: {n}" for a, n in zip(names, spatial))
        shown_out = ", ".join(f"{a}: {o}" for a, o in zip(names, outs))
        joint = " and" if len(spatial) == 1 else ""  # PyTorch's 1-D wording
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input ({shown_in}){joint} output ({shown_out})")


def nearest_sources(size: int, out_size: int, scale: Optional[float], exact: bool, precision: type) -> list[int]:
    """The input position each output position copies (see the module docstring).

    As PyTorch computes them: the ratio in the input's ``precision``, the product in double,
    rounded to single precision before the floor.
    """
    ratio = precision(1.0 / scale) if scale is not None and scale > 0 else precision(size) / precision(out_size)
    offset = 0.5 if exact else 0.0
    points = [np.float32(np.float64(i + offset) * np.float64(ratio)) for i in range(out_size)]
    return [min(int(math.floor(p)), size - 1) for p in points]


def linear_sources(size: int, out_size: int, scale: Optional[float], align_corners: bool,
                   precision: type) -> tuple[list[int], list[int], list[float]]:
    """Per output position: the two input positions it blends and the weight :math:`\\lambda` of the second."""
    if out_size == size:
        return list(range(size)), list(range(size)), [0.0] * size
    if align_corners:
        ratio = precision(size - 1) / precision(out_size - 1) if out_size > 1 else precision(0)
    else:
        ratio = precision(1.0 / scale) if scale is not None and scale > 0 else precision(size) / precision(out_size)
    lows, highs, weights = [], [], []
    for i in range(out_size):
        if align_corners:
            real = ratio * precision(i)
        else:
            real = max(ratio * (precision(i) + precision(0.5)) - precision(0.5), precision(0))
        low = min(int(math.floor(np.float32(real))), size - 1)
        lows.append(low)
        highs.append(low + 1 if low < size - 1 else low)
        weights.append(float(min(max(real - precision(low), precision(0)), precision(1))))
    return lows, highs, weights


#: Keys' parameter of the cubic convolution kernel, PyTorch's choice
CUBIC_A = -0.75
#: the taps of the cubic kernel relative to the floor of the source coordinate
CUBIC_TAPS = (-1, 0, 1, 2)


def _cubic_weight_near(d: float) -> float:
    r""":math:`W(d)` for :math:`|d| \le 1`."""
    return ((CUBIC_A + 2) * d - (CUBIC_A + 3)) * d * d + 1


def _cubic_weight_far(d: float) -> float:
    r""":math:`W(d)` for :math:`1 < |d| < 2`."""
    return ((CUBIC_A * d - 5 * CUBIC_A) * d + 8 * CUBIC_A) * d - 4 * CUBIC_A


def cubic_sources(size: int, out_size: int, scale: Optional[float], align_corners: bool,
                  precision: type) -> tuple[list[list[int]], list[list[float]]]:
    """Per tap (``j-1 .. j+2``): the input position each output position reads and its weight."""
    if align_corners:
        ratio = precision(size - 1) / precision(out_size - 1) if out_size > 1 else precision(0)
    else:
        ratio = precision(1.0 / scale) if scale is not None and scale > 0 else precision(size) / precision(out_size)
    positions: list[list[int]] = [[] for _ in CUBIC_TAPS]
    weights: list[list[float]] = [[] for _ in CUBIC_TAPS]
    for i in range(out_size):
        real = ratio * precision(i) if align_corners else ratio * (precision(i) + precision(0.5)) - precision(0.5)
        floor = int(math.floor(real))
        t = float(real - precision(floor))
        taps = (_cubic_weight_far(t + 1), _cubic_weight_near(t), _cubic_weight_near(1 - t), _cubic_weight_far(2 - t))
        for k, (offset, weight) in enumerate(zip(CUBIC_TAPS, taps)):
            positions[k].append(min(max(floor + offset, 0), size - 1))
            weights[k].append(weight)
    return positions, weights


def _cubic_along(x: Tensor, dim: int, positions: list[list[int]], weights: list[list[float]]) -> Tensor:
    r""":math:`\sum_k w_k\, x[p_k]` along ``dim`` over the four taps."""
    shape = [1] * x.dim()
    shape[dim] = len(weights[0])
    out = None
    for tap_positions, tap_weights in zip(positions, weights):
        weight = creation.tensor(tap_weights, dtype=x.dtype, device=x.device).view(*shape)
        term = _along(x, dim, tap_positions) * weight
        out = term if out is None else out + term
    return out


def _along(x: Tensor, dim: int, positions: list[int]) -> Tensor:
    return index_select(x, dim, creation.tensor(positions, dtype=dtypes.int64, device=x.device))


def _linear_along(x: Tensor, dim: int, lows: list[int], highs: list[int], weights: list[float]) -> Tensor:
    """``(1 - w) * x[lows] + w * x[highs]`` along ``dim``."""
    shape = [1] * x.dim()
    shape[dim] = len(weights)
    second = creation.tensor(weights, dtype=x.dtype, device=x.device).view(*shape)
    return _along(x, dim, lows) * (1 - second) + _along(x, dim, highs) * second


def _kernel_name(mode: str, dim: int) -> str:
    """The name PyTorch's CPU kernel for ``mode`` goes by in its dtype errors."""
    if mode == "area":
        return f"adaptive_avg_pool{dim}d"
    if dim == 1 and mode in ("nearest", "linear"):
        return f"compute_indices_weights_{mode}"
    return f"upsample_{mode.replace('-', '_')}{dim}d" + ("_channels_last" if dim == 2 else "")


def interpolate(input: Tensor, size: Size = None, scale_factor: Scale = None, mode: str = "nearest",  # noqa: A002
                align_corners: Optional[bool] = None, recompute_scale_factor: Optional[bool] = None,
                antialias: bool = False) -> Tensor:
    """Resize the spatial dimensions of ``(N, C, *spatial)`` input to ``size`` or by ``scale_factor``.

    Modes ``'nearest'``, ``'nearest-exact'``, ``'linear'``/``'bilinear'``/``'trilinear'``,
    ``'bicubic'`` (2-D) and ``'area'`` (1-D and 2-D); with ``antialias=True`` (4-D input), ``'bilinear'``,
    ``'bicubic'`` and ``'lanczos'`` (which needs it) filter as image libraries resize
    (:mod:`~minitorch.nn.functional.upsampling_antialias`).
    """
    if mode in NEAREST_MODES:
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: linear | bilinear | "
                             "bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    outs, scales = _output_sizes(input, size, scale_factor, recompute_scale_factor, mode)
    check_storage_size((*input.shape[:2], *outs), input.dtype.itemsize)  # before any loop over the sizes
    dim = input.dim() - 2
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.dim() == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires a 4-D "
                         "tensor as input")
    if mode in LINEAR_MODES.values() and LINEAR_MODES.get(dim) != mode:
        needed = 2 + next(n for n, name in LINEAR_MODES.items() if name == mode)
        raise NotImplementedError(f"Got {input.dim()}D input, but {mode} mode needs {needed}D input")
    if mode == "lanczos" and dim == 2:
        if align_corners:
            raise ValueError("Lanczos mode does not support align_corners=True")
        if not antialias:
            raise ValueError("Lanczos mode requires antialias=True")
    if antialias:
        _check_sizes(list(input.shape[2:]), outs)
        return interpolate_antialias(input, outs, scales, mode, bool(align_corners))
    supported = (mode in ("nearest", "nearest-exact", LINEAR_MODES.get(dim)) or (mode == "area" and dim in (1, 2))
                 or (mode == "bicubic" and dim == 2))
    if not 1 <= dim <= 3 or not supported:
        if dim == 3 and mode == "area":
            raise NotImplementedError("interpolate: mode='area' on 5D input is not implemented in minitorch")
        raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.dim()}D) for the "
                                  f"modes: {LISTED_MODES} (got {mode})")
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f'"{_kernel_name(mode, dim)}" not implemented for \'{dtypes.scalar_type_name(input.dtype)}\'')
    if mode == "area":
        return adaptive_avg_pool1d(input, outs) if dim == 1 else adaptive_avg_pool2d(input, outs)
    spatial = list(input.shape[2:])
    _check_sizes(spatial, outs)
    out = input
    precision = np.float64 if input.dtype == dtypes.float64 else np.float32
    for d, (n, m, scale) in enumerate(zip(spatial, outs, scales), start=2):
        if mode == "nearest" or mode == "nearest-exact":
            out = _along(out, d, nearest_sources(n, m, scale, mode == "nearest-exact", precision))
        elif mode == "bicubic":
            if n != m or any(a != b for a, b in zip(spatial, outs)):  # PyTorch copies when no size changes
                out = _cubic_along(out, d, *cubic_sources(n, m, scale, bool(align_corners), precision))
        else:
            out = _linear_along(out, d, *linear_sources(n, m, scale, bool(align_corners), precision))
    return out


def upsample(input: Tensor, size: Size = None, scale_factor: Scale = None, mode: str = "nearest",  # noqa: A002
             align_corners: Optional[bool] = None) -> Tensor:
    """The old name of :func:`interpolate` (deprecated in PyTorch, and warned about as there)."""
    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def _check_shuffle(name: str, factor_name: str, input: Tensor, factor: int) -> None:  # noqa: A002
    """PyTorch's first two errors of ``pixel_shuffle``/``pixel_unshuffle``: rank, then the factor."""
    if input.dim() < 3:
        raise RuntimeError(f"{name} expects input to have at least 3 dimensions, but got input with "
                           f"{input.dim()} dimension(s)")
    if factor <= 0:
        raise RuntimeError(f"{name} expects a positive {factor_name}, but got {factor}")


def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:  # noqa: A002
    """``(*, C r^2, H, W) -> (*, C, H r, W r)``: each group of :math:`r^2` channels becomes an :math:`r \\times r` block."""
    r = upscale_factor
    _check_shuffle("pixel_shuffle", "upscale_factor", input, r)
    *lead, channels, height, width = input.shape
    if channels % (r * r):
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
                           f"upscale_factor, but input.size(-3)={channels} is not divisible by {r * r}")
    k = len(lead)
    order = tuple(range(k)) + (k, k + 3, k + 1, k + 4, k + 2)

    def shuffled(x: Tensor) -> Tensor:
        blocks = x.reshape(*lead, channels // (r * r), r, r, height, width)
        return blocks.permute(*order).clone().view(*lead, channels // (r * r), height * r, width * r)

    return composite("PixelShuffleBackward0", shuffled, input, saves=())


def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:  # noqa: A002
    """``(*, C, H r, W r) -> (*, C r^2, H, W)``: the inverse of :func:`pixel_shuffle`."""
    r = downscale_factor
    _check_shuffle("pixel_unshuffle", "downscale_factor", input, r)
    *lead, channels, height, width = input.shape
    if height % r:
        raise RuntimeError(f"pixel_unshuffle expects height to be divisible by downscale_factor, but "
                           f"input.size(-2)={height} is not divisible by {r}")
    if width % r:
        raise RuntimeError(f"pixel_unshuffle expects width to be divisible by downscale_factor, but "
                           f"input.size(-1)={width} is not divisible by {r}")
    k = len(lead)
    order = tuple(range(k)) + (k, k + 2, k + 4, k + 1, k + 3)

    def unshuffled(x: Tensor) -> Tensor:
        blocks = x.reshape(*lead, channels, height // r, r, width // r, r)
        return blocks.permute(*order).clone().view(*lead, channels * r * r, height // r, width // r)

    return composite("PixelUnshuffleBackward0", unshuffled, input, saves=())


def channel_shuffle(input: Tensor, groups: int) -> Tensor:  # noqa: A002
    """Interleave the channels of ``(N, C, *)`` input: view them as ``(groups, C / groups)``, transpose
    those two, flatten back (ShuffleNet's shuffle)."""
    if input.dim() <= 2:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with sizes {list(input.shape)}")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    channels = input.shape[1]
    if channels % groups != 0:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {channels} channels and "
                           f"{groups} groups.")
    n, rest = input.shape[0], tuple(input.shape[2:])

    def interleaved(x: Tensor) -> Tensor:
        grouped = x.reshape((n, groups, channels // groups) + rest)
        return grouped.transpose(1, 2).clone().view(tuple(x.shape))

    return composite("ChannelShuffleBackward0", interleaved, input, saves=())

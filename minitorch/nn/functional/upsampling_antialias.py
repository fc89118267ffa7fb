r"""Anti-aliased resizing: ``interpolate(..., mode='bilinear' | 'bicubic' | 'lanczos', antialias=True)``.

Plain interpolation reads a fixed number of inputs around each output's source coordinate, so
shrinking an image by a large factor skips most of its pixels (aliasing). The anti-aliased form
widens the filter with the shrink factor, as image libraries resize. It is separable: the width
is resized first, then the height (a dimension whose size does not change is left as it is).

Along a dimension resized from :math:`n` to :math:`m` with scale :math:`r` (``1/scale_factor``
when one is given and not recomputed, else :math:`n/m`; :math:`(n-1)/(m-1)` with
``align_corners=True``), the filter's half-width at unit scale is :math:`s_0` (1 for the triangle,
2 for the cubic, 3 for Lanczos), stretched by :math:`\max(r, 1)`:

.. math:: c_i = r\,(i + \tfrac12), \qquad s = s_0 \max(r, 1), \qquad
          j \in [\,\lfloor c_i - s + \tfrac12 \rfloor,\ \lfloor c_i + s + \tfrac12 \rfloor\,) \cap [0, n)

Input :math:`j` gets the weight :math:`K\big((j - c_i + \tfrac12)/\max(r, 1)\big)`, normalised to sum
to 1 over the window, with :math:`K` the triangle :math:`\max(1 - |x|, 0)`, Keys' cubic with
:math:`a = -\tfrac12` or the Lanczos-3 kernel :math:`\mathrm{sinc}(x)\,\mathrm{sinc}(x/3)` for :math:`|x| < 3`.

The weights are computed as PyTorch's CPU kernel computes them (in the input's precision, the same
operations in the same order, with its fused multiply-adds) and each output sums its window in
order, so results agree with PyTorch's to an ulp or two. The backward is the transposed map, recorded
as one node with PyTorch's name (``UpsampleBilinear2DAaBackward0``, ...); like PyTorch's, it uses
the weights of every dimension, even one whose size did not change.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Optional, Sequence

import numpy as np

from ... import creation, dtypes, memory_formats
from ...autograd.function import Context, Function
from ...autograd.linear_map import linear_map
from ...ops.indexing import index_select
from ...tensor import Tensor, where

#: the filter's width in inputs at unit scale (PyTorch's ``interp_size``), per mode
FILTER_WIDTH = {"bilinear": 2, "bicubic": 4, "lanczos": 6}
#: Keys' cubic convolution parameter with antialiasing (PyTorch and Pillow use -0.5 here)
KEYS_A = -0.5
#: the lobes of the Lanczos window
LANCZOS_LOBES = 3
#: the name of PyTorch's node per mode
NODE_NAMES = {"bilinear": "UpsampleBilinear2DAaBackward0", "bicubic": "UpsampleBicubic2DAaBackward0",
              "lanczos": "UpsampleLanczos2DAaBackward0"}
#: PyTorch's kernel name in its dtype errors
KERNEL_NAME = "compute_index_ranges_weights"
#: the spatial dimensions, in the order PyTorch resamples them (width first)
RESAMPLE_ORDER = (3, 2)

Kernel = Callable[[np.ndarray, type], np.ndarray]


def _triangle(x: np.ndarray, precision: type) -> np.ndarray:
    """:math:`\max(1 - |x|, 0)`."""
    x = np.abs(x)
    return np.where(x < 1, precision(1) - x, precision(0)).astype(precision)


#: Dekker's splitting constant for double, :math:`2^{27} + 1`
DEKKER_SPLIT = 134217729.0


def _split(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``a`` as the sum of two halves of 26 bits each (Dekker)."""
    scaled = DEKKER_SPLIT * a
    high = scaled - (scaled - a)
    return high, a - high


def _fma(a: np.ndarray, b: np.ndarray, c: np.ndarray, precision: type) -> np.ndarray:
    """:math:`a b + c` rounded once, as PyTorch's compiled kernel fuses it: in single precision
    through double; in double from the exact product and sum (error-free transformations)."""
    if precision is not np.float64:
        return (np.float64(1) * a * b + c).astype(precision)
    a, b, c = (np.asarray(v, dtype=np.float64) for v in (a, b, c))
    product = a * b
    (a_high, a_low), (b_high, b_low) = _split(a), _split(b)
    product_error = ((a_high * b_high - product) + a_high * b_low + a_low * b_high) + a_low * b_low
    total = product + c
    virtual = total - product
    sum_error = (product - (total - virtual)) + (c - virtual)
    return total + (product_error + sum_error)


def _keys_cubic(x: np.ndarray, precision: type) -> np.ndarray:
    """Keys' cubic convolution kernel with :data:`KEYS_A`, fused as PyTorch's kernel computes it."""
    a = precision(KEYS_A)
    x = np.abs(x)
    inner = (_fma(x, a + precision(2), -(a + precision(3)), precision) * x).astype(precision)
    near = _fma(inner, x, precision(1), precision)
    far = _fma(_fma(_fma(x, a, -precision(5) * a, precision), x, precision(8) * a, precision), x, -precision(4) * a,
               precision)
    return np.where(x < 1, near, np.where(x < 2, far, precision(0))).astype(precision)


def _sinc(x: np.ndarray, precision: type) -> np.ndarray:
    """:math:`\\sin(\\pi x)/(\\pi x)` in ``precision`` (1 at 0); the sine rounded from double."""
    scaled = (x * precision(math.pi)).astype(precision)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.sin(scaled.astype(np.float64)).astype(precision) / scaled
    return np.where(x == 0, precision(1), ratio).astype(precision)


def _lanczos(x: np.ndarray, precision: type) -> np.ndarray:
    """:math:`\\mathrm{sinc}(x)\\,\\mathrm{sinc}(x/3)`; PyTorch takes the second factor in double."""
    x = np.abs(x)
    product = _sinc(x, precision).astype(np.float64) * _sinc(x.astype(np.float64) / LANCZOS_LOBES, np.float64)
    return np.where(x < LANCZOS_LOBES, product.astype(precision), precision(0)).astype(precision)


KERNELS: dict[str, Kernel] = {"bilinear": _triangle, "bicubic": _keys_cubic, "lanczos": _lanczos}


@dataclass(frozen=True)
class Taps:
    """Per output position: its first input, how many inputs it reads, and their weights
    (``weights[i, k]`` for input ``first[i] + k``; zero past ``count[i]``)."""

    first: np.ndarray
    count: np.ndarray
    weights: np.ndarray

    def matrix(self, size: int) -> np.ndarray:
        """The dense ``(outputs, size)`` matrix of the weights."""
        out = np.zeros((len(self.first), size), dtype=self.weights.dtype)
        for i, (start, count) in enumerate(zip(self.first.tolist(), self.count.tolist())):
            out[i, start:start + count] = self.weights[i, :count]
        return out


def _scale(size: int, out_size: int, scale: Optional[float], align_corners: bool, precision: type) -> float:
    """Input positions per output position, as PyTorch computes it in ``precision``."""
    if align_corners:
        return precision(size - 1) / precision(out_size - 1) if out_size > 1 else precision(0)
    if scale is not None and scale > 0:
        return precision(1.0 / scale)
    return precision(size) / precision(out_size)


def _truncated(values: np.ndarray) -> np.ndarray:
    """``values + 1/2`` in double, truncated toward zero (a C cast)."""
    return np.trunc(values.astype(np.float64) + 0.5).astype(np.int64)


def filter_taps(size: int, out_size: int, scale: Optional[float], align_corners: bool, mode: str,
                precision: type) -> Taps:
    """The window and normalised weights of every output position (see the module docstring)."""
    ratio = _scale(size, out_size, scale, align_corners, precision)
    half_width = FILTER_WIDTH[mode] * 0.5
    stretched = float(ratio) >= 1.0
    support = precision(half_width * float(ratio)) if stretched else precision(half_width)
    max_taps = int(math.ceil(support)) * 2 + 1
    inv_scale = precision(1.0 / float(ratio)) if stretched else precision(1)
    centre = (float(ratio) * (np.arange(out_size, dtype=np.float64) + 0.5)).astype(precision)
    first = np.maximum(_truncated(centre - support), 0)
    count = np.clip(np.minimum(_truncated(centre + support), size) - first, 0, max_taps)
    positions = (first[:, None] + np.arange(max_taps)[None, :]).astype(precision)
    distance = (positions - centre[:, None]).astype(precision).astype(np.float64) + 0.5
    weights = KERNELS[mode]((distance * float(inv_scale)).astype(precision), precision)
    weights = np.where(np.arange(max_taps)[None, :] < count[:, None], weights, precision(0)).astype(precision)
    total = np.zeros(out_size, dtype=precision)
    for k in range(max_taps):  # summed in order, as PyTorch
        total = (total + weights[:, k]).astype(precision)
    with np.errstate(divide="ignore", invalid="ignore"):
        normalised = (weights / total[:, None]).astype(precision)
    weights = np.where(total[:, None] != 0, normalised, weights).astype(precision)
    return Taps(first, count, weights)


def _resample_along(x: Tensor, dim: int, taps: Taps) -> Tensor:
    r""":math:`y_i = \sum_k w_{ik}\, x_{\mathrm{first}_i + k}` along ``dim``, summed in order of :math:`k`."""
    size = x.shape[dim]
    shape = [1] * x.dim()
    shape[dim] = len(taps.first)
    out: Optional[Tensor] = None
    for k in range(taps.weights.shape[1]):
        reads = taps.count > k
        if k and not reads.any():
            break
        positions = np.minimum(taps.first + k, size - 1).tolist()
        picked = index_select(x, dim, creation.tensor(positions, dtype=dtypes.int64, device=x.device))
        weight = creation.tensor(taps.weights[:, k].tolist(), dtype=x.dtype, device=x.device).view(*shape)
        if out is None:
            out = picked * weight
            continue
        total = out + picked * weight
        if reads.all():
            out = total
        else:  # outputs whose window is shorter read nothing here (not even 0 * inf)
            mask = creation.tensor(reads.tolist(), dtype=dtypes.bool_, device=x.device).view(*shape)
            out = where(mask, total, out)
    assert out is not None
    return out


def _precision(dtype: dtypes.dtype) -> type:
    """The NumPy type PyTorch's kernel computes the weights of ``dtype`` input in."""
    return np.float64 if dtype == dtypes.float64 else np.float32


def _all_taps(spatial: Sequence[int], outs: Sequence[int], scales: Sequence[Optional[float]], mode: str,
              align_corners: bool, precision: type) -> list[Taps]:
    """The taps of the height and the width, in that order."""
    return [filter_taps(n, m, s, align_corners, mode, precision) for n, m, s in zip(spatial, outs, scales)]


class AntialiasedResize(Function):
    """The anti-aliased resize of ``(N, C, H, W)`` input; its backward spreads each output's
    gradient over its window with the same weights."""

    @staticmethod
    def forward(ctx: Context, x: Tensor, mode: str, outs: tuple[int, int], scales: tuple[Optional[float], ...],
                align_corners: bool) -> Tensor:
        ctx.grad_fn_name = NODE_NAMES[mode]
        ctx.args = (mode, outs, scales, align_corners)
        ctx.spatial = tuple(x.shape[2:])
        taps = _all_taps(ctx.spatial, outs, scales, mode, align_corners, _precision(x.dtype))
        out = x
        for dim in RESAMPLE_ORDER:
            if x.shape[dim] != outs[dim - 2]:
                out = _resample_along(out, dim, taps[dim - 2])
        layout = memory_formats.suggest_memory_format(x.shape, x.stride())  # PyTorch's output keeps it
        return out.contiguous(memory_format=layout) if out is not x else out.clone(memory_format=layout)

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Tensor, None, None, None, None]:
        mode, outs, scales, align_corners = ctx.args
        taps = _all_taps(ctx.spatial, outs, scales, mode, align_corners, _precision(grad.dtype))
        height, width = (creation.tensor(t.matrix(n).tolist(), dtype=grad.dtype, device=grad.device)
                         for t, n in zip(taps, ctx.spatial))

        def spread(g: Tensor) -> Tensor:
            return height.transpose(0, 1) @ (g @ width)

        def resize(g: Tensor) -> Tensor:
            return AntialiasedResize.apply(g, mode, outs, scales, align_corners)

        name = NODE_NAMES[mode].replace("Backward0", "BackwardBackward0")
        return linear_map(grad, spread, resize, name), None, None, None, None


def _check(input: Tensor) -> None:  # noqa: A002
    """PyTorch's checks after the sizes', in its order: a non-empty image, then a floating dtype."""
    if input.numel() == 0 and math.prod(input.shape[1:]) == 0:
        raise RuntimeError(f"Non-empty 4D data tensor expected but got a tensor with sizes {list(input.shape)}")
    if input.dtype == dtypes.uint8:
        raise NotImplementedError("interpolate: antialias=True on uint8 input is not implemented in minitorch")
    if input.dtype not in (dtypes.float32, dtypes.float64):
        raise NotImplementedError(f'"{KERNEL_NAME}" not implemented for \'{dtypes.scalar_type_name(input.dtype)}\'')


def interpolate_antialias(input: Tensor, outs: Sequence[int], scales: Sequence[Optional[float]], mode: str,  # noqa: A002
                          align_corners: bool) -> Tensor:
    """Resize 4-D ``input`` (of positive sizes, checked by the caller) to ``outs`` with the
    anti-aliasing filter of ``mode`` (see the module docstring).

    ``scales`` are the scale factors PyTorch's kernel receives (``None``: the ratio of the sizes).
    """
    _check(input)
    return AntialiasedResize.apply(input, mode, tuple(outs), tuple(scales), bool(align_corners))

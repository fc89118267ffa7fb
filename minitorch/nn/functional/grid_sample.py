r"""``affine_grid`` and ``grid_sample``: reading an image at arbitrary points (spatial transformers).

A grid holds, for each output pixel, a point :math:`(x, y)` of the input in normalised
coordinates: :math:`-1` and :math:`1` are the centres of the corner pixels with
``align_corners=True``, their outer edges with ``False``. In pixels,

.. math:: u = \frac{x + 1}{2}(W - 1) \quad\text{or}\quad u = \frac{(x + 1) W - 1}{2}.

``bilinear`` mixes the four pixels around :math:`(u, v)`,
:math:`\sum (1 - |u - u_k|)(1 - |v - v_k|)\,I[v_k, u_k]`; ``nearest`` reads the closest one.
Points outside read 0 (``padding_mode='zeros'``), the nearest edge pixel (``'border'``) or
the image mirrored at its edges (``'reflection'``). Everything is composed from
differentiable ops (the pixel indices are constants), so the gradient reaches both the image
and the grid, as a spatial transformer's localisation network needs. (With ``nearest`` the grid
gets no gradient: ``grid.grad`` stays None where PyTorch fills it with zeros.)
"""

from __future__ import annotations

import warnings
from typing import Optional, Sequence

import numpy as np

from ...creation import cat, linspace, ones, zeros
from ...creation import tensor as make_tensor
from ...rounding import fused_multiply_add
from ...tensor import Tensor, where

MODES = ("bilinear", "nearest")
PADDING_MODES = ("zeros", "border", "reflection")
_ALIGN_WARNING = ("Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. "
                  "Please specify align_corners=True if the old behavior is desired. See the documentation of "
                  "grid_sample for details.")


def _align(align_corners: Optional[bool]) -> bool:
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=3)
        return False
    return align_corners


def _base_coordinates(steps: int, align_corners: bool, like: Tensor) -> Tensor:
    """The normalised coordinates of ``steps`` pixel centres along one side (0 for a single one)."""
    if steps <= 1:
        return zeros(steps, dtype=like.dtype, device=like.device)
    coordinates = linspace(-1, 1, steps, dtype=like.dtype, device=like.device)
    # times (steps - 1), then divided by steps: PyTorch's two roundings, so the points agree to the bit
    return coordinates if align_corners else coordinates * (steps - 1) / steps


def affine_grid(theta: Tensor, size: Sequence[int], align_corners: Optional[bool] = None) -> Tensor:
    r"""The grid ``(N, H, W, 2)`` of points :math:`\theta\,(x, y, 1)^\top` for every output pixel
    :math:`(x, y)` of an image of ``size`` ``(N, C, H, W)``; ``theta`` is ``(N, 2, 3)``."""
    aligned = _align(align_corners)
    if len(size) != 4:
        raise NotImplementedError(f"affine_grid only supports 4D sizes here (2-D images), got size {list(size)}")
    n, _, height, width = (int(s) for s in size)
    if aligned and min(height, width) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids when align_corners=True. "
                      "This is not an intended use case of affine_grid. See the documentation of affine_grid for details.",
                      stacklevel=2)
    if not theta.dtype.is_floating_point:
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    if theta.dim() != 3 or tuple(theta.shape) != (n, 2, 3):
        raise ValueError(f"Expected a batch of 2D affine matrices of shape Nx2x3 for size {list(size)}. "
                         f"Got {list(theta.shape)}.")
    xs = _base_coordinates(width, aligned, theta).view(1, width, 1).expand(height, width, 1)
    ys = _base_coordinates(height, aligned, theta).view(height, 1, 1).expand(height, width, 1)
    homogeneous = cat([xs, ys, ones(height, width, 1, dtype=theta.dtype, device=theta.device)], -1)  # (H, W, 3)
    return (homogeneous.view(1, height * width, 3) @ theta.transpose(1, 2)).view(n, height, width, 2)._standalone()


def _to_pixels(coordinate: Tensor, size: int, align_corners: bool) -> Tensor:
    """Pixel positions, rounded as PyTorch's CPU kernel rounds them: its ``(x + 1) s - 0.5`` is one
    fused multiply-add, and whether a point a hair below a pixel centre reads that pixel or the one
    before (so which pixel difference its gradient takes) depends on that last bit."""
    shifted = coordinate + 1
    if align_corners:
        return shifted * ((size - 1) / 2)
    plain = shifted * (size / 2) - 0.5
    held = shifted.detach()
    values = held.numpy(force=True)
    if values.dtype == np.float64:
        fused = fused_multiply_add(values, np.full_like(values, size / 2), np.full_like(values, -0.5))
    else:  # float32 and float16: exact in float64, then rounded once
        fused = (values.astype(np.float64) * (size / 2) - 0.5).astype(values.dtype)
    correction = make_tensor(fused, device=held.device) - plain.detach()  # at most an ulp, so exact
    return plain + correction  # the fused value, with the formula's gradient


def _reflect(u: Tensor, low: float, twice_span: float) -> Tensor:
    """``u`` mirrored at ``low`` and ``low + twice_span / 2`` until it lies between them."""
    distance = (u - low).abs()
    flips = (distance / twice_span).detach().trunc()
    extra = distance - flips * twice_span
    return extra.minimum(twice_span - extra) + low


def _clip(u: Tensor, size: int) -> Tensor:
    """``u`` clamped to the pixels (NaN to 0); the gradient passes strictly inside only, as PyTorch's."""
    clipped = u.clamp(0, size - 1).nan_to_num(0.0)
    return where((u > 0) & (u < size - 1), u, clipped.detach())


def _pad_coordinates(u: Tensor, size: int, padding_mode: str, align_corners: bool) -> Tensor:
    if padding_mode == "reflection":
        if align_corners:
            u = u * 0 if size <= 1 else _reflect(u, 0.0, 2.0 * (size - 1))
        else:
            u = _reflect(u, -0.5, 2.0 * size)
    if padding_mode in ("border", "reflection"):
        u = _clip(u, size)
    return u


def _read(flat: Tensor, us: Tensor, vs: Tensor, width: int, height: int) -> Tensor:
    """``flat`` ``(N, C, H*W)`` at integer pixels ``(us, vs)`` ``(N, P)``; 0 where outside."""
    inside = ((us >= 0) & (us <= width - 1) & (vs >= 0) & (vs <= height - 1))
    index = (vs.clamp(0, height - 1) * width + us.clamp(0, width - 1)).long()
    n, c, _ = flat.shape
    values = flat.gather(2, index.unsqueeze(1).expand(n, c, index.shape[1]))
    return values * inside.unsqueeze(1).to(flat.dtype)


def grid_sample(input: Tensor, grid: Tensor, mode: str = "bilinear", padding_mode: str = "zeros",  # noqa: A002
                align_corners: Optional[bool] = None) -> Tensor:
    """``input`` ``(N, C, H, W)`` read at the points of ``grid`` ``(N, H_out, W_out, 2)`` (normalised
    ``(x, y)``): ``(N, C, H_out, W_out)``."""
    aligned = _align(align_corners)
    if mode not in MODES:
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear' or 'nearest' here, but got: '{mode}'")
    if padding_mode not in PADDING_MODES:
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    if input.dim() != 4 or grid.dim() != 4 or grid.shape[-1] != 2:
        raise RuntimeError(f"grid_sampler(): expected 4D input and a grid of shape (N, H_out, W_out, 2) "
                           f"(2-D images), but got input {list(input.shape)} and grid {list(grid.shape)}")
    if input.shape[0] != grid.shape[0]:
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch size, but got input with "
                           f"sizes {list(input.shape)} and grid with sizes {list(grid.shape)}")
    if input.dtype is not grid.dtype:
        raise RuntimeError(f"grid_sampler(): expected input and grid to have same dtype, but input has "
                           f"{input.dtype} and grid has {grid.dtype}")
    n, c, height, width = input.shape
    out_h, out_w = grid.shape[1], grid.shape[2]
    points = grid.reshape(n, out_h * out_w, 2)
    u = _pad_coordinates(_to_pixels(points[..., 0], width, aligned), width, padding_mode, aligned)
    v = _pad_coordinates(_to_pixels(points[..., 1], height, aligned), height, padding_mode, aligned)
    flat = input.reshape(n, c, height * width)
    if mode == "nearest":
        out = _read(flat, u.detach().round(), v.detach().round(), width, height)
    else:  # the weights as PyTorch's kernel forms them (north/south, west/east), for the same roundings
        u0, v0 = u.detach().floor(), v.detach().floor()
        west, north = (u - u0).unsqueeze(1), (v - v0).unsqueeze(1)  # distances to the west and north pixels
        east, south = 1 - west, 1 - north
        out = (_read(flat, u0, v0, width, height) * (south * east)
               + _read(flat, u0 + 1, v0, width, height) * (south * west)
               + _read(flat, u0, v0 + 1, width, height) * (north * east)
               + _read(flat, u0 + 1, v0 + 1, width, height) * (north * west))
    return out.view(n, c, out_h, out_w)._standalone()  # a view of the sum: a result of its own

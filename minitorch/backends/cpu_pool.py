"""Direct 2-D max-pooling on the CPU: the :class:`~.base.PoolKernels` of the cpu backend.

The course's max-pooling (task 5.5) views the windows, copies them into rows and reduces each
row twice (its max and where the max is); its backward builds a one-hot mask. Here one pass
over each window finds both, threads sharing the planes. The backward adds each window's
gradient at the place found, one plane per task, so no two threads write to one plane (a
general scatter-add would check and walk its index as a tensor of any layout: for LeNet's
first pooling, 1 ms against PyTorch's 0.1 ms).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ..tensor_data import TensorData
from . import kernel_cache
from .base import PoolGeometry
from .cpu_kernels import KERNEL_OPTIONS, prange_only
from .cpu_thread_governor import governed

# cached under a digest of this file's source and of what it compiles in (see :mod:`.kernel_cache`)
kernel_cache.register(__file__)

# positions in the int64 geometry array the kernel takes
(PLANES, HEIGHT, WIDTH, KERNEL_H, KERNEL_W, STRIDE_H, STRIDE_W, PADDING_H, PADDING_W, DILATION_H, DILATION_W,
 OUT_H, OUT_W) = range(13)


@njit(parallel=prange_only(), **KERNEL_OPTIONS)
def max_pool_kernel(values: np.ndarray, indices: np.ndarray, x: np.ndarray, geometry: np.ndarray) -> None:
    """Every window of the contiguous planes ``x`` ``(P, H, W)``: its max into ``values``, its place into ``indices``."""
    # every number read once: read in the loops, each would be loaded again after every store to
    # ``indices``, an int64 array as ``geometry`` is, which the compiler cannot tell apart from it
    height, width, out_h, out_w = geometry[HEIGHT], geometry[WIDTH], geometry[OUT_H], geometry[OUT_W]
    kernel_h, kernel_w = geometry[KERNEL_H], geometry[KERNEL_W]
    stride_h, stride_w, padding_h, padding_w = geometry[STRIDE_H], geometry[STRIDE_W], geometry[PADDING_H], geometry[PADDING_W]
    dilation_h, dilation_w = geometry[DILATION_H], geometry[DILATION_W]
    # 2 x 2 windows, no padding and the last window inside (not so with ceil_mode): no place needs a check
    inside_2x2 = (kernel_h == 2 and kernel_w == 2 and padding_h == 0 and padding_w == 0
                  and (out_h - 1) * stride_h + dilation_h < height and (out_w - 1) * stride_w + dilation_w < width)
    for p in prange(geometry[PLANES]):
        plane = x[p * height * width : (p + 1) * height * width]
        if inside_2x2:
            pool_2x2(values, indices, plane, p, geometry)
            continue
        for i in range(out_h):
            top = i * stride_h - padding_h
            for j in range(out_w):
                left = j * stride_w - padding_w
                best, where = -np.inf, -1
                for u in range(kernel_h):
                    row = top + u * dilation_h
                    if 0 <= row < height:
                        for v in range(kernel_w):
                            column = left + v * dilation_w
                            if 0 <= column < width:
                                value = plane[row * width + column]
                                # the first place inside, a larger value, or any NaN takes over
                                if where < 0 or value > best or np.isnan(value):
                                    best, where = value, row * width + column
                out = (p * out_h + i) * out_w + j
                values[out] = best
                indices[out] = where


@njit(inline="always", **KERNEL_OPTIONS)
def pool_2x2(values: np.ndarray, indices: np.ndarray, plane: np.ndarray, p: int, geometry: np.ndarray) -> None:
    """:func:`max_pool_kernel` on plane ``p`` for 2 x 2 windows that all lie inside it
    (``MaxPool2d(2)``): each window's four places unrolled, in reading order, none checked against
    the plane's edges, the larger value chosen without a branch (which noisy values mispredict every
    other time): LeNet's first pooling 0.70 -> 0.28 ms, its second 0.25 -> 0.11 ms."""
    width, out_h, out_w = geometry[WIDTH], geometry[OUT_H], geometry[OUT_W]
    row_step, column_step = geometry[STRIDE_H] * width, geometry[STRIDE_W]
    tap_row, tap_column = geometry[DILATION_H] * width, geometry[DILATION_W]
    for i in range(out_h):
        out = (p * out_h + i) * out_w
        for j in range(out_w):
            start = i * row_step + j * column_step
            best, where = plane[start], start
            for at in (start + tap_column, start + tap_row, start + tap_row + tap_column):
                value = plane[at]
                take = (value > best) | (value != value)  # as the checked loop: any NaN takes over
                best = value if take else best
                where = at if take else where
            values[out + j] = best
            indices[out + j] = where


def max_pool2d(x: TensorData, geometry: PoolGeometry, values: TensorData, indices: TensorData) -> None:
    """:meth:`~.base.PoolKernels.max_pool2d` (``values`` and ``indices`` fresh and contiguous)."""
    height, width = x.shape[-2:]
    planes = x.size // (height * width) if height * width else 0
    layout = np.array([planes, height, width, *geometry.kernel, *geometry.stride, *geometry.padding,
                       *geometry.dilation, *geometry.output], np.int64)
    governed(values.size * geometry.kernel[0] * geometry.kernel[1], max_pool_kernel, values.buffer, indices.buffer,
             x.contiguous_buffer(), layout)


@njit(parallel=prange_only(), **KERNEL_OPTIONS)
def max_pool_backward_kernel(grad_x: np.ndarray, grad: np.ndarray, indices: np.ndarray, planes: int,
                             plane_size: int, pooled: int) -> int:
    """``grad_x`` ``(planes, plane_size)`` zeroed, then ``grad[p, c]`` added at ``indices[p, c]`` in plane
    ``p`` for each of the ``pooled`` cells of a plane; returns how many places were outside their plane."""
    outside = np.zeros(planes, np.int64)  # per plane: the threads never write one counter together
    for p in prange(planes):
        plane = grad_x[p * plane_size : (p + 1) * plane_size]
        for c in range(plane_size):
            plane[c] = 0
        cells, places = grad[p * pooled : (p + 1) * pooled], indices[p * pooled : (p + 1) * pooled]
        for c in range(pooled):
            where = places[c]
            if 0 <= where < plane_size:  # checked before it is written: the indices may have been altered
                plane[where] += cells[c]
            else:
                outside[p] += 1
    return outside.sum()


def max_pool2d_backward(grad: TensorData, indices: TensorData, grad_x: TensorData) -> int:
    """:meth:`~.base.PoolKernels.max_pool2d_backward` (``grad_x`` fresh and contiguous)."""
    height, width = grad_x.shape[-2:]
    plane_size = height * width
    planes = grad_x.size // plane_size if plane_size else 0
    pooled = grad.size // planes if planes else 0
    return int(governed(grad_x.size + grad.size, max_pool_backward_kernel, grad_x.buffer, grad.contiguous_buffer(),
                        indices.contiguous_buffer(), planes, plane_size, pooled))

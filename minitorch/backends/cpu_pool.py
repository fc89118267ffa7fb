"""Direct 2-D max-pooling on the CPU: the :class:`~.base.PoolKernels` of the cpu backend.

The course's max-pooling (task 5.5) views the windows, copies them into rows and reduces each
row twice (its max and where the max is); its backward builds a one-hot mask. Here one pass
over each window finds both, threads sharing the planes. The backward needs no kernel of its
own: the gradient is scatter-added into the input's planes at the places found here.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ..tensor_data import TensorData
from .base import PoolGeometry
from .cpu_kernels import KERNEL_OPTIONS, prange_only

# positions in the int64 geometry array the kernel takes
(PLANES, HEIGHT, WIDTH, KERNEL_H, KERNEL_W, STRIDE_H, STRIDE_W, PADDING_H, PADDING_W, DILATION_H, DILATION_W,
 OUT_H, OUT_W) = range(13)


@njit(parallel=prange_only(), **KERNEL_OPTIONS)
def max_pool_kernel(values: np.ndarray, indices: np.ndarray, x: np.ndarray, geometry: np.ndarray) -> None:
    """Every window of the contiguous planes ``x`` ``(P, H, W)``: its max into ``values``, its place into ``indices``."""
    height, width, out_h, out_w = geometry[HEIGHT], geometry[WIDTH], geometry[OUT_H], geometry[OUT_W]
    kernel_h, kernel_w = geometry[KERNEL_H], geometry[KERNEL_W]
    for p in prange(geometry[PLANES]):
        plane = x[p * height * width : (p + 1) * height * width]
        for i in range(out_h):
            top = i * geometry[STRIDE_H] - geometry[PADDING_H]
            for j in range(out_w):
                left = j * geometry[STRIDE_W] - geometry[PADDING_W]
                best, where = -np.inf, -1
                for u in range(kernel_h):
                    row = top + u * geometry[DILATION_H]
                    if 0 <= row < height:
                        for v in range(kernel_w):
                            column = left + v * geometry[DILATION_W]
                            if 0 <= column < width:
                                value = plane[row * width + column]
                                # the first place inside, a larger value, or any NaN takes over
                                if where < 0 or value > best or np.isnan(value):
                                    best, where = value, row * width + column
                out = (p * out_h + i) * out_w + j
                values[out] = best
                indices[out] = where


def max_pool2d(x: TensorData, geometry: PoolGeometry, values: TensorData, indices: TensorData) -> None:
    """:meth:`~.base.PoolKernels.max_pool2d` (``values`` and ``indices`` fresh and contiguous)."""
    height, width = x.shape[-2:]
    planes = x.size // (height * width) if height * width else 0
    layout = np.array([planes, height, width, *geometry.kernel, *geometry.stride, *geometry.padding,
                       *geometry.dilation, *geometry.output], np.int64)
    max_pool_kernel(values.buffer, indices.buffer, x.contiguous_buffer(), layout)

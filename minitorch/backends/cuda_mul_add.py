r"""``out = a * b + c`` rounded once on the GPU: the cuda backend's :class:`~.base.MulAddKernels`.

The op PyTorch computes with a fused multiply-add (``add(alpha=)``, ``lerp``, ``addcmul``; see
:mod:`.fused_multiply_add`): one thread per element, each operand read through its own strides
(broadcast dimensions have stride 0), the result written once. :func:`.fused_multiply_add.fma`
is LLVM's ``llvm.fma`` on the device, and exact Python arithmetic on Numba's simulator.
"""

from __future__ import annotations

from typing import Any

from numba import cuda, int64

from .cuda_kernels import MAX_DIMS, index_to_position, to_index
from .fused_multiply_add import fma


@cuda.jit
def mul_add_kernel(
    size: int, out: Any, out_offset: int, shape: tuple, out_strides: tuple,
    a: Any, a_offset: int, a_strides: tuple, b: Any, b_offset: int, b_strides: tuple,
    c: Any, c_offset: int, c_strides: tuple,
) -> None:
    """``out[i] = fma(a[i], b[i], c[i])`` for every index ``i`` of ``shape`` (``size`` elements)."""
    index = cuda.local.array(MAX_DIMS, int64)
    for ordinal in range(cuda.grid(1), size, cuda.gridsize(1)):
        to_index(ordinal, shape, index)
        x = a[index_to_position(index, a_strides, a_offset)]
        y = b[index_to_position(index, b_strides, b_offset)]
        z = c[index_to_position(index, c_strides, c_offset)]
        out[index_to_position(index, out_strides, out_offset)] = fma(x, y, z)

r"""Small matrix products: the CPU backend's serial kernel for float products with little work.

.. math:: \mathrm{out}_{ij} = \sum_{p < k} a_{ip}\, b_{pj}

A product with fewer multiply-adds than threads are worth (:data:`.cpu_kernels.PARALLEL_MIN_WORK`)
gains nothing from the blocking and tiling of the other two kernels (the students' kernel of
:mod:`.cpu_matmul` and the outer-product kernel of :mod:`.cpu_matmul_outer`): their set-up costs
as much as the work, and each takes a second or more to compile, which a small model's first
training step would otherwise pay for a handful of tiny products.

This kernel is one serial pass: for each matrix, the columns of ``b`` are copied once into
contiguous rows, each row of ``a`` is copied once, and each output is their dot product, which
LLVM vectorises (``reassoc`` lets it sum in SIMD lanes). Any strides work.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from . import kernel_cache
from .cpu_kernels import KERNEL_OPTIONS, count, matrix_offsets

# cached under a digest of this file's source (see :mod:`.kernel_cache`)
kernel_cache.register(__file__)

# ``a * b + c`` may become one fused multiply-add, and a dot product may be summed in SIMD lanes
SMALL_OPTIONS = {**KERNEL_OPTIONS, "fastmath": {"contract", "reassoc"}}


@njit(inline="always", **SMALL_OPTIONS)
def multiply_matrix(
    out: np.ndarray, out_base: int, out_row: int, out_col: int,
    a: np.ndarray, a_base: int, a_row: int, a_col: int,
    b: np.ndarray, b_base: int, b_row: int, b_col: int,
    n: int, k: int, m: int, columns: np.ndarray, row: np.ndarray, zero: Any,
) -> None:
    """One ``(n, k) @ (k, m)`` product, each matrix given by its first element and its row and
    column strides; ``columns`` (``m * k``) and ``row`` (``k``) are scratch, ``zero`` is 0 in
    ``out``'s dtype (made once by the caller, not once per matrix)."""
    for j in range(m):
        for p in range(k):
            columns[j * k + p] = b[b_base + p * b_row + j * b_col]
    for i in range(n):
        for p in range(k):
            row[p] = a[a_base + i * a_row + p * a_col]
        for j in range(m):
            column = columns[j * k : (j + 1) * k]
            total = zero
            for p in range(k):
                total += row[p] * column[p]
            out[out_base + i * out_row + j * out_col] = total


@njit(**SMALL_OPTIONS)
def small_matmul_kernel(
    out: np.ndarray, shape: np.ndarray, out_strides: np.ndarray,
    a: np.ndarray, a_strides: np.ndarray, b: np.ndarray, b_strides: np.ndarray, k: int,
) -> None:
    """``out[..., i, j] = sum_p a[..., i, p] * b[..., p, j]``: the arguments of
    :func:`.cpu_matmul.matmul_kernel` (buffers, ``out``'s shape, each operand's strides broadcast
    to it, ``k``), one matrix after the other."""
    rank = shape.size
    n, m = shape[rank - 2], shape[rank - 1]
    columns = np.empty(m * k, b.dtype)  # column j of b's matrix at j * k
    row = np.empty(k, a.dtype)
    zero = np.zeros(1, out.dtype)[0]
    for matrix in range(count(shape[: rank - 2])):
        a_base, b_base, out_base = matrix_offsets(matrix, shape, a_strides, b_strides, out_strides)
        multiply_matrix(out, out_base, out_strides[rank - 2], out_strides[rank - 1],
                        a, a_base, a_strides[rank - 2], a_strides[rank - 1],
                        b, b_base, b_strides[rank - 2], b_strides[rank - 1], n, k, m, columns, row, zero)


@njit(**SMALL_OPTIONS)
def small_matrix_kernel(
    out: np.ndarray, out_row: int, out_col: int, a: np.ndarray, a_row: int, a_col: int,
    b: np.ndarray, b_row: int, b_col: int, n: int, k: int, m: int,
) -> None:
    """The product of two matrices (no batch), their strides as numbers: a 2-D product's call
    then converts three arrays and nine integers instead of seven arrays (8x8: 0.6 us against
    0.74, before the layout arrays that need not be looked up)."""
    multiply_matrix(out, 0, out_row, out_col, a, 0, a_row, a_col, b, 0, b_row, b_col, n, k, m,
                    np.empty(m * k, b.dtype), np.empty(k, a.dtype), np.zeros(1, out.dtype)[0])

"""The blocked matrix product of the CPU backend (course task 3.3), a Numba kernel.

:func:`matmul_kernel` computes ``out = a @ b`` for batched operands of any strides; the
tasks it shares among threads, the packing of blocks into contiguous scratch arrays and
the 4 x 2 register tile are explained in the docstrings of :func:`matmul_kernel` and
:func:`matmul_task`. The conventions (buffers, int64 shapes and strides, caching, when
``prange`` is used) are those of :mod:`.cpu_kernels`, whose helpers it shares.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from . import kernel_cache
from .cpu_kernels import KERNEL_OPTIONS, count, kernel_only, prange_only, serial_twin

# cached under a digest of this file's source, as the kernels of cpu_kernels (see :mod:`.kernel_cache`)
kernel_cache.register(__file__)

# blocking (see :func:`matmul_task`), sized for a core with a 48 KiB L1 and a 2 MiB
# L2 cache: the packed rows of ``a`` (256 x 256 float32 = 256 KiB) and columns of ``b`` (as
# much) stay in L2, the 16 columns of ``b`` that all of a task's rows sweep (16 KiB) in L1.
#: rows of ``out`` per parallel task: at most ``MATMUL_BLOCK_N``, and fewer (down to
#: ``MATMUL_MIN_ROWS``) only to make ``MATMUL_MIN_TASKS`` tasks (two per thread on 2 cores),
#: where splitting the rows costs less packing than splitting the columns (:func:`matmul_grid`)
MATMUL_BLOCK_N = 256
MATMUL_MIN_ROWS = 16
MATMUL_MIN_TASKS = 4
#: terms of a dot product summed in one go (the length of the packed rows)
MATMUL_BLOCK_K = 256
#: columns of ``b`` packed at a time
MATMUL_BLOCK_M = 256
#: columns of ``b`` swept by all of a task's rows at a time
MATMUL_TILE_M = 16
#: side of the squares in which a block is packed transposed (16 x 16 float32: 16 cache lines)
MATMUL_PACK = 16

# ``a * b + c`` may become one fused multiply-add, and a dot product may be summed in SIMD lanes
MATMUL_OPTIONS = {**KERNEL_OPTIONS, "fastmath": {"contract", "reassoc"}}


@njit(inline="always", **MATMUL_OPTIONS)
def matmul_pack(
    packed: np.ndarray, source: np.ndarray, start: int, row_step: int, col_step: int, rows: int, cols: int
) -> None:
    """Copy a strided ``rows`` x ``cols`` block of ``source`` into contiguous rows of ``packed``.

    ``packed[r * cols + c] = source[start + r * row_step + c * col_step]``. With the two steps
    swapped it packs the block transposed: that is how columns of ``b`` become rows.

    A transposing copy (``source`` contiguous along ``r``, as a row-major ``b``) goes by
    squares of ``MATMUL_PACK`` x ``MATMUL_PACK``, reading ``source`` along ``r``: the
    cache lines a square reads and writes are used up while they are still in L1. Copied
    plainly, either every read or every write would touch a new cache line, and with
    power-of-two strides those lines compete for the same few places in the cache.
    """
    # BEGIN SOLUTION 3.3
    if abs(row_step) < abs(col_step):
        for c0 in range(0, cols, MATMUL_PACK):
            for r0 in range(0, rows, MATMUL_PACK):
                for c in range(c0, min(c0 + MATMUL_PACK, cols)):
                    for r in range(r0, min(r0 + MATMUL_PACK, rows)):
                        packed[r * cols + c] = source[start + r * row_step + c * col_step]
    else:
        for r in range(rows):
            for c in range(cols):
                packed[r * cols + c] = source[start + r * row_step + c * col_step]
    # END SOLUTION


@njit(inline="always", **MATMUL_OPTIONS)
def matmul_dot_4x2(a0: np.ndarray, a1: np.ndarray, a2: np.ndarray, a3: np.ndarray, b0: np.ndarray, b1: np.ndarray,
                   zero):
    """The eight dot products ``(a0 . b0, a0 . b1, a1 . b0, ..., a3 . b1)`` of equally long vectors.

    The register tile of the matmul: each ``a`` element loaded is used twice and each ``b``
    element four times, six loads for eight multiply-adds (a 2 x 2 tile needs four for four,
    and measured 6-15% slower at 128-1024), and the eight sums are independent. Since
    ``reassoc`` lets LLVM reorder a sum, it keeps each one as SIMD registers of partial sums
    (one fused multiply-add per 8 float32 per register) and adds their lanes up once at the
    end, so the loop never waits on memory or on a previous addition. Eight accumulators and
    the six loaded vectors fit the 16 vector registers of AVX2. ``zero`` is 0 of ``out``'s
    dtype: float32 sums stay float32, as in BLAS.
    """
    # BEGIN SOLUTION 3.3
    s00 = s01 = s10 = s11 = s20 = s21 = s30 = s31 = zero
    for p in range(a0.size):
        y0, y1 = b0[p], b1[p]
        x0, x1, x2, x3 = a0[p], a1[p], a2[p], a3[p]
        s00 += x0 * y0
        s01 += x0 * y1
        s10 += x1 * y0
        s11 += x1 * y1
        s20 += x2 * y0
        s21 += x2 * y1
        s30 += x3 * y0
        s31 += x3 * y1
    return s00, s01, s10, s11, s20, s21, s30, s31
    # END SOLUTION


@njit(**MATMUL_OPTIONS)
def matmul_grid(matrices: int, n: int, m: int) -> tuple[int, int, int, int]:
    """How ``matrices`` products of ``n`` x ``m`` are cut into tasks: ``(rows, row_blocks, cols, col_blocks)``.

    Blocks of at most ``MATMUL_BLOCK_N`` rows and all the columns, cut further until there
    are ``MATMUL_MIN_TASKS`` tasks. Each cut costs packing: a task packs its rows of ``a``
    and its columns of ``b``, so with ``R`` row blocks and ``C`` column blocks ``a`` is
    packed ``C`` times and ``b`` ``R`` times, ``(C n + R m) k`` copies per matrix. Each step
    doubles the side that adds fewer: for a batch of 64 rows times 256 columns (a linear
    layer's forward), four column blocks pack 512 k elements, four row blocks 1088 k.
    """
    # BEGIN SOLUTION 3.3
    row_blocks = (n + MATMUL_BLOCK_N - 1) // MATMUL_BLOCK_N
    col_blocks = 1
    while matrices * row_blocks * col_blocks < MATMUL_MIN_TASKS:
        rows_can = 2 * row_blocks * MATMUL_MIN_ROWS <= n
        cols_can = 2 * col_blocks * MATMUL_TILE_M <= m
        if rows_can and (row_blocks * m <= col_blocks * n or not cols_can):
            row_blocks *= 2
        elif cols_can:
            col_blocks *= 2
        else:
            break
    rows = (n + row_blocks - 1) // row_blocks
    rows += (-rows) % 4  # whole 4-row tiles
    cols = (m + col_blocks - 1) // col_blocks
    cols += (-cols) % MATMUL_TILE_M  # whole tiles of columns
    return rows, (n + rows - 1) // rows, cols, (m + cols - 1) // cols
    # END SOLUTION


@kernel_only(**MATMUL_OPTIONS)
def matmul_task(
    task: int, rows: int, row_blocks: int, cols: int, col_blocks: int, k: int,
    out: np.ndarray, shape: np.ndarray, out_strides: np.ndarray,
    a: np.ndarray, a_strides: np.ndarray, b: np.ndarray, b_strides: np.ndarray,
) -> None:
    """Block ``task`` of ``out``: ``rows`` rows ``i0 <= i < i1`` and ``cols`` columns ``c0 <= j < c1``
    of one matrix (the blocks are numbered matrix by matrix, and row by row inside one).

    Three levels of blocking, each sized for one level of the memory hierarchy:

    * a task owns a block of ``out`` (the unit of parallel work, so threads never write to
      the same element);
    * each dot product ``out[i, j] = sum_p a[i, p] * b[p, j]`` is cut into pieces of
      ``MATMUL_BLOCK_K`` terms: for each piece, the task's rows of ``a`` and
      ``MATMUL_BLOCK_M`` columns of ``b`` at a time are *packed*, copied into small
      contiguous scratch arrays (columns of ``b`` become rows), which stay in L2. Packing
      costs one read of each element per block, which is what makes the kernel work on any
      strides (transposed, sliced, broadcast operands) at full speed;
    * on the packed rows, :func:`matmul_dot_4x2` computes a 4 x 2 tile of ``out`` in SIMD
      registers; the piece's sums are added into ``out``, which was zeroed first.
    """
    # BEGIN SOLUTION 3.3
    rank = shape.size
    n, m = shape[rank - 2], shape[rank - 1]
    a_row, a_col = a_strides[rank - 2], a_strides[rank - 1]
    b_row, b_col = b_strides[rank - 2], b_strides[rank - 1]
    out_row, out_col = out_strides[rank - 2], out_strides[rank - 1]
    # which matrices: the batch index, taken apart over the batch dimensions
    blocks = row_blocks * col_blocks
    remaining = task // blocks
    a_base = 0
    b_base = 0
    out_base = 0
    for d in range(rank - 3, -1, -1):
        index = remaining % shape[d]
        remaining //= shape[d]
        a_base += index * a_strides[d]
        b_base += index * b_strides[d]
        out_base += index * out_strides[d]
    block = task % blocks
    i0 = (block // col_blocks) * rows
    i1 = min(i0 + rows, n)
    c0 = (block % col_blocks) * cols
    c1 = min(c0 + cols, m)
    zero = np.zeros(1, out.dtype)[0]
    for i in range(i0, i1):
        for j in range(c0, c1):
            out[out_base + i * out_row + j * out_col] = zero
    a_packed = np.empty((i1 - i0) * min(k, MATMUL_BLOCK_K), a.dtype)
    b_packed = np.empty(min(c1 - c0, MATMUL_BLOCK_M) * min(k, MATMUL_BLOCK_K), b.dtype)
    for p0 in range(0, k, MATMUL_BLOCK_K):
        kc = min(MATMUL_BLOCK_K, k - p0)
        # row r of a_packed: a[i0 + r, p0 : p0 + kc]
        matmul_pack(a_packed, a, a_base + i0 * a_row + p0 * a_col, a_row, a_col, i1 - i0, kc)
        for j0 in range(c0, c1, MATMUL_BLOCK_M):
            j1 = min(j0 + MATMUL_BLOCK_M, c1)
            # row c of b_packed: b[p0 : p0 + kc, j0 + c], a column of b
            matmul_pack(b_packed, b, b_base + p0 * b_row + j0 * b_col, b_col, b_row, j1 - j0, kc)
            for t0 in range(j0, j1, MATMUL_TILE_M):
                t1 = min(t0 + MATMUL_TILE_M, j1)
                for i in range(i0, i1, 4):
                    # a last block of fewer than 4 rows repeats its last row (computed, never stored twice)
                    row1, row2, row3 = min(i + 1, i1 - 1), min(i + 2, i1 - 1), min(i + 3, i1 - 1)
                    a0 = a_packed[(i - i0) * kc : (i - i0 + 1) * kc]
                    a1 = a_packed[(row1 - i0) * kc : (row1 - i0 + 1) * kc]
                    a2 = a_packed[(row2 - i0) * kc : (row2 - i0 + 1) * kc]
                    a3 = a_packed[(row3 - i0) * kc : (row3 - i0 + 1) * kc]
                    for j in range(t0, t1, 2):
                        j_next = min(j + 1, t1 - 1)  # an odd last column is paired with itself
                        b0 = b_packed[(j - j0) * kc : (j - j0 + 1) * kc]
                        b1 = b_packed[(j_next - j0) * kc : (j_next - j0 + 1) * kc]
                        sums = matmul_dot_4x2(a0, a1, a2, a3, b0, b1, zero)
                        for r, row in enumerate((i, row1, row2, row3)):
                            if row == i + r:  # a row of its own, not a repeat of the last one
                                pos = out_base + row * out_row + j * out_col
                                out[pos] += sums[2 * r]
                                if j_next > j:
                                    out[pos + out_col] += sums[2 * r + 1]
    # END SOLUTION


@njit(parallel=prange_only(), **MATMUL_OPTIONS)
def matmul_kernel(
    out: np.ndarray,
    shape: np.ndarray,
    out_strides: np.ndarray,
    a: np.ndarray,
    a_strides: np.ndarray,
    b: np.ndarray,
    b_strides: np.ndarray,
    k: int,
) -> None:
    """``out[..., i, j] = sum_p a[..., i, p] * b[..., p, j]`` over ``out``'s ``shape`` ``(*batch, n, m)``.

    Any strides: ``a_strides``/``b_strides`` are full-rank, their batch part expanded to
    ``out``'s batch shape (stride 0 where a batch is broadcast). The tasks are blocks of
    ``out``'s matrices (:func:`matmul_grid` says how many rows and columns), shared by the
    threads with ``prange``; each is computed by :func:`matmul_task`, blocked for the caches
    and for SIMD registers.

    Why blocking: the naive loop ``for i, for j, for p`` reads a whole column of ``b`` (one
    cache line per element) for every ``out[i, j]``, and adds each product to the previous
    sum, one addition at a time. Working on blocks that stay in cache, and on several
    independent sums at once, lets the arithmetic units run instead of waiting.
    """
    # BEGIN SOLUTION 3.3
    if count(shape) == 0:
        return
    rank = shape.size
    matrices = count(shape[: rank - 2])
    rows, row_blocks, cols, col_blocks = matmul_grid(matrices, shape[rank - 2], shape[rank - 1])
    for task in prange(matrices * row_blocks * col_blocks):
        matmul_task(np.int64(task), rows, row_blocks, cols, col_blocks, k, out, shape, out_strides,
                    a, a_strides, b, b_strides)
    # END SOLUTION


#: :func:`matmul_kernel` without threads, for small products (see :func:`.cpu_kernels.serial_twin`)
matmul_kernel_serial = serial_twin(matmul_kernel, **MATMUL_OPTIONS)

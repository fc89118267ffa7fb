r"""Matrix products by outer products: the CPU backend's kernel for float products with wide outputs.

.. math:: \mathrm{out}_{ij} = \sum_{p < k} a_{ip}\, b_{pj}

The students' kernel (:mod:`.cpu_matmul`, task 3.3) computes each :math:`\mathrm{out}_{ij}` as a
dot product, vectorised along :math:`p`: SIMD registers of partial sums, whose lanes are added
up at the end of each block of terms. That end costs as much as a dozen multiply-adds; when
:math:`k` is short (a linear layer's weight gradient, where :math:`k` is the batch; any product
with a layer of 10 classes) it is most of the work, and even a long product pays for it (the
forward of a 784-256 layer on a batch of 64 ran at 40 GMAC/s there, 63 here, on 2 cores).

This kernel vectorises along :math:`j` instead, as BLAS does: a tile of ``TILE_ROWS`` rows by
``TILE_COLS`` columns of ``out`` is accumulated over :math:`p` by outer products,

.. math:: \mathrm{acc}_{r,\,\cdot} \mathrel{+}= a_{i+r,\,p}\; b_{p,\,j_0 : j_0 + \mathrm{TILE\_COLS}},

one broadcast element of ``a`` times a contiguous row of ``b``, so no lanes are ever added
together. The tile's columns of ``b`` are packed first (``k x TILE_COLS``) and serve every row of
the task; ``a`` is read in place, one element at a time, so any strides work. Each output is
summed in the order of :math:`p`, one multiply-add after the other. The kernel is compiled
without ``reassoc``: with it, LLVM vectorises the loop over :math:`p` instead, with gathers.

Packing costs one copy of ``b`` per block of rows, so the grid (:func:`outer_grid`) gives each
task at least ``MIN_BLOCK_ROWS`` rows where it can, and cuts the columns otherwise.

Where the tile's sums are kept depends on the registers (:data:`IN_REGISTERS`). A tile is
``4 x 64`` sums: 16 AVX-512 registers of float32 (32 of float64). With AVX-512's 32 registers they
stay there for the whole loop over :math:`p` (:func:`register_tile`, through a stack tile of
:mod:`.register_tiles`); the four rows of ``a`` are read in place, by unsigned indices. With 16
registers (AVX2, SSE2) the tile does not fit, and the sums live in a small array in the L1 cache,
loaded and stored once per four terms (:func:`tile_rows_in_memory`). Both add each output's
terms in the same order, so they give the same bits. Measured on one core of a 2-core AVX-512
Xeon, paired runs, float32 and float64 products from ``64 x 784 @ 784 x 256`` to ``512 x 512 @
512 x 512``: the register tiles take 0.75 to 0.85 of the time of the tiles in memory; compiled for
AVX2, register tiles (of a width that fits) ran at a tenth of the speed, the loop unrolled and
left scalar.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from . import kernel_cache
from .cpu_kernels import KERNEL_OPTIONS, count, kernel_only, matrix_offsets, prange_only, serial_twin
from .register_tiles import fits_in_registers, stack_tile

# cached under a digest of this file's source (see :mod:`.kernel_cache`)
kernel_cache.register(__file__)

#: the longest inner dimension this kernel takes: its packed ``k x TILE_COLS`` block of ``b``
#: (1 MiB of float32 at 4096) is allocated by each task
MAX_K = 4096
#: rows of ``out`` accumulated together: each packed row of ``b`` loaded serves all of them
TILE_ROWS = 4
#: columns of ``out`` accumulated together (4 AVX-512 or 8 AVX2 registers of float32 per row)
TILE_COLS = 64
#: the sums of one tile
TILE_SUMS = TILE_ROWS * TILE_COLS
#: whether a tile's sums stay in registers (32 SIMD registers of 64 bytes) or live in memory
IN_REGISTERS = fits_in_registers(TILE_SUMS)
#: the tile width as an unsigned number: Numba tests every signed index for a negative value, and
#: in the loop of :func:`register_tile` those tests would cost as much as the arithmetic
U_TILE_COLS = np.uint64(TILE_COLS)
#: tasks a product is cut into, at least (two per thread on 2 cores)
MIN_TASKS = 4
#: the fewest rows a task is given while the columns can be cut instead: each block of rows packs
#: ``b`` again (measured on ``64 x 784 @ 784 x 256`` on 2 cores: four tasks of 16 rows 38 GMAC/s,
#: four of all 64 rows and a quarter of the columns 63 GMAC/s)
MIN_BLOCK_ROWS = 64
#: columns of ``b`` packed together when its columns are contiguous (``W.T``): row ``p`` of the
#: packed tile gathers element ``p`` of each of them. Sixteen columns' cache lines stay in L1 even
#: when ``b``'s column step is a multiple of 2 KiB (they then share two or one cache sets), where
#: gathering all ``TILE_COLS`` at once misses. Measured packing the 256 columns of ``W.T`` for
#: ``W`` of 256 x ``k``, one thread, against the previous order (runs of 16 down each column, each
#: element stored 64 apart), float32: k = 784 124 vs 192 us, 512 84 vs 125, 1024 165 vs 250,
#: 256 43 vs 64; float64 alike (784: 134 vs 194)
PACK_COLUMNS = 16

# ``a * b + c`` may become one fused multiply-add; no ``reassoc`` (see the module's docstring)
OUTER_OPTIONS = {**KERNEL_OPTIONS, "fastmath": {"contract"}}


@njit(**OUTER_OPTIONS)
def outer_grid(matrices: int, n: int, m: int) -> tuple[int, int, int, int]:
    """``(rows, row_blocks, cols, col_blocks)``, every block a whole number of tiles, for at least
    ``MIN_TASKS`` tasks where there are tiles enough: the rows in as many blocks as keep
    ``MIN_BLOCK_ROWS`` rows each (at least one block), then the columns, then the rows further."""
    row_tiles = (n + TILE_ROWS - 1) // TILE_ROWS
    col_tiles = (m + TILE_COLS - 1) // TILE_COLS
    wanted = (MIN_TASKS + matrices - 1) // matrices
    row_blocks = max(1, min(wanted, n // MIN_BLOCK_ROWS))
    col_blocks = min(col_tiles, (wanted + row_blocks - 1) // row_blocks)
    cols = (col_tiles + col_blocks - 1) // col_blocks * TILE_COLS
    col_blocks = (m + cols - 1) // cols
    if row_blocks * col_blocks < wanted:
        row_blocks = min(row_tiles, (wanted + col_blocks - 1) // col_blocks)
    rows = (row_tiles + row_blocks - 1) // row_blocks * TILE_ROWS
    return rows, (n + rows - 1) // rows, cols, col_blocks


@kernel_only(**OUTER_OPTIONS)
def pack_columns(packed: np.ndarray, b: np.ndarray, start: int, b_row: int, b_col: int, k: int, width: int) -> None:
    """``packed[p * TILE_COLS + c] = b[start + p * b_row + c * b_col]`` for ``p < k``, ``c < width``:
    ``width`` columns of ``b`` from ``start``. Contiguous rows are copied as runs (a loop LLVM
    vectorises); contiguous columns are gathered ``PACK_COLUMNS`` at a time, row by row."""
    if b_col == 1:
        for p in range(k):
            row = packed[p * TILE_COLS : p * TILE_COLS + width]
            source = b[start + p * b_row : start + p * b_row + width]
            for c in range(width):
                row[c] = source[c]
    elif b_row == 1:
        for c0 in range(0, width, PACK_COLUMNS):
            c1 = min(c0 + PACK_COLUMNS, width)
            for p in range(k):
                row = packed[p * TILE_COLS + c0 : p * TILE_COLS + c1]
                first = start + c0 * b_col + p
                for c in range(c1 - c0):
                    row[c] = b[first + c * b_col]
    else:
        for p in range(k):
            row_start = start + p * b_row
            for c in range(width):
                packed[p * TILE_COLS + c] = b[row_start + c * b_col]


@kernel_only(**OUTER_OPTIONS)
def outer_task(
    task: int, rows: int, row_blocks: int, cols: int, col_blocks: int, k: int,
    out: np.ndarray, shape: np.ndarray, out_strides: np.ndarray,
    a: np.ndarray, a_strides: np.ndarray, b: np.ndarray, b_strides: np.ndarray,
) -> None:
    """Block ``task`` of ``out`` (numbered matrix by matrix, row by row inside one): for each
    tile of ``TILE_COLS`` columns, pack them from ``b``, then accumulate its rows (:func:`tile_rows`)."""
    rank = shape.size
    n, m = shape[rank - 2], shape[rank - 1]
    b_row, b_col = b_strides[rank - 2], b_strides[rank - 1]
    blocks = row_blocks * col_blocks
    a_base, b_base, out_base = matrix_offsets(task // blocks, shape, a_strides, b_strides, out_strides)
    block = task % blocks
    i0 = (block // col_blocks) * rows
    i1 = min(i0 + rows, n)
    c0 = (block % col_blocks) * cols
    c1 = min(c0 + cols, m)
    packed = np.zeros(k * TILE_COLS, b.dtype)  # row p: b[p, t0 : t0 + TILE_COLS], zeros past the edge
    acc = np.empty(TILE_ROWS * TILE_COLS, out.dtype)
    for t0 in range(c0, c1, TILE_COLS):
        width = min(TILE_COLS, c1 - t0)
        pack_columns(packed, b, b_base + t0 * b_col, b_row, b_col, k, width)
        if width < TILE_COLS:  # the last tile of the row: clear what the previous tile left
            for p in range(k):
                packed[p * TILE_COLS + width : (p + 1) * TILE_COLS] = 0
        tile_rows(packed, 0, k, a, a_base, a_strides[rank - 2], a_strides[rank - 1], i0, i1,
                  out, out_base + t0 * out_strides[rank - 1], out_strides[rank - 2], out_strides[rank - 1], width, acc)


@kernel_only(inline="always", **OUTER_OPTIONS)
def tile_rows_in_memory(
    packed: np.ndarray, start: int, k: int, a: np.ndarray, a_base: int, a_row: int, a_col: int, i0: int, i1: int,
    out: np.ndarray, out_base: int, out_row: int, out_col: int, width: int, acc: np.ndarray,
) -> None:
    """Rows ``i0`` to ``i1`` of one tile of ``width`` columns of ``out`` (its first column at
    ``out_base``), from the tile of ``b`` packed at ``packed[start:]`` (``k x TILE_COLS``): each
    ``TILE_ROWS`` rows accumulated in ``acc`` by outer products, then stored."""
    acc0, acc1 = acc[0:TILE_COLS], acc[TILE_COLS : 2 * TILE_COLS]
    acc2, acc3 = acc[2 * TILE_COLS : 3 * TILE_COLS], acc[3 * TILE_COLS : 4 * TILE_COLS]
    for i in range(i0, i1, TILE_ROWS):
        # a last tile of fewer rows repeats its last row (computed, never stored twice)
        row1, row2, row3 = min(i + 1, i1 - 1), min(i + 2, i1 - 1), min(i + 3, i1 - 1)
        for c in range(TILE_ROWS * TILE_COLS):
            acc[c] = 0
        k4 = k - k % 4
        for p in range(0, k4, 4):
            e0 = a_base + i * a_row + p * a_col
            e1 = a_base + row1 * a_row + p * a_col
            e2 = a_base + row2 * a_row + p * a_col
            e3 = a_base + row3 * a_row + p * a_col
            x00, x01, x02, x03 = a[e0], a[e0 + a_col], a[e0 + 2 * a_col], a[e0 + 3 * a_col]
            x10, x11, x12, x13 = a[e1], a[e1 + a_col], a[e1 + 2 * a_col], a[e1 + 3 * a_col]
            x20, x21, x22, x23 = a[e2], a[e2 + a_col], a[e2 + 2 * a_col], a[e2 + 3 * a_col]
            x30, x31, x32, x33 = a[e3], a[e3 + a_col], a[e3 + 2 * a_col], a[e3 + 3 * a_col]
            b_p = packed[start + p * TILE_COLS : start + (p + 4) * TILE_COLS]
            for c in range(TILE_COLS):
                y0 = b_p[c]
                y1 = b_p[TILE_COLS + c]
                y2 = b_p[2 * TILE_COLS + c]
                y3 = b_p[3 * TILE_COLS + c]
                acc0[c] = acc0[c] + x00 * y0 + x01 * y1 + x02 * y2 + x03 * y3
                acc1[c] = acc1[c] + x10 * y0 + x11 * y1 + x12 * y2 + x13 * y3
                acc2[c] = acc2[c] + x20 * y0 + x21 * y1 + x22 * y2 + x23 * y3
                acc3[c] = acc3[c] + x30 * y0 + x31 * y1 + x32 * y2 + x33 * y3
        for p in range(k4, k):
            x0 = a[a_base + i * a_row + p * a_col]
            x1 = a[a_base + row1 * a_row + p * a_col]
            x2 = a[a_base + row2 * a_row + p * a_col]
            x3 = a[a_base + row3 * a_row + p * a_col]
            b_p = packed[start + p * TILE_COLS : start + (p + 1) * TILE_COLS]
            for c in range(TILE_COLS):
                y = b_p[c]
                acc0[c] += x0 * y
                acc1[c] += x1 * y
                acc2[c] += x2 * y
                acc3[c] += x3 * y
        for r in range(min(TILE_ROWS, i1 - i)):
            row_start = out_base + (i + r) * out_row
            for c in range(width):
                out[row_start + c * out_col] = acc[r * TILE_COLS + c]


@kernel_only(inline="always", **OUTER_OPTIONS)
def tile_rows_in_registers(
    packed: np.ndarray, start: int, k: int, a: np.ndarray, a_base: int, a_row: int, a_col: int, i0: int, i1: int,
    out: np.ndarray, out_base: int, out_row: int, out_col: int, width: int, acc: np.ndarray,
) -> None:
    """:func:`tile_rows_in_memory`'s result, each tile's sums kept in registers by :func:`register_tile`
    (``acc`` is unused: the sums live on the stack)."""
    for i in range(i0, i1, TILE_ROWS):
        # a last tile of fewer rows repeats its last row (computed, never stored twice)
        rows = min(TILE_ROWS, i1 - i)
        register_tile(a, a_base + i * a_row, a_base + min(i + 1, i1 - 1) * a_row, a_base + min(i + 2, i1 - 1) * a_row,
                      a_base + min(i + 3, i1 - 1) * a_row, a_col, packed, start, k,
                      out, out_base + i * out_row, out_row, out_col, rows, width)


@kernel_only(**OUTER_OPTIONS)
def register_tile(
    a: np.ndarray, row0: int, row1: int, row2: int, row3: int, a_col: int, packed: np.ndarray, b_start: int, k: int,
    out: np.ndarray, out_start: int, out_row: int, out_col: int, rows: int, cols: int,
) -> None:
    """``out[r, c] = sum_p a[row_r + p * a_col] * packed[b_start + p * TILE_COLS + c]`` for ``r < rows``,
    ``c < cols``: the ``TILE_ROWS x TILE_COLS`` sums in a stack tile, which LLVM keeps in SIMD registers
    (a function of its own, so that nothing else of the kernel competes for them). Each sum adds
    its terms in the order of ``p``, one multiply-add each."""
    acc = stack_tile(out, TILE_SUMS)
    for c in range(TILE_SUMS):
        acc[c] = 0
    first0, first1, first2, first3 = np.uint64(row0), np.uint64(row1), np.uint64(row2), np.uint64(row3)
    step, b_first = np.uint64(a_col), np.uint64(b_start)
    for p in range(k):
        along = np.uint64(p) * step
        b_p = b_first + np.uint64(p) * U_TILE_COLS
        x0, x1, x2, x3 = a[first0 + along], a[first1 + along], a[first2 + along], a[first3 + along]
        for c in range(TILE_COLS):
            y = packed[b_p + np.uint64(c)]
            acc[c] += x0 * y
            acc[TILE_COLS + c] += x1 * y
            acc[2 * TILE_COLS + c] += x2 * y
            acc[3 * TILE_COLS + c] += x3 * y
    for r in range(rows):
        row_start = out_start + r * out_row
        if out_col == 1:  # a row of out: one run of stores, not a scatter
            target = out[row_start : row_start + cols]
            for c in range(cols):
                target[c] = acc[r * TILE_COLS + c]
        else:
            for c in range(cols):
                out[row_start + c * out_col] = acc[r * TILE_COLS + c]


#: the tile loop for this process's registers (see the module's docstring)
tile_rows = tile_rows_in_registers if IN_REGISTERS else tile_rows_in_memory


@njit(parallel=prange_only(), **OUTER_OPTIONS)
def outer_matmul_kernel(
    out: np.ndarray, shape: np.ndarray, out_strides: np.ndarray,
    a: np.ndarray, a_strides: np.ndarray, b: np.ndarray, b_strides: np.ndarray, k: int,
) -> None:
    """``out[..., i, j] = sum_p a[..., i, p] * b[..., p, j]``: the arguments of
    :func:`.cpu_matmul.matmul_kernel`, for ``k <= MAX_K``; the blocks of :func:`outer_grid` are
    shared among the threads."""
    if count(shape) == 0:
        return
    rank = shape.size
    matrices = count(shape[: rank - 2])
    rows, row_blocks, cols, col_blocks = outer_grid(matrices, shape[rank - 2], shape[rank - 1])
    for task in prange(matrices * row_blocks * col_blocks):
        outer_task(np.int64(task), rows, row_blocks, cols, col_blocks, k, out, shape, out_strides,
                   a, a_strides, b, b_strides)


#: :func:`outer_matmul_kernel` without threads, for small products (see :func:`.cpu_kernels.serial_twin`)
outer_matmul_kernel_serial = serial_twin(outer_matmul_kernel, **OUTER_OPTIONS)


# ---- one right operand, many left ones: ``b`` packed once ----


@njit(**OUTER_OPTIONS)
def pack_matrix(packed: np.ndarray, b: np.ndarray, b_row: int, b_col: int, k: int, m: int) -> None:
    """Every tile of ``TILE_COLS`` columns of the ``k x m`` matrix ``b`` packed as :func:`outer_task`
    packs one, tile ``t`` at ``packed[t * k * TILE_COLS:]``, zeros past the last column."""
    for t in range((m + TILE_COLS - 1) // TILE_COLS):
        tile = packed[t * k * TILE_COLS : (t + 1) * k * TILE_COLS]
        width = min(TILE_COLS, m - t * TILE_COLS)
        if width < TILE_COLS:
            tile[:] = 0
        pack_columns(tile, b, t * TILE_COLS * b_col, b_row, b_col, k, width)


@kernel_only(**OUTER_OPTIONS)
def packed_task(
    task: int, rows: int, cols: int, col_blocks: int, n: int, m: int, k: int,
    out: np.ndarray, out_row: int, out_col: int, a: np.ndarray, a_row: int, a_col: int, packed: np.ndarray,
) -> None:
    """Block ``task`` of ``out`` (as :func:`outer_task` numbers them in one matrix), from ``b`` packed
    by :func:`pack_matrix`."""
    i0 = (task // col_blocks) * rows
    i1 = min(i0 + rows, n)
    c0 = (task % col_blocks) * cols
    c1 = min(c0 + cols, m)
    acc = np.empty(TILE_ROWS * TILE_COLS, out.dtype)
    for t0 in range(c0, c1, TILE_COLS):
        tile_rows(packed, (t0 // TILE_COLS) * k * TILE_COLS, k, a, 0, a_row, a_col, i0, i1,
                  out, t0 * out_col, out_row, out_col, min(TILE_COLS, c1 - t0), acc)


@njit(parallel=prange_only(), **OUTER_OPTIONS)
def packed_matmul_kernel(
    out: np.ndarray, out_row: int, out_col: int, a: np.ndarray, a_row: int, a_col: int,
    packed: np.ndarray, n: int, m: int, k: int,
) -> None:
    """``out = a @ b`` for an ``n x k`` matrix ``a`` (any strides) and ``b`` packed by :func:`pack_matrix`;
    the blocks of :func:`outer_grid` shared among the threads. Each output is summed as in
    :func:`outer_matmul_kernel`, so the two give the same bits."""
    if n == 0 or m == 0:
        return
    rows, row_blocks, cols, col_blocks = outer_grid(1, n, m)
    for task in prange(row_blocks * col_blocks):
        packed_task(np.int64(task), rows, cols, col_blocks, n, m, k, out, out_row, out_col, a, a_row, a_col, packed)


#: :func:`packed_matmul_kernel` without threads, for small products
packed_matmul_kernel_serial = serial_twin(packed_matmul_kernel, **OUTER_OPTIONS)

"""The CPU backend's outer-product kernel (``backends/cpu_matmul_outer.py``), and the backend's
choice between it and the students' kernel.

Checked against NumPy's product computed in float64, on sizes around the kernel's tiles (ragged
row and column tiles, ``k`` not a multiple of its unrolling, the longest ``k`` it takes), on
strided, transposed and broadcast views, and on the threaded path; its packing against NumPy's
indexing; its grid by hand.
"""

from __future__ import annotations

import numpy as np
import pytest

from minitorch.backends import cpu
from minitorch.backends.cpu import CpuBackend, numba_matmul, outer_matmul, outer_matmul_fits
from minitorch.backends.cpu_kernels import PARALLEL_MIN_WORK
from minitorch.backends.cpu_matmul_outer import (
    MAX_K, MIN_TASKS, PACK_COLUMNS, TILE_COLS, TILE_ROWS, outer_grid, pack_columns,
)
from minitorch.tensor_data import TensorData
from test_cpu_matmul import F32, F64, I64, check, make_view, sample

CPU = CpuBackend()

#: (n, k, m): one row; a ragged row tile; k of 1, not a multiple of 4, long, and the longest taken;
#: columns short of, at and past a tile; large enough for the threaded kernel
SHAPES = [
    (1, 1, TILE_COLS),
    (TILE_ROWS - 1, 3, TILE_COLS - 1),
    (TILE_ROWS + 1, 4, TILE_COLS + 1),
    (9, 7, 2 * TILE_COLS + 5),
    (17, 128, 40),
    (33, 127, 3 * TILE_COLS),
    (3, MAX_K, 33),
    (256, 64, 784),  # a linear layer's weight gradient, batch 64
    (70, 10, 300),  # the input gradient of a layer with 10 outputs
    (64, 784, 256),  # a linear layer's forward, batch 64
]


@pytest.mark.parametrize("n, k, m", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", (F32, F64), ids=str)
def test_outer_kernel_matches_numpy(n: int, k: int, m: int, dtype: np.dtype) -> None:
    rng = np.random.default_rng(n + 7 * k + 31 * m)
    check(outer_matmul, sample(rng, (n, k), dtype), sample(rng, (k, m), dtype))


def test_shapes_reach_the_serial_and_the_threaded_kernel() -> None:
    work = [n * k * m for n, k, m in SHAPES]
    assert min(work) < PARALLEL_MIN_WORK <= max(work)


@pytest.mark.parametrize("layouts", [
    ("transposed", "contiguous", "contiguous"),
    ("contiguous", "transposed", "contiguous"),
    ("transposed", "transposed", "transposed"),
    ("sliced", "sliced", "sliced"),
    ("sliced", "transposed", "contiguous"),
], ids="-".join)
def test_outer_kernel_strided_operands(layouts: tuple[str, str, str]) -> None:
    rng = np.random.default_rng(11)
    check(outer_matmul, sample(rng, (37, 29), F32), sample(rng, (29, 2 * TILE_COLS + 3), F32), layouts)
    check(outer_matmul, sample(rng, (300, 64), F64), sample(rng, (64, 260), F64), layouts)
    # a transposed b is gathered PACK_COLUMNS columns at a time: a tile of 64 and a ragged last one
    check(outer_matmul, sample(rng, (70, 83), F32), sample(rng, (83, TILE_COLS + 2 * PACK_COLUMNS + 5), F32), layouts)


@pytest.mark.parametrize("a_shape, b_shape", [
    ((3, 1, 9, 7), (1, 4, 7, 40)),  # both broadcast
    ((2, 40, 30), (30, 70)),  # b shared by every matrix of a
    ((2, 3, 17, 64), (2, 1, 64, 130)),  # threaded
], ids=str)
def test_outer_kernel_batch_broadcast(a_shape: tuple[int, ...], b_shape: tuple[int, ...]) -> None:
    rng = np.random.default_rng(len(a_shape) + sum(b_shape))
    a, b = sample(rng, a_shape, F64), sample(rng, b_shape, F64)
    check(outer_matmul, a, b, ("transposed", "sliced", "contiguous"))
    check(outer_matmul, a, b)


def test_outer_kernel_special_values() -> None:
    check(outer_matmul, np.zeros((4, 0), F32), np.ones((0, 40), F32))  # k = 0: zeros
    a = np.array([[1.0, np.inf], [0.0, 2.0], [np.nan, 1.0]], F64)
    b = np.tile(np.array([[1.0, 0.0, 2.0], [0.0, 1.0, -1.0]], F64), (1, 12))
    out = make_view(np.zeros((3, 36), F64))
    outer_matmul(make_view(a), make_view(b), out)
    with np.errstate(invalid="ignore"):
        np.testing.assert_array_equal(out.numpy_view(), a @ b)  # inf * 0 is NaN, as in NumPy


@pytest.mark.parametrize("rows, cols, b_layout", [
    (3, 5, "rows"),
    (37, TILE_COLS, "columns"),  # whole groups of PACK_COLUMNS columns
    (19, 2 * PACK_COLUMNS + 5, "columns"),  # and a shorter last group
    (16, 7, "columns"),  # one group, shorter than PACK_COLUMNS
    (6, 9, "strided"),  # neither contiguous: element by element
], ids=str)
def test_pack_columns_matches_numpy_indexing(rows: int, cols: int, b_layout: str) -> None:
    """``pack_columns`` copies ``cols`` columns of a ``rows``-row matrix, stored with its rows
    contiguous, its columns contiguous (``W.T``) or neither, into rows of ``TILE_COLS``. It runs as
    Python here (a kernel-only function has no entry point); compiled, it serves every product above."""
    rng = np.random.default_rng(rows * cols)
    matrix = rng.standard_normal((rows, cols + 2))  # two more columns than packed, from column 1
    if b_layout == "rows":
        storage, b_row, b_col = matrix.ravel(), cols + 2, 1
    elif b_layout == "columns":
        storage, b_row, b_col = matrix.T.copy().ravel(), 1, rows
    else:
        padded = np.zeros((rows, 2 * (cols + 2)))
        padded[:, ::2] = matrix
        storage, b_row, b_col = padded.ravel(), 2 * (cols + 2), 2
    packed = np.full(rows * TILE_COLS, -7.0)
    pack_columns.py_func(packed, storage, b_col, b_row, b_col, rows, cols)
    packed = packed.reshape(rows, TILE_COLS)
    np.testing.assert_array_equal(packed[:, :cols], matrix[:, 1 : cols + 1])
    assert (packed[:, cols:] == -7.0).all()  # nothing written past the width


@pytest.mark.parametrize("matrices, n, m, grid", [
    (1, 256, 784, (64, 4, 832, 1)),  # four blocks of 64 rows, all the columns
    (1, 64, 256, (64, 1, 64, 4)),  # a linear layer's forward: all 64 rows, four blocks of columns
    (1, 6, 784, (8, 1, 4 * TILE_COLS, 4)),  # one row block, the 13 column tiles in blocks of 4
    (1, 1, 300, (4, 1, 2 * TILE_COLS, 3)),  # one row: 5 column tiles in blocks of 2
    (1, 64, 64, (16, 4, 64, 1)),  # one column tile: the rows are cut further
    (1, 128, 64, (32, 4, 64, 1)),
    (8, 64, 64, (64, 1, 64, 1)),  # eight matrices are eight tasks
    (1, 1, 10, (4, 1, 64, 1)),  # one tile
    (1, 17, 784, (20, 1, 4 * TILE_COLS, 4)),
], ids=str)
def test_outer_grid_by_hand(matrices: int, n: int, m: int, grid: tuple[int, int, int, int]) -> None:
    assert outer_grid(matrices, n, m) == grid


@pytest.mark.parametrize("matrices", (1, 3))
@pytest.mark.parametrize("n", (1, 3, 4, 17, 64, 257))
@pytest.mark.parametrize("m", (1, 63, 64, 65, 784))
def test_outer_grid_covers_out_once_in_whole_tiles(matrices: int, n: int, m: int) -> None:
    rows, row_blocks, cols, col_blocks = outer_grid(matrices, n, m)
    assert rows % TILE_ROWS == 0 and cols % TILE_COLS == 0
    assert (row_blocks - 1) * rows < n <= row_blocks * rows  # no empty block, no row left out
    assert (col_blocks - 1) * cols < m <= col_blocks * cols
    # blocks are of one size, so 5 row tiles make 3 blocks of 2; from twice as many tiles as tasks on,
    # every thread gets work
    if matrices * -(-n // TILE_ROWS) >= 2 * MIN_TASKS or -(-m // TILE_COLS) >= 2 * MIN_TASKS:
        assert matrices * row_blocks * col_blocks >= MIN_TASKS


def view(shape: tuple[int, ...], dtype: np.dtype, layout: str = "contiguous") -> TensorData:
    return make_view(np.zeros(shape, dtype), layout)


@pytest.mark.parametrize("a, b, b_layout, fits", [
    ((64, 64), (64, 784), "contiguous", True),
    ((8, MAX_K), (MAX_K, 40), "contiguous", True),  # b's rows contiguous: any k up to MAX_K
    ((8, MAX_K + 1), (MAX_K + 1, 40), "contiguous", False),  # longer: the dot products
    ((8, cpu.OUTER_SHORT_K), (cpu.OUTER_SHORT_K, 40), "transposed", True),  # x @ W.T, short k
    ((8, cpu.OUTER_SHORT_K + 1), (cpu.OUTER_SHORT_K + 1, 40), "transposed", False),  # few rows
    ((cpu.OUTER_MIN_ROWS, cpu.OUTER_LONG_K), (cpu.OUTER_LONG_K, 40), "transposed", True),  # rows enough
    ((cpu.OUTER_MIN_ROWS - 1, 200), (200, 40), "transposed", False),
    ((cpu.OUTER_MIN_ROWS, cpu.OUTER_LONG_K + 1), (cpu.OUTER_LONG_K + 1, 40), "transposed", False),
    ((8, 16), (16, cpu.OUTER_MIN_COLS - 1), "contiguous", False),  # too narrow
], ids=str)
def test_outer_matmul_fits_shapes(a: tuple[int, ...], b: tuple[int, ...], b_layout: str, fits: bool) -> None:
    out = (a[0], b[1])
    assert outer_matmul_fits(view(a, F32), view(b, F32, b_layout), view(out, F32)) is fits


def test_outer_matmul_fits_only_one_float_dtype() -> None:
    assert not outer_matmul_fits(view((4, 8), I64), view((8, 64), I64), view((4, 64), I64))
    assert not outer_matmul_fits(view((4, 8), F32), view((8, 64), F64), view((4, 64), F64))
    assert outer_matmul_fits(view((4, 8), F64), view((8, 64), F64), view((4, 64), F64))


def test_backend_sends_wide_products_to_the_outer_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    monkeypatch.setattr(cpu, "outer_matmul", lambda *args: calls.append("outer") or outer_matmul(*args))
    monkeypatch.setattr(cpu, "numba_matmul", lambda *args: calls.append("dot") or numba_matmul(*args))
    rng = np.random.default_rng(12)
    check(CPU.matmul, sample(rng, (64, 300), F32), sample(rng, (300, 128), F32))
    assert calls == ["outer"]
    check(CPU.matmul, sample(rng, (8, 300), F32), sample(rng, (300, 128), F32), ("contiguous", "transposed", "contiguous"))
    assert calls == ["outer", "dot"]
    monkeypatch.setattr(cpu, "use_outer_kernel", False)
    check(CPU.matmul, sample(rng, (64, 32), F32), sample(rng, (32, 128), F32))
    assert calls == ["outer", "dot", "dot"]

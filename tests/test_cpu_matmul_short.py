"""The CPU backend's outer-product kernel for products with a short inner dimension
(``backends/cpu_matmul_short.py``), and the backend's choice between it and the students' kernel.

Checked against NumPy's product computed in float64, on sizes around the kernel's tiles (ragged
row and column tiles, ``k`` not a multiple of its unrolling, the longest ``k`` it takes), on
strided, transposed and broadcast views, and on the threaded path.
"""

from __future__ import annotations

import numpy as np
import pytest

from minitorch.backends import cpu
from minitorch.backends.cpu import CpuBackend, numba_matmul, short_matmul, short_matmul_fits
from minitorch.backends.cpu_kernels import PARALLEL_MIN_WORK
from minitorch.backends.cpu_matmul_short import MIN_TASKS, SHORT_K, TILE_COLS, TILE_ROWS, short_grid
from minitorch.tensor_data import TensorData
from test_cpu_matmul import F32, F64, I64, check, make_view, sample

CPU = CpuBackend()

#: (n, k, m): one row; a ragged row tile; k of 1, not a multiple of 4, and the longest taken;
#: columns short of, at and past a tile; large enough for the threaded kernel
SHAPES = [
    (1, 1, TILE_COLS),
    (TILE_ROWS - 1, 3, TILE_COLS - 1),
    (TILE_ROWS + 1, 4, TILE_COLS + 1),
    (9, 7, 2 * TILE_COLS + 5),
    (17, SHORT_K, 40),
    (33, SHORT_K - 1, 3 * TILE_COLS),
    (256, 64, 784),  # a linear layer's weight gradient, batch 64
    (70, 10, 300),  # the input gradient of a layer with 10 outputs
]


@pytest.mark.parametrize("n, k, m", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", (F32, F64), ids=str)
def test_short_kernel_matches_numpy(n: int, k: int, m: int, dtype: np.dtype) -> None:
    rng = np.random.default_rng(n + 7 * k + 31 * m)
    check(short_matmul, sample(rng, (n, k), dtype), sample(rng, (k, m), dtype))


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
def test_short_kernel_strided_operands(layouts: tuple[str, str, str]) -> None:
    rng = np.random.default_rng(11)
    check(short_matmul, sample(rng, (37, 29), F32), sample(rng, (29, 2 * TILE_COLS + 3), F32), layouts)
    check(short_matmul, sample(rng, (300, 64), F64), sample(rng, (64, 260), F64), layouts)


@pytest.mark.parametrize("a_shape, b_shape", [
    ((3, 1, 9, 7), (1, 4, 7, 40)),  # both broadcast
    ((2, 40, 30), (30, 70)),  # b shared by every matrix of a
    ((2, 3, 17, 64), (2, 1, 64, 130)),  # threaded
], ids=str)
def test_short_kernel_batch_broadcast(a_shape: tuple[int, ...], b_shape: tuple[int, ...]) -> None:
    rng = np.random.default_rng(len(a_shape) + sum(b_shape))
    a, b = sample(rng, a_shape, F64), sample(rng, b_shape, F64)
    check(short_matmul, a, b, ("transposed", "sliced", "contiguous"))
    check(short_matmul, a, b)


def test_short_kernel_special_values() -> None:
    check(short_matmul, np.zeros((4, 0), F32), np.ones((0, 40), F32))  # k = 0: zeros
    a = np.array([[1.0, np.inf], [0.0, 2.0], [np.nan, 1.0]], F64)
    b = np.tile(np.array([[1.0, 0.0, 2.0], [0.0, 1.0, -1.0]], F64), (1, 12))
    out = make_view(np.zeros((3, 36), F64))
    short_matmul(make_view(a), make_view(b), out)
    with np.errstate(invalid="ignore"):
        np.testing.assert_array_equal(out.numpy_view(), a @ b)  # inf * 0 is NaN, as in NumPy


@pytest.mark.parametrize("matrices, n, m, grid", [
    (1, 256, 784, (64, 4, 832, 1)),  # rows first: four blocks of 64 rows, all the columns
    (1, 6, 784, (4, 2, 7 * TILE_COLS, 2)),  # two row tiles, then the 13 column tiles in blocks of 7
    (1, 1, 300, (4, 1, 2 * TILE_COLS, 3)),  # one row: 5 column tiles in blocks of 2
    (8, 64, 64, (64, 1, 64, 1)),  # eight matrices are eight tasks
    (1, 1, 10, (4, 1, 64, 1)),  # one tile
    (1, 17, 784, (8, 3, 7 * TILE_COLS, 2)),  # 5 row tiles make 3 blocks, so the columns are cut in 2
], ids=str)
def test_short_grid_by_hand(matrices: int, n: int, m: int, grid: tuple[int, int, int, int]) -> None:
    assert short_grid(matrices, n, m) == grid


@pytest.mark.parametrize("matrices", (1, 3))
@pytest.mark.parametrize("n", (1, 3, 4, 17, 64, 257))
@pytest.mark.parametrize("m", (1, 63, 64, 65, 784))
def test_short_grid_covers_out_once_in_whole_tiles(matrices: int, n: int, m: int) -> None:
    rows, row_blocks, cols, col_blocks = short_grid(matrices, n, m)
    assert rows % TILE_ROWS == 0 and cols % TILE_COLS == 0
    assert (row_blocks - 1) * rows < n <= row_blocks * rows  # no empty block, no row left out
    assert (col_blocks - 1) * cols < m <= col_blocks * cols
    # blocks are of one size, so 5 row tiles make 3 blocks of 2; from twice as many tiles as tasks on,
    # every thread gets work
    if matrices * -(-n // TILE_ROWS) >= 2 * MIN_TASKS or -(-m // TILE_COLS) >= 2 * MIN_TASKS:
        assert matrices * row_blocks * col_blocks >= MIN_TASKS


def view(shape: tuple[int, ...], dtype: np.dtype) -> TensorData:
    return make_view(np.zeros(shape, dtype))


@pytest.mark.parametrize("a, b, out, fits", [
    ((64, 64), (64, 784), (64, 784), True),
    ((8, SHORT_K), (SHORT_K, 40), (8, 40), True),
    ((8, SHORT_K + 1), (SHORT_K + 1, 40), (8, 40), False),  # a long inner dimension: the dot products
    ((8, 16), (16, cpu.SHORT_MIN_COLS - 1), (8, cpu.SHORT_MIN_COLS - 1), False),  # too narrow
], ids=str)
def test_short_matmul_fits_shapes(a: tuple[int, ...], b: tuple[int, ...], out: tuple[int, ...], fits: bool) -> None:
    assert short_matmul_fits(view(a, F32), view(b, F32), view(out, F32)) is fits


def test_short_matmul_fits_only_one_float_dtype() -> None:
    assert not short_matmul_fits(view((4, 8), I64), view((8, 64), I64), view((4, 64), I64))
    assert not short_matmul_fits(view((4, 8), F32), view((8, 64), F64), view((4, 64), F64))
    assert short_matmul_fits(view((4, 8), F64), view((8, 64), F64), view((4, 64), F64))


def test_backend_sends_short_products_to_the_short_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    monkeypatch.setattr(cpu, "short_matmul", lambda *args: calls.append("short") or short_matmul(*args))
    monkeypatch.setattr(cpu, "numba_matmul", lambda *args: calls.append("dot") or numba_matmul(*args))
    rng = np.random.default_rng(12)
    check(CPU.matmul, sample(rng, (64, 32), F32), sample(rng, (32, 128), F32))
    assert calls == ["short"]
    monkeypatch.setattr(cpu, "use_short_kernel", False)
    check(CPU.matmul, sample(rng, (64, 32), F32), sample(rng, (32, 128), F32))
    assert calls == ["short", "dot"]


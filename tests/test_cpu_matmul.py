"""The CPU backend's matmul: the blocked Numba kernel of task 3.3 and the BLAS path.

``numba_matmul`` always runs the students' kernel; ``CpuBackend.matmul`` runs it too unless
``use_blas`` is set, which hands float32 and float64 products to BLAS (through NumPy). Both are checked
against NumPy, on sizes chosen around the kernel's block sizes (so every ragged edge and
every loop of the blocking is exercised) and on strided, transposed and broadcast views.
"""

from __future__ import annotations

import numpy as np
import pytest

from minitorch.backends import cpu
from minitorch.backends.cpu import CpuBackend, numba_matmul
from minitorch.backends.cpu_kernels import PARALLEL_MIN_WORK
from minitorch.backends.cpu_matmul import (
    MATMUL_BLOCK_K, MATMUL_BLOCK_M, MATMUL_BLOCK_N, MATMUL_MIN_TASKS, MATMUL_TILE_M, matmul_grid,
)
from minitorch.tensor_data import TensorData, strides_from_shape

CPU = CpuBackend()
F16, F32, F64 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)
I32, I64, U8, BOOL = np.dtype(np.int32), np.dtype(np.int64), np.dtype(np.uint8), np.dtype(np.bool_)
#: what fills the gaps of a sliced ``out``: any write there is a bug
SENTINEL = 7

#: (n, k, m) around the block sizes: smaller than a block, one off either side of a block
#: boundary, several blocks with a ragged last one; the larger ones take the parallel path
BLOCK_EDGE_SIZES = [
    (1, 1, 1),
    (2, 3, 1),
    (1, 5, 2),
    (3, MATMUL_BLOCK_K - 1, MATMUL_TILE_M - 1),
    (17, MATMUL_BLOCK_K, MATMUL_TILE_M + 1),
    (34, MATMUL_BLOCK_K + 1, 2 * MATMUL_TILE_M + 3),
    (MATMUL_BLOCK_N + 3, 9, 5),
    (45, 2 * MATMUL_BLOCK_K + 3, MATMUL_BLOCK_M + 5),
    # few rows: the tasks are blocks of columns, the last one ragged
    (1, 40, 3 * MATMUL_TILE_M + 5),
    (5, 2 * MATMUL_BLOCK_K + 1, 4 * MATMUL_TILE_M + 3),
    (64, 100, 2 * MATMUL_BLOCK_M + 7),
]


def sample(rng: np.random.Generator, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    if dtype == BOOL:
        return rng.random(shape) < 0.3
    if dtype == U8:
        return rng.integers(0, 4, shape).astype(dtype)
    if dtype.kind == "i":
        return rng.integers(-9, 10, shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def make_view(values: np.ndarray, layout: str = "contiguous") -> TensorData:
    """``values`` as a view: contiguous, stored transposed, or every other element (offset 1)."""
    if layout == "contiguous":
        return TensorData(values.reshape(-1).copy(), values.shape)
    if layout == "transposed":  # the last two dimensions stored swapped, viewed back
        stored = np.ascontiguousarray(np.swapaxes(values, -1, -2))
        order = list(range(values.ndim))
        order[-2:] = order[-1], order[-2]
        return TensorData(stored.reshape(-1), stored.shape).permute(*order)
    if layout == "sliced":
        big = np.full(tuple(2 * n + 1 for n in values.shape), SENTINEL, dtype=values.dtype)
        big[tuple(slice(1, None, 2) for _ in values.shape)] = values
        big_strides = strides_from_shape(big.shape)
        return TensorData(big.reshape(-1), values.shape, [2 * s for s in big_strides], sum(big_strides))
    raise ValueError(layout)


def expected_product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """NumPy's product, floats computed in float64 and rounded once."""
    if a.dtype.kind == "f":
        return np.matmul(a.astype(F64), b.astype(F64)).astype(a.dtype)
    return np.matmul(a, b)


def check(matmul, a: np.ndarray, b: np.ndarray, layouts: tuple[str, str, str] = ("contiguous",) * 3) -> None:
    expected = expected_product(a, b)
    out = make_view(np.zeros(expected.shape, a.dtype), layouts[2])
    matmul(make_view(a, layouts[0]), make_view(b, layouts[1]), out)
    actual = out.numpy_view()
    assert actual.shape == expected.shape and actual.dtype == expected.dtype
    if a.dtype.kind == "f":
        k = a.shape[-1]
        rtol = {F16: 2e-2, F32: 1e-5 * (1 + k) ** 0.5, F64: 1e-12}[a.dtype]
        np.testing.assert_allclose(actual.astype(F64), expected.astype(F64), rtol=rtol, atol=rtol)
    else:
        np.testing.assert_array_equal(actual, expected)
    if layouts[2] == "sliced":  # nothing written between the elements of out
        storage = out.storage.copy()
        TensorData(storage, out.shape, out.strides, out.offset).numpy_view()[...] = SENTINEL
        assert (storage == np.asarray(SENTINEL).astype(storage.dtype)).all()


# ---- the students' kernel (task 3.3), called through numba_matmul ----


@pytest.mark.task("3.3")
@pytest.mark.parametrize("n, k, m", BLOCK_EDGE_SIZES, ids=str)
@pytest.mark.parametrize("dtype", (F32, F64, I64), ids=str)
def test_kernel_block_edges(n: int, k: int, m: int, dtype: np.dtype) -> None:
    rng = np.random.default_rng(n + 7 * k + 31 * m)
    check(numba_matmul, sample(rng, (n, k), dtype), sample(rng, (k, m), dtype))


def test_block_edge_sizes_reach_both_paths() -> None:
    work = [n * k * m for n, k, m in BLOCK_EDGE_SIZES]
    assert min(work) < PARALLEL_MIN_WORK <= max(work)
    assert any(matmul_grid(1, n, m)[3] > 1 for n, k, m in BLOCK_EDGE_SIZES)  # some split into column blocks


@pytest.mark.task("3.3")
@pytest.mark.parametrize("matrices, n, m, grid", [
    # a linear layer's forward, batch 64 x 256 outputs: four column blocks pack 4 * 64 + 256 rows
    # of length k, four row blocks 64 + 4 * 256
    (1, 64, 256, (64, 1, 64, 4)),
    (1, 1024, 1024, (256, 4, 1024, 1)),  # blocks of 256 rows already make four tasks
    (8, 64, 64, (64, 1, 64, 1)),  # eight matrices are eight tasks
    # tall and narrow: rows are the cheaper cut; 75 rows rounded up to whole 4-row tiles
    (1, 300, 40, (76, 4, 48, 1)),
    (1, 1, 784, (4, 1, 208, 4)),  # a vector times a matrix: only columns can be cut
    (1, 8, 8, (8, 1, 16, 1)),  # too small to cut
], ids=str)
def test_matmul_grid_by_hand(matrices: int, n: int, m: int, grid: tuple[int, int, int, int]) -> None:
    assert matmul_grid(matrices, n, m) == grid


@pytest.mark.task("3.3")
@pytest.mark.parametrize("matrices", (1, 3))
@pytest.mark.parametrize("n", (1, 7, 16, 33, 64, 257, 1000))
@pytest.mark.parametrize("m", (1, 15, 16, 50, 256, 784))
def test_matmul_grid_covers_out_once(matrices: int, n: int, m: int) -> None:
    rows, row_blocks, cols, col_blocks = matmul_grid(matrices, n, m)
    assert rows % 4 == 0 and cols % MATMUL_TILE_M == 0 and rows <= max(MATMUL_BLOCK_N, 4)
    assert (row_blocks - 1) * rows < n <= row_blocks * rows  # no empty block, no row left out
    assert (col_blocks - 1) * cols < m <= col_blocks * cols
    tasks = matrices * row_blocks * col_blocks
    if n >= 4 * 16 and m >= 4 * MATMUL_TILE_M:  # large enough to cut four ways: threads get work
        assert tasks >= MATMUL_MIN_TASKS


@pytest.mark.task("3.3")
@pytest.mark.parametrize("dtype", (F32, F64, I32, I64, U8, BOOL, F16), ids=str)
def test_kernel_dtypes(dtype: np.dtype) -> None:
    """Integers are exact (int32 wraps as in NumPy), bool is "any product true"."""
    rng = np.random.default_rng(3)
    check(numba_matmul, sample(rng, (2, 19, 37), dtype), sample(rng, (1, 37, 21), dtype))
    check(numba_matmul, sample(rng, (70, 300), dtype), sample(rng, (300, 9), dtype))


@pytest.mark.task("3.3")
def test_kernel_int32_wraps_like_numpy() -> None:
    a = np.full((3, 4), 2**20, I32)
    b = np.full((4, 2), 2**12, I32)
    check(numba_matmul, a, b)


@pytest.mark.task("3.3")
@pytest.mark.parametrize(
    "layouts",
    [
        ("transposed", "contiguous", "contiguous"),
        ("contiguous", "transposed", "contiguous"),
        ("transposed", "transposed", "transposed"),
        ("sliced", "sliced", "sliced"),
        ("sliced", "transposed", "contiguous"),
    ],
    ids="-".join,
)
@pytest.mark.parametrize("dtype", (F32, I32), ids=str)
def test_kernel_strided_operands(layouts: tuple[str, str, str], dtype: np.dtype) -> None:
    rng = np.random.default_rng(11)
    k = MATMUL_BLOCK_K + 5
    check(numba_matmul, sample(rng, (37, k), dtype), sample(rng, (k, 33), dtype), layouts)
    check(numba_matmul, sample(rng, (5, 3), dtype), sample(rng, (3, 4), dtype), layouts)


@pytest.mark.task("3.3")
@pytest.mark.parametrize(
    "a_shape, b_shape",
    [
        ((3, 1, 9, 7), (1, 4, 7, 5)),  # both broadcast, small
        ((2, 40, 300), (300, 24)),  # b shared by every matrix of a (a linear layer)
        ((1, 33, 20), (5, 20, 45)),  # a shared
        ((2, 3, 17, 129), (2, 1, 129, 18)),  # large enough for the parallel path
    ],
    ids=str,
)
def test_kernel_batch_broadcast(a_shape: tuple[int, ...], b_shape: tuple[int, ...]) -> None:
    rng = np.random.default_rng(len(a_shape) + sum(b_shape))
    for dtype in (F64, I64):
        a, b = sample(rng, a_shape, dtype), sample(rng, b_shape, dtype)
        check(numba_matmul, a, b, ("transposed", "sliced", "contiguous"))
        check(numba_matmul, a, b)


@pytest.mark.task("3.3")
def test_kernel_empty_sum_and_special_values() -> None:
    check(numba_matmul, np.zeros((4, 0), F32), np.zeros((0, 3), F32))  # k = 0: zeros
    check(numba_matmul, np.zeros((0, 5), F32), np.zeros((5, 3), F32))  # nothing to compute
    a = np.array([[1.0, np.inf], [0.0, 2.0], [np.nan, 1.0]], F64)
    b = np.array([[1.0, 0.0, 2.0], [0.0, 1.0, -1.0]], F64)
    out = make_view(np.zeros((3, 3), F64))
    numba_matmul(make_view(a), make_view(b), out)
    with np.errstate(invalid="ignore"):
        np.testing.assert_array_equal(out.numpy_view(), a @ b)  # inf * 0 is NaN, as in NumPy


@pytest.mark.task("3.3")
def test_matmul_of_integers_runs_the_kernel_even_with_blas(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cpu, "use_blas", True)
    rng = np.random.default_rng(5)
    a, b = sample(rng, (2, 6, 7), I64), sample(rng, (7, 3), I64)
    check(CPU.matmul, a, b, ("transposed", "sliced", "sliced"))
    calls = []
    monkeypatch.setattr(cpu, "numba_matmul", lambda *args: calls.append(args) or numba_matmul(*args))
    check(CPU.matmul, a, b)
    assert len(calls) == 1


@pytest.mark.task("3.3")
def test_use_blas_off_sends_floats_to_the_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cpu, "use_blas", False)
    monkeypatch.setattr(cpu, "_blas_matmul", lambda *args: pytest.fail("BLAS used while use_blas is off"))
    rng = np.random.default_rng(6)
    check(CPU.matmul, sample(rng, (9, 40), F32), sample(rng, (40, 6), F32))


# ---- the BLAS path (``use_blas``) for float32 and float64 ----


@pytest.fixture
def blas(monkeypatch: pytest.MonkeyPatch) -> None:
    """``CpuBackend.matmul`` with BLAS for every float32/float64 product, however small."""
    monkeypatch.setattr(cpu, "use_blas", True)
    monkeypatch.setattr(cpu, "BLAS_MIN_WORK", 0)


@pytest.mark.parametrize("dtype", (F32, F64), ids=str)
def test_use_blas_sends_floats_to_blas(dtype: np.dtype, blas: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cpu, "numba_matmul", lambda *args: pytest.fail("the kernel ran instead of BLAS"))
    rng = np.random.default_rng(7)
    check(CPU.matmul, sample(rng, (3, 1, 10, 20), dtype), sample(rng, (2, 20, 5), dtype))


@pytest.mark.parametrize(
    "layouts",
    [
        ("contiguous", "contiguous", "contiguous"),
        ("transposed", "transposed", "transposed"),  # read in place (BLAS's transpose flags)
        ("sliced", "sliced", "sliced"),  # copied first, computed apart and copied into out
    ],
    ids="-".join,
)
@pytest.mark.parametrize("n, k, m", [(1, 1, 1), (1, 6, 4), (5, 1, 3), (23, 41, 1), (70, 300, 35)], ids=str)
def test_blas_matmul_layouts(layouts: tuple[str, str, str], n: int, k: int, m: int, blas: None) -> None:
    rng = np.random.default_rng(n * k + m)
    for dtype in (F32, F64):
        check(CPU.matmul, sample(rng, (2, n, k), dtype), sample(rng, (1, k, m), dtype), layouts)


def test_blas_matmul_of_half_goes_through_float32(blas: None) -> None:
    rng = np.random.default_rng(8)
    check(CPU.matmul, sample(rng, (6, 30), F16), sample(rng, (30, 4), F16), ("sliced", "transposed", "sliced"))


def test_blas_matmul_empty(blas: None) -> None:
    check(CPU.matmul, np.zeros((2, 4, 0), F32), np.zeros((0, 3), F32))
    check(CPU.matmul, np.zeros((0, 4, 5), F64), np.zeros((5, 3), F64))


@pytest.mark.task("3.3")
def test_blas_and_kernel_agree(blas: None) -> None:
    """The two paths give the same float32 result up to rounding (both sum in float32)."""
    rng = np.random.default_rng(9)
    a, b = sample(rng, (130, 700), F32), sample(rng, (700, 90), F32)
    outs = []
    for matmul in (numba_matmul, cpu._blas_matmul):
        out = make_view(np.zeros((130, 90), F32))
        matmul(make_view(a), make_view(b), out)
        outs.append(out.numpy_view())
    np.testing.assert_allclose(outs[0], outs[1], rtol=1e-4, atol=1e-4)

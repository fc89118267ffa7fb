"""The CPU backend's serial kernel for small float products (``backends/cpu_matmul_small.py``),
and the backend's choice of it.

Checked against NumPy's product computed in float64, on the products a small model's training
step makes (the last layer's forward against ``W.T``, narrow and wide weight gradients), on
strided, transposed, sliced and broadcast views, and on special values.
"""

from __future__ import annotations

import numpy as np
import pytest

from minitorch.backends import cpu
from minitorch.backends.cpu import CpuBackend, numba_matmul, outer_matmul, small_matmul
from minitorch.backends.cpu_kernels import PARALLEL_MIN_WORK
from minitorch.tensor_data import TensorData
from test_cpu_matmul import F16, F32, F64, I64, check, make_view, sample

CPU = CpuBackend()

#: (n, k, m): one element; one row, one column; k of 1 and odd; the products of a 16-32-4 MLP's
#: step with batch 32 (forward, weight gradients, input gradient); the most work it takes
SHAPES = [
    (1, 1, 1),
    (1, 9, 1),
    (7, 1, 5),
    (3, 13, 17),
    (8, 8, 8),
    (32, 16, 32),
    (32, 32, 4),
    (4, 32, 32),
    (32, 32, 16),
    (32, 4, 32),
    (16, 1024, 3),
]


def test_shapes_stay_below_the_threads() -> None:
    assert max(n * k * m for n, k, m in SHAPES) < PARALLEL_MIN_WORK


@pytest.mark.parametrize("n, k, m", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", (F32, F64), ids=str)
def test_small_kernel_matches_numpy(n: int, k: int, m: int, dtype: np.dtype) -> None:
    rng = np.random.default_rng(n + 7 * k + 31 * m)
    check(small_matmul, sample(rng, (n, k), dtype), sample(rng, (k, m), dtype))


@pytest.mark.parametrize("layouts", [
    ("transposed", "contiguous", "contiguous"),
    ("contiguous", "transposed", "contiguous"),  # x @ W.T
    ("transposed", "transposed", "transposed"),
    ("sliced", "sliced", "sliced"),  # nothing written between the elements of out (check)
    ("sliced", "transposed", "contiguous"),
], ids="-".join)
def test_small_kernel_strided_operands(layouts: tuple[str, str, str]) -> None:
    rng = np.random.default_rng(11)
    check(small_matmul, sample(rng, (37, 29), F32), sample(rng, (29, 10), F32), layouts)
    check(small_matmul, sample(rng, (5, 64), F64), sample(rng, (64, 40), F64), layouts)


@pytest.mark.parametrize("a_shape, b_shape", [
    ((3, 1, 9, 7), (1, 4, 7, 6)),  # both broadcast
    ((2, 10, 30), (30, 7)),  # b shared by every matrix of a
    ((2, 3, 5, 8), (2, 1, 8, 9)),
], ids=str)
def test_small_kernel_batch_broadcast(a_shape: tuple[int, ...], b_shape: tuple[int, ...]) -> None:
    rng = np.random.default_rng(len(a_shape) + sum(b_shape))
    a, b = sample(rng, a_shape, F64), sample(rng, b_shape, F64)
    check(small_matmul, a, b, ("transposed", "sliced", "contiguous"))
    check(small_matmul, a, b)


def test_small_kernel_special_values() -> None:
    check(small_matmul, np.zeros((4, 0), F32), np.ones((0, 3), F32))  # k = 0: zeros
    a = np.array([[1.0, np.inf], [0.0, 2.0], [np.nan, 1.0]], F64)
    b = np.array([[1.0, 0.0, 2.0], [0.0, 1.0, -1.0]], F64)
    out = make_view(np.full((3, 3), 5.0, F64))  # what out held before is not summed in
    small_matmul(make_view(a), make_view(b), out)
    with np.errstate(invalid="ignore"):
        np.testing.assert_array_equal(out.numpy_view(), a @ b)  # inf * 0 is NaN, as in NumPy


def view(shape: tuple[int, ...], dtype: np.dtype) -> TensorData:
    return make_view(np.zeros(shape, dtype))


def test_small_kernel_takes_products_below_the_threads_of_one_float_dtype(monkeypatch: pytest.MonkeyPatch) -> None:
    taken: list[bool] = []
    monkeypatch.setattr(cpu, "small_matmul", lambda *args: taken.append(True) or small_matmul(*args))

    def small(a: TensorData, b: TensorData, out: TensorData) -> bool:
        del taken[:]
        CPU.matmul(a, b, out)
        return taken == [True]

    below, at = PARALLEL_MIN_WORK // 64 - 1, PARALLEL_MIN_WORK // 64  # rows of an (n, 8) @ (8, 8) product
    assert small(view((below, 8), F32), view((8, 8), F32), view((below, 8), F32))
    assert not small(view((at, 8), F32), view((8, 8), F32), view((at, 8), F32))
    assert small(view((4, 8), F64), view((8, 64), F64), view((4, 64), F64))
    assert not small(view((4, 8), I64), view((8, 64), I64), view((4, 64), I64))
    assert not small(view((4, 8), F32), view((8, 64), F64), view((4, 64), F64))


def test_backend_sends_small_products_to_the_small_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    monkeypatch.setattr(cpu, "small_matmul", lambda *args: calls.append("small") or small_matmul(*args))
    monkeypatch.setattr(cpu, "outer_matmul", lambda *args: calls.append("outer") or outer_matmul(*args))
    monkeypatch.setattr(cpu, "numba_matmul", lambda *args: calls.append("dot") or numba_matmul(*args))
    rng = np.random.default_rng(12)
    check(CPU.matmul, sample(rng, (32, 32), F32), sample(rng, (32, 4), F32), ("contiguous", "transposed", "contiguous"))
    check(CPU.matmul, sample(rng, (16, 32), F16), sample(rng, (32, 8), F16))  # half: through float32
    check(CPU.matmul, sample(rng, (16, 32), I64), sample(rng, (32, 8), I64))  # integers: the students' kernel
    assert calls == ["small", "small", "dot"]
    check(CPU.matmul, sample(rng, (64, 64), F32), sample(rng, (64, 64), F32))  # threaded work: not small
    assert calls[3:] == ["outer"]
    monkeypatch.setattr(cpu, "use_small_kernel", False)
    check(CPU.matmul, sample(rng, (8, 8), F32), sample(rng, (8, 8), F32))
    assert calls[4:] == ["dot"]


def test_an_equal_dtype_object_takes_the_same_kernel() -> None:
    """``np.dtype('<f4')`` equals float32 but is another object (a loaded checkpoint's arrays carry
    it): the product must come from the same kernel, bit for bit, not from another that rounds
    differently."""
    rng = np.random.default_rng(21)
    a, b = sample(rng, (5, 7), F32), sample(rng, (7, 3), F32)
    little = np.dtype(np.float32).newbyteorder("<")
    assert little == F32 and little is not F32
    expected = make_view(np.zeros((5, 3), F32))
    CPU.matmul(make_view(a), make_view(b), expected)
    out = make_view(np.zeros((5, 3), F32))
    CPU.matmul(make_view(a.view(little)), make_view(b.view(little)), out)
    np.testing.assert_array_equal(out.numpy_view(), expected.numpy_view())

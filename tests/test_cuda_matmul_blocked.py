"""The cuda backend's register-blocked matmul (``backends/cuda_matmul_blocked.py``).

Run on Numba's simulator with small blocks (4 x 8 tiles of ``out``, 2 x 2 cells per thread,
steps of 2 along k) so that tiny products still span several blocks, ragged edges and steps;
values are checked against NumPy in float64 (exact to rounding) and float32.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import minitorch
from minitorch.backends import cuda as cuda_backend
from minitorch.backends.cuda_matmul_blocked import check_blocking

#: (block_m, block_n, block_k, thread_m, thread_n): 8 threads; a's tile is one element per
#: thread, b's two, so both staging loops are exercised
SMALL_BLOCKING = (4, 8, 2, 2, 2)


@pytest.fixture
def blocked(small_cuda: None, monkeypatch: pytest.MonkeyPatch) -> list[tuple]:
    """Every float product on cuda takes the blocked kernel; returns the launches' sizes."""
    monkeypatch.setattr(cuda_backend, "use_blocked_matmul", True)
    monkeypatch.setattr(cuda_backend, "BLOCKED_MATMUL", SMALL_BLOCKING)
    monkeypatch.setattr(cuda_backend, "BLOCKED_MIN_BLOCKS", 0)
    launches: list[tuple] = []
    real = cuda_backend.blocked_matmul_kernel

    def spy(*sizes: Any) -> Any:
        launches.append(sizes)
        return real(*sizes)

    monkeypatch.setattr(cuda_backend, "blocked_matmul_kernel", spy)
    return launches


def on_cuda(array: np.ndarray) -> minitorch.Tensor:
    return minitorch.tensor(array, device="cuda")


def host(t: minitorch.Tensor) -> np.ndarray:
    return t.detach().cpu().numpy()


@pytest.mark.parametrize(
    "a_shape, b_shape",
    [((7, 5), (5, 11)), ((1, 3), (3, 1)), ((9, 16), (16, 8)), ((2, 1, 5, 3), (3, 3, 9)), ((5, 4, 3), (5, 3, 6))],
    ids=str,
)
def test_blocked_products_equal_numpy_in_float64(blocked: list, a_shape: tuple, b_shape: tuple) -> None:
    rng = np.random.default_rng(0)
    a, b = rng.uniform(-1, 1, a_shape), rng.uniform(-1, 1, b_shape)
    ours = on_cuda(a) @ on_cuda(b)
    np.testing.assert_allclose(host(ours), a @ b, rtol=1e-13, atol=1e-14)
    assert blocked, "the blocked kernel did not run"


def test_five_batches_through_a_grid_of_two(blocked: list) -> None:
    # small_cuda allows 2 blocks along z: each block strides over the batches
    rng = np.random.default_rng(1)
    a, b = rng.uniform(-1, 1, (5, 6, 3)), rng.uniform(-1, 1, (5, 3, 10))
    np.testing.assert_allclose(host(on_cuda(a) @ on_cuda(b)), a @ b, rtol=1e-13, atol=1e-14)


def test_views_are_read_through_their_strides(blocked: list) -> None:
    rng = np.random.default_rng(2)
    big_a, big_b = rng.uniform(-1, 1, (9, 12)), rng.uniform(-1, 1, (13, 7))
    a = on_cuda(big_a)[1:, 2:].T  # (10, 8), offset, transposed
    b = on_cuda(big_b)[3:11, ::2]  # (8, 4), offset, every other column
    np.testing.assert_allclose(host(a @ b), big_a[1:, 2:].T @ big_b[3:11, ::2], rtol=1e-13, atol=1e-14)
    out = on_cuda(np.zeros((6, 10)))
    view = out[::2, 1:5].T  # writing into a strided view of out
    minitorch.matmul(a[:4], b[:, :3], out=view)
    expected = np.zeros((6, 10))
    expected[::2, 1:5] = (big_a[1:, 2:].T[:4] @ big_b[3:11, ::2][:, :3]).T
    np.testing.assert_allclose(host(out), expected, rtol=1e-13, atol=1e-14)


def test_float32_against_numpy_and_an_empty_inner_dimension(blocked: list) -> None:
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((13, 21), dtype=np.float32), rng.standard_normal((21, 9), dtype=np.float32)
    ours = on_cuda(a) @ on_cuda(b)
    assert ours.dtype is minitorch.float32
    np.testing.assert_allclose(host(ours), a.astype(np.float64) @ b, rtol=1e-5, atol=1e-5)
    empty = on_cuda(np.ones((3, 0))) @ on_cuda(np.ones((0, 4)))  # k = 0: every cell is 0
    assert host(empty).tolist() == np.zeros((3, 4)).tolist()


def test_gradients_through_the_blocked_kernel(blocked: list) -> None:
    rng = np.random.default_rng(4)
    a_np, b_np, g_np = rng.uniform(-1, 1, (6, 5)), rng.uniform(-1, 1, (5, 9)), rng.uniform(-1, 1, (6, 9))
    a = minitorch.tensor(a_np, device="cuda", requires_grad=True)
    b = minitorch.tensor(b_np, device="cuda", requires_grad=True)
    (a @ b).backward(on_cuda(g_np))
    np.testing.assert_allclose(host(a.grad), g_np @ b_np.T, rtol=1e-13, atol=1e-14)
    np.testing.assert_allclose(host(b.grad), a_np.T @ g_np, rtol=1e-13, atol=1e-14)
    assert len(blocked) == 3  # forward and both gradients


def test_which_products_take_the_blocked_kernel(blocked: list, monkeypatch: pytest.MonkeyPatch) -> None:
    ints = on_cuda(np.arange(12).reshape(3, 4)) @ on_cuda(np.arange(8).reshape(4, 2))
    assert host(ints).tolist() == (np.arange(12).reshape(3, 4) @ np.arange(8).reshape(4, 2)).tolist()
    assert blocked == []  # integers: the students' kernel (no float accumulators)
    a, b = on_cuda(np.ones((8, 3))), on_cuda(np.ones((3, 16)))  # out: 2 x 2 blocks of 4 x 8
    monkeypatch.setattr(cuda_backend, "BLOCKED_MIN_BLOCKS", 5)
    a @ b
    assert blocked == []  # too few blocks
    monkeypatch.setattr(cuda_backend, "BLOCKED_MIN_BLOCKS", 4)
    a @ b
    assert len(blocked) == 1 and blocked[0][:5] == SMALL_BLOCKING
    monkeypatch.setattr(cuda_backend, "use_blocked_matmul", False)
    a @ b
    assert len(blocked) == 1  # switched off: the students' kernel


@pytest.mark.parametrize(
    "sizes, message",
    [((4, 8, 2, 3, 2), "divide"), ((4, 8, 3, 2, 2), "split both tiles"), ((4, 0, 2, 2, 2), "positive")],
)
def test_blocking_that_does_not_divide_is_refused(sizes: tuple, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        check_blocking(*sizes)
    assert check_blocking(*cuda_backend.BLOCKED_MATMUL) == 256

"""Reductions along a broadcast dimension (stride 0) are taken from the one element repeated along
it (``CpuBackend.reduce``, :func:`minitorch.backends.cpu._reduce_broadcast`): the results must be
the bits of the full reduction, checked against NumPy on the materialised tensor."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
from minitorch.backends.cpu import CpuBackend
from minitorch.tensor_data import TensorData

BACKEND = CpuBackend()


def _reduced(op: str, view: np.ndarray, dim: int, out_dtype: type) -> np.ndarray:
    """The backend's reduction of the expanded ``view`` along ``dim`` into a fresh ``out_dtype`` array."""
    storage = np.ascontiguousarray(view.base if view.base is not None else view).reshape(-1)
    data = TensorData(storage, view.shape, tuple(s // view.itemsize for s in view.strides))
    shape = view.shape[:dim] + (1,) + view.shape[dim + 1 :]
    out = TensorData(np.zeros(int(np.prod(shape)), out_dtype), shape)
    BACKEND.reduce(op, data, dim, out)
    return out.storage.reshape(shape)


def _expanded(values: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    return np.broadcast_to(values, shape)


@pytest.mark.parametrize("dim", [0, 1, 2])
def test_float32_sum_is_the_float64_sum_rounded_once(dim: int) -> None:
    rng = np.random.default_rng(dim)
    values = rng.standard_normal((4, 1, 6)).astype(np.float32) * np.float32(1e3)
    view = _expanded(values, (4, 37, 6))
    expected = view.astype(np.float64).sum(axis=dim, keepdims=True).astype(np.float32)
    np.testing.assert_array_equal(_reduced("sum", view, dim, np.float32), expected)


def test_float32_sum_of_a_whole_expanded_scalar_overflows_as_the_sum_does() -> None:
    view = _expanded(np.float32([3.0e38, np.nan, -np.inf, 1.5]), (333, 4))
    with np.errstate(over="ignore"):
        expected = view.astype(np.float64).sum(axis=0, keepdims=True).astype(np.float32)
    got = _reduced("sum", view, 0, np.float32)
    np.testing.assert_array_equal(got, expected)  # inf, nan, -inf, 499.5
    assert np.isinf(got[0, 0]) and np.isnan(got[0, 1])


@pytest.mark.parametrize("dtype", [np.int64, np.int32])
def test_integer_sum_wraps_as_the_sum_does(dtype: type) -> None:
    big = np.iinfo(dtype).max // 3
    view = _expanded(np.array([[big], [-7]], dtype), (2, 5))
    expected = view.astype(np.int64).sum(axis=1, keepdims=True).astype(dtype)  # NumPy's int64 sum wraps
    np.testing.assert_array_equal(_reduced("sum", view, 1, dtype), expected)


@pytest.mark.parametrize("op", ["max", "min"])
def test_max_and_min_of_copies_are_the_element(op: str) -> None:
    view = _expanded(np.float64([[1.5, np.nan, -0.0]]), (9, 3))
    expected = getattr(np, op)(view, axis=0, keepdims=True)
    np.testing.assert_array_equal(_reduced(op, view, 0, np.float64), expected)


def test_float64_sum_still_adds_every_copy() -> None:
    """n copies of a float64 added one by one round at every step: not ``n * x``, so not taken."""
    x = 0.1
    view = _expanded(np.float64([x]), (10,))
    sequential = 0.0
    for _ in range(10):
        sequential += x
    assert sequential != 10 * x  # the two differ for this x
    got = _reduced("sum", view, 0, np.float64)
    assert got[0] == pytest.approx(sequential, rel=1e-15)


def test_gradient_of_an_expanded_loss_through_a_bias() -> None:
    """The path a convolution's bias gradient takes in ``conv(x).sum().backward()``."""
    x = minitorch.randn(8, 3, 10, 10, requires_grad=True)
    w = minitorch.randn(4, 3, 3, 3, requires_grad=True)
    b = minitorch.zeros(4, requires_grad=True)
    minitorch.nn.functional.conv2d(x, w, b, padding=1).sum().backward()
    np.testing.assert_array_equal(b.grad.numpy(), np.full(4, 8 * 10 * 10, np.float32))
    ones = minitorch.tensor(np.float32(0.25)).expand(6, 50, 7)
    np.testing.assert_array_equal(ones.sum((0, 1)).numpy(), np.full(7, 75.0, np.float32))

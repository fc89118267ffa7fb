"""logsumexp, var_mean/std_mean, count_nonzero, norms, cumsum/cumprod, median: values
against PyTorch, gradients against central differences (float64)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minitorch
from tests.gradcheck import gradcheck

SHAPES_DIMS = [((3, 4), 1), ((3, 4), -2), ((2, 3, 4), (0, 2)), ((5,), 0), ((0, 3), 1), ((0, 3), 0)]


def _pair(torch, array: np.ndarray):
    return minitorch.tensor(array), torch.tensor(array)


def _close(ours: minitorch.Tensor, theirs) -> None:
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12, atol=1e-12, equal_nan=True)


@pytest.mark.parametrize("shape,dim", SHAPES_DIMS)
@pytest.mark.parametrize("keepdim", [False, True])
def test_logsumexp_matches_torch(backend, torch_ref, shape, dim, keepdim):
    ours, theirs = _pair(torch_ref, np.random.randn(*shape) * 50)
    _close(minitorch.logsumexp(ours, dim, keepdim), torch_ref.logsumexp(theirs, dim, keepdim))
    _close(ours.logsumexp(dim, keepdim=keepdim), theirs.logsumexp(dim, keepdim=keepdim))


def test_logsumexp_infinities_and_nan(torch_ref):
    data = np.array([[-np.inf, -np.inf], [np.inf, 1.0], [np.nan, 0.0], [1000.0, 1000.0]])
    ours, theirs = _pair(torch_ref, data)
    _close(minitorch.logsumexp(ours, 1), torch_ref.logsumexp(theirs, 1))


def test_logsumexp_gradient(backend):
    x = minitorch.tensor(np.random.randn(3, 4) * 30, requires_grad=True)
    gradcheck(lambda t: minitorch.logsumexp(t, 1), x)
    gradcheck(lambda t: t.logsumexp((0, 1), keepdim=True), x)


@pytest.mark.parametrize("shape,dim", [((3, 4), 1), ((2, 3, 4), (0, 2)), ((6,), None)])
@pytest.mark.parametrize("correction", [0, 1, 2])
def test_var_mean_std_mean(torch_ref, shape, dim, correction):
    ours, theirs = _pair(torch_ref, np.random.randn(*shape))
    for name in ("var_mean", "std_mean"):
        got = getattr(minitorch, name)(ours, dim, correction=correction)
        want = getattr(torch_ref, name)(theirs, dim, correction=correction)
        _close(got[0], want[0])
        _close(got[1], want[1])


@pytest.mark.parametrize("dim", [None, 0, 1, (0, 1), -1])
def test_count_nonzero(torch_ref, dim):
    data = np.array([[0.0, 1.0, np.nan], [0.0, 0.0, -2.0]])
    ours, theirs = _pair(torch_ref, data)
    got, want = minitorch.count_nonzero(ours, dim), torch_ref.count_nonzero(theirs, dim)
    assert got.tolist() == want.tolist() and got.dtype is minitorch.int64


@pytest.mark.parametrize("ord", [2, 1, 3, 0.5, 0, math.inf, -math.inf])
@pytest.mark.parametrize("dim", [None, 1, (0, 1)])
def test_vector_norm_matches_torch(backend, torch_ref, ord, dim):
    ours, theirs = _pair(torch_ref, np.random.randn(3, 4))
    _close(minitorch.linalg.vector_norm(ours, ord, dim), torch_ref.linalg.vector_norm(theirs, ord, dim))


@pytest.mark.parametrize("p", ["fro", 2, 1, math.inf])
def test_norm_matches_torch(torch_ref, p):
    ours, theirs = _pair(torch_ref, np.random.randn(3, 4))
    _close(minitorch.norm(ours, p), torch_ref.norm(theirs, p))
    _close(ours.norm(p, dim=1, keepdim=True), theirs.norm(p, dim=1, keepdim=True))


@pytest.mark.parametrize("ord", ["fro", 1, -1, math.inf, -math.inf])
def test_matrix_norm_matches_torch(torch_ref, ord):
    ours, theirs = _pair(torch_ref, np.random.randn(2, 3, 4))
    _close(minitorch.linalg.matrix_norm(ours, ord), torch_ref.linalg.matrix_norm(theirs, ord))


@pytest.mark.parametrize("ord", [2, 1, 3, math.inf])
def test_vector_norm_gradient(backend, ord):
    x = minitorch.tensor(np.random.randn(3, 4), requires_grad=True)
    gradcheck(lambda t: minitorch.linalg.vector_norm(t, ord, 1), x)


def test_norm_gradient_at_zero_is_zero(torch_ref):
    x = minitorch.zeros(3, dtype=minitorch.float64, requires_grad=True)
    minitorch.norm(x).backward()
    reference = torch_ref.zeros(3, dtype=torch_ref.float64, requires_grad=True)
    torch_ref.norm(reference).backward()
    assert x.grad.tolist() == reference.grad.tolist()


@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
@pytest.mark.parametrize("shape,dim", [((3, 4), 1), ((3, 4), -2), ((5,), 0), ((0, 3), 1), ((), 0)])
def test_scans_match_torch(backend, torch_ref, name, shape, dim):
    ours, theirs = _pair(torch_ref, np.random.randn(*shape))
    _close(getattr(minitorch, name)(ours, dim), getattr(torch_ref, name)(theirs, dim))
    _close(getattr(ours, name)(dim), getattr(theirs, name)(dim))


def test_scans_of_integers_are_int64(torch_ref):
    ours, theirs = _pair(torch_ref, np.array([1, 2, 3], dtype=np.int32))
    assert minitorch.cumsum(ours, 0).dtype is minitorch.int64
    assert minitorch.cumprod(ours, 0).tolist() == torch_ref.cumprod(theirs, 0).tolist()


@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
def test_scan_gradients(backend, name):
    x = minitorch.tensor(np.random.randn(3, 4), requires_grad=True)
    gradcheck(lambda t: getattr(t, name)(1), x)
    gradcheck(lambda t: getattr(t, name)(0), x)


def test_cumprod_gradient_with_zeros(torch_ref):
    data = np.array([[2.0, 0.0, 3.0, 0.0, 5.0], [0.0, 1.5, -2.0, 4.0, 1.0]])
    x = minitorch.tensor(data, requires_grad=True)
    gradcheck(lambda t: t.cumprod(1), x)
    reference = torch_ref.tensor(data, requires_grad=True)
    reference.cumprod(1).sum().backward()
    x = minitorch.tensor(data, requires_grad=True)  # a fresh leaf: gradcheck left a .grad on the first
    x.cumprod(1).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), reference.grad.numpy(), rtol=1e-12)


@pytest.mark.parametrize("shape,dim", [((3, 4), 1), ((3, 5), -1), ((4, 3), 0), ((7,), 0)])
@pytest.mark.parametrize("keepdim", [False, True])
def test_median_matches_torch(backend, torch_ref, shape, dim, keepdim):
    data = np.random.randint(0, 3, size=shape).astype(np.float64)  # ties: the index must agree too
    ours, theirs = _pair(torch_ref, data)
    got, want = minitorch.median(ours, dim, keepdim), torch_ref.median(theirs, dim, keepdim)
    _close(got.values, want.values)
    assert got.indices.tolist() == want.indices.tolist()
    _close(ours.median(), theirs.median())


def test_median_with_nan_is_nan(torch_ref):
    data = np.array([[1.0, np.nan, 0.0], [3.0, 1.0, 2.0]])
    ours, theirs = _pair(torch_ref, data)
    got, want = ours.median(1), theirs.median(1)
    _close(got.values, want.values)
    assert got.indices.tolist() == want.indices.tolist()
    _close(ours.median(), theirs.median())


def test_median_gradient(backend):
    x = minitorch.tensor(np.random.randn(3, 5), requires_grad=True)
    gradcheck(lambda t: t.median(1).values, x)
    gradcheck(lambda t: t.median(), x)


def test_median_of_empty_dim_errors():
    with pytest.raises(IndexError, match="median\\(\\): Expected reduction dim 0 to have non-zero size"):
        minitorch.zeros(0, 2).median(0)


@pytest.mark.parametrize("op", ["max", "min"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int32"])
def test_max_along_a_dim_reads_each_value_at_its_index(backend, torch_ref, op, dtype):
    """``values[i] == input[indices[i]]`` bit for bit, as PyTorch's: NaN rows, ties, zeros of both signs."""
    rows = [[1.0, 7.0, 7.0, -2.0], [np.nan, 3.0, np.nan, 1.0], [0.0, -0.0, -0.0, 0.0], [-0.0, 0.0, 0.0, -0.0],
            [-5.0, -5.0, -9.0, -5.0], [np.inf, -np.inf, 2.0, np.inf]]
    data = np.array(rows if dtype.startswith("float") else np.nan_to_num(rows, posinf=9, neginf=-9)).astype(dtype)
    for dim in (1, 0):
        ours = getattr(minitorch.tensor(data), op)(dim)
        theirs = getattr(torch_ref.from_numpy(data), op)(dim)
        np.testing.assert_array_equal(ours.indices.numpy(), theirs.indices.numpy())
        values, expected = ours.values.numpy(), theirs.values.numpy()
        np.testing.assert_array_equal(values, expected)
        assert np.array_equal(np.signbit(values), np.signbit(expected))
        at_index = np.take_along_axis(data, np.expand_dims(ours.indices.numpy(), dim), dim).squeeze(dim)
        assert np.array_equal(np.signbit(values), np.signbit(at_index))

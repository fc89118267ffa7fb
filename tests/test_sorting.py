"""sort, argsort, topk: values and indices against PyTorch (stable order of ties, NaN as the
largest value), gradients against central differences (float64)."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
from tests.gradcheck import gradcheck

CASES = [((3, 5), 1), ((3, 5), 0), ((2, 3, 4), -1), ((6,), 0), ((0, 3), 1), ((3, 0), 1)]


def _data(shape):
    data = np.random.randint(0, 4, size=shape).astype(np.float64)  # many ties
    if data.size:
        data.flat[0] = np.nan
    return data


@pytest.mark.parametrize("shape,dim", CASES)
@pytest.mark.parametrize("descending", [False, True])
def test_sort_matches_torch(backend, torch_ref, shape, dim, descending):
    data = _data(shape)
    got = minitorch.sort(minitorch.tensor(data), dim, descending)
    want = torch_ref.sort(torch_ref.tensor(data), dim=dim, descending=descending, stable=True)
    np.testing.assert_array_equal(got.values.numpy(), want.values.numpy())
    assert got.indices.tolist() == want.indices.tolist()
    method = minitorch.tensor(data).argsort(dim, descending=descending)
    assert method.tolist() == torch_ref.tensor(data).argsort(dim=dim, descending=descending, stable=True).tolist()


@pytest.mark.parametrize("k", [0, 1, 3])
@pytest.mark.parametrize("largest", [True, False])
def test_topk_matches_torch(backend, torch_ref, k, largest):
    data = np.random.randn(4, 5)
    got = minitorch.tensor(data).topk(k, largest=largest)
    want = torch_ref.tensor(data).topk(k, largest=largest)
    np.testing.assert_array_equal(got.values.numpy(), want.values.numpy())
    assert got.indices.tolist() == want.indices.tolist()
    assert type(got).__name__ == "topk" and got._fields == ("values", "indices")


def test_topk_out_of_range_errors():
    with pytest.raises(RuntimeError, match="selected index k out of range"):
        minitorch.zeros(2, 3).topk(4)


def test_sort_of_a_scalar(torch_ref):
    got = minitorch.tensor(2.5).sort()
    assert got.values.item() == 2.5 and got.indices.item() == 0 and got.indices.shape == ()


def test_sort_and_topk_gradients(backend):
    x = minitorch.tensor(np.random.randn(3, 5), requires_grad=True)
    gradcheck(lambda t: t.sort(1, descending=True).values, x)
    gradcheck(lambda t: t.topk(2, dim=0).values, x)


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int64", "bool", "float32"])
@pytest.mark.parametrize("descending", [False, True])
def test_every_dtype_sorts_as_torch_with_ties_in_order(torch_ref, dtype, descending):
    """Unsigned values (whose negation wraps), the extremes of a signed type, bools and infinities."""
    rng = np.random.default_rng(7)
    if dtype == "bool":
        data = rng.integers(0, 2, (3, 9)).astype(bool)
    elif dtype == "float32":
        data = rng.choice(np.array([0.0, -0.0, 1.5, np.inf, -np.inf, np.nan], np.float32), (3, 9))
    else:
        info = np.iinfo(dtype)
        data = rng.choice(np.array([info.min, 0, 1, info.max], dtype), (3, 9))
    for dim in (0, 1):
        got = minitorch.tensor(data).sort(dim, descending=descending)
        want = torch_ref.tensor(data).sort(dim=dim, descending=descending, stable=True)
        assert got.indices.tolist() == want.indices.tolist()
        np.testing.assert_array_equal(got.values.numpy(), want.values.numpy())

"""``sum`` over several dimensions of a contiguous tensor reduces each run of neighbouring
dimensions as one (``ops/reductions._merged_runs``): one kernel over a long run instead of a
reduction per dimension. Checked against NumPy in float64, on both CPU backends and on views
that cannot be merged.
"""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
from minitorch.ops.reductions import _merged_runs

SHAPE = (4, 3, 5, 6)
#: (dims, keepdim): all of them, a convolution's bias gradient, a middle run, one dimension
CASES = [((0, 1, 2, 3), False), ((0, 2, 3), False), ((0, 2, 3), True), ((1, 2), True), ((1, 2), False), ((3,), True)]


def values(shape: tuple[int, ...] = SHAPE) -> np.ndarray:
    return np.random.default_rng(3).standard_normal(shape).astype(np.float32)


@pytest.mark.parametrize("backend", ["cpu", "simple"])
@pytest.mark.parametrize("dims, keepdim", CASES, ids=str)
def test_sum_over_dims_matches_numpy(backend: str, dims: tuple[int, ...], keepdim: bool) -> None:
    x = values()
    with minitorch.backends.use(backend):
        got = minitorch.tensor(x).sum(dim=dims, keepdim=keepdim)
    expected = x.astype(np.float64).sum(axis=dims, keepdims=keepdim)
    assert got.shape == expected.shape
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-6, atol=1e-6)


def test_sum_of_everything_is_rounded_once() -> None:
    """One run: the float64 sum of all the elements, rounded to float32 once (each stage of a
    reduction per dimension rounds again)."""
    x = values((8, 16, 32, 32)) * 1000
    got = minitorch.tensor(x).sum()
    assert got.item() == np.float32(x.astype(np.float64).sum())


def test_runs_are_merged_only_where_neighbours_are_reduced() -> None:
    x = minitorch.tensor(values())
    view, merged = _merged_runs(x, (0, 2, 3))
    assert view.shape == (4, 3, 30) and merged == (0, 2)
    view, merged = _merged_runs(x, (0, 1, 2, 3))
    assert view.shape == (360,) and merged == (0,)
    view, merged = _merged_runs(x, (1, 3))
    assert view.shape == SHAPE and merged == (1, 3)
    transposed = x.transpose(0, 3)  # not contiguous: left as it is
    view, merged = _merged_runs(transposed, (0, 1))
    assert view is transposed and merged == (0, 1)


@pytest.mark.parametrize("dims, keepdim", CASES, ids=str)
def test_sum_of_a_strided_view_and_its_gradient(dims: tuple[int, ...], keepdim: bool) -> None:
    x = values((6, 5, 3, 4))
    t = minitorch.tensor(x, requires_grad=True)
    view = t.permute(3, 2, 1, 0)  # (4, 3, 5, 6), nothing contiguous
    out = view.sum(dim=dims, keepdim=keepdim)
    expected = x.transpose(3, 2, 1, 0).astype(np.float64).sum(axis=dims, keepdims=keepdim)
    np.testing.assert_allclose(out.detach().numpy(), expected, rtol=1e-6, atol=1e-6)
    weights = np.random.default_rng(4).standard_normal(expected.shape).astype(np.float32)
    (out * minitorch.tensor(weights)).sum().backward()
    # each element's gradient is the weight of the sum it went into
    spread = np.broadcast_to(weights if keepdim else np.expand_dims(weights, dims), (4, 3, 5, 6))
    np.testing.assert_allclose(t.grad.numpy(), spread.transpose(3, 2, 1, 0), rtol=0, atol=0)


def test_sum_does_not_change_its_input() -> None:
    x = values()
    t = minitorch.tensor(x)
    t.sum(dim=(1, 2))
    np.testing.assert_array_equal(t.numpy(), x)
    assert t._version == 0

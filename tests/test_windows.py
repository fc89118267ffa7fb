"""The sliding-window view and its backward (task 5.4), and the ``accumulate`` primitive under it.

Oracles: NumPy's ``sliding_window_view`` for the view's values, ``np.add.at`` for the
accumulated gradient, central differences for the backward.
"""

from __future__ import annotations

import numpy as np
import pytest
from gradcheck import gradcheck
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from layer_helpers import ours, values

import minitorch
from minitorch.dispatch import accumulate_op
from minitorch.ops.windows import ConstantPad, window_count, window_data, windows

task = pytest.mark.task("5.4")


def numpy_windows(a: np.ndarray, dim: int, size: int, step: int, dilation: int) -> np.ndarray:
    """The same view built from NumPy: windows of the dilated span, thinned, every ``step``."""
    span = dilation * (size - 1) + 1
    view = np.lib.stride_tricks.sliding_window_view(a, span, axis=dim)
    view = view[..., ::dilation]
    index = [slice(None)] * view.ndim
    index[dim] = slice(None, None, step)
    return view[tuple(index)]


@task
@pytest.mark.parametrize("size,step,dilation", [(3, 1, 1), (2, 2, 1), (3, 2, 2), (1, 1, 1), (4, 3, 1)])
def test_window_view_values(backend: str, size: int, step: int, dilation: int) -> None:
    a = np.arange(2 * 11, dtype=np.float64).reshape(2, 11)
    w = windows(ours(a), (1,), (size,), (step,), (dilation,))
    expected = numpy_windows(a, 1, size, step, dilation)
    np.testing.assert_array_equal(values(w), expected)
    assert w.shape[1] == window_count(11, size, step, dilation)


@task
def test_window_view_shares_storage_and_is_a_view() -> None:
    a = ours(np.arange(12.0).reshape(3, 4))
    w = windows(a, (0, 1), (2, 2), (1, 2))
    assert w.shape == (2, 2, 2, 2)
    assert w._data.storage is a._data.storage  # zero-copy
    np.testing.assert_array_equal(values(w[1, 1]), [[6.0, 7.0], [10.0, 11.0]])


@task
def test_window_view_of_a_permuted_input(backend: str) -> None:
    a = np.arange(20.0).reshape(4, 5)
    w = windows(ours(a).t(), (1,), (2,), (1,))
    np.testing.assert_array_equal(values(w), numpy_windows(a.T, 1, 2, 1, 1))


@task
def test_window_too_large_is_an_error() -> None:
    with pytest.raises(RuntimeError, match="doesn't fit"):
        window_data(ours(np.zeros(3))._data, (0,), (4,), (1,), (1,))


@task
@pytest.mark.parametrize("size,step,dilation", [(3, 1, 1), (2, 2, 1), (3, 1, 2), (2, 3, 1)])
def test_window_backward_adds_overlaps(backend: str, size: int, step: int, dilation: int) -> None:
    a = np.random.default_rng(1).standard_normal((2, 9))
    x = ours(a, grad=True)
    w = windows(x, (1,), (size,), (step,), (dilation,))
    g = np.random.default_rng(2).standard_normal(tuple(w.shape))
    (w * ours(g)).sum().backward()
    # each window element's gradient lands on the input position it shows
    expected = np.zeros_like(a)
    for i in range(w.shape[1]):
        for j in range(size):
            expected[:, i * step + j * dilation] += g[:, i, j]
    np.testing.assert_allclose(values(x.grad), expected, atol=1e-12)


@task
def test_window_gradcheck_2d(backend: str) -> None:
    x = ours(np.random.default_rng(3).standard_normal((1, 2, 4, 5)), grad=True)
    gradcheck(lambda t: windows(t, (2, 3), (2, 3), (1, 2), (1, 1)), x)


@task
def test_constant_pad_gradcheck(backend: str) -> None:
    x = ours(np.random.default_rng(4).standard_normal((2, 3)), grad=True)
    out = ConstantPad.apply(x, ((1, 0), (2, 1)), 5.0)
    assert out.shape == (3, 6)
    np.testing.assert_array_equal(values(out)[0], [5.0] * 6)
    gradcheck(lambda t: ConstantPad.apply(t, ((1, 0), (2, 1)), 5.0), x)


# ---- the accumulate primitive itself, on overlapping views ----


@task
@pytest.mark.parametrize("dtype", [minitorch.float64, minitorch.float32, minitorch.int64, minitorch.float16])
def test_accumulate_into_overlapping_view_matches_add_at(backend: str, dtype: minitorch.dtype) -> None:
    rng = np.random.default_rng(5)
    out = minitorch.zeros(3, 10, dtype=dtype)
    view = windows(out, (1,), (4,), (2,))  # windows overlap: 2 of every 4 elements twice
    src_np = rng.integers(-5, 5, size=tuple(view.shape)).astype(np.float64)
    accumulate_op(minitorch.tensor(src_np, dtype=dtype), view)
    expected = np.zeros((3, 10))
    for i in range(view.shape[1]):
        np.add.at(expected, (slice(None), slice(2 * i, 2 * i + 4)), src_np[:, i])
    np.testing.assert_array_equal(values(out), expected)


@task
def test_accumulate_broadcasts_src(backend: str) -> None:
    out = minitorch.zeros(2, 5, dtype=minitorch.float64)
    accumulate_op(minitorch.tensor([1.0, 2.0], dtype=minitorch.float64), windows(out, (1,), (2,), (1,)))
    np.testing.assert_array_equal(values(out), [[1, 3, 3, 3, 2]] * 2)


@task
def test_accumulate_parallel_path_matches_simple() -> None:
    """A view big enough for the Numba kernel's threads (disjoint batch slices) gives the exact sums."""
    rng = np.random.default_rng(6)
    shape = (8, 3, 34, 34)
    grads = rng.integers(-3, 4, size=(8, 3, 32, 32, 3, 3)).astype(np.float64)
    results = []
    grads_total = grads.sum()
    for name in ("cpu", "simple"):
        if name == "simple":  # the pure-Python reference is slow: compare one batch entry
            grads, shape = grads[:1], (1,) + shape[1:]
        with minitorch.backends.use(name):
            out = minitorch.zeros(*shape, dtype=minitorch.float64)
            accumulate_op(minitorch.tensor(grads, dtype=minitorch.float64), windows(out, (2, 3), (3, 3), (1, 1)))
            results.append(values(out))
    np.testing.assert_array_equal(results[0][:1], results[1])
    np.testing.assert_allclose(results[0].sum(), grads_total, rtol=1e-12)


@task
@given(
    length=st.integers(1, 12), size=st.integers(1, 4), step=st.integers(1, 3), dilation=st.integers(1, 3),
    rows=st.integers(1, 3),
)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_window_view_and_backward_property(backend: str, length: int, size: int, step: int, dilation: int, rows: int) -> None:
    """Any fitting window: the view equals NumPy's, and the backward of a sum counts each
    input position's appearances in the windows."""
    assume(dilation * (size - 1) + 1 <= length)
    a = np.arange(rows * length, dtype=np.float64).reshape(rows, length)
    x = ours(a, grad=True)
    w = windows(x, (1,), (size,), (step,), (dilation,))
    np.testing.assert_array_equal(values(w), numpy_windows(a, 1, size, step, dilation))
    w.sum().backward()
    counts = np.zeros(length)
    for i in range(w.shape[1]):
        for j in range(size):
            counts[i * step + j * dilation] += 1
    np.testing.assert_array_equal(values(x.grad), np.broadcast_to(counts, a.shape))

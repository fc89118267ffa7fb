"""Convolution (5.3) and pooling (5.5): outputs and gradients against PyTorch on both CPU
backends, gradient checks by central differences, and PyTorch's error messages."""

from __future__ import annotations

import numpy as np
import pytest
from gradcheck import gradcheck
from layer_helpers import assert_same_error, compare_with_torch, ours, values

import minitorch
import minitorch.nn.functional as F

conv = pytest.mark.task("5.3")
pooling = pytest.mark.task("5.5")

#: (input shape, weight shape, keyword arguments): strides, padding (ints, pairs, strings), dilation, groups
CONV2D_CASES = [
    ((2, 3, 6, 5), (4, 3, 3, 3), {}),
    ((2, 3, 6, 5), (4, 3, 3, 2), {"stride": 2, "padding": 1}),
    ((1, 2, 7, 7), (3, 2, 3, 3), {"stride": (2, 1), "padding": (1, 2), "dilation": (2, 1)}),
    ((2, 4, 5, 5), (6, 2, 3, 3), {"groups": 2, "padding": "same"}),
    ((1, 4, 5, 6), (4, 1, 2, 2), {"groups": 4, "padding": "valid", "stride": 2}),
    ((3, 5, 5), (2, 3, 1, 1), {}),  # unbatched
]
CONV1D_CASES = [
    ((2, 3, 9), (4, 3, 3), {}),
    ((2, 4, 9), (2, 2, 2), {"stride": 2, "padding": 1, "dilation": 2, "groups": 2}),
    ((3, 8), (2, 3, 4), {"padding": "same"}),
]


def _conv_inputs(x_shape, w_shape, seed: int = 0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(x_shape), rng.standard_normal(w_shape), rng.standard_normal(w_shape[0])


def _case_ids(cases):
    return [f"{x}-{w}-{kw}" for x, w, kw in cases]


@conv
@pytest.mark.parametrize("x_shape,w_shape,kwargs", CONV2D_CASES, ids=_case_ids(CONV2D_CASES))
def test_conv2d_matches_torch(backend: str, torch_ref, x_shape, w_shape, kwargs) -> None:
    x, w, b = _conv_inputs(x_shape, w_shape)
    if len(x_shape) == 3:  # unbatched: input channels must match the weight
        x = np.random.default_rng(1).standard_normal((w_shape[1],) + x_shape[1:])
    compare_with_torch(
        torch_ref,
        lambda x, w, b: F.conv2d(x, w, b, **kwargs),
        lambda x, w, b: torch_ref.nn.functional.conv2d(x, w, b, **kwargs),
        [x, w, b], grad=[0, 1, 2],
    )


@conv
@pytest.mark.parametrize("x_shape,w_shape,kwargs", CONV1D_CASES, ids=_case_ids(CONV1D_CASES))
@pytest.mark.filterwarnings("ignore:Using padding='same'")
def test_conv1d_matches_torch(backend: str, torch_ref, x_shape, w_shape, kwargs) -> None:
    x, w, b = _conv_inputs(x_shape, w_shape)
    compare_with_torch(
        torch_ref,
        lambda x, w, b: F.conv1d(x, w, b, **kwargs),
        lambda x, w, b: torch_ref.nn.functional.conv1d(x, w, b, **kwargs),
        [x, w, b], grad=[0, 1, 2],
    )


@conv
def test_conv2d_on_a_permuted_input_without_bias(backend: str, torch_ref) -> None:
    x, w, _ = _conv_inputs((2, 5, 4, 3), (2, 3, 2, 2))
    compare_with_torch(
        torch_ref,
        lambda x, w: F.conv2d(x.permute(0, 3, 1, 2), w, stride=1, padding=1),
        lambda x, w: torch_ref.nn.functional.conv2d(x.permute(0, 3, 1, 2), w, stride=1, padding=1),
        [x, w], grad=[0, 1],
    )


@conv
@pytest.mark.parametrize("kwargs", [{"stride": 2, "padding": 1}, {"dilation": 2, "groups": 2}])
def test_conv2d_gradcheck(backend: str, kwargs) -> None:
    rng = np.random.default_rng(2)
    x = ours(rng.standard_normal((1, 2, 5, 5)), grad=True)
    w = ours(rng.standard_normal((2, 2 // kwargs.get("groups", 1), 2, 2)), grad=True)
    b = ours(rng.standard_normal(2), grad=True)
    gradcheck(lambda x, w, b: F.conv2d(x, w, b, **kwargs), x, w, b)


@conv
def test_conv1d_gradcheck(backend: str) -> None:
    rng = np.random.default_rng(3)
    x, w = ours(rng.standard_normal((2, 2, 6)), grad=True), ours(rng.standard_normal((3, 2, 3)), grad=True)
    gradcheck(lambda x, w: F.conv1d(x, w, stride=2, padding=1), x, w)


@conv
def test_conv2d_float32_large_matches_torch(torch_ref) -> None:
    """A CNN-sized float32 case on the Numba backend (parallel kernels) agrees with PyTorch."""
    rng = np.random.default_rng(4)
    x = rng.standard_normal((8, 3, 16, 16)).astype(np.float32)
    w = rng.standard_normal((8, 3, 3, 3)).astype(np.float32)
    mx, mw = minitorch.tensor(x, requires_grad=True), minitorch.tensor(w, requires_grad=True)
    tx, tw = torch_ref.tensor(x, requires_grad=True), torch_ref.tensor(w, requires_grad=True)
    out, ref = F.conv2d(mx, mw, padding=1), torch_ref.nn.functional.conv2d(tx, tw, padding=1)
    np.testing.assert_allclose(values(out), ref.detach().numpy(), rtol=1e-4, atol=1e-4)
    out.sum().backward()
    ref.sum().backward()
    np.testing.assert_allclose(values(mx.grad), tx.grad.numpy(), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(values(mw.grad), tw.grad.numpy(), rtol=1e-4, atol=1e-3)


CONV_ERRORS = [
    ("rank", lambda f, t: f.conv2d(t.zeros(2, 3), t.zeros(4, 3, 3, 3))),
    ("channels", lambda f, t: f.conv2d(t.zeros(1, 4, 8, 8), t.zeros(16, 3, 3, 3))),
    ("kernel_too_big", lambda f, t: f.conv2d(t.zeros(1, 3, 2, 2), t.zeros(16, 3, 3, 3))),
    ("groups", lambda f, t: f.conv2d(t.zeros(1, 4, 8, 8), t.zeros(3, 2, 3, 3), groups=2)),
    ("bias", lambda f, t: f.conv2d(t.zeros(1, 3, 8, 8), t.zeros(4, 3, 3, 3), bias=t.zeros(5))),
    ("rank1d", lambda f, t: f.conv1d(t.zeros(1, 3, 8, 8), t.zeros(4, 3, 3))),
    ("channels1d", lambda f, t: f.conv1d(t.zeros(3, 8), t.zeros(4, 2, 3))),
]


@conv
@pytest.mark.parametrize("name,call", CONV_ERRORS, ids=[n for n, _ in CONV_ERRORS])
def test_conv_errors_match_torch(torch_ref, name: str, call) -> None:
    assert_same_error(lambda: call(F, minitorch), lambda: call(torch_ref.nn.functional, torch_ref))


# ---------------------------------------------------------------- pooling

MAX_POOL_CASES = [
    {"kernel_size": 2},
    {"kernel_size": 3, "stride": 2, "padding": 1},
    {"kernel_size": (2, 3), "stride": (1, 2), "dilation": (2, 1)},
    {"kernel_size": 3, "stride": 2, "ceil_mode": True},
    {"kernel_size": 2, "stride": 2, "padding": 1, "ceil_mode": True},
]


def distinct_values(shape: tuple[int, ...], seed: int = 0) -> np.ndarray:
    """No ties (so the maximum's gradient is unambiguous) and no two values within 0.1."""
    n = int(np.prod(shape))
    return (np.random.default_rng(seed).permutation(n) * 0.1 - n * 0.05).reshape(shape)


@pooling
@pytest.mark.parametrize("kwargs", MAX_POOL_CASES, ids=[str(k) for k in MAX_POOL_CASES])
def test_max_pool2d_matches_torch(backend: str, torch_ref, kwargs) -> None:
    compare_with_torch(
        torch_ref,
        lambda x: F.max_pool2d(x, **kwargs),
        lambda x: torch_ref.nn.functional.max_pool2d(x, **kwargs),
        [distinct_values((2, 2, 7, 6))], grad=[0],
    )


@pooling
@pytest.mark.parametrize("kwargs", MAX_POOL_CASES[:4], ids=[str(k) for k in MAX_POOL_CASES[:4]])
def test_max_pool2d_indices_match_torch(backend: str, torch_ref, kwargs) -> None:
    x = distinct_values((2, 2, 7, 6), seed=1)
    _, mine = F.max_pool2d(ours(x), return_indices=True, **kwargs)
    _, ref = torch_ref.nn.functional.max_pool2d(torch_ref.tensor(x), return_indices=True, **kwargs)
    assert mine.dtype is minitorch.int64
    np.testing.assert_array_equal(values(mine), ref.numpy())


@pooling
def test_max_pool1d_and_unbatched_match_torch(backend: str, torch_ref) -> None:
    compare_with_torch(
        torch_ref, lambda x: F.max_pool1d(x, 3, 2, 1), lambda x: torch_ref.nn.functional.max_pool1d(x, 3, 2, 1),
        [distinct_values((2, 3, 8))], grad=[0],
    )
    compare_with_torch(
        torch_ref, lambda x: F.max_pool2d(x, 2), lambda x: torch_ref.nn.functional.max_pool2d(x, 2),
        [distinct_values((3, 4, 4))], grad=[0],
    )


@pooling
def test_max_pool2d_gradcheck(backend: str) -> None:
    x = ours(distinct_values((1, 2, 5, 5), seed=2), grad=True)
    gradcheck(lambda t: F.max_pool2d(t, 3, stride=2, padding=1), x)


@pooling
def test_max_pool2d_ties_send_the_gradient_to_one_element(backend: str, torch_ref) -> None:
    x = np.ones((1, 1, 2, 4))
    compare_with_torch(torch_ref, lambda t: F.max_pool2d(t, 2), lambda t: torch_ref.nn.functional.max_pool2d(t, 2), [x], grad=[0])


AVG_POOL_CASES = [
    {"kernel_size": 2},
    {"kernel_size": 3, "stride": 2, "padding": 1},
    {"kernel_size": 3, "stride": 2, "padding": 1, "count_include_pad": False},
    {"kernel_size": 3, "stride": 2, "ceil_mode": True},
    {"kernel_size": 2, "stride": 2, "padding": 1, "ceil_mode": True},
    {"kernel_size": 2, "stride": 2, "padding": 1, "ceil_mode": True, "count_include_pad": False},
    {"kernel_size": (2, 3), "stride": 1, "divisor_override": 5},
]


@pooling
@pytest.mark.parametrize("kwargs", AVG_POOL_CASES, ids=[str(k) for k in AVG_POOL_CASES])
def test_avg_pool2d_matches_torch(backend: str, torch_ref, kwargs) -> None:
    x = np.random.default_rng(3).standard_normal((2, 2, 7, 6))
    compare_with_torch(
        torch_ref, lambda t: F.avg_pool2d(t, **kwargs), lambda t: torch_ref.nn.functional.avg_pool2d(t, **kwargs),
        [x], grad=[0],
    )


@pooling
def test_avg_pool1d_matches_torch(backend: str, torch_ref) -> None:
    x = np.random.default_rng(4).standard_normal((2, 3, 9))
    compare_with_torch(
        torch_ref, lambda t: F.avg_pool1d(t, 4, 3, 2, count_include_pad=False),
        lambda t: torch_ref.nn.functional.avg_pool1d(t, 4, 3, 2, count_include_pad=False), [x], grad=[0],
    )


@pooling
def test_avg_pool2d_gradcheck(backend: str) -> None:
    x = ours(np.random.default_rng(5).standard_normal((1, 1, 5, 4)), grad=True)
    gradcheck(lambda t: F.avg_pool2d(t, 3, 2, 1, ceil_mode=True, count_include_pad=False), x)


@pooling
@pytest.mark.parametrize("size", [1, 2, (3, 2), (None, 3), (4, 5)])
def test_adaptive_avg_pool2d_matches_torch(backend: str, torch_ref, size) -> None:
    x = np.random.default_rng(6).standard_normal((2, 3, 7, 5))
    compare_with_torch(
        torch_ref, lambda t: F.adaptive_avg_pool2d(t, size), lambda t: torch_ref.nn.functional.adaptive_avg_pool2d(t, size),
        [x], grad=[0],
    )


@pooling
def test_adaptive_avg_pool_gradcheck_and_1d(backend: str, torch_ref) -> None:
    x = ours(np.random.default_rng(7).standard_normal((1, 2, 5, 3)), grad=True)
    gradcheck(lambda t: F.adaptive_avg_pool2d(t, (2, 2)), x)
    y = np.random.default_rng(8).standard_normal((2, 7))
    compare_with_torch(
        torch_ref, lambda t: F.adaptive_avg_pool1d(t, 3), lambda t: torch_ref.nn.functional.adaptive_avg_pool1d(t, 3), [y], grad=[0]
    )


POOL_ERRORS = [
    ("max_rank", lambda f, t: f.max_pool2d(t.zeros(3, 8), 2)),
    ("max_pad", lambda f, t: f.max_pool2d(t.zeros(1, 1, 8, 8), 3, padding=2)),
    ("max_small", lambda f, t: f.max_pool2d(t.zeros(1, 1, 2, 2), 3)),
    ("avg_small", lambda f, t: f.avg_pool2d(t.zeros(1, 1, 2, 2), 3)),
    ("adaptive_rank", lambda f, t: f.adaptive_avg_pool2d(t.zeros(3), 2)),
]


@pooling
@pytest.mark.parametrize("name,call", POOL_ERRORS, ids=[n for n, _ in POOL_ERRORS])
def test_pool_errors_match_torch(torch_ref, name: str, call) -> None:
    assert_same_error(lambda: call(F, minitorch), lambda: call(torch_ref.nn.functional, torch_ref))

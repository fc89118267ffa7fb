"""Activations (5.1), softmax and log-softmax (5.2), linear (5.1): outputs and gradients against
PyTorch, gradient checks by central differences, stability at extreme inputs."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from gradcheck import gradcheck
from layer_helpers import assert_same_error, compare_with_torch, ours, values

import minitorch
import minitorch.nn.functional as F

activations = pytest.mark.task("5.1")
softmaxes = pytest.mark.task("5.2")

#: name -> (ours, torch's) as functions of (F-module, x)
ACTIVATIONS = {
    "relu": lambda f, x: f.relu(x),
    "leaky_relu": lambda f, x: f.leaky_relu(x, 0.2),
    "gelu": lambda f, x: f.gelu(x),
    "gelu_tanh": lambda f, x: f.gelu(x, approximate="tanh"),
    "silu": lambda f, x: f.silu(x),
    "sigmoid": lambda f, x: f.sigmoid(x),
    "tanh": lambda f, x: f.tanh(x),
    "softplus": lambda f, x: f.softplus(x, beta=2.0, threshold=3.0),
}
SOFTMAXES = {
    "softmax_last": lambda f, x: f.softmax(x, dim=-1),
    "softmax_0": lambda f, x: f.softmax(x, dim=0),
    "log_softmax_last": lambda f, x: f.log_softmax(x, dim=-1),
    "log_softmax_1": lambda f, x: f.log_softmax(x, dim=1),
}
#: the exact GELU uses an erf accurate to about 1e-7 (relative)
GELU_TOLERANCE = {"atol": 2e-7, "rtol": 2e-7}


def inputs(shape: tuple[int, ...] = (3, 4, 5), seed: int = 0) -> np.ndarray:
    """Values spread over [-3, 3], none within 0.05 of the kinks at 0."""
    x = np.random.default_rng(seed).uniform(-3.0, 3.0, size=shape)
    return np.where(np.abs(x) < 0.05, 0.3, x)


@activations
@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activation_matches_torch(backend: str, torch_ref, name: str) -> None:
    fn = ACTIVATIONS[name]
    tol = GELU_TOLERANCE if name == "gelu" else {}
    compare_with_torch(
        torch_ref, lambda x: fn(F, x), lambda x: fn(torch_ref.nn.functional, x), [inputs((2, 3, 4))], grad=[0], **tol
    )


@activations
@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activation_gradcheck(backend: str, name: str) -> None:
    x = ours(inputs((2, 5), seed=1), grad=True)
    gradcheck(lambda t: ACTIVATIONS[name](F, t), x)


@activations
def test_activation_on_a_permuted_input(backend: str, torch_ref) -> None:
    compare_with_torch(
        torch_ref, lambda x: F.gelu(x.permute(2, 0, 1)), lambda x: torch_ref.nn.functional.gelu(x.permute(2, 0, 1)),
        [inputs()], grad=[0], **GELU_TOLERANCE,
    )


@activations
def test_relu_inplace_overwrites_input(backend: str) -> None:
    x = minitorch.tensor([-1.0, 2.0, -3.0])
    out = F.relu(x, inplace=True)
    assert out is x
    assert x.tolist() == [0.0, 2.0, 0.0]


@activations
def test_gelu_rejects_unknown_approximation() -> None:
    with pytest.raises(RuntimeError, match="approximate argument must be either none or tanh"):
        F.gelu(minitorch.zeros(2), approximate="fast")


@activations
@pytest.mark.parametrize("x_shape", [(2, 3, 4), (3, 4)])  # a batch of rows is one fused (addmm) node
@pytest.mark.parametrize("bias", [True, False])
def test_linear_matches_torch(backend: str, torch_ref, bias: bool, x_shape: tuple[int, ...]) -> None:
    rng = np.random.default_rng(2)
    x, w, b = rng.standard_normal(x_shape), rng.standard_normal((5, 4)), rng.standard_normal(5)
    if bias:
        compare_with_torch(torch_ref, F.linear, torch_ref.nn.functional.linear, [x, w, b], grad=[0, 1, 2])
    else:
        compare_with_torch(torch_ref, F.linear, torch_ref.nn.functional.linear, [x, w], grad=[0, 1])


@activations
def test_linear_gradcheck(backend: str) -> None:
    rng = np.random.default_rng(3)
    x, w, b = (ours(rng.standard_normal(s), grad=True) for s in ((3, 2), (4, 2), (4,)))
    gradcheck(F.linear, x, w, b)


def test_linear_second_derivatives(backend: str) -> None:
    """Gradients taken with create_graph through a batch of rows (one addmm node) are differentiable."""
    rng = np.random.default_rng(3)
    x, w, b = (ours(rng.standard_normal(s), grad=True) for s in ((3, 2), (4, 2), (4,)))

    def first_derivatives(*args: minitorch.Tensor) -> minitorch.Tensor:
        with minitorch.enable_grad():
            leaves = [a if a.requires_grad else a.detach().requires_grad_() for a in args]
            grads = minitorch.autograd.grad((F.linear(*leaves) ** 2).sum(), leaves, create_graph=True)
            return grads[0].sum() + grads[1].sum() + grads[2].sum()

    gradcheck(first_derivatives, x, w, b)


@activations
def test_linear_shape_error_matches_torch(torch_ref) -> None:
    assert_same_error(
        lambda: F.linear(minitorch.zeros(2, 3), minitorch.zeros(4, 5)),
        lambda: torch_ref.nn.functional.linear(torch_ref.zeros(2, 3), torch_ref.zeros(4, 5)),
    )


@softmaxes
@pytest.mark.parametrize("name", sorted(SOFTMAXES))
def test_softmax_matches_torch(backend: str, torch_ref, name: str) -> None:
    fn = SOFTMAXES[name]
    compare_with_torch(torch_ref, lambda x: fn(F, x), lambda x: fn(torch_ref.nn.functional, x), [inputs()], grad=[0])


@softmaxes
@pytest.mark.parametrize("name", sorted(SOFTMAXES))
def test_softmax_gradcheck(backend: str, name: str) -> None:
    x = ours(inputs((2, 3, 2), seed=4), grad=True)
    gradcheck(lambda t: SOFTMAXES[name](F, t), x)


@softmaxes
@pytest.mark.parametrize("scale", [1e4, -1e4])
def test_softmax_is_stable_at_extremes(backend: str, torch_ref, scale: float) -> None:
    x = np.array([[1.0, 0.5, -1.0], [0.0, 0.0, 1.0]]) * scale
    for name in ("softmax_last", "log_softmax_last"):
        fn = SOFTMAXES[name]
        compare_with_torch(torch_ref, lambda t: fn(F, t), lambda t: fn(torch_ref.nn.functional, t), [x], grad=[0])
        out = fn(F, ours(x))
        assert np.all(np.isfinite(values(out))), f"{name} not finite at {scale}"


@softmaxes
def test_softmax_float32_extremes_are_finite(backend: str) -> None:
    x = minitorch.tensor([[1e4, -1e4, 0.0]], dtype=minitorch.float32)
    np.testing.assert_allclose(values(F.softmax(x, dim=1)), [[1.0, 0.0, 0.0]])
    np.testing.assert_allclose(values(F.log_softmax(x, dim=1)), [[0.0, -2e4, -1e4]], rtol=1e-6)


@softmaxes
def test_softmax_rows_sum_to_one_and_keep_dtype(backend: str) -> None:
    x = minitorch.randn(4, 6)
    y = F.softmax(x, dim=1)
    assert y.dtype is minitorch.float32
    np.testing.assert_allclose(values(y.sum(1)), np.ones(4), rtol=1e-6)


@softmaxes
def test_softmax_without_dim_warns_and_picks_torch_dim(torch_ref) -> None:
    x = inputs((2, 3))
    with pytest.warns(UserWarning, match="Implicit dimension choice"):
        mine = F.softmax(ours(x))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = torch_ref.nn.functional.softmax(torch_ref.tensor(x))
    np.testing.assert_allclose(values(mine), ref.numpy(), rtol=1e-12)


@softmaxes
def test_softmax_dtype_argument(backend: str) -> None:
    y = F.log_softmax(minitorch.tensor([1.0, 2.0]), dim=0, dtype=minitorch.float64)
    assert y.dtype is minitorch.float64

"""Second derivatives (``grad(..., create_graph=True)`` then backward) through ops whose backward
writes raw memory: slices and selects, window views (conv, pooling), and
``prod`` at zeros. PyTorch is the oracle, in float64.

Was: the gradient through a slice did not require grad (its graph was lost), so a gradient
penalty or a Hessian-vector product through ``x[:3]`` or a conv failed or came out wrong.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, Callable

import numpy as np
import pytest

import minitorch

F = minitorch.nn.functional
RNG = np.random.default_rng(7)
X6 = np.array([1.5, 0.5, 1.0, 2.0, 3.0, -1.5])
V6 = RNG.standard_normal(6)
IMAGE = RNG.standard_normal((2, 1, 6, 6))
KERNEL = RNG.standard_normal((3, 1, 3, 3))

CASES: dict[str, tuple[np.ndarray, Callable[[ModuleType, Any], Any]]] = {
    "slice": (X6, lambda lib, w: (w[:3] ** 2 * w[3:]).sum()),
    "select": (X6, lambda lib, w: w[0] * (w * w).sum()),
    "step_slice": (X6, lambda lib, w: (w[::2] ** 3).sum()),
    "reshape_then_select": (X6, lambda lib, w: (w.reshape(2, 3)[1] ** 2 * w[:3]).sum()),
    "prod_along_dim_and_slice": (X6, lambda lib, w: (w.reshape(2, 3).prod(0) * w[:3]).sum()),
    "prod_lone_zero": (np.array([0.0, 0.5, 1.0, 2.0]), lambda lib, w: w.prod() + (w**3).prod()),
    "prod_two_zeros": (np.array([0.0, 0.5, 0.0, 2.0]), lambda lib, w: w.prod()),
    "prod_dim_with_zeros": (np.array([0.0, 0.5, 0.0, 2.0, 1.0, 0.0]), lambda lib, w: w.reshape(2, 3).prod(1, keepdim=True).sum()),
    "unfold": (X6, lambda lib, w: (w.unfold(0, 3, 2) ** 2).prod(1).sum()),
    "conv2d": (IMAGE, lambda lib, x: lib.nn.functional.conv2d(x, lib.tensor(KERNEL), padding=1).tanh().sum()),
    "max_pool2d": (IMAGE, lambda lib, x: (lib.nn.functional.max_pool2d(x, 2) ** 3).sum()),
    "avg_pool2d": (IMAGE, lambda lib, x: (lib.nn.functional.avg_pool2d(x, 2, stride=1) ** 3).sum()),
    "conv_transpose2d": (IMAGE, lambda lib, x: lib.nn.functional.conv_transpose2d(
        x, lib.tensor(KERNEL.transpose(1, 0, 2, 3)), stride=2).tanh().sum()),
}


@pytest.mark.parametrize("name", list(CASES))
def test_hessian_vector_product_matches_torch(name: str, torch_ref: ModuleType) -> None:
    values, function = CASES[name]
    direction = np.random.default_rng(len(name)).standard_normal(values.shape)

    def run(lib: ModuleType) -> tuple[np.ndarray, np.ndarray, bool]:
        x = lib.tensor(values, dtype=lib.float64, requires_grad=True)
        (g,) = lib.autograd.grad(function(lib, x), x, create_graph=True)
        recorded = g.requires_grad
        (hv,) = lib.autograd.grad(g, x, grad_outputs=lib.tensor(direction, dtype=lib.float64))
        return g.detach().numpy(), hv.numpy(), recorded

    ours, theirs = run(minitorch), run(torch_ref)
    assert ours[2] and theirs[2]  # the gradient is itself differentiable
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-11, atol=1e-12)


def test_gradient_penalty_of_a_conv_critic_matches_torch(torch_ref: ModuleType) -> None:
    """WGAN-GP: the norm of the critic's input gradient, trained through (double backward)."""
    def run(lib: ModuleType) -> list[np.ndarray]:
        x = lib.tensor(IMAGE, requires_grad=True)
        w = lib.tensor(KERNEL, requires_grad=True)
        score = lib.nn.functional.max_pool2d(lib.nn.functional.conv2d(x, w, padding=1).tanh(), 2).sum()
        (g,) = lib.autograd.grad(score, x, create_graph=True)
        penalty = ((g.reshape(2, -1).norm(2, dim=1) - 1) ** 2).mean()
        penalty.backward()
        return [g.detach().numpy(), w.grad.numpy(), x.grad.numpy()]

    for a, b in zip(run(minitorch), run(torch_ref)):
        np.testing.assert_allclose(a, b, rtol=1e-11, atol=1e-12)


def test_node_name_of_a_slice_backward_matches_torch(torch_ref: ModuleType) -> None:
    def name(lib: ModuleType) -> str:
        w = lib.tensor(X6, requires_grad=True)
        (g,) = lib.autograd.grad((w[:3] ** 2).sum(), w, create_graph=True)
        return type(g.grad_fn).__name__

    assert name(minitorch) == name(torch_ref) == "SliceBackwardBackward0"


def test_first_order_backward_builds_no_graph() -> None:
    """Without create_graph the raw scatter runs alone: the gradient is a plain tensor."""
    w = minitorch.tensor(X6, requires_grad=True)
    (w[:3] ** 2).sum().backward()
    assert w.grad is not None and not w.grad.requires_grad and w.grad.grad_fn is None

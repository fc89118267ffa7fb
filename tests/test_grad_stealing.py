"""An empty ``.grad`` takes the engine's gradient itself when nothing else holds it (as
PyTorch's AccumulateGrad steals it), and a copy whenever anything else could see it.

The copies are counted on the CPU backend's ``map`` (``copy`` is the op that makes them);
the values are checked against NumPy; "shared" means two arrays share memory.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

import minitorch as torch
from minitorch.backends import backend_for


@pytest.fixture
def copies(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, ...]]:
    """The shapes of the copies the CPU backend makes while the test runs."""
    backend = backend_for("cpu")
    made: list[tuple[int, ...]] = []
    original = backend.map

    def counting_map(op: str, a: Any, out: Any) -> None:
        if op == "copy":
            made.append(a.shape)
        original(op, a, out)

    monkeypatch.setattr(backend, "map", counting_map)
    return made


def _shared(x: torch.Tensor, y: torch.Tensor) -> bool:
    return bool(np.shares_memory(x.numpy(), y.numpy()))


def test_a_linear_layers_gradients_become_grad_without_a_copy(copies: list) -> None:
    torch.manual_seed(0)
    layer = torch.nn.Linear(5, 3)
    x = torch.randn(4, 5)
    upstream = np.arange(12, dtype=np.float32).reshape(4, 3)
    loss = (layer(x) * torch.tensor(upstream)).sum()
    copies.clear()  # the layer's initialisation copies
    loss.backward()
    assert copies == []
    np.testing.assert_allclose(layer.weight.grad.numpy(), upstream.T @ x.numpy(), rtol=1e-6)
    np.testing.assert_allclose(layer.bias.grad.numpy(), upstream.sum(0), rtol=1e-6)
    # laid out as the weight is (PyTorch's layout contract), and a tensor of its own
    assert layer.weight.grad.stride() == layer.weight.stride() == (5, 1)
    assert layer.weight.grad._base is None and layer.bias.grad._base is None
    assert not _shared(layer.weight.grad, layer.weight.detach())


def test_the_next_backward_adds_into_the_taken_gradient(copies: list) -> None:
    w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    loss = (w * 2).sum()
    copies.clear()
    loss.backward()
    assert copies == []
    first = w.grad
    (w * w).sum().backward()
    assert w.grad is first  # accumulated in place, as PyTorch does
    np.testing.assert_array_equal(w.grad.numpy(), [2 + 2, 2 + 4, 2 + 6])


def test_one_gradient_sent_to_two_leaves_is_copied_for_one_of_them() -> None:
    a = torch.zeros(3, requires_grad=True)
    b = torch.zeros(3, requires_grad=True)
    ((a + b) * 2).sum().backward()  # AddBackward0 hands the same tensor to both leaves
    assert not _shared(a.grad, b.grad)
    a.grad.add_(1)
    np.testing.assert_array_equal(b.grad.numpy(), [2, 2, 2])


def test_a_gradient_the_caller_passed_in_is_copied() -> None:
    x = torch.zeros(3, requires_grad=True)
    gradient = torch.ones(3)
    x.clone().backward(gradient)  # CloneBackward0 passes the caller's tensor on as it is
    assert not _shared(x.grad, gradient)
    gradient.add_(5)
    np.testing.assert_array_equal(x.grad.numpy(), [1, 1, 1])
    leaf = torch.zeros(3, requires_grad=True)
    leaf.backward(gradient)  # the caller's tensor reaches the leaf directly
    assert not _shared(leaf.grad, gradient)
    np.testing.assert_array_equal(leaf.grad.numpy(), [6, 6, 6])


def test_a_view_of_the_callers_gradient_is_copied() -> None:
    x = torch.zeros(2, 3, requires_grad=True)
    gradient = torch.arange(6.0).view(3, 2)
    x.t().backward(gradient)  # TBackward0 returns a transposed view of the caller's tensor
    assert not _shared(x.grad, gradient)
    np.testing.assert_array_equal(x.grad.numpy(), np.arange(6.0).reshape(3, 2).T)
    assert x.grad.is_contiguous()


def test_a_gradient_a_hook_kept_is_copied() -> None:
    w = torch.zeros(3, requires_grad=True)
    kept: list[torch.Tensor] = []
    w.register_hook(kept.append)
    (w * 3).sum().backward()
    assert not _shared(w.grad, kept[0])
    kept[0].add_(1)
    np.testing.assert_array_equal(w.grad.numpy(), [3, 3, 3])


def test_slices_of_one_gradient_are_copied() -> None:
    first = torch.zeros(2, requires_grad=True)
    second = torch.zeros(3, requires_grad=True)
    (torch.cat([first, second]) * torch.arange(5.0)).sum().backward()
    assert not _shared(first.grad, second.grad)
    np.testing.assert_array_equal(first.grad.numpy(), [0, 1])
    np.testing.assert_array_equal(second.grad.numpy(), [2, 3, 4])
    assert first.grad._base is None and second.grad._base is None


def test_a_broadcast_gradient_is_copied_into_a_tensor_of_its_own() -> None:
    w = torch.zeros(2, 3, requires_grad=True)
    w.sum().backward()  # SumBackward0 expands a 0-d gradient: stride 0 everywhere
    assert w.grad.stride() == (3, 1)
    w.grad.add_(torch.arange(6.0).view(2, 3))
    np.testing.assert_array_equal(w.grad.numpy(), 1 + np.arange(6.0).reshape(2, 3))


@pytest.mark.parametrize("make_graph", [
    lambda w: (w * 2).sum(),
    lambda w: (w.t() * 2).sum(),
    lambda w: w.view(6).mul(2).sum(),
], ids=["fresh", "transposed view", "reshaped view"])
def test_autograd_grad_never_touches_grad(make_graph: Callable[[torch.Tensor], torch.Tensor]) -> None:
    w = torch.zeros(2, 3, requires_grad=True)
    (found,) = torch.autograd.grad(make_graph(w), [w])
    assert w.grad is None
    np.testing.assert_array_equal(found.numpy(), np.full((2, 3), 2.0))


def test_with_create_graph_the_gradient_keeps_its_graph() -> None:
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    (w * w).sum().backward(create_graph=True)
    assert w.grad.grad_fn is not None
    w.grad.sum().backward()
    np.testing.assert_array_equal(w.grad.detach().numpy(), [2 + 2, 4 + 2])


@pytest.mark.parametrize("transposed", ["a", "b", "both"])
def test_a_products_gradients_are_laid_out_as_its_operands(transposed: str, copies: list) -> None:
    """``x @ w.t()`` written out: ``w.grad`` comes out row-major like ``w`` and is taken
    without a copy; the values are NumPy's."""
    rng = np.random.default_rng(3)
    a_values = rng.standard_normal((4, 5)).astype(np.float32)
    b_values = rng.standard_normal((5, 3)).astype(np.float32)
    a_leaf = torch.tensor(a_values.T.copy() if transposed in ("a", "both") else a_values, requires_grad=True)
    b_leaf = torch.tensor(b_values.T.copy() if transposed in ("b", "both") else b_values, requires_grad=True)
    a = a_leaf.t() if transposed in ("a", "both") else a_leaf
    b = b_leaf.t() if transposed in ("b", "both") else b_leaf
    upstream = rng.standard_normal((4, 3)).astype(np.float32)
    loss = (a @ b * torch.tensor(upstream)).sum()
    copies.clear()
    loss.backward()
    assert copies == []
    grad_a, grad_b = upstream @ b_values.T, a_values.T @ upstream
    if transposed in ("a", "both"):
        grad_a = grad_a.T
    if transposed in ("b", "both"):
        grad_b = grad_b.T
    np.testing.assert_allclose(a_leaf.grad.numpy(), grad_a, rtol=1e-5)
    np.testing.assert_allclose(b_leaf.grad.numpy(), grad_b, rtol=1e-5)
    assert a_leaf.grad.stride() == a_leaf.stride() and b_leaf.grad.stride() == b_leaf.stride()

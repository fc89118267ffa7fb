"""Losses computed from several ops record one node, named and linked as PyTorch's; and the
``keepdims`` spelling of reductions. PyTorch is the oracle."""

from __future__ import annotations

from types import ModuleType
from typing import Any, Callable

import numpy as np
import pytest

import minitorch

Loss = Callable[[ModuleType, Any, Any], Any]

LOSSES: dict[str, Loss] = {
    "mse": lambda lib, x, y: lib.nn.functional.mse_loss(x, y),
    "mse_sum": lambda lib, x, y: lib.nn.functional.mse_loss(x, y, reduction="sum"),
    "mse_none": lambda lib, x, y: lib.nn.functional.mse_loss(x, y, reduction="none"),
    "mse_module": lambda lib, x, y: lib.nn.MSELoss()(x, y),
    "smooth_l1": lambda lib, x, y: lib.nn.functional.smooth_l1_loss(x, y, beta=0.5),
    "huber": lambda lib, x, y: lib.nn.functional.huber_loss(x, y, delta=0.7),
    "bce": lambda lib, x, y: lib.nn.functional.binary_cross_entropy(x.sigmoid(), y),
    "bce_weighted": lambda lib, x, y: lib.nn.functional.binary_cross_entropy(x.sigmoid(), y, weight=y + 1),
    "bce_logits": lambda lib, x, y: lib.nn.functional.binary_cross_entropy_with_logits(x, y),
    "bce_logits_pos_weight": lambda lib, x, y: lib.nn.BCEWithLogitsLoss(pos_weight=lib.tensor([2.0, 0.5, 1.0],
                                                                        dtype=lib.float64))(x, y),
    "l1": lambda lib, x, y: lib.nn.functional.l1_loss(x, y),  # composite in PyTorch as well
}

INPUT = [[0.3, -1.2, 2.0], [1.5, 0.1, -0.4]]
TARGET = [[0.0, 1.0, 1.0], [1.0, 0.0, 1.0]]


def _run(lib: ModuleType, name: str) -> tuple[Any, Any, Any]:
    x = lib.tensor(INPUT, dtype=lib.float64, requires_grad=True)
    y = lib.tensor(TARGET, dtype=lib.float64)
    return x, y, LOSSES[name](lib, x, y)


def _names(out: Any) -> tuple[str, list[Any]]:
    node = out.grad_fn
    return type(node).__name__, [None if n is None else type(n).__name__ for n, _ in node.next_functions]


@pytest.mark.parametrize("name", list(LOSSES))
def test_loss_node_is_named_and_linked_as_torch(name: str, torch_ref: ModuleType) -> None:
    assert _names(_run(minitorch, name)[2]) == _names(_run(torch_ref, name)[2])


@pytest.mark.parametrize("name", list(LOSSES))
def test_loss_value_and_gradient_match_torch(name: str, torch_ref: ModuleType) -> None:
    results = []
    for lib in (minitorch, torch_ref):
        x, _, out = _run(lib, name)
        out.sum().backward()
        results.append((np.asarray(out.detach().tolist()), np.asarray(x.grad.tolist())))
    (value, grad), (value_ref, grad_ref) = results
    np.testing.assert_allclose(value, value_ref, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(grad, grad_ref, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name", ["mse", "huber", "bce_logits"])
def test_second_derivative_through_a_loss_matches_torch(name: str, torch_ref: ModuleType) -> None:
    """Under create_graph the loss's gradient is differentiable again (a gradient penalty)."""
    results = []
    for lib in (minitorch, torch_ref):
        x, _, out = _run(lib, name)
        (first,) = lib.autograd.grad(out.sum(), x, create_graph=True)
        (first * first).sum().backward()
        results.append(np.asarray(x.grad.tolist()))
    np.testing.assert_allclose(results[0], results[1], rtol=1e-12, atol=1e-14)


def test_backward_twice_with_retain_graph_accumulates_as_torch(torch_ref: ModuleType) -> None:
    grads = []
    for lib in (minitorch, torch_ref):
        x, _, out = _run(lib, "mse")
        out.backward(retain_graph=True)
        out.backward()
        grads.append(np.asarray(x.grad.tolist()))
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-12)


def test_the_target_gets_its_gradient_when_it_requires_one(torch_ref: ModuleType) -> None:
    grads = []
    for lib in (minitorch, torch_ref):
        x = lib.tensor(INPUT, dtype=lib.float64, requires_grad=True)
        y = lib.tensor(TARGET, dtype=lib.float64, requires_grad=True)
        lib.nn.functional.mse_loss(x, y).backward()
        grads.append((np.asarray(x.grad.tolist()), np.asarray(y.grad.tolist())))
    for mine, theirs in zip(grads[0], grads[1]):
        np.testing.assert_allclose(mine, theirs, rtol=1e-12)


def test_no_node_without_grad() -> None:
    x = minitorch.tensor(INPUT, dtype=minitorch.float64)
    assert minitorch.nn.functional.mse_loss(x, x * 2).grad_fn is None


REDUCTIONS = ["sum", "prod", "mean", "var", "std", "amax", "amin", "argmax", "argmin", "all", "any", "logsumexp", "median"]


@pytest.mark.parametrize("name", REDUCTIONS)
@pytest.mark.parametrize("where", ["method", "function"])
def test_keepdims_is_keepdim_as_in_torch(name: str, where: str, torch_ref: ModuleType) -> None:
    results = []
    for lib in (minitorch, torch_ref):
        x = lib.tensor([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]], dtype=lib.float64)
        call = getattr(x, name) if where == "method" else (lambda *a, **k: getattr(lib, name)(x, *a, **k))
        out = call(1, keepdims=True)
        out = out[0] if isinstance(out, tuple) else out
        results.append((tuple(out.shape), out.tolist()))
    assert results[0] == results[1]


def test_max_with_keepdims_returns_values_and_indices_as_torch(torch_ref: ModuleType) -> None:
    outs = [lib.tensor([[1.0, 5.0], [4.0, 2.0]]).max(1, keepdims=True) for lib in (minitorch, torch_ref)]
    assert [(o.values.tolist(), o.indices.tolist()) for o in outs][0] == (outs[1].values.tolist(), outs[1].indices.tolist())


def test_keepdim_and_keepdims_together_is_an_error() -> None:
    with pytest.raises(TypeError, match="keepdim and keepdims"):
        minitorch.ones(2, 2).sum(1, keepdim=True, keepdims=True)


@pytest.mark.parametrize("call", [
    lambda lib, x, w: lib.nn.functional.binary_cross_entropy(x.sigmoid(), x.detach().sigmoid(), weight=w),
    lambda lib, x, w: lib.nn.functional.binary_cross_entropy_with_logits(x, x.detach().sigmoid(), weight=w),
    lambda lib, x, w: lib.nn.functional.binary_cross_entropy_with_logits(x, x.detach().sigmoid(), pos_weight=w),
])
def test_a_weight_that_requires_grad_is_refused_as_torch(call: Any, torch_ref: ModuleType) -> None:
    messages = []
    for lib in (minitorch, torch_ref):
        x = lib.tensor(INPUT, requires_grad=True)
        with pytest.raises(RuntimeError) as caught:
            call(lib, x, lib.ones(2, 3, requires_grad=True))
        messages.append(str(caught.value))
    assert messages[0] == messages[1]


@pytest.mark.parametrize("name", ["addcmul", "addcdiv"])
def test_addcmul_and_addcdiv_are_one_node_as_in_torch(name: str, torch_ref: ModuleType) -> None:
    results = []
    for lib in (minitorch, torch_ref):
        a, b, c = (lib.tensor(v, dtype=lib.float64, requires_grad=True) for v in ([1.0, 2.0], [3.0, -1.0], [0.5, 4.0]))
        out = getattr(lib, name)(a, b, c, value=0.3)
        out.sum().backward()
        results.append((_names(out), out.tolist(), [t.grad.tolist() for t in (a, b, c)]))
    assert results[0][0] == results[1][0]
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-12)
    np.testing.assert_allclose(results[0][2], results[1][2], rtol=1e-12)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_nll_loss_is_one_node_as_in_torch(reduction: str, torch_ref: ModuleType) -> None:
    results = []
    for lib in (minitorch, torch_ref):
        x = lib.tensor(INPUT, dtype=lib.float64, requires_grad=True)
        out = lib.nn.functional.nll_loss(lib.nn.functional.log_softmax(x, 1), lib.tensor([2, -100]),
                                         weight=lib.tensor([1.0, 2.0, 0.5], dtype=lib.float64), reduction=reduction)
        out.sum().backward()
        results.append((_names(out), np.asarray(out.tolist()), np.asarray(x.grad.tolist())))
    assert results[0][0] == results[1][0]
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-12)
    np.testing.assert_allclose(results[0][2], results[1][2], rtol=1e-12)

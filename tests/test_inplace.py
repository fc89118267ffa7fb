"""In-place operators and methods against PyTorch: the same script run with both libraries
must give the same values, gradients, version counters and error messages."""

from __future__ import annotations

from types import ModuleType
from typing import Any, Callable

import numpy as np
import pytest

import minitorch

Scenario = Callable[[ModuleType], Any]


def _outcome(scenario: Scenario, lib: ModuleType) -> Any:
    """What the scenario returns, or its error's type and first line."""
    try:
        return scenario(lib)
    except Exception as error:  # noqa: BLE001 - the error is the outcome compared
        return (type(error).__name__, str(error).splitlines()[0])


def _augmented_assignment(lib: ModuleType) -> Any:
    a = lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64)
    alias = a
    a += 1
    a -= 0.5
    a *= lib.tensor([2.0, 3.0, 4.0], dtype=lib.float64)
    a /= 2
    a **= 2
    return alias is a, a._version, a.tolist()


def _sgd_step_under_no_grad(lib: ModuleType) -> Any:
    w = lib.tensor([1.0, -2.0], dtype=lib.float64, requires_grad=True)
    (w * w).sum().backward()
    with lib.no_grad():
        w -= 0.1 * w.grad
    return w.requires_grad, w.is_leaf, w._version, w.tolist()


def _int_plus_float(lib: ModuleType) -> Any:
    x = lib.ones(3, dtype=lib.long)
    x += 0.5


def _int_true_divide(lib: ModuleType) -> Any:
    x = lib.ones(3, dtype=lib.long)
    x /= 2


def _bool_plus_int(lib: ModuleType) -> Any:
    x = lib.zeros(3, dtype=lib.bool)
    x += 1


def _int_exp(lib: ModuleType) -> Any:
    lib.ones(3, dtype=lib.long).exp_()


def _self_cannot_grow(lib: ModuleType) -> Any:
    x = lib.ones(3)
    x += lib.ones(2, 3)


def _other_broadcasts(lib: ModuleType) -> Any:
    x = lib.zeros(2, 3, dtype=lib.float64)
    x += lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64)
    return x.tolist()


def _leaf_outside_no_grad(lib: ModuleType) -> Any:
    w = lib.ones(2, requires_grad=True)
    w += 1


def _view_of_leaf(lib: ModuleType) -> Any:
    w = lib.ones(2, requires_grad=True)
    w[0].add_(1)


def _saved_tensor_modified(lib: ModuleType) -> Any:
    w = lib.ones(2, requires_grad=True)
    v = w * 2
    y = v * v
    v.add_(1)
    y.sum().backward()


def _saved_leaf_modified(lib: ModuleType) -> Any:
    w = lib.ones(2, requires_grad=True)
    a = lib.ones(2)
    y = w * a
    a.add_(1)
    y.sum().backward()


def _chain_on_non_leaf(lib: ModuleType) -> Any:
    w = lib.tensor([0.5, 1.5], dtype=lib.float64, requires_grad=True)
    v = w * 2
    v.add_(1)
    v.exp_()
    v.mul_(w)
    v.sum().backward()
    return v._version, w.grad.tolist()


def _plain_tensor_takes_a_graph(lib: ModuleType) -> Any:
    w = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
    x = lib.zeros(2, dtype=lib.float64)
    x.add_(w * w)
    x.sum().backward()
    return x.requires_grad, x.is_leaf, w.grad.tolist()


def _inplace_through_a_view(lib: ModuleType) -> Any:
    w = lib.ones(2, 3, dtype=lib.float64, requires_grad=True)
    v = w * 2
    row = v[0]
    row.mul_(3)
    (v * lib.arange(6.0, dtype=lib.float64).view(2, 3)).sum().backward()
    return w.grad.tolist(), row._version, v._version, v.tolist()


def _augmented_slice(lib: ModuleType) -> Any:
    w = lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64, requires_grad=True)
    v = w * 1
    v[1:] *= lib.tensor([2.0, 3.0], dtype=lib.float64)
    (v * v).sum().backward()
    return w.grad.tolist(), v.tolist()


def _setitem_of_graph_values(lib: ModuleType) -> Any:
    w = lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64, requires_grad=True)
    x = lib.zeros(3, dtype=lib.float64)
    x[0] = w[2] * 2
    x[1:] = w[:2]
    (x * x).sum().backward()
    return w.grad.tolist(), x.tolist()


def _setitem_into_non_leaf(lib: ModuleType) -> Any:
    w = lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64, requires_grad=True)
    v = w * 2
    v[0] = 5.0
    (v * v).sum().backward()
    return w.grad.tolist()


def _rows_of_a_transpose(lib: ModuleType) -> Any:
    w = lib.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=lib.float64, requires_grad=True)
    v = w.t() * 1
    v[0].mul_(2)
    (v * v).sum().backward()
    return w.grad.tolist()


def _unary_methods(lib: ModuleType) -> Any:
    x = lib.tensor([-1.0, 0.5, 2.0], dtype=lib.float64)
    x.clamp_(0, 1).relu_().sigmoid_().tanh_().neg_().abs_().sqrt_().log_().exp_()
    x.pow_(2).square_().reciprocal_().rsqrt_()
    return x.tolist(), x._version


def _unary_methods_record(lib: ModuleType) -> Any:
    w = lib.tensor([0.3, 0.7], dtype=lib.float64, requires_grad=True)
    v = w + 0
    v.sigmoid_().tanh_().exp_().sqrt_().log_().pow_(3).clamp_(max=1.0)
    v.sum().backward()
    return w.grad.tolist()


def _masked_fill(lib: ModuleType) -> Any:
    x = lib.zeros(2, 3)
    x.masked_fill_(lib.tensor([True, False, True]), 5.0)
    return x.tolist(), x._version


def _masked_fill_records(lib: ModuleType) -> Any:
    w = lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64, requires_grad=True)
    v = w * w
    v.masked_fill_(lib.tensor([True, False, False]), 0.0)
    v.sum().backward()
    return w.grad.tolist()


def _views_share_the_version(lib: ModuleType) -> Any:
    x = lib.ones(3)
    detached, row = x.detach(), x[1:]
    detached.add_(1)
    row.mul_(2)
    return x._version, detached._version, row._version, x.tolist()


def _bool_and_or(lib: ModuleType) -> Any:
    x = lib.tensor([True, True, False])
    x &= lib.tensor([True, False, False])
    x |= lib.tensor([False, False, True])
    return x.tolist(), x._version


def _matmul_rebinds(lib: ModuleType) -> Any:
    x = lib.ones(2, 2)
    alias = x
    x @= lib.ones(2, 2)
    return alias is x, alias._version, x.tolist()


def _uniform_bounds(lib: ModuleType) -> Any:
    x = lib.ones(50, dtype=lib.float64)
    x.uniform_(2, 3)
    return bool(((x >= 2) & (x < 3)).all()), x._version


def _uniform_leaf(lib: ModuleType) -> Any:
    lib.ones(2, requires_grad=True).uniform_()


def _zero_fill_copy(lib: ModuleType) -> Any:
    x = lib.ones(2, 2)
    x.zero_()
    x.fill_(3)
    x.copy_(lib.tensor([1.0, 2.0]))
    return x.tolist(), x._version


SCENARIOS = {f.__name__.lstrip("_"): f for f in [
    _augmented_assignment, _sgd_step_under_no_grad, _int_plus_float, _int_true_divide, _bool_plus_int,
    _int_exp, _self_cannot_grow, _other_broadcasts, _leaf_outside_no_grad, _view_of_leaf,
    _saved_tensor_modified, _saved_leaf_modified, _chain_on_non_leaf, _plain_tensor_takes_a_graph,
    _inplace_through_a_view, _augmented_slice, _setitem_of_graph_values, _setitem_into_non_leaf,
    _rows_of_a_transpose, _unary_methods, _unary_methods_record, _masked_fill, _masked_fill_records,
    _views_share_the_version, _bool_and_or, _matmul_rebinds, _uniform_bounds, _uniform_leaf, _zero_fill_copy,
]}


def _same(ours: Any, theirs: Any) -> bool:
    if isinstance(ours, (list, tuple)) and isinstance(theirs, (list, tuple)):
        return len(ours) == len(theirs) and all(_same(a, b) for a, b in zip(ours, theirs))
    if isinstance(ours, float) and isinstance(theirs, float):
        return bool(np.isclose(ours, theirs, rtol=1e-6, atol=1e-12))
    return ours == theirs


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_inplace_matches_torch(name: str, torch_ref: ModuleType) -> None:
    scenario = SCENARIOS[name]
    ours, theirs = _outcome(scenario, minitorch), _outcome(scenario, torch_ref)
    assert _same(ours, theirs), f"minitorch: {ours!r}\ntorch:     {theirs!r}"


def test_polynomial_training_under_no_grad_moves_the_weights() -> None:
    """The tutorial idiom ``p -= lr * p.grad`` must update the parameter itself."""
    x = minitorch.linspace(-1, 1, 20, dtype=minitorch.float64)
    y = 3 * x - 1
    w = minitorch.zeros(2, dtype=minitorch.float64, requires_grad=True)
    for _ in range(200):
        loss = ((w[0] + w[1] * x - y) ** 2).mean()
        loss.backward()
        with minitorch.no_grad():
            w -= 0.5 * w.grad
            w.grad = None
    assert np.allclose(w.tolist(), [-1.0, 3.0], atol=1e-6)

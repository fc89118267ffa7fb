"""``minitorch.autograd.functional`` (jacobian, hessian, vjp, jvp, vhp, hvp) and the keywords of
``autograd.grad``, against PyTorch (the oracle) in float64, and by central differences."""

from __future__ import annotations

from types import ModuleType
from typing import Any, Callable

import numpy as np
import pytest

import minitorch

X0 = np.array([0.5, -1.0, 2.0])
V3 = np.array([1.0, 2.0, -3.0])


def _vector_function(lib: ModuleType) -> Callable[[Any], Any]:
    return lambda x: lib.stack([x[0] * x[1], x[1].sin() + x[2] ** 2, (x * x).sum()])


def _scalar_function(lib: ModuleType) -> Callable[[Any], Any]:
    return lambda x: (x.exp() * x.roll(1)).sum() + x.prod()


def _pair_function(lib: ModuleType) -> Callable[[Any, Any], Any]:
    return lambda a, b: ((a @ b).tanh(), (a * a).sum(1))


def _numpy(value: Any) -> Any:
    if isinstance(value, tuple):
        return tuple(_numpy(v) for v in value)
    return value.detach().numpy()


def _same(ours: Any, theirs: Any) -> None:
    if isinstance(theirs, tuple):
        assert isinstance(ours, tuple) and len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            _same(a, b)
        return
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(_numpy(ours), _numpy(theirs), rtol=1e-12, atol=1e-14)


def _both(torch_ref: ModuleType, call: Callable[[ModuleType, Callable[[np.ndarray], Any]], Any]) -> None:
    def run(lib: ModuleType) -> Any:
        return call(lib, lambda a: lib.tensor(a, dtype=lib.float64))

    _same(run(minitorch), run(torch_ref))


def test_jacobian_of_a_vector_function(torch_ref: ModuleType) -> None:
    _both(torch_ref, lambda lib, t: lib.autograd.functional.jacobian(_vector_function(lib), t(X0)))


def test_jacobian_matches_central_differences() -> None:
    x = minitorch.tensor(X0, dtype=minitorch.float64)
    jac = minitorch.autograd.functional.jacobian(_vector_function(minitorch), x).numpy()
    step = 1e-6
    f = _vector_function(minitorch)
    for j in range(3):
        e = np.zeros(3)
        e[j] = step
        column = (f(minitorch.tensor(X0 + e)).numpy() - f(minitorch.tensor(X0 - e)).numpy()) / (2 * step)
        np.testing.assert_allclose(jac[:, j], column, rtol=1e-7, atol=1e-8)


def test_jacobian_with_tuple_inputs_and_outputs(torch_ref: ModuleType) -> None:
    a, b = np.arange(6.0).reshape(2, 3) / 7, np.arange(12.0).reshape(3, 4) / 11 - 0.5
    _both(torch_ref, lambda lib, t: lib.autograd.functional.jacobian(_pair_function(lib), (t(a), t(b))))
    # one output, two inputs: a tuple over the inputs
    _both(torch_ref, lambda lib, t: lib.autograd.functional.jacobian(lambda p, q: (p @ q).sum(0), (t(a), t(b))))
    # two outputs, one input: a tuple over the outputs
    _both(torch_ref, lambda lib, t: lib.autograd.functional.jacobian(lambda p: (p.exp(), p.sum()), t(a)))


def test_jacobian_of_an_independent_output_is_zeros_unless_strict(torch_ref: ModuleType) -> None:
    _both(torch_ref, lambda lib, t: lib.autograd.functional.jacobian(lambda p, q: p * 2, (t(X0), t(V3))))
    with pytest.raises(RuntimeError, match="independent of input 1"):
        minitorch.autograd.functional.jacobian(lambda p, q: p * 2, (minitorch.tensor(X0), minitorch.tensor(V3)), strict=True)


def test_hessian_of_a_scalar_function(torch_ref: ModuleType) -> None:
    _both(torch_ref, lambda lib, t: lib.autograd.functional.hessian(_scalar_function(lib), t(X0)))
    # a zero in the product: its second derivatives are exact there too
    _both(torch_ref, lambda lib, t: lib.autograd.functional.hessian(lambda x: x.prod(), t(np.array([0.0, 1.5, -2.0, 0.5]))))
    _both(torch_ref, lambda lib, t: lib.autograd.functional.hessian(lambda x: x.prod(), t(np.array([0.0, 1.5, 0.0, 0.5]))))


def test_hessian_with_tuple_inputs(torch_ref: ModuleType) -> None:
    _both(torch_ref, lambda lib, t: lib.autograd.functional.hessian(lambda p, q: (p.exp() * q).sum() + (q ** 3).sum(),
                                                                     (t(X0), t(V3))))


@pytest.mark.parametrize("which", ["vjp", "jvp"])
def test_vjp_and_jvp(torch_ref: ModuleType, which: str) -> None:
    _both(torch_ref, lambda lib, t: getattr(lib.autograd.functional, which)(_vector_function(lib), t(X0), t(V3)))


@pytest.mark.parametrize("which", ["vhp", "hvp"])
def test_hessian_vector_products(torch_ref: ModuleType, which: str) -> None:
    _both(torch_ref, lambda lib, t: getattr(lib.autograd.functional, which)(_scalar_function(lib), t(X0), t(V3)))


def test_create_graph_keeps_results_differentiable(torch_ref: ModuleType) -> None:
    def run(lib: ModuleType) -> Any:
        x = lib.tensor(X0, dtype=lib.float64, requires_grad=True)
        jac = lib.autograd.functional.jacobian(_vector_function(lib), x, create_graph=True)
        (jac ** 2).sum().backward()
        return jac.detach(), x.grad

    _same(run(minitorch), run(torch_ref))


def test_results_are_detached_and_inputs_untouched() -> None:
    x = minitorch.tensor(X0, requires_grad=True)
    out, grads = minitorch.autograd.functional.vjp(_vector_function(minitorch), x, minitorch.tensor(V3))
    assert not out.requires_grad and not grads.requires_grad and x.grad is None


def test_errors_match_torch(torch_ref: ModuleType) -> None:
    def message(lib: ModuleType, call: Callable[[Any], Any]) -> str:
        with pytest.raises((RuntimeError, TypeError)) as info:
            call(lib)
        return str(info.value)

    calls = [
        lambda lib: lib.autograd.functional.vjp(_vector_function(lib), lib.tensor(X0)),  # v needed
        lambda lib: lib.autograd.functional.jacobian(lambda x: 3, lib.tensor(X0)),  # not a tensor
        lambda lib: lib.autograd.functional.jacobian(_vector_function(lib), [lib.tensor(X0), 2]),
        lambda lib: lib.autograd.functional.hessian(lambda a, b: a, (lib.tensor(X0), 2)),
    ]
    for call in calls:
        assert message(minitorch, call) == message(torch_ref, call)


def test_grad_keywords_materialize_grads_and_only_inputs(torch_ref: ModuleType) -> None:
    def run(lib: ModuleType) -> Any:
        a, b = lib.tensor(X0, requires_grad=True), lib.tensor(V3, requires_grad=True)
        return lib.autograd.grad((a * a).sum(), (a, b), materialize_grads=True, only_inputs=True)

    _same(run(minitorch), run(torch_ref))
    with pytest.raises(ValueError, match="allow_unused to be True"):
        a = minitorch.tensor(X0, requires_grad=True)
        minitorch.autograd.grad(a.sum(), a, allow_unused=False, materialize_grads=True)

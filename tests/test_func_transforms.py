"""``minitorch.func``'s derivative transforms (``grad``, ``grad_and_value``, ``vjp``, ``jvp``,
``jacrev``, ``jacfwd``, ``hessian``) against ``torch.func`` on the same inputs: values, shapes,
the structure of the results, when a result keeps a graph, and the errors."""

from __future__ import annotations

from types import ModuleType
from typing import Any, Callable

import numpy as np
import pytest

import minitorch

X = np.array([-1.3, -0.4, 0.2, 0.9, 1.7], dtype=np.float32)
Y = np.array([0.5, -1.1, 0.8, 0.3, -0.6], dtype=np.float32)
M = np.array([[0.3, -0.7, 1.1, 0.2, -0.5], [0.9, 0.4, -0.2, -1.0, 0.6]], dtype=np.float32)


def _numpy(tree: Any) -> Any:
    """The same nesting with each tensor as a float64 array (comparable across the libraries)."""
    if isinstance(tree, dict):
        return {key: _numpy(value) for key, value in tree.items()}
    if isinstance(tree, (tuple, list)):
        return type(tree)(_numpy(value) for value in tree)
    return tree.detach().double().numpy()


def _assert_close(ours: Any, theirs: Any, rtol: float = 1e-5, atol: float = 1e-6) -> None:
    if isinstance(theirs, dict):
        assert isinstance(ours, dict) and list(ours) == list(theirs)
        for key in theirs:
            _assert_close(ours[key], theirs[key], rtol, atol)
    elif isinstance(theirs, (tuple, list)):
        assert type(ours) is type(theirs) and len(ours) == len(theirs)
        for one, other in zip(ours, theirs):
            _assert_close(one, other, rtol, atol)
    else:
        assert ours.shape == theirs.shape
        np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=atol)


# Scalar functions written once for both libraries (``lib`` is minitorch or torch).
SCALAR_FUNCTIONS: dict[str, Callable[[ModuleType, Any], Any]] = {
    "sin_times_x": lambda lib, x: (x.sin() * x).sum(),
    "tanh_square": lambda lib, x: (x.tanh() ** 2).mean(),
    "logsumexp": lambda lib, x: x.logsumexp(0),
    "quadratic_form": lambda lib, x: (lib.tensor(M).t() @ (lib.tensor(M) @ x)).dot(x),
    "softplus_norm": lambda lib, x: lib.nn.functional.softplus(x).norm(),
}


@pytest.mark.parametrize("name", sorted(SCALAR_FUNCTIONS))
def test_grad_hessian_and_jacobians_of_scalar_functions(name: str, torch_ref: ModuleType) -> None:
    function = SCALAR_FUNCTIONS[name]
    for lib_transforms in ("grad", "hessian", "jacrev", "jacfwd"):
        ours = getattr(minitorch.func, lib_transforms)(lambda x: function(minitorch, x))(minitorch.tensor(X))
        theirs = getattr(torch_ref.func, lib_transforms)(lambda x: function(torch_ref, x))(torch_ref.tensor(X))
        _assert_close(_numpy(ours), _numpy(theirs))


def test_grad_and_value_returns_both_and_aux(torch_ref: ModuleType) -> None:
    def loss(lib: ModuleType, x: Any, y: Any) -> tuple[Any, Any]:
        residual = x * 2 - y
        return (residual ** 2).sum(), {"residual": residual, "first": x[0]}

    results = []
    for lib in (minitorch, torch_ref):
        gradient, (value, aux) = lib.func.grad_and_value(lambda x, y: loss(lib, x, y), has_aux=True)(
            lib.tensor(X), lib.tensor(Y))
        assert aux["first"].item() == pytest.approx(float(X[0]))
        assert not gradient.requires_grad and not value.requires_grad and not aux["residual"].requires_grad
        results.append((_numpy(gradient), _numpy(value), _numpy(aux["residual"])))
    _assert_close(results[0], results[1])


@pytest.mark.parametrize("argnums", [0, 1, -1, (0, 1), (1, 0)], ids=repr)
def test_grad_argnums_choose_the_arguments(argnums: Any, torch_ref: ModuleType) -> None:
    results = [lib.func.grad(lambda x, y: (x.exp() * y.sin()).sum(), argnums=argnums)(lib.tensor(X), lib.tensor(Y))
               for lib in (minitorch, torch_ref)]
    assert isinstance(results[0], tuple) == isinstance(argnums, tuple)
    _assert_close(_numpy(results[0]), _numpy(results[1]))


def test_grad_with_respect_to_a_dict_of_parameters_keeps_its_keys(torch_ref: ModuleType) -> None:
    def loss(params: dict[str, Any], x: Any) -> Any:
        return ((params["weight"] @ x + params["bias"]).tanh() ** 2).sum()

    results = []
    for lib in (minitorch, torch_ref):
        params = {"weight": lib.tensor(M), "bias": lib.tensor(Y[:2])}
        gradient = lib.func.grad(loss)(params, lib.tensor(X))
        assert list(gradient) == ["weight", "bias"]
        results.append(_numpy(gradient))
    _assert_close(results[0], results[1])


def test_an_unused_input_gets_a_zero_gradient(torch_ref: ModuleType) -> None:
    for lib in (minitorch, torch_ref):
        gradient = lib.func.grad(lambda x, y: (x ** 2).sum(), argnums=(0, 1))(lib.tensor(X), lib.tensor(Y))
        np.testing.assert_array_equal(gradient[1].numpy(), np.zeros(5, dtype=np.float32))
        np.testing.assert_allclose(gradient[0].numpy(), 2 * X)


def test_nested_grad_is_the_higher_derivative() -> None:
    """d/dx x^4 = 4x^3, d2 = 12x^2, d3 = 24x (hand-derived)."""
    quartic = lambda x: x ** 4  # noqa: E731 - a one-line function under test
    x = minitorch.tensor(1.5)
    first = minitorch.func.grad(quartic)
    second = minitorch.func.grad(first)
    third = minitorch.func.grad(second)
    assert first(x).item() == pytest.approx(4 * 1.5 ** 3)
    assert second(x).item() == pytest.approx(12 * 1.5 ** 2)
    assert third(x).item() == pytest.approx(24 * 1.5)
    assert not third(x).requires_grad


def test_results_keep_a_graph_only_for_what_is_tracked_outside() -> None:
    """As ``torch.func``: a plain input gives plain results; an input or a captured tensor that
    requires grad gives results that ``backward`` goes through (here to the second derivative)."""
    plain = minitorch.func.grad(lambda x: (x ** 3).sum())(minitorch.tensor(X))
    assert not plain.requires_grad and plain.grad_fn is None

    x = minitorch.tensor(X, requires_grad=True)
    gradient = minitorch.func.grad(lambda v: (v ** 3).sum())(x)  # 3x^2
    assert gradient.requires_grad
    gradient.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 6 * X, rtol=1e-6)

    scale = minitorch.tensor(2.0, requires_grad=True)
    captured = minitorch.func.grad(lambda v: (scale * v ** 2).sum())(minitorch.tensor(X))  # 2 scale x
    assert captured.requires_grad
    captured.sum().backward()
    assert scale.grad.item() == pytest.approx(float((2 * X).sum()), rel=1e-5)


def test_grad_works_inside_no_grad_as_a_transform() -> None:
    with minitorch.no_grad():
        gradient = minitorch.func.grad(lambda v: (v ** 2).sum())(minitorch.tensor(X, requires_grad=True))
    np.testing.assert_allclose(gradient.numpy(), 2 * X)
    assert not gradient.requires_grad


def test_grad_leaves_the_callers_tensors_alone() -> None:
    x = minitorch.tensor(X, requires_grad=True)
    minitorch.func.grad(lambda v: (v ** 2).sum())(x)
    assert x.grad is None and x.is_leaf


@pytest.mark.parametrize(("function", "args", "kwargs", "error"), [
    (lambda x: x * 2, (X,), {}, RuntimeError),  # not a scalar
    (lambda x: 3.0, (X,), {}, RuntimeError),  # not a tensor
    (lambda x: x.sum(), (X,), {"argnums": 1}, RuntimeError),
    (lambda x, y: x.sum(), (X, Y), {"argnums": (0, 0)}, RuntimeError),
    (lambda x, y: x.sum(), (X, Y), {"argnums": ()}, RuntimeError),
    (lambda x, y: x.sum(), (X, Y), {"argnums": 0.0}, RuntimeError),
    (lambda x: x.sum(), (X,), {"has_aux": True}, RuntimeError),
    (lambda x, y: x.sum(), (X, 2.0), {"argnums": 1}, ValueError),  # a number to differentiate
], ids=["vector", "number", "argnum_range", "repeated", "empty", "float_argnums", "no_aux", "number_input"])
def test_grad_errors_as_pytorch(function: Callable[..., Any], args: tuple, kwargs: dict[str, Any], error: type,
                                torch_ref: ModuleType) -> None:
    for lib in (minitorch, torch_ref):
        inputs = [lib.tensor(a) if isinstance(a, np.ndarray) else a for a in args]
        with pytest.raises(error):
            lib.func.grad(function, **kwargs)(*inputs)


def test_grad_errors_name_the_values() -> None:
    with pytest.raises(RuntimeError, match="argnum=3, but only 1 positional"):
        minitorch.func.grad(lambda x: x.sum(), argnums=3)(minitorch.tensor(X))
    with pytest.raises(RuntimeError, match="got tensor with 1 dims"):
        minitorch.func.grad(lambda x: x * 2)(minitorch.tensor(X))


def test_aux_holds_tensors_only_as_pytorch(torch_ref: ModuleType) -> None:
    for lib in (minitorch, torch_ref):
        with pytest.raises(RuntimeError, match="int"):
            lib.func.grad(lambda x: (x.sum(), {"count": 5}), has_aux=True)(lib.tensor(X))


def test_vjp_of_several_outputs_and_its_function_called_twice(torch_ref: ModuleType) -> None:
    results = []
    for lib in (minitorch, torch_ref):
        x, y = lib.tensor(X), lib.tensor(Y)
        outputs, vjp_fn = lib.func.vjp(lambda a, b: (a * b, (a - b).exp().sum()), x, y)
        first = vjp_fn((lib.tensor(Y), lib.tensor(2.0)))
        second = vjp_fn((lib.ones(5), lib.tensor(-1.0)))
        assert isinstance(first, tuple) and len(first) == 2
        assert not outputs[0].requires_grad
        results.append((_numpy(outputs), _numpy(first), _numpy(second)))
    _assert_close(results[0], results[1])


def test_vjp_with_aux_and_a_dict_primal(torch_ref: ModuleType) -> None:
    results = []
    for lib in (minitorch, torch_ref):
        params = {"w": lib.tensor(X), "b": lib.tensor(0.5)}
        output, vjp_fn, aux = lib.func.vjp(lambda p: ((p["w"] * p["b"]).sin(), p["w"].mean()), params, has_aux=True)
        (gradient,) = vjp_fn(lib.tensor(Y))
        assert list(gradient) == ["w", "b"]
        results.append((_numpy(output), _numpy(gradient), _numpy(aux)))
    _assert_close(results[0], results[1])


def test_vjp_rejects_cotangents_of_another_structure(torch_ref: ModuleType) -> None:
    for lib in (minitorch, torch_ref):
        _, vjp_fn = lib.func.vjp(lambda a: (a * 2, a * 3), lib.tensor(X))
        with pytest.raises(RuntimeError, match="structure"):
            vjp_fn(lib.ones(5))


def test_vjp_rejects_a_cotangent_of_another_shape() -> None:
    _, vjp_fn = minitorch.func.vjp(lambda a: a * 2, minitorch.tensor(X))
    with pytest.raises(RuntimeError, match=r"shape \(3,\).*shape \(5,\)"):
        vjp_fn(minitorch.ones(3))


def test_jvp_matches_pytorch(torch_ref: ModuleType) -> None:
    results = []
    for lib in (minitorch, torch_ref):
        def function(a: Any, b: Any) -> tuple[Any, Any]:
            return (a.sin() * b, (a @ lib.tensor(M).t()).tanh())

        output, tangent = lib.func.jvp(function, (lib.tensor(X), lib.tensor(Y)), (lib.tensor(Y), lib.tensor(X)))
        results.append((_numpy(output), _numpy(tangent)))
    _assert_close(results[0], results[1])


def test_jvp_of_grad_is_a_hessian_vector_product(torch_ref: ModuleType) -> None:
    results = []
    for lib in (minitorch, torch_ref):
        gradient = lib.func.grad(lambda a: (a.sin() * a ** 2).sum())
        _, product = lib.func.jvp(gradient, (lib.tensor(X),), (lib.tensor(Y),))
        results.append(_numpy(product))
    _assert_close(results[0], results[1])


def test_jvp_of_an_output_independent_of_the_input_is_zero() -> None:
    output, tangent = minitorch.func.jvp(lambda a: minitorch.tensor(Y) * 2, (minitorch.tensor(X),),
                                         (minitorch.ones(5),))
    np.testing.assert_array_equal(tangent.numpy(), np.zeros(5, dtype=np.float32))
    np.testing.assert_allclose(output.numpy(), 2 * Y)


@pytest.mark.parametrize(("primals", "tangents"), [("list", "tuple"), ("tuple", "short"), ("tuple", "wrong_shape")])
def test_jvp_errors_as_pytorch(primals: str, tangents: str, torch_ref: ModuleType) -> None:
    for lib in (minitorch, torch_ref):
        x = lib.tensor(X)
        given_primals = [x] if primals == "list" else (x,)
        given_tangents = {"tuple": (lib.ones(5),), "short": (), "wrong_shape": (lib.ones(4),)}[tangents]
        with pytest.raises(RuntimeError):
            lib.func.jvp(lambda a: a * 2, given_primals, given_tangents)


@pytest.mark.parametrize("transform", ["jacrev", "jacfwd"])
def test_jacobians_of_matrix_valued_functions_and_tuples(transform: str, torch_ref: ModuleType) -> None:
    results = []
    for lib in (minitorch, torch_ref):
        def function(a: Any, b: Any) -> tuple[Any, Any]:
            return (lib.outer(a, b).tanh(), (a[:3] * b).sum())

        jacobians = getattr(lib.func, transform)(function, argnums=(0, 1))(lib.tensor(X), lib.tensor(Y[:3]))
        assert tuple(jacobians[0][0].shape) == (5, 3, 5) and tuple(jacobians[0][1].shape) == (5, 3, 3)
        assert tuple(jacobians[1][0].shape) == (5,) and tuple(jacobians[1][1].shape) == (3,)
        results.append(_numpy(jacobians))
    _assert_close(results[0], results[1])


def test_jacrev_with_aux(torch_ref: ModuleType) -> None:
    results = []
    for lib in (minitorch, torch_ref):
        jacobian, aux = lib.func.jacrev(lambda a: (a.exp(), a.sum()), has_aux=True)(lib.tensor(X))
        results.append((_numpy(jacobian), _numpy(aux)))
    _assert_close(results[0], results[1])


def test_jacobian_of_a_linear_map_is_the_matrix() -> None:
    """Hand-derived oracle: the Jacobian of x -> M x is M."""
    jacobian = minitorch.func.jacrev(lambda a: minitorch.tensor(M) @ a)(minitorch.tensor(X))
    np.testing.assert_allclose(jacobian.numpy(), M)


def test_hessian_of_several_arguments(torch_ref: ModuleType) -> None:
    results = []
    for lib in (minitorch, torch_ref):
        hessians = lib.func.hessian(lambda a, b: (a.sin() * b.cos()).sum() + (a * a * b).sum(), argnums=(0, 1))(
            lib.tensor(X), lib.tensor(Y))
        results.append(_numpy(hessians))
    _assert_close(results[0], results[1])


def test_jacfwd_refuses_random_draws_unless_told(torch_ref: ModuleType) -> None:
    for lib in (minitorch, torch_ref):
        noisy = lambda a: a * lib.rand(5)  # noqa: E731 - a one-line function under test
        with pytest.raises(RuntimeError, match="randomness"):
            lib.func.jacfwd(noisy)(lib.tensor(X))
        assert lib.func.jacfwd(noisy, randomness="different")(lib.tensor(X)).shape == (5, 5)
    minitorch.rand(2)  # the refusal ended with the call


def test_jacobian_of_an_empty_output_is_empty(torch_ref: ModuleType) -> None:
    for lib in (minitorch, torch_ref):
        jacobian = lib.func.jacrev(lambda a: a[:0] * 2)(lib.tensor(X))
        assert tuple(jacobian.shape) == (0, 5)

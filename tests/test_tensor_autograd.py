"""Tensor gradients (task 2.4) and the autograd engine around them (task 2.5).

Every gradient is checked by :func:`gradcheck.gradcheck` (central differences on NumPy
copies of the inputs) or against a derivative worked out by hand in the test. Each op is
run on contiguous inputs and on non-contiguous ones (permuted, sliced with a step,
expanded), on both CPU backends through the ``backend`` fixture. Tensors stay tiny: the
``simple`` backend is pure Python.
"""

from __future__ import annotations

import math
import re
from typing import Any, Callable

import numpy as np
import pytest
from gradcheck import gradcheck
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import mutually_broadcastable_shapes

import minitorch
from minitorch import Tensor

F64 = minitorch.float64
FEW = settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

grads = pytest.mark.task("2.4")
engine = pytest.mark.task("2.5")


# ---------------------------------------------------------------- input helpers


def leaf(values: Any) -> Tensor:
    """A float64 leaf that requires grad, holding ``values``."""
    return minitorch.tensor(np.asarray(values, dtype=np.float64), dtype=F64, requires_grad=True)


def uniform(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    return rng.uniform(-2.0, 2.0, size=shape)


def positive(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    return rng.uniform(0.5, 2.0, size=shape)


def away_from_zero(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    return rng.uniform(0.5, 2.0, size=shape) * rng.choice([-1.0, 1.0], size=shape)


def distinct(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    """Shuffled values 0.3 apart and at least 0.1 from 0: no ties, no kink within eps."""
    n = int(np.prod(shape, dtype=np.int64))
    return (0.3 * (rng.permutation(n) - n // 2) + 0.1).reshape(shape)


#: name -> (leaf shape for a view of ``shape``, the view): each op sees these layouts
def layout(name: str, shape: tuple[int, ...]) -> tuple[tuple[int, ...], Callable[[Tensor], Tensor]]:
    if name == "contiguous":
        return shape, lambda t: t
    if name == "permuted":
        return shape[::-1], lambda t: t.permute(*reversed(range(len(shape))))
    if name == "strided":
        return shape[:-1] + (2 * shape[-1],), lambda t: t[..., ::2]
    if name == "expanded":
        return (1,) + shape[1:], lambda t: t.expand(*shape)
    raise ValueError(name)


LAYOUTS = ["contiguous", "permuted", "strided", "expanded"]


def laid_out(name: str, shape: tuple[int, ...], values: Callable, rng: np.random.Generator) -> tuple[Tensor, Callable]:
    leaf_shape, view = layout(name, shape)
    return leaf(values(rng, leaf_shape)), view


# ---------------------------------------------------------------- unary ops

UNARY = {
    "neg": (lambda x: -x, uniform),
    "neg_method": (lambda x: x.neg(), uniform),
    "exp": (lambda x: x.exp(), uniform),
    "log": (lambda x: minitorch.log(x), positive),
    "sqrt": (lambda x: x.sqrt(), positive),
    "abs": (lambda x: x.abs(), distinct),
    "abs_builtin": (lambda x: abs(x), distinct),
    "sigmoid": (lambda x: minitorch.sigmoid(x), uniform),
    "tanh": (lambda x: x.tanh(), uniform),
    "relu": (lambda x: x.relu(), distinct),
    "relu_fn": (lambda x: minitorch.relu(x), distinct),
    "sin": (lambda x: x.sin(), uniform),
    "cos": (lambda x: minitorch.cos(x), uniform),
}


@grads
@pytest.mark.parametrize("where", LAYOUTS)
@pytest.mark.parametrize("name", list(UNARY))
def test_unary_gradients(backend: str, name: str, where: str) -> None:
    op, values = UNARY[name]
    x, view = laid_out(where, (2, 3), values, np.random.default_rng(1))
    gradcheck(lambda t: op(view(t)), x)


@grads
def test_unary_gradients_hand_derived(backend: str) -> None:
    """Spot values of the derivatives, worked out by hand."""
    x = leaf([0.0, 1.0, -2.0])
    x.sigmoid().sum().backward()
    s = 1 / (1 + np.exp(-np.array([0.0, 1.0, -2.0])))
    np.testing.assert_allclose(x.grad.numpy(), s * (1 - s), rtol=1e-12)

    y = leaf([4.0, 0.25])
    y.sqrt().sum().backward()
    np.testing.assert_allclose(y.grad.numpy(), [0.25, 1.0], rtol=1e-12)

    z = leaf([-3.0, 0.0, 2.0])
    z.relu().sum().backward()
    np.testing.assert_array_equal(z.grad.numpy(), [0.0, 0.0, 1.0])

    w = leaf([-3.0, 0.0, 2.0])
    w.abs().sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), [-1.0, 0.0, 1.0])  # sign, 0 at 0 as PyTorch


# ---------------------------------------------------------------- binary ops


def _pair_distinct(rng: np.random.Generator, sa: tuple[int, ...], sb: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    na, nb = int(np.prod(sa, dtype=np.int64)), int(np.prod(sb, dtype=np.int64))
    v = distinct(rng, (na + nb,))
    return v[:na].reshape(sa), v[na:].reshape(sb)


def _pair(first: Callable, second: Callable) -> Callable:
    return lambda rng, sa, sb: (first(rng, sa), second(rng, sb))


BINARY = {
    "add": (lambda a, b: a + b, _pair(uniform, uniform)),
    "add_method": (lambda a, b: a.add(b, alpha=2), _pair(uniform, uniform)),
    "sub": (lambda a, b: a - b, _pair(uniform, uniform)),
    "mul": (lambda a, b: a * b, _pair(uniform, uniform)),
    "div": (lambda a, b: a / b, _pair(uniform, away_from_zero)),
    "pow": (lambda a, b: a**b, _pair(positive, uniform)),
    "pow_fn": (lambda a, b: minitorch.pow(a, b), _pair(positive, uniform)),
    "maximum": (lambda a, b: minitorch.maximum(a, b), _pair_distinct),
    "minimum": (lambda a, b: a.minimum(b), _pair_distinct),
    "max_tensor": (lambda a, b: a.max(b), _pair_distinct),
}


@grads
@FEW
@given(data=st.data())
@pytest.mark.parametrize("name", list(BINARY))
def test_binary_gradients_broadcast(backend: str, name: str, data: st.DataObject) -> None:
    shapes = data.draw(mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, max_side=3), label="shapes")
    seed = data.draw(st.integers(0, 2**16), label="seed")
    op, values = BINARY[name]
    a_values, b_values = values(np.random.default_rng(seed), *shapes.input_shapes)
    gradcheck(op, leaf(a_values), leaf(b_values))


@grads
@pytest.mark.parametrize("name", list(BINARY))
def test_binary_gradients_non_contiguous(backend: str, name: str) -> None:
    """A permuted operand against a step-sliced one, and an expanded one against a permuted one."""
    op, values = BINARY[name]
    rng = np.random.default_rng(2)
    a_values, b_values = values(rng, (3, 2), (2, 6))
    gradcheck(lambda a, b: op(a.T, b[:, ::2]), leaf(a_values), leaf(b_values))
    a_values, b_values = values(rng, (1, 3), (3, 2))
    gradcheck(lambda a, b: op(a.expand(2, 3), b.permute(1, 0)), leaf(a_values), leaf(b_values))


SCALAR_EXPRESSIONS = {
    "x+2.5": (lambda x: x + 2.5, uniform),
    "2.5+x": (lambda x: 2.5 + x, uniform),
    "x+2": (lambda x: x + 2, uniform),
    "x-1.5": (lambda x: x - 1.5, uniform),
    "1.5-x": (lambda x: 1.5 - x, uniform),
    "2-x": (lambda x: 2 - x, uniform),
    "x*-3": (lambda x: x * -3.0, uniform),
    "-3*x": (lambda x: -3 * x, uniform),
    "x/2": (lambda x: x / 2.0, uniform),
    "3/x": (lambda x: 3.0 / x, away_from_zero),
    "4/x": (lambda x: 4 / x, away_from_zero),
    "x**3": (lambda x: x**3, uniform),
    "x**2.5": (lambda x: x**2.5, positive),
    "x**-1.5": (lambda x: x**-1.5, positive),
    "x**0": (lambda x: x**0, uniform),
    "2**x": (lambda x: 2.0**x, uniform),
    "0.5**x": (lambda x: 0.5**x, uniform),
    "sub_alpha": (lambda x: x.sub(1.0, alpha=3), uniform),
    "reciprocal": (lambda x: x.reciprocal(), away_from_zero),
    "rsqrt": (lambda x: x.rsqrt(), positive),
    "square": (lambda x: x.square(), uniform),
}


@grads
@pytest.mark.parametrize("where", ["contiguous", "permuted", "expanded"])
@pytest.mark.parametrize("name", list(SCALAR_EXPRESSIONS))
def test_scalar_operand_gradients(backend: str, name: str, where: str) -> None:
    op, values = SCALAR_EXPRESSIONS[name]
    x, view = laid_out(where, (2, 3), values, np.random.default_rng(3))
    gradcheck(lambda t: op(view(t)), x)


@grads
def test_pow_gradient_hand_derived(backend: str) -> None:
    """d/da a**b = b a**(b-1), d/db a**b = a**b ln a; x**2 at 0 has slope 0."""
    a, b = leaf([2.0, 3.0]), leaf([3.0, 0.5])
    (a**b).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), [3 * 4.0, 0.5 * 3.0**-0.5], rtol=1e-12)
    np.testing.assert_allclose(b.grad.numpy(), [8 * math.log(2.0), math.sqrt(3.0) * math.log(3.0)], rtol=1e-12)
    z = leaf([0.0, 1.0])
    (z**2).sum().backward()
    np.testing.assert_allclose(z.grad.numpy(), [0.0, 2.0])
    # 2**x: d/dx = 2**x ln 2
    x = leaf([1.0, -1.0])
    (2.0**x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2 * math.log(2.0), 0.5 * math.log(2.0)], rtol=1e-12)


@grads
def test_relu_gradient_is_selected_where_the_output_is_positive(backend: str) -> None:
    """Hand-derived: the incoming gradient where ``relu(x) > 0`` (or NaN), else 0, even an inf
    or NaN gradient (PyTorch's ``threshold_backward``, not a product with 0); the double
    backward is the same selection, a ``ThresholdBackwardBackward0`` node."""
    x = leaf([-1.0, 0.0, -0.0, 2.0, math.nan, 3.0, -4.0])
    incoming = minitorch.tensor([1.0, math.nan, math.inf, 2.0, 5.0, -1.0, -math.inf], requires_grad=True)
    (grad_x,) = minitorch.autograd.grad(x.relu(), [x], incoming, create_graph=True)
    np.testing.assert_array_equal(grad_x.detach().numpy(), [0.0, 0.0, 0.0, 2.0, 5.0, -1.0, 0.0])
    assert type(grad_x.grad_fn).__name__ == "ThresholdBackwardBackward0"
    (grad_of_incoming,) = minitorch.autograd.grad(grad_x, [incoming], minitorch.full((7,), 3.0))
    np.testing.assert_array_equal(grad_of_incoming.numpy(), [0.0, 0.0, 0.0, 3.0, 3.0, 3.0, 0.0])


@grads
def test_a_square_is_the_rounded_product_and_keeps_pows_node(backend: str) -> None:
    """``x ** 2`` multiplies (no ``pow`` call per element): NumPy's square to the bit, in
    float32 and float64 with the special values, gradient 2x, and still PyTorch's
    ``PowBackward0``; a tensor exponent of 2, or another number, keeps ``pow``."""
    rng = np.random.default_rng(5)
    for dtype in (np.float32, np.float64):
        x = np.concatenate([rng.standard_normal(200), [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-30, 3e38]]).astype(dtype)
        t = minitorch.tensor(x, requires_grad=True)
        with np.errstate(over="ignore"):
            for square in (t**2, t.pow(2.0), minitorch.pow(t, 2)):
                np.testing.assert_array_equal(square.detach().numpy(), np.square(x))
                assert type(square.grad_fn).__name__ == "PowBackward0"
            (t**2).sum().backward()
            np.testing.assert_array_equal(t.grad.numpy(), 2 * x)
    base = leaf([1.5, -2.0])
    broadcast = base ** minitorch.tensor([[2.0]])  # a (1, 1) exponent broadcasts the result to (1, 2)
    assert broadcast.shape == (1, 2)
    np.testing.assert_array_equal(broadcast.detach().numpy(), [[2.25, 4.0]])
    np.testing.assert_allclose((base**3).detach().numpy(), [3.375, -8.0])


@grads
def test_maximum_tie_splits_gradient(backend: str) -> None:
    """On ties PyTorch sends half of the gradient to each side."""
    a, b = leaf([1.0, 2.0, 5.0]), leaf([1.0, 3.0, 4.0])
    minitorch.maximum(a, b).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), [0.5, 0.0, 1.0])
    np.testing.assert_allclose(b.grad.numpy(), [0.5, 1.0, 0.0])


@grads
@pytest.mark.parametrize(
    "bounds", [dict(min=-0.25, max=0.55), dict(min=-0.25), dict(max=0.55)], ids=["both", "min", "max"]
)
@pytest.mark.parametrize("where", LAYOUTS)
def test_clamp_gradients(backend: str, bounds: dict, where: str) -> None:
    # grid values 0.3k + 0.1 stay >= 0.05 away from both bounds
    x, view = laid_out(where, (2, 4), distinct, np.random.default_rng(4))
    gradcheck(lambda t: view(t).clamp(**bounds), x)
    x.grad = None
    minitorch.clamp(view(x), **bounds).sum().backward()
    inside = np.ones(x.shape, dtype=bool)
    v = x.detach().numpy()
    if "min" in bounds:
        inside &= v > bounds["min"]
    if "max" in bounds:
        inside &= v < bounds["max"]
    copies = 2 if where == "expanded" else 1  # each leaf element of the (1, 4) leaf is read twice
    expected = inside * float(copies)
    if where == "strided":
        expected[..., 1::2] = 0.0
    np.testing.assert_array_equal(x.grad.numpy(), expected)


# ---------------------------------------------------------------- reductions

DIMS = [None, 0, 1, -1, (0, 2), (-1, -3), (2, 0, 1)]


@grads
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("dim", DIMS, ids=str)
@pytest.mark.parametrize("op", ["sum", "mean"])
def test_sum_mean_gradients(backend: str, op: str, dim: Any, keepdim: bool) -> None:
    rng = np.random.default_rng(5)
    if dim is None and not keepdim:
        gradcheck(lambda t: getattr(t, op)(), leaf(uniform(rng, (2, 3, 2))))
    gradcheck(lambda t: getattr(t, op)(dim, keepdim), leaf(uniform(rng, (2, 3, 2))))
    # non-contiguous: the same reduction of a permuted view
    gradcheck(lambda t: getattr(minitorch, op)(t.permute(2, 0, 1), dim, keepdim), leaf(uniform(rng, (3, 2, 2))))


@grads
def test_sum_gradient_hand_derived(backend: str) -> None:
    x = leaf(np.arange(6.0).reshape(2, 3))
    (x.sum(1) * minitorch.tensor([1.0, 10.0], dtype=F64)).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[1, 1, 1], [10, 10, 10]])
    y = leaf(np.arange(6.0).reshape(2, 3))
    y.mean().backward()
    np.testing.assert_allclose(y.grad.numpy(), np.full((2, 3), 1 / 6))


@grads
@pytest.mark.parametrize("correction", [0, 1])
@pytest.mark.parametrize("dim,keepdim", [(None, False), (1, False), (-1, True), ((0, 2), False), ((0, 2), True)], ids=str)
@pytest.mark.parametrize("op", ["var", "std"])
def test_var_std_gradients(backend: str, op: str, dim: Any, keepdim: bool, correction: int) -> None:
    rng = np.random.default_rng(6)
    gradcheck(lambda t: getattr(t, op)(dim, keepdim=keepdim, correction=correction), leaf(uniform(rng, (2, 3, 2))))
    gradcheck(lambda t: getattr(t.transpose(0, 2), op)(dim, keepdim=keepdim, correction=correction), leaf(uniform(rng, (2, 3, 2))))


@grads
def test_var_gradient_hand_derived(backend: str) -> None:
    """d var / d x_i = 2 (x_i - mean) / (N - correction)."""
    values = np.array([1.0, 2.0, 4.0, 7.0])
    for correction, unbiased in ((1, None), (0, False)):
        x = leaf(values)
        x.var(unbiased=unbiased).backward()
        np.testing.assert_allclose(x.grad.numpy(), 2 * (values - values.mean()) / (4 - correction), rtol=1e-12)


@grads
@pytest.mark.parametrize("op", ["max", "min"])
@pytest.mark.parametrize("where", LAYOUTS)
def test_max_min_all_gradients(backend: str, op: str, where: str) -> None:
    x, view = laid_out(where, (2, 3), distinct, np.random.default_rng(7))
    gradcheck(lambda t: getattr(view(t), op)(), x)
    gradcheck(lambda t: getattr(minitorch, op)(view(t)), x)


@grads
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("dim", [0, 1, -1, -2])
@pytest.mark.parametrize("op", ["max", "min"])
@pytest.mark.parametrize("where", LAYOUTS)
def test_max_min_dim_gradients(backend: str, op: str, dim: int, keepdim: bool, where: str) -> None:
    x, view = laid_out(where, (2, 3), distinct, np.random.default_rng(8))
    gradcheck(lambda t: getattr(view(t), op)(dim, keepdim).values, x)


@grads
def test_max_gradient_on_ties(backend: str) -> None:
    """Full max splits the gradient evenly between tied maxima; max along a dim sends it to the returned index."""
    x = leaf([[3.0, 1.0, 3.0], [0.0, 2.0, 2.0]])
    x.max().backward()
    np.testing.assert_allclose(x.grad.numpy(), [[0.5, 0, 0.5], [0, 0, 0]])
    y = leaf([[3.0, 1.0, 3.0], [0.0, 2.0, 2.0]])
    values, indices = y.max(1)
    assert indices.tolist() == [0, 1]
    values.sum().backward()
    np.testing.assert_array_equal(y.grad.numpy(), [[1, 0, 0], [0, 1, 0]])


# ---------------------------------------------------------------- matmul

MATMUL_SHAPES = [
    ((3,), (3,)),
    ((3,), (3, 2)),
    ((2, 3), (3,)),
    ((2, 3), (3, 4)),
    ((2, 1, 3, 4), (5, 4, 2)),
    ((4, 3), (2, 3, 5)),
    ((2, 2, 3), (3,)),
    ((3,), (2, 3, 2)),
    ((1, 2, 3), (2, 3, 2)),
]


def _non_contiguous(shape: tuple[int, ...]) -> tuple[tuple[int, ...], Callable[[Tensor], Tensor]]:
    """A leaf layout whose view of ``shape`` is transposed (>= 2-D) or step-sliced (1-D)."""
    if len(shape) == 1:
        return (2 * shape[0],), lambda t: t[::2]
    return shape[:-2] + (shape[-1], shape[-2]), lambda t: t.transpose(-1, -2)


@grads
@pytest.mark.parametrize("contiguous", [True, False], ids=["contiguous", "transposed"])
@pytest.mark.parametrize("shapes", MATMUL_SHAPES, ids=str)
def test_matmul_gradients(backend: str, shapes: tuple, contiguous: bool) -> None:
    rng = np.random.default_rng(9)
    sa, sb = shapes
    if contiguous:
        gradcheck(lambda a, b: a @ b, leaf(uniform(rng, sa)), leaf(uniform(rng, sb)))
    else:
        (la, va), (lb, vb) = _non_contiguous(sa), _non_contiguous(sb)
        gradcheck(lambda a, b: minitorch.matmul(va(a), vb(b)), leaf(uniform(rng, la)), leaf(uniform(rng, lb)))


@grads
def test_matmul_gradient_hand_derived(backend: str) -> None:
    """For C = AB and L = sum(C): dL/dA = 1 B^T, dL/dB = A^T 1."""
    a_np, b_np = np.arange(6.0).reshape(2, 3), np.arange(12.0).reshape(3, 4) - 5
    a, b = leaf(a_np), leaf(b_np)
    (a @ b).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), np.ones((2, 4)) @ b_np.T)
    np.testing.assert_allclose(b.grad.numpy(), a_np.T @ np.ones((2, 4)))


@grads
def test_mm_bmm_gradients(backend: str) -> None:
    rng = np.random.default_rng(10)
    gradcheck(minitorch.mm, leaf(uniform(rng, (2, 3))), leaf(uniform(rng, (3, 2))))
    gradcheck(minitorch.bmm, leaf(uniform(rng, (2, 2, 3))), leaf(uniform(rng, (2, 3, 2))))


# ---------------------------------------------------------------- views and indexing

VIEWS = {
    "view": ((2, 3), lambda x: x.view(3, 2)),
    "view_-1": ((2, 3), lambda x: x.view(-1)),
    "view_tuple": ((2, 3), lambda x: x.view((1, 6, 1))),
    "view_of_permuted": ((2, 3), lambda x: x.permute(1, 0).view(3, 1, 2)),
    "view_as": ((2, 3), lambda x: x.view_as(minitorch.zeros(3, 2))),
    "reshape": ((2, 3), lambda x: x.reshape(3, 2)),
    "reshape_copying": ((2, 3), lambda x: x.permute(1, 0).reshape(6)),
    "reshape_fn": ((2, 3, 2), lambda x: minitorch.reshape(x[:, ::2], (4, 2))),
    "permute": ((2, 3, 2), lambda x: x.permute(2, 0, 1)),
    "permute_negative": ((2, 3, 2), lambda x: x.permute(-1, 0, -2)),
    "permute_fn": ((2, 3, 2), lambda x: minitorch.permute(x, (1, 2, 0))),
    "transpose": ((2, 3, 2), lambda x: x.transpose(0, 2)),
    "transpose_negative": ((2, 3, 2), lambda x: minitorch.transpose(x, -1, -2)),
    "T": ((2, 3), lambda x: x.T),
    "T_3d": ((2, 3, 2), lambda x: x.T),
    "t": ((2, 3), lambda x: x.t()),
    "mT": ((2, 3, 2), lambda x: x.mT),
    "unsqueeze": ((2, 3), lambda x: x.unsqueeze(0)),
    "unsqueeze_-1": ((2, 3), lambda x: minitorch.unsqueeze(x.T, -1)),
    "squeeze_all": ((2, 1, 3, 1), lambda x: x.squeeze()),
    "squeeze_dim": ((2, 1, 3), lambda x: x.squeeze(1)),
    "squeeze_-2": ((2, 1, 3), lambda x: minitorch.squeeze(x, -2)),
    "expand": ((3, 1), lambda x: x.expand(2, 3, 4)),
    "expand_-1": ((3, 1), lambda x: x.expand(-1, 4)),
    "expand_permuted": ((1, 3), lambda x: x.T.expand(3, 2)),
    "expand_as": ((3,), lambda x: x.expand_as(minitorch.zeros(2, 3))),
    "broadcast_to": ((1, 3), lambda x: x.broadcast_to((2, 2, 3))),
    "flatten": ((2, 3, 2), lambda x: x.flatten()),
    "flatten_1": ((2, 3, 2), lambda x: x.flatten(1)),
    "flatten_permuted": ((2, 3, 2), lambda x: minitorch.flatten(x.permute(2, 1, 0), 0, 1)),
    "narrow": ((2, 4), lambda x: x.narrow(1, 1, 2)),
    "narrow_negative": ((2, 4), lambda x: x.T.narrow(-1, 1, 1)),
    "unflatten": ((2, 6), lambda x: x.unflatten(1, (3, 2))),
    "chain": ((2, 3, 4), lambda x: x.permute(2, 0, 1)[1:, :, ::2].reshape(3, 4).T),
}


@grads
@pytest.mark.parametrize("name", list(VIEWS))
def test_view_gradients(backend: str, name: str) -> None:
    shape, fn = VIEWS[name]
    gradcheck(fn, leaf(uniform(np.random.default_rng(11), shape)))


@grads
def test_view_gradient_hand_derived(backend: str) -> None:
    """The gradient of a slice is the upstream gradient scattered into zeros; of an expand, summed."""
    x = leaf(np.zeros((2, 4)))
    (x[:, 1::2] * minitorch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=F64)).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[0, 1, 0, 2], [0, 3, 0, 4]])
    y = leaf([1.0, 2.0])
    y.expand(3, 2).sum().backward()
    np.testing.assert_array_equal(y.grad.numpy(), [3.0, 3.0])
    z = leaf(np.zeros((2, 3)))
    (z.T * minitorch.tensor(np.arange(6.0).reshape(3, 2), dtype=F64)).sum().backward()
    np.testing.assert_array_equal(z.grad.numpy(), np.arange(6.0).reshape(3, 2).T)


KEYS = [
    1,
    -1,
    (0, slice(None, None, 2)),
    slice(1, None),
    (Ellipsis, 1),
    (None, 0),
    (slice(None), None, -1),
    (Ellipsis, None),
    (1, Ellipsis, slice(0, 2)),
    (slice(None, None, 2), slice(1, 3)),
    (-2, slice(None, None, 3), -1),
    (slice(None), slice(-3, -1), 0),
    (None, Ellipsis, None),
    (slice(1, 3), 2, slice(None, None, 2)),
    Ellipsis,
]


@grads
@pytest.mark.parametrize("permuted", [False, True], ids=["contiguous", "permuted"])
@pytest.mark.parametrize("key", KEYS, ids=repr)
def test_getitem_gradients(backend: str, key: Any, permuted: bool) -> None:
    rng = np.random.default_rng(12)
    if permuted:
        gradcheck(lambda t: t.permute(1, 2, 0)[key], leaf(uniform(rng, (2, 3, 4))))
    else:
        gradcheck(lambda t: t[key], leaf(uniform(rng, (3, 4, 2))))


@grads
def test_getitem_chained_and_reused(backend: str) -> None:
    """Two slices of one tensor both send gradient back; overlapping parts add up."""
    rng = np.random.default_rng(13)
    gradcheck(lambda t: t[::2][:, 1:] * t[1:, 2:].sum(), leaf(uniform(rng, (3, 4))))
    x = leaf(np.ones((3,)))
    (x[:2] + x[1:]).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 2.0, 1.0])


@grads
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_cat_gradients(backend: str, dim: int) -> None:
    rng = np.random.default_rng(14)
    sizes = [1, 3, 2]

    def shaped(k: int) -> tuple[int, ...]:
        base = [2, 2]
        base[dim] = k
        return tuple(base)

    leaves = [leaf(uniform(rng, shaped(k))) for k in sizes]
    gradcheck(lambda a, b, c: minitorch.cat([a, b, c], dim=dim), *leaves)
    # non-contiguous members: a transposed one and a step-sliced one
    a = leaf(uniform(rng, shaped(1)[::-1]))
    b = leaf(uniform(rng, shaped(3)[:-1] + (2 * shaped(3)[-1],)))
    c = leaf(uniform(rng, shaped(2)))
    gradcheck(lambda a, b, c: minitorch.concat((a.T, b[..., ::2], c), dim), a, b, c)


@grads
@pytest.mark.parametrize("dim", [0, 1, 2, -1])
def test_stack_gradients(backend: str, dim: int) -> None:
    rng = np.random.default_rng(15)
    a, b, c = leaf(uniform(rng, (2, 3))), leaf(uniform(rng, (3, 2))), leaf(uniform(rng, (1, 3)))
    gradcheck(lambda a, b, c: minitorch.stack([a, b.T, c.expand(2, 3)], dim=dim), a, b, c)


@grads
def test_where_gradients(backend: str) -> None:
    rng = np.random.default_rng(16)
    cond = minitorch.tensor(rng.random((2, 3)) > 0.5)
    a, b = leaf(uniform(rng, (3,))), leaf(uniform(rng, (2, 1)))
    gradcheck(lambda a, b: minitorch.where(cond, a, b), a, b)
    gradcheck(lambda a: minitorch.where(cond, a, 0.5), a)
    gradcheck(lambda b: minitorch.where(cond, -1.0, b), b)
    gradcheck(lambda a, c: a.T.where(cond, c[:, ::2]), leaf(uniform(rng, (3, 2))), leaf(uniform(rng, (2, 6))))
    gradcheck(lambda a, b: minitorch.where(cond.T, a, b.expand(2, 3).T), leaf(uniform(rng, (3, 2))), b)


@grads
def test_where_gradient_hand_derived(backend: str) -> None:
    cond = minitorch.tensor([True, False, True])
    a, b = leaf([1.0, 2.0, 3.0]), leaf([4.0, 5.0, 6.0])
    minitorch.where(cond, a, b).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), [1, 0, 1])
    np.testing.assert_array_equal(b.grad.numpy(), [0, 1, 0])


@grads
@pytest.mark.parametrize(
    "fn",
    [
        lambda x: x.clone(),
        lambda x: minitorch.clone(x.T),
        lambda x: x.contiguous(),
        lambda x: x.T.contiguous(),
        lambda x: x[:, ::2].contiguous() * 2,
    ],
    ids=["clone", "clone_T", "contiguous", "contiguous_T", "contiguous_strided"],
)
def test_clone_contiguous_gradients(backend: str, fn: Callable) -> None:
    gradcheck(fn, leaf(uniform(np.random.default_rng(17), (2, 4))))


@grads
def test_cast_gradients(backend: str) -> None:
    """``.to(float64)`` of a float32 leaf: the gradient comes back as float32."""
    x = minitorch.tensor([1.0, -2.0, 3.0], requires_grad=True)
    assert x.dtype is minitorch.float32
    y = x.to(minitorch.float64)
    assert y.dtype is F64 and y.grad_fn is not None
    (y * minitorch.tensor([2.0, 3.0, 4.0], dtype=F64)).sum().backward()
    assert x.grad.dtype is minitorch.float32
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 3.0, 4.0])
    # a round trip through float32 inside a float64 computation: slope 3 everywhere
    gradcheck(lambda t: t.float().double() * 3, leaf([0.5, -1.25]), eps=1e-2)
    gradcheck(lambda t: (t.T.to(minitorch.float32) * 2).to(F64).exp(), leaf([[0.5, -1.25]]), eps=1e-3, rtol=1e-3)


@grads
def test_composite_expressions(backend: str) -> None:
    """Fan-out, shared subexpressions and several ops in one graph."""
    rng = np.random.default_rng(18)
    gradcheck(lambda x: x * x + x.exp() * x - x / (x * x + 1), leaf(uniform(rng, (2, 3))))

    def softmax(x: Tensor) -> Tensor:
        shifted = x - x.max(1, keepdim=True).values
        e = shifted.exp()
        return e / e.sum(1, keepdim=True)

    gradcheck(softmax, leaf(distinct(rng, (2, 3))))

    def mlp(x: Tensor, w1: Tensor, b1: Tensor, w2: Tensor) -> Tensor:
        return ((x @ w1 + b1).tanh() @ w2).sigmoid().mean()

    gradcheck(mlp, leaf(uniform(rng, (2, 3))), leaf(uniform(rng, (3, 4))), leaf(uniform(rng, (4,))), leaf(uniform(rng, (4, 1))))


class _Square(minitorch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, a: Tensor) -> Tensor:
        ctx.save_for_backward(a)
        return a * a

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        (a,) = ctx.saved_tensors
        return grad * 2 * a


class _WrongSquare(_Square):
    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        (a,) = ctx.saved_tensors
        return grad * a  # the factor 2 is missing


@grads
def test_gradcheck_accepts_right_and_rejects_wrong_backward(backend: str) -> None:
    """The oracle itself: a custom Function with a correct backward passes, a wrong one is caught."""
    values = uniform(np.random.default_rng(19), (2, 3))
    gradcheck(_Square.apply, leaf(values))
    with pytest.raises(AssertionError, match="disagree"):
        gradcheck(_WrongSquare.apply, leaf(values))
    # an input whose gradient never arrives is compared as zeros
    with pytest.raises(AssertionError, match="input 1"):
        gradcheck(lambda a, b: a * b.detach(), leaf(values), leaf(values))


# ---------------------------------------------------------------- engine: accumulation, retain_graph, seeds


@engine
def test_gradients_accumulate_across_backward_calls(backend: str) -> None:
    x = leaf([1.0, 2.0])
    (x * 2).sum().backward()
    (x * x).sum().backward()  # adds 2x
    np.testing.assert_array_equal(x.grad.numpy(), [2 + 2, 2 + 4])
    x.grad = None
    (x * 5).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [5.0, 5.0])


@engine
def test_grad_is_contiguous_and_owned(backend: str) -> None:
    """A gradient that arrives as a broadcast view (from expand/sum) is stored as a fresh tensor."""
    x = leaf([1.0, 2.0, 3.0])
    x.sum().backward()
    g = x.grad
    assert g.shape == (3,) and g.dtype is F64
    with minitorch.no_grad():
        g.add_(minitorch.tensor([1.0, 2.0, 3.0], dtype=F64))
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 3.0, 4.0])


@engine
def test_retain_graph(backend: str) -> None:
    x = leaf([1.0, -2.0])
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    np.testing.assert_array_equal(x.grad.numpy(), [4.0, -8.0])
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward()
    z = x.exp().sum()
    z.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        z.backward()


@engine
def test_backward_non_scalar_needs_gradient(backend: str) -> None:
    x = leaf([1.0, 2.0])
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
        (x * 2).backward()
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
        minitorch.autograd.grad(x * 2, x)


@engine
def test_backward_with_explicit_gradient(backend: str) -> None:
    x = leaf([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    y = x * x
    g = minitorch.tensor([[1.0, 0.5, -1.0], [2.0, 0.0, 3.0]], dtype=F64)
    y.backward(gradient=g)
    np.testing.assert_allclose(x.grad.numpy(), 2 * x.detach().numpy() * g.numpy())
    # a 1-element output takes an explicit seed too
    s = leaf([3.0])
    (s * s).backward(minitorch.tensor([10.0], dtype=F64))
    np.testing.assert_array_equal(s.grad.numpy(), [60.0])
    with pytest.raises(RuntimeError, match="Mismatch in shape"):
        (x * 2).backward(minitorch.ones(3, dtype=F64))


@engine
def test_backward_on_tensor_without_grad_raises(backend: str) -> None:
    with pytest.raises(RuntimeError, match="does not require grad"):
        minitorch.tensor([1.0, 2.0]).sum().backward()


# ---------------------------------------------------------------- hooks and retain_grad


@engine
def test_hook_on_leaf_sees_and_replaces_gradient(backend: str) -> None:
    x = leaf([1.0, 2.0])
    seen: list[list[float]] = []

    def hook(grad: Tensor) -> Tensor:
        seen.append(grad.tolist())
        return grad * 10

    handle = x.register_hook(hook)
    (x * 3).sum().backward()
    assert seen == [[3.0, 3.0]]
    np.testing.assert_array_equal(x.grad.numpy(), [30.0, 30.0])
    handle.remove()
    x.grad = None
    (x * 3).sum().backward()
    assert len(seen) == 1
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 3.0])


@engine
def test_hook_on_non_leaf(backend: str) -> None:
    x = leaf([1.0, 2.0])
    y = x * 2
    seen: list[list[float]] = []
    y.register_hook(lambda g: seen.append(g.tolist()))  # observing hook: returns None
    handle = y.register_hook(lambda g: g + 1)
    (y * y).sum().backward()  # dL/dy = 2y = [4, 8], replaced by [5, 9]; dL/dx = 2 * that
    assert seen == [[4.0, 8.0]]
    np.testing.assert_array_equal(x.grad.numpy(), [10.0, 18.0])
    assert y.grad is None  # hooks don't retain a non-leaf's gradient
    handle.remove()
    x.grad = None
    z = x * 2
    z.register_hook(lambda g: g * 0)
    (z * z + x).sum().backward()  # the x branch doesn't pass through z
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 1.0])


@engine
def test_hook_requires_grad(backend: str) -> None:
    with pytest.raises(RuntimeError):
        minitorch.tensor([1.0]).register_hook(lambda g: g)


@engine
def test_retain_grad(backend: str) -> None:
    x = leaf([1.0, 2.0])
    y = x * 3
    w = x * 4
    y.retain_grad()
    assert y.retains_grad and not w.retains_grad
    (y * y + w).sum().backward()
    np.testing.assert_array_equal(y.grad.numpy(), [6.0, 12.0])  # 2y
    assert w.grad is None
    np.testing.assert_array_equal(x.grad.numpy(), [18 + 4, 36 + 4])
    x.retain_grad()  # a no-op on a leaf
    assert x.is_leaf


# ---------------------------------------------------------------- grad modes


@engine
def test_no_grad_context_and_decorator(backend: str) -> None:
    x = leaf([1.0, 2.0])
    assert minitorch.is_grad_enabled()
    with minitorch.no_grad():
        assert not minitorch.is_grad_enabled()
        y = x * 2
    assert minitorch.is_grad_enabled()
    assert not y.requires_grad and y.grad_fn is None and y.is_leaf
    np.testing.assert_array_equal(y.numpy(), [2.0, 4.0])

    @minitorch.no_grad()
    def double(t: Tensor) -> Tensor:
        assert not minitorch.is_grad_enabled()
        return t * 2

    assert not double(x).requires_grad
    assert minitorch.is_grad_enabled()
    with pytest.raises(ValueError):
        with minitorch.no_grad():
            raise ValueError("restored on error")
    assert minitorch.is_grad_enabled()


@engine
def test_enable_grad_inside_no_grad(backend: str) -> None:
    x = leaf([1.0, 2.0])
    with minitorch.no_grad():
        with minitorch.enable_grad():
            assert minitorch.is_grad_enabled()
            y = x * 2
        assert not minitorch.is_grad_enabled()
        z = x * 2

        @minitorch.enable_grad()
        def triple(t: Tensor) -> Tensor:
            return t * 3

        w = triple(x)
    assert y.requires_grad and not z.requires_grad and w.requires_grad
    (y + w).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [5.0, 5.0])


@engine
def test_set_grad_enabled(backend: str) -> None:
    x = leaf([1.0])
    with minitorch.set_grad_enabled(False):
        assert not (x * 2).requires_grad
        with minitorch.set_grad_enabled(True):
            assert (x * 2).requires_grad
        assert not minitorch.is_grad_enabled()
    assert minitorch.is_grad_enabled()
    minitorch.set_grad_enabled(False)  # as a plain call it switches at once
    try:
        assert not minitorch.is_grad_enabled()
        assert not (x * 2).requires_grad
    finally:
        minitorch.set_grad_enabled(True)
    assert minitorch.is_grad_enabled()

    @minitorch.set_grad_enabled(False)
    def f(t: Tensor) -> Tensor:
        return t * 2

    assert minitorch.is_grad_enabled()  # decorating doesn't change the mode
    assert not f(x).requires_grad
    assert minitorch.is_grad_enabled()


@engine
def test_inference_mode(backend: str) -> None:
    x = leaf([1.0])
    with minitorch.inference_mode():
        assert not minitorch.is_grad_enabled()
        assert not (x * 2).requires_grad
    assert minitorch.is_grad_enabled()
    with minitorch.inference_mode(False):
        assert minitorch.is_grad_enabled()
        assert (x * 2).requires_grad

    @minitorch.inference_mode()
    def f(t: Tensor) -> Tensor:
        return t * 2

    assert not f(x).requires_grad
    assert minitorch.is_grad_enabled()


# ---------------------------------------------------------------- leaves, detach, requires_grad


@engine
def test_detach(backend: str) -> None:
    x = leaf([1.0, 2.0])
    d = x.detach()
    assert not d.requires_grad and d.is_leaf and d.grad_fn is None
    d.add_(1.0)  # shares storage: the leaf sees the change
    np.testing.assert_array_equal(x.detach().numpy(), [2.0, 3.0])
    (x.detach() * x).sum().backward()  # only the tracked factor contributes
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 3.0])
    y = (x * 2).detach()
    assert not y.requires_grad and y.grad_fn is None


@engine
def test_requires_grad_flags(backend: str) -> None:
    with pytest.raises(RuntimeError, match="floating point"):
        minitorch.tensor([1, 2]).requires_grad_()
    with pytest.raises(RuntimeError, match="floating point"):
        minitorch.tensor([1, 2], requires_grad=True)
    x = minitorch.tensor([1.0, 2.0])
    assert not x.requires_grad
    assert x.requires_grad_() is x and x.requires_grad
    y = x * 2
    with pytest.raises(RuntimeError, match="leaf"):
        y.requires_grad = False
    z = minitorch.tensor([1.0]) * 2
    assert not z.requires_grad and z.grad_fn is None


@engine
def test_is_leaf_and_grad_fn_names(backend: str) -> None:
    x = leaf([1.0, 2.0])
    c = minitorch.tensor([1.0, 2.0])
    assert x.is_leaf and x.grad_fn is None and c.is_leaf
    named = {
        "AddBackward0": x + 1,
        "SubBackward0": x - c,
        "MulBackward0": x * 2,
        "DivBackward0": x / 2,
        "NegBackward0": -x,
        "ExpBackward0": x.exp(),
        "LogBackward0": x.log(),
        "SqrtBackward0": x.sqrt(),
        "SigmoidBackward0": x.sigmoid(),
        "TanhBackward0": x.tanh(),
        "AbsBackward0": x.abs(),
    }
    addresses = set()
    for name, t in named.items():
        assert not t.is_leaf and t.requires_grad
        assert t.grad_fn.name() == name
        shown = repr(t.grad_fn)  # PyTorch's repr of a node: its class and its address
        assert re.fullmatch(rf"<{name} object at 0x[0-9a-f]+>", shown), shown
        assert repr(t.grad_fn) == shown
        addresses.add(shown.rsplit(" ", 1)[1])
    assert len(addresses) == len(named)  # one address per node
    assert (c + 1).grad_fn is None


# ---------------------------------------------------------------- in-place ops


INPLACE = {
    "add_": (lambda t: t.add_(2.0), lambda v: v + 2),
    "add_alpha": (lambda t: t.add_(minitorch.tensor([1.0, 2.0, 3.0], dtype=F64), alpha=2), lambda v: v + [2, 4, 6]),
    "sub_": (lambda t: t.sub_(0.5), lambda v: v - 0.5),
    "mul_": (lambda t: t.mul_(minitorch.tensor([[2.0], [3.0]], dtype=F64)), lambda v: v * [[2], [3]]),
    "div_": (lambda t: t.div_(4), lambda v: v / 4),
    "zero_": (lambda t: t.zero_(), lambda v: v * 0),
    "fill_": (lambda t: t.fill_(7.5), lambda v: np.full_like(v, 7.5)),
    "copy_": (lambda t: t.copy_(minitorch.tensor([9.0, 8.0, 7.0])), lambda v: np.broadcast_to([9.0, 8.0, 7.0], v.shape)),
}


@engine
@pytest.mark.parametrize("name", list(INPLACE))
def test_inplace_on_leaf_under_no_grad(backend: str, name: str) -> None:
    op, expected = INPLACE[name]
    start = np.arange(6.0).reshape(2, 3) - 2
    x = leaf(start)
    version = x._version
    with minitorch.no_grad():
        assert op(x) is x
    np.testing.assert_allclose(x.detach().numpy(), expected(start))
    assert x._version > version
    assert x.requires_grad and x.is_leaf and x.grad_fn is None
    (x * x).sum().backward()  # still a working leaf
    np.testing.assert_allclose(x.grad.numpy(), 2 * expected(start))


@engine
@pytest.mark.parametrize("name", list(INPLACE))
def test_inplace_on_leaf_requiring_grad_raises(backend: str, name: str) -> None:
    op, _ = INPLACE[name]
    x = leaf(np.ones((2, 3)))
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place operation"):
        op(x)
    np.testing.assert_array_equal(x.detach().numpy(), np.ones((2, 3)))


@engine
def test_inplace_on_saved_tensor_detected(backend: str) -> None:
    x = leaf([1.0, 2.0])
    w = minitorch.tensor([3.0, 4.0], dtype=F64)
    y = x * w  # saves w for x's gradient
    w.add_(1.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()

    e = x.exp()  # saves its output
    out = e.sum()
    with minitorch.no_grad():
        e.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.backward()


@engine
def test_inplace_on_unsaved_tensor_is_fine(backend: str) -> None:
    x = leaf([1.0, 2.0])
    w = minitorch.tensor([3.0, 4.0], dtype=F64)
    y = x + w  # Add saves nothing
    w.mul_(10)
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 1.0])


@engine
def test_inplace_on_non_leaf_records_history(backend: str) -> None:
    x = leaf([1.0, 2.0])
    y = x * 3
    y.add_(1.0)
    y.mul_(2.0)  # y = 2 (3x + 1), dy/dx = 6
    y.sub_(x)  # y = 5x + 2
    assert y.grad_fn is not None and not y.is_leaf
    np.testing.assert_allclose(y.detach().numpy(), [7.0, 12.0])
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [5.0, 5.0])


@engine
def test_inplace_mul_by_tensor_requiring_grad(backend: str) -> None:
    x = leaf([1.0, 2.0])
    y = x * 3
    y.mul_(x)  # y = 3x^2 (PyTorch saves the original self for this), dy/dx = 6x
    np.testing.assert_allclose(y.detach().numpy(), [3.0, 12.0])
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [6.0, 12.0])


# ---------------------------------------------------------------- autograd.grad and higher order


@engine
def test_autograd_grad_returns_without_accumulating(backend: str) -> None:
    x, y = leaf([1.0, 2.0]), leaf([3.0, -1.0])
    out = (x * y + x.exp()).sum()
    gx, gy = minitorch.autograd.grad(out, [x, y])
    np.testing.assert_allclose(gx.numpy(), [3.0 + math.e, -1.0 + math.exp(2.0)])
    np.testing.assert_allclose(gy.numpy(), [1.0, 2.0])
    assert x.grad is None and y.grad is None
    unused = leaf([1.0])
    with pytest.raises(RuntimeError, match="not have been used"):
        minitorch.autograd.grad((x * 2).sum(), [x, unused])
    gx2, gu = minitorch.autograd.grad((x * 2).sum(), [x, unused], allow_unused=True)
    np.testing.assert_array_equal(gx2.numpy(), [2.0, 2.0])
    assert gu is None
    (g_out,) = minitorch.autograd.grad(x * x, x, grad_outputs=[minitorch.tensor([1.0, -1.0], dtype=F64)])
    np.testing.assert_array_equal(g_out.numpy(), [2.0, -4.0])


@engine
def test_double_backward_of_cube(backend: str) -> None:
    """d/dx x**3 = 3x**2 and d2/dx2 = 6x, through create_graph."""
    values = np.array([0.5, -1.5, 2.0])
    x = leaf(values)
    (g,) = minitorch.autograd.grad((x**3).sum(), x, create_graph=True)
    assert g.requires_grad
    np.testing.assert_allclose(g.detach().numpy(), 3 * values**2)
    g.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 6 * values)


@engine
def test_create_graph_gradients_accumulate(backend: str) -> None:
    """With create_graph, .grad keeps a graph and a second backward adds to it."""
    values = np.array([1.0, -2.0])
    x = leaf(values)
    (x * x).sum().backward(create_graph=True)  # 2x
    (x * x * x).sum().backward(create_graph=True)  # + 3x^2
    np.testing.assert_allclose(x.grad.detach().numpy(), 2 * values + 3 * values**2)
    (second,) = minitorch.autograd.grad(x.grad.sum(), x)
    np.testing.assert_allclose(second.numpy(), 2 + 6 * values)


@engine
def test_double_backward_of_polynomial_via_backward(backend: str) -> None:
    """p(x) = 2x^3 - x^2 + 4x: p' = 6x^2 - 2x + 4, p'' = 12x - 2."""
    values = np.array([1.0, -0.5])
    x = leaf(values)
    (2 * x * x * x - x * x + 4 * x).sum().backward(create_graph=True)
    first = x.grad
    np.testing.assert_allclose(first.detach().numpy(), 6 * values**2 - 2 * values + 4)
    assert first.requires_grad
    (second,) = minitorch.autograd.grad(first.sum(), x)
    np.testing.assert_allclose(second.numpy(), 12 * values - 2)

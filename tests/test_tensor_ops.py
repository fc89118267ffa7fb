"""Tensor forward ops against NumPy (task 2.3) and broadcasting (task 2.2).

Every expected value is NumPy's on the same numbers; dtypes are checked against
PyTorch's rules written out in the test. Each test runs on both CPU backends through the
``backend`` fixture, on contiguous and non-contiguous (permuted, step-sliced, expanded)
operands. Tensors stay tiny: the ``simple`` backend is pure Python.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes, mutually_broadcastable_shapes

import minitorch
from minitorch import Tensor

F64 = minitorch.float64
FEW = settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

forward = pytest.mark.task("2.3")
broadcasting = pytest.mark.task("2.2")


def t64(values: Any) -> Tensor:
    return minitorch.tensor(np.asarray(values, dtype=np.float64), dtype=F64)


def check(actual: Tensor, expected: Any, dtype: minitorch.dtype | None = None, rtol: float = 1e-12, atol: float = 0.0) -> None:
    """``actual`` has ``expected``'s shape and values (and ``dtype`` when given)."""
    expected = np.asarray(expected)
    assert isinstance(actual, Tensor)
    assert tuple(actual.shape) == expected.shape, f"shape {tuple(actual.shape)} != {expected.shape}"
    if dtype is not None:
        assert actual.dtype is dtype, f"dtype {actual.dtype} != {dtype}"
    values = actual.numpy()
    if expected.dtype.kind == "b" or np.issubdtype(expected.dtype, np.integer):
        np.testing.assert_array_equal(values, expected)
    else:
        np.testing.assert_allclose(values, expected, rtol=rtol, atol=atol, equal_nan=True)


#: non-contiguous views of a (2, 3) NumPy array and the same view of a tensor
def views_of(values: np.ndarray) -> list[tuple[str, Tensor, np.ndarray]]:
    """The same (2, 3) values laid out contiguous, transposed, step-sliced and expanded."""
    assert values.shape == (2, 3)
    transposed = t64(values.T.copy()).T
    strided_source = np.zeros((2, 6))
    strided_source[:, ::2] = values
    strided = t64(strided_source)[:, ::2]
    row = values[:1]
    return [
        ("contiguous", t64(values), values),
        ("transposed", transposed, values),
        ("strided", strided, values),
        ("expanded", t64(row).expand(2, 3), np.broadcast_to(row, (2, 3))),
    ]


# ---------------------------------------------------------------- unary

UNARY = {
    "neg": (lambda t: -t, np.negative, None),
    "exp": (lambda t: t.exp(), np.exp, None),
    "log": (lambda t: minitorch.log(t), np.log, "positive"),
    "sqrt": (lambda t: t.sqrt(), np.sqrt, "positive"),
    "abs": (lambda t: abs(t), np.abs, None),
    "sigmoid": (lambda t: t.sigmoid(), lambda v: 1 / (1 + np.exp(-v)), None),
    "tanh": (lambda t: minitorch.tanh(t), np.tanh, None),
    "relu": (lambda t: t.relu(), lambda v: np.maximum(v, 0), None),
    "sign": (lambda t: t.sign(), np.sign, None),
    "square": (lambda t: t.square(), np.square, None),
    "reciprocal": (lambda t: t.reciprocal(), np.reciprocal, "positive"),
    "sin": (lambda t: t.sin(), np.sin, None),
    "cos": (lambda t: minitorch.cos(t), np.cos, None),
}


@forward
@FEW
@given(shape=array_shapes(min_dims=0, max_dims=3, max_side=3), seed=st.integers(0, 2**16))
@pytest.mark.parametrize("name", list(UNARY))
def test_unary_forward(backend: str, name: str, shape: tuple[int, ...], seed: int) -> None:
    op, reference, domain = UNARY[name]
    rng = np.random.default_rng(seed)
    values = rng.uniform(0.1, 3.0, shape) if domain == "positive" else rng.uniform(-3.0, 3.0, shape)
    check(op(t64(values)), reference(values), F64)


@forward
@pytest.mark.parametrize("name", list(UNARY))
def test_unary_forward_non_contiguous(backend: str, name: str) -> None:
    op, reference, domain = UNARY[name]
    values = np.random.default_rng(0).uniform(0.1 if domain else -3.0, 3.0, (2, 3))
    for layout, tensor, expected in views_of(values):
        check(op(tensor), reference(expected), F64)


@forward
@pytest.mark.parametrize("name", ["neg", "exp", "log", "sqrt", "abs", "sigmoid", "tanh", "relu", "sin", "cos"])
def test_unary_forward_float32(backend: str, name: str) -> None:
    op, reference, _ = UNARY[name]
    values = np.array([[0.25, 1.5, 2.75], [0.5, 3.0, 1.25]], dtype=np.float32)
    check(op(minitorch.tensor(values)), reference(values), minitorch.float32, rtol=1e-6)


@forward
def test_unary_special_values(backend: str) -> None:
    check(t64([0.0, -2.0, 5.0, -0.0]).sign(), [0.0, -1.0, 1.0, 0.0])
    check(t64([-1.0, 0.0]).log(), [np.nan, -np.inf])
    check(t64([-100.0, 100.0]).sigmoid(), [1 / (1 + np.exp(100.0)), 1.0])
    check(t64([-1.0]).sqrt(), [np.nan])


@forward
def test_unary_on_integer_tensors(backend: str) -> None:
    """Floating functions of an int tensor give the default float dtype; neg/abs/relu keep int64."""
    ints = minitorch.tensor([1, -2, 3])
    check(ints.exp(), np.exp([1.0, -2.0, 3.0]).astype(np.float32), minitorch.float32, rtol=1e-6)
    check(minitorch.tensor([1, 4, 9]).sqrt(), [1.0, 2.0, 3.0], minitorch.float32)
    check(-ints, [-1, 2, -3], minitorch.int64)
    check(ints.abs(), [1, 2, 3], minitorch.int64)
    check(ints.relu(), [1, 0, 3], minitorch.int64)
    with pytest.raises(RuntimeError, match="bool"):
        -minitorch.tensor([True])


# ---------------------------------------------------------------- binary with broadcasting

BINARY = {
    "add": (lambda a, b: a + b, np.add),
    "sub": (lambda a, b: a - b, np.subtract),
    "mul": (lambda a, b: a * b, np.multiply),
    "div": (lambda a, b: a / b, np.divide),
    "pow": (lambda a, b: a**b, np.power),
    "maximum": (minitorch.maximum, np.maximum),
    "minimum": (lambda a, b: a.minimum(b), np.minimum),
    "add_method": (lambda a, b: a.add(b), np.add),
    "sub_method": (lambda a, b: a.sub(b, alpha=2), lambda x, y: x - 2 * y),
    "mul_method": (lambda a, b: a.mul(b), np.multiply),
    "div_method": (lambda a, b: a.div(b), np.divide),
    "pow_method": (lambda a, b: a.pow(b), np.power),
}
COMPARE = {
    "lt": (lambda a, b: a < b, np.less),
    "le": (lambda a, b: a.le(b), np.less_equal),
    "gt": (lambda a, b: a > b, np.greater),
    "ge": (lambda a, b: a.ge(b), np.greater_equal),
    "eq": (lambda a, b: a == b, np.equal),
    "ne": (lambda a, b: a.ne(b), np.not_equal),
}


def _binary_values(rng: np.random.Generator, name: str, shape: tuple[int, ...], second: bool) -> np.ndarray:
    if name.startswith("pow") and not second:
        return rng.uniform(0.1, 3.0, shape)
    if name.startswith("div") and second:
        return rng.uniform(0.5, 3.0, shape) * rng.choice([-1.0, 1.0], shape)
    # few distinct values so that comparisons see equal pairs too
    return rng.integers(-3, 4, shape) * 0.5


@broadcasting
@FEW
@given(shapes=mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, max_side=3), seed=st.integers(0, 2**16))
@pytest.mark.parametrize("name", list(BINARY) + list(COMPARE))
def test_binary_broadcast_forward(backend: str, name: str, shapes: Any, seed: int) -> None:
    op, reference = {**BINARY, **COMPARE}[name]
    rng = np.random.default_rng(seed)
    sa, sb = shapes.input_shapes
    a, b = _binary_values(rng, name, sa, False), _binary_values(rng, name, sb, True)
    result = op(t64(a), t64(b))
    assert tuple(result.shape) == np.broadcast_shapes(sa, sb)
    check(result, reference(a, b), minitorch.bool if name in COMPARE else F64)


@broadcasting
@pytest.mark.parametrize("name", list(BINARY) + list(COMPARE))
def test_binary_forward_non_contiguous(backend: str, name: str) -> None:
    op, reference = {**BINARY, **COMPARE}[name]
    rng = np.random.default_rng(1)
    a, b = _binary_values(rng, name, (2, 3), False), _binary_values(rng, name, (2, 3), True)
    for (_, ta, na), (_, tb, nb) in zip(views_of(a), reversed(views_of(b))):
        check(op(ta, tb), reference(na, nb))
    # broadcasting a transposed column against a step-sliced row
    check(op(t64(a.T.copy()).T[:, :1], t64(b)[1, ::2]), reference(a[:, :1], b[1, ::2]))


@broadcasting
def test_broadcast_examples_by_hand(backend: str) -> None:
    col = t64([[1.0], [2.0]])
    row = t64([10.0, 20.0, 30.0])
    check(col + row, [[11.0, 21.0, 31.0], [12.0, 22.0, 32.0]])
    check(row * t64(2.0), [20.0, 40.0, 60.0])
    check(t64(np.ones((2, 1, 3))) - t64(np.ones((4, 1))), np.zeros((2, 4, 3)))


@broadcasting
@pytest.mark.parametrize(
    "sa,sb", [((2, 3), (4,)), ((2, 3), (3, 2)), ((5, 1, 2), (3, 3)), ((2,), (3,))], ids=str
)
def test_broadcast_errors_name_both_shapes(backend: str, sa: tuple, sb: tuple) -> None:
    with pytest.raises(ValueError):
        np.broadcast_shapes(sa, sb)  # the oracle agrees these don't broadcast
    for op in (lambda a, b: a + b, lambda a, b: a * b, lambda a, b: a < b, minitorch.maximum):
        with pytest.raises(RuntimeError, match="must match the size") as error:
            op(minitorch.ones(*sa), minitorch.ones(*sb))
        assert str(list(sa)) in str(error.value) and str(list(sb)) in str(error.value)
    with pytest.raises(RuntimeError, match="must match the size"):
        minitorch.where(minitorch.ones(*sa) > 0, minitorch.ones(*sa), minitorch.ones(*sb))


@broadcasting
def test_expand_errors(backend: str) -> None:
    with pytest.raises(RuntimeError, match="must match the existing size"):
        minitorch.ones(2, 3).expand(2, 4)
    with pytest.raises(RuntimeError):
        minitorch.ones(2, 3).expand(3)
    check(t64([[1.0], [2.0]]).expand(-1, 3), [[1.0] * 3, [2.0] * 3])


SCALAR_EXPRESSIONS = {
    "x+2.5": (lambda x: x + 2.5, lambda v: v + 2.5),
    "2.5+x": (lambda x: 2.5 + x, lambda v: 2.5 + v),
    "x-1": (lambda x: x - 1, lambda v: v - 1),
    "1.5-x": (lambda x: 1.5 - x, lambda v: 1.5 - v),
    "x*-3": (lambda x: x * -3, lambda v: v * -3),
    "-3*x": (lambda x: -3.0 * x, lambda v: -3.0 * v),
    "x/4": (lambda x: x / 4, lambda v: v / 4),
    "3/x": (lambda x: 3 / x, lambda v: 3 / v),
    "x**2": (lambda x: x**2, lambda v: v**2),
    "x**0.5": (lambda x: x.abs() ** 0.5, lambda v: np.abs(v) ** 0.5),
    "2**x": (lambda x: 2**x, lambda v: 2.0**v),
    "maximum_0": (lambda x: x.maximum(minitorch.tensor(0.0, dtype=F64)), lambda v: np.maximum(v, 0.0)),
}


@forward
@pytest.mark.parametrize("name", list(SCALAR_EXPRESSIONS))
def test_scalar_operand_forward(backend: str, name: str) -> None:
    op, reference = SCALAR_EXPRESSIONS[name]
    values = np.array([[0.5, -1.5, 2.0], [3.0, -0.25, 1.0]])
    for _, tensor, expected in views_of(values):
        check(op(tensor), reference(expected), F64)


@forward
def test_integer_arithmetic(backend: str) -> None:
    a, b = minitorch.tensor([7, -3, 4]), minitorch.tensor([2, 2, -3])
    check(a + b, [9, -1, 1], minitorch.int64)
    check(a * b, [14, -6, -12], minitorch.int64)
    check(a - 10, [-3, -13, -6], minitorch.int64)
    check(a**2, [49, 9, 16], minitorch.int64)
    check(a / b, np.array([3.5, -1.5, -4 / 3], dtype=np.float32), minitorch.float32, rtol=1e-6)  # true division
    check(minitorch.maximum(a, b), [7, 2, 4], minitorch.int64)


@forward
def test_division_by_zero_is_ieee(backend: str) -> None:
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = np.array([1.0, -1.0, 0.0]) / 0.0
    check(t64([1.0, -1.0, 0.0]) / 0, expected)
    check(t64([1.0, -1.0, 0.0]) / t64([0.0, 0.0, 0.0]), expected)


@forward
def test_float16_ops(backend: str) -> None:
    a_np = np.array([1.5, -2.25, 0.125], dtype=np.float16)
    b_np = np.array([0.5, 4.0, -1.0], dtype=np.float16)
    a, b = minitorch.tensor(a_np), minitorch.tensor(b_np)
    assert a.dtype is minitorch.float16
    check(a + b, a_np + b_np, minitorch.float16)
    check(a * b, a_np * b_np, minitorch.float16)
    check(a * 2.5, a_np * np.float16(2.5), minitorch.float16)
    check(a.exp(), np.exp(a_np), minitorch.float16, rtol=1e-3)
    check(a.sum(), np.sum(a_np), minitorch.float16, rtol=1e-3)
    check(a.max(), np.max(a_np), minitorch.float16)
    check(a > b, a_np > b_np, minitorch.bool)
    check(a + minitorch.tensor([1.0, 1.0, 1.0]), a_np.astype(np.float32) + 1, minitorch.float32)


# ---------------------------------------------------------------- comparisons and logic


@forward
@pytest.mark.parametrize("name", list(COMPARE))
def test_comparisons_with_scalars_and_mixed_dtypes(backend: str, name: str) -> None:
    op, reference = COMPARE[name]
    values = np.array([[1.0, 2.0, 3.0], [2.0, -1.0, 2.0]])
    check(op(t64(values), 2.0), reference(values, 2.0), minitorch.bool)
    check(op(t64(values), 2), reference(values, 2), minitorch.bool)
    ints = minitorch.tensor([[1, 2, 3], [2, -1, 2]])
    check(op(ints, t64([2.5, 2.0, 1.0])), reference(values, [2.5, 2.0, 1.0]), minitorch.bool)
    check(op(ints, 2.5), reference(values, 2.5), minitorch.bool)


@forward
def test_comparison_results_have_no_grad(backend: str) -> None:
    x = minitorch.tensor([1.0, 2.0], requires_grad=True)
    assert not (x > 1).requires_grad and (x > 1).grad_fn is None


@forward
def test_logical_ops(backend: str) -> None:
    p_np = np.array([[True, False], [True, True]])
    q_np = np.array([[True, True], [False, False]])
    p, q = minitorch.tensor(p_np), minitorch.tensor(q_np)
    check(p & q, p_np & q_np, minitorch.bool)
    check(p | q, p_np | q_np, minitorch.bool)
    check(~p, ~p_np, minitorch.bool)
    check(p.logical_not(), ~p_np, minitorch.bool)
    check(p.logical_and(q), p_np & q_np, minitorch.bool)
    check(p.logical_or(q), p_np | q_np, minitorch.bool)
    check(p & minitorch.tensor([True, False]), p_np & [True, False], minitorch.bool)  # broadcast
    numbers = t64([[0.0, 2.0], [-1.0, 0.0]])
    check(numbers.logical_not(), np.logical_not([[0.0, 2.0], [-1.0, 0.0]]), minitorch.bool)
    check((numbers > 0) | (numbers < 0), [[False, True], [True, False]], minitorch.bool)


@forward
def test_clamp(backend: str) -> None:
    values = np.array([[-2.0, -0.5, 0.0], [0.5, 1.0, 3.0]])
    for _, tensor, expected in views_of(values):
        check(tensor.clamp(-1.0, 0.75), np.clip(expected, -1.0, 0.75), F64)
        check(minitorch.clamp(tensor, min=0.0), np.maximum(expected, 0.0), F64)
        check(tensor.clip(max=0.25), np.minimum(expected, 0.25), F64)
    check(minitorch.tensor([-3, 0, 5]).clamp(-1, 2), [-1, 0, 2], minitorch.int64)
    with pytest.raises(RuntimeError, match="At least one of 'min' or 'max'"):
        t64([1.0]).clamp()


# ---------------------------------------------------------------- reductions


@forward
@FEW
@given(
    shape=array_shapes(min_dims=1, max_dims=3, max_side=3),
    data=st.data(),
    keepdim=st.booleans(),
)
@pytest.mark.parametrize("op", ["sum", "mean", "amax"])
def test_reductions_over_dims(backend: str, op: str, shape: tuple[int, ...], data: st.DataObject, keepdim: bool) -> None:
    ndim = len(shape)
    dims = data.draw(st.lists(st.integers(-ndim, ndim - 1), min_size=1, max_size=ndim, unique_by=lambda d: d % ndim), label="dims")
    dim: Any = dims[0] if len(dims) == 1 else tuple(dims)
    values = np.random.default_rng(data.draw(st.integers(0, 2**16), label="seed")).uniform(-3, 3, shape)
    reference = {"sum": np.sum, "mean": np.mean, "amax": np.max}[op]
    check(getattr(t64(values), op)(dim, keepdim=keepdim), reference(values, axis=dim, keepdims=keepdim), F64)


@forward
@pytest.mark.parametrize("op", ["sum", "mean"])
def test_full_reductions(backend: str, op: str) -> None:
    values = np.arange(6.0).reshape(2, 3) - 1.5
    for _, tensor, expected in views_of(values):
        check(getattr(tensor, op)(), getattr(np, op)(expected), F64)
        check(getattr(minitorch, op)(tensor, None, True), getattr(np, op)(expected, keepdims=True), F64)
    check(t64(3.5).sum(), 3.5)
    check(minitorch.zeros(0, 3).sum(0), np.zeros(3), minitorch.float32)


@forward
@pytest.mark.parametrize("correction", [0, 1, 2])
@pytest.mark.parametrize("dim,keepdim", [(None, False), (0, False), (-1, True), ((0, 2), False)], ids=str)
@pytest.mark.parametrize("op", ["var", "std"])
def test_var_std_forward(backend: str, op: str, dim: Any, keepdim: bool, correction: int) -> None:
    values = np.random.default_rng(2).uniform(-2, 2, (3, 2, 4))
    expected = getattr(np, op)(values, axis=dim, ddof=correction, keepdims=keepdim)
    check(getattr(t64(values), op)(dim, keepdim=keepdim, correction=correction), expected, F64, rtol=1e-10)
    permuted = t64(values.transpose(2, 0, 1).copy()).permute(1, 2, 0)
    check(getattr(minitorch, op)(permuted, dim, keepdim=keepdim, correction=correction), expected, F64, rtol=1e-10)


@forward
def test_var_unbiased_flag(backend: str) -> None:
    values = np.array([1.0, 2.0, 4.0, 7.0])
    check(t64(values).var(), np.var(values, ddof=1), rtol=1e-12)
    check(t64(values).var(unbiased=False), np.var(values), rtol=1e-12)
    check(t64(values).std(unbiased=True), np.std(values, ddof=1), rtol=1e-12)


@forward
@pytest.mark.parametrize("op", ["max", "min"])
def test_max_min_forward(backend: str, op: str) -> None:
    values = np.array([[3.0, -1.0, 3.0], [0.0, 5.0, 5.0]])
    reference, arg = getattr(np, op), getattr(np, "arg" + op)
    for _, tensor, expected in views_of(values):
        check(getattr(tensor, op)(), reference(expected), F64)
        for dim in (0, 1, -1):
            for keepdim in (False, True):
                result = getattr(minitorch, op)(tensor, dim, keepdim)
                check(result.values, reference(expected, axis=dim, keepdims=keepdim), F64)
                indices = np.expand_dims(arg(expected, axis=dim), dim) if keepdim else arg(expected, axis=dim)
                check(result.indices, indices, minitorch.int64)
                values_, indices_ = result  # a (values, indices) pair
                assert values_ is result.values
    check(minitorch.tensor([4, 9, 2]).max(), 9, minitorch.int64)


@forward
@pytest.mark.parametrize("op", ["argmax", "argmin"])
def test_argmax_argmin_first_index_on_ties(backend: str, op: str) -> None:
    values = np.array([[1.0, 7.0, 7.0, 0.0], [2.0, 2.0, -5.0, -5.0], [4.0, 4.0, 4.0, 4.0]])
    reference = getattr(np, op)  # NumPy also returns the first of tied positions
    for tensor, expected in ((t64(values), values), (t64(values.T.copy()).T, values)):
        check(getattr(tensor, op)(), reference(expected), minitorch.int64)
        check(getattr(minitorch, op)(tensor, 1), reference(expected, axis=1), minitorch.int64)
        check(getattr(tensor, op)(0), reference(expected, axis=0), minitorch.int64)
        check(getattr(tensor, op)(-1, keepdim=True), reference(expected, axis=-1, keepdims=True), minitorch.int64)
    check(getattr(minitorch.tensor([3, 1, 3, 1]), op)(), reference([3, 1, 3, 1]), minitorch.int64)


@forward
def test_all_any(backend: str) -> None:
    values = np.array([[1.0, 0.0, 2.0], [3.0, 4.0, 5.0]])
    t = t64(values)
    check(t.all(), np.all(values), minitorch.bool)
    check(minitorch.any(t), np.any(values), minitorch.bool)
    check(t.all(1), np.all(values, axis=1), minitorch.bool)
    check(t.any(0), np.any(values, axis=0), minitorch.bool)
    check(minitorch.all(t, 0, keepdim=True), np.all(values, axis=0, keepdims=True), minitorch.bool)
    check((t == 0).any(-1), [True, False], minitorch.bool)
    check(minitorch.tensor([[True, True], [False, True]]).all(0), [False, True], minitorch.bool)
    check(minitorch.zeros(2).any(), False, minitorch.bool)


@forward
def test_reductions_on_integer_tensors(backend: str) -> None:
    ints = minitorch.tensor([[1, 2, 3], [4, 5, 6]], dtype=minitorch.int32)
    check(ints.sum(), 21, minitorch.int64)
    check(ints.sum(0), [5, 7, 9], minitorch.int64)
    check(minitorch.tensor([True, False, True]).sum(), 2, minitorch.int64)
    check(ints.sum(dtype=F64), 21.0, F64)
    check(ints.max(1).values, [3, 6], minitorch.int32)
    check(minitorch.tensor([7, 8]).mean(dtype=F64), 7.5, F64)
    with pytest.raises(RuntimeError, match="mean"):
        minitorch.tensor([1, 2]).mean()


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


@forward
@pytest.mark.parametrize("shapes", MATMUL_SHAPES, ids=str)
def test_matmul_forward(backend: str, shapes: tuple) -> None:
    rng = np.random.default_rng(3)
    sa, sb = shapes
    a, b = rng.uniform(-2, 2, sa), rng.uniform(-2, 2, sb)
    expected = np.matmul(a, b)
    check(t64(a) @ t64(b), expected, F64)
    check(minitorch.matmul(t64(a), t64(b)), expected, F64)
    # non-contiguous operands: transposed matrices, step-sliced vectors
    ta = t64(np.swapaxes(a, -1, -2).copy()).transpose(-1, -2) if a.ndim > 1 else t64(np.repeat(a, 2))[::2]
    tb = t64(np.swapaxes(b, -1, -2).copy()).mT if b.ndim > 1 else t64(np.repeat(b, 2))[::2]
    check(ta @ tb, expected, F64)


@forward
def test_matmul_by_hand_and_int(backend: str) -> None:
    check(t64([[1.0, 2.0], [3.0, 4.0]]) @ t64([[5.0], [6.0]]), [[17.0], [39.0]])
    check(minitorch.tensor([[1, 2], [3, 4]]) @ minitorch.tensor([1, -1]), [-1, -1], minitorch.int64)
    check(minitorch.mm(t64(np.eye(2)), t64([[1.0, 2.0], [3.0, 4.0]])), [[1.0, 2.0], [3.0, 4.0]])
    a, b = np.arange(12.0).reshape(2, 2, 3), np.arange(12.0).reshape(2, 3, 2)
    check(minitorch.bmm(t64(a), t64(b)), a @ b)
    check(t64(np.ones((2, 3))).expand(4, 2, 3) @ t64(np.ones(3)), np.full((4, 2), 3.0))


@forward
def test_matmul_errors(backend: str) -> None:
    with pytest.raises(RuntimeError, match="cannot be multiplied") as error:
        minitorch.ones(2, 3) @ minitorch.ones(4, 5)
    assert "2x3" in str(error.value) and "4x5" in str(error.value)
    with pytest.raises(RuntimeError) as error:
        minitorch.ones(3) @ minitorch.ones(4, 5)
    assert "(1x3 and 4x5)" in str(error.value)  # PyTorch's: the vector is one row of an mm
    with pytest.raises(RuntimeError) as error:
        minitorch.ones(2, 2, 3) @ minitorch.ones(2, 4, 5)
    assert "[2, 2, 3]" in str(error.value) and "[2, 4, 5]" in str(error.value)
    with pytest.raises(RuntimeError) as error:
        minitorch.ones(2, 2, 3) @ minitorch.ones(3, 3, 5)
    assert "[2, 2, 3]" in str(error.value) and "[3, 3, 5]" in str(error.value)
    with pytest.raises(RuntimeError, match="1D"):
        minitorch.tensor(2.0) @ minitorch.ones(2)
    with pytest.raises(RuntimeError, match="dtype"):
        minitorch.ones(2, 3) @ minitorch.ones(3, 2, dtype=F64)
    with pytest.raises(RuntimeError):
        minitorch.mm(minitorch.ones(2, 2, 2), minitorch.ones(2, 2))
    with pytest.raises(RuntimeError):
        minitorch.bmm(minitorch.ones(2, 2, 2), minitorch.ones(3, 2, 2))


# ---------------------------------------------------------------- views, indexing, joining


VIEW_OPS = {
    "view": (lambda t: t.view(4, 6), lambda a: a.reshape(4, 6)),
    "view_-1": (lambda t: t.view(-1, 3), lambda a: a.reshape(-1, 3)),
    "reshape": (lambda t: t.reshape(6, 4), lambda a: a.reshape(6, 4)),
    "permute": (lambda t: t.permute(2, 0, 1), lambda a: a.transpose(2, 0, 1)),
    "transpose": (lambda t: t.transpose(0, -1), lambda a: np.swapaxes(a, 0, -1)),
    "T": (lambda t: t.T, lambda a: a.T),
    "mT": (lambda t: t.mT, lambda a: np.swapaxes(a, -1, -2)),
    "unsqueeze": (lambda t: t.unsqueeze(1), lambda a: np.expand_dims(a, 1)),
    "unsqueeze_-1": (lambda t: t.unsqueeze(-1), lambda a: np.expand_dims(a, -1)),
    "squeeze": (lambda t: t[:, :1].squeeze(), lambda a: a[:, :1].squeeze()),
    "squeeze_dim": (lambda t: t[:, :1].squeeze(1), lambda a: a[:, :1].squeeze(1)),
    "squeeze_noop": (lambda t: t.squeeze(0), lambda a: a),
    "expand": (lambda t: t[:, :1].expand(2, 3, 4), lambda a: np.broadcast_to(a[:, :1], (2, 3, 4))),
    "expand_new_dims": (lambda t: t.expand(2, 2, 3, 4), lambda a: np.broadcast_to(a, (2, 2, 3, 4))),
    "flatten": (lambda t: t.flatten(), lambda a: a.reshape(-1)),
    "flatten_1": (lambda t: t.flatten(1), lambda a: a.reshape(2, -1)),
    "flatten_0_1": (lambda t: minitorch.flatten(t, 0, 1), lambda a: a.reshape(6, 4)),
    "narrow": (lambda t: t.narrow(2, 1, 2), lambda a: a[:, :, 1:3]),
    "narrow_negative_start": (lambda t: t.narrow(1, -2, 2), lambda a: a[:, 1:3]),
    "unflatten": (lambda t: t.unflatten(2, (2, 2)), lambda a: a.reshape(2, 3, 2, 2)),
}


@forward
@pytest.mark.parametrize("permuted", [False, True], ids=["contiguous", "permuted"])
@pytest.mark.parametrize("name", list(VIEW_OPS))
def test_view_ops_forward(backend: str, name: str, permuted: bool) -> None:
    op, reference = VIEW_OPS[name]
    values = np.arange(24.0).reshape(2, 3, 4)
    tensor = t64(values.transpose(1, 2, 0).copy()).permute(2, 0, 1) if permuted else t64(values)
    if permuted and name.startswith("view"):
        tensor = tensor.contiguous()  # view needs compatible strides; reshape copies when needed
    check(op(tensor), reference(values), F64)


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
    (slice(5, 9),),
    (0, 0, 0),
    Ellipsis,
]


@forward
@pytest.mark.parametrize("permuted", [False, True], ids=["contiguous", "permuted"])
@pytest.mark.parametrize("key", KEYS, ids=repr)
def test_getitem_forward(backend: str, key: Any, permuted: bool) -> None:
    values = np.arange(24.0).reshape(3, 4, 2)
    tensor = t64(values.transpose(2, 0, 1).copy()).permute(1, 2, 0) if permuted else t64(values)
    check(tensor[key], values[key], F64)


@forward
def test_getitem_int_tensor_scalar_result(backend: str) -> None:
    t = minitorch.tensor([[1, 2], [3, 4]])
    assert t[1, 0].dim() == 0 and t[1, 0].item() == 3
    assert t[minitorch.tensor(1)].tolist() == [3, 4]  # a 0-d int tensor indexes like an int


@forward
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_cat_stack_forward(backend: str, dim: int) -> None:
    rng = np.random.default_rng(4)
    parts = []
    for k in (1, 3, 2):
        shape = [2, 2]
        shape[dim] = k
        parts.append(rng.uniform(-1, 1, shape))
    tensors = [t64(p) for p in parts]
    tensors[1] = t64(parts[1].T.copy()).T  # one non-contiguous member
    check(minitorch.cat(tensors, dim), np.concatenate(parts, axis=dim), F64)
    check(minitorch.concat(tuple(tensors), dim=dim), np.concatenate(parts, axis=dim), F64)
    same = [rng.uniform(-1, 1, (2, 3)) for _ in range(3)]
    stacked_inputs = [t64(same[0]), t64(same[1].T.copy()).T, t64(same[2][:1]).expand(2, 3)]
    same[2] = np.broadcast_to(same[2][:1], (2, 3))
    check(minitorch.stack(stacked_inputs, dim), np.stack(same, axis=dim), F64)


@forward
def test_cat_promotes_and_checks(backend: str) -> None:
    check(minitorch.cat([minitorch.tensor([1, 2]), minitorch.tensor([0.5])]), [1.0, 2.0, 0.5], minitorch.float32)
    with pytest.raises(RuntimeError, match="Sizes of tensors must match"):
        minitorch.cat([minitorch.ones(2, 3), minitorch.ones(2, 2)], 0)
    with pytest.raises(RuntimeError, match="stack expects each tensor to be equal size"):
        minitorch.stack([minitorch.ones(2), minitorch.ones(3)])
    with pytest.raises(ValueError, match="expected a non-empty list of Tensors"):  # PyTorch's type and words
        minitorch.cat([])


@forward
def test_where_forward(backend: str) -> None:
    rng = np.random.default_rng(5)
    cond_np = rng.random((2, 3)) > 0.5
    a_np, b_np = rng.uniform(-1, 1, (3,)), rng.uniform(-1, 1, (2, 1))
    cond = minitorch.tensor(cond_np)
    check(minitorch.where(cond, t64(a_np), t64(b_np)), np.where(cond_np, a_np, b_np), F64)
    check(t64(a_np).where(cond, 0.5), np.where(cond_np, a_np, 0.5), F64)
    check(minitorch.where(cond, 1.0, 0.0), np.where(cond_np, 1.0, 0.0), minitorch.float32)
    check(minitorch.where(cond, minitorch.tensor([1, 2, 3]), 2.5), np.where(cond_np, [1, 2, 3], 2.5).astype(np.float32), minitorch.float32)
    check(minitorch.where(cond.T, t64(a_np).expand(2, 3).T, -1.0), np.where(cond_np.T, np.broadcast_to(a_np, (2, 3)).T, -1.0))
    # the unselected side may hold inf or nan: they must not leak into the result
    check(minitorch.where(minitorch.tensor([True, False]), t64([1.0, np.inf]), t64([np.nan, 2.0])), [1.0, 2.0])
    with pytest.raises(RuntimeError, match="bool"):
        minitorch.where(t64([1.0]), t64([1.0]), t64([2.0]))


@forward
def test_where_keeps_the_sign_of_a_chosen_zero(backend: str) -> None:
    """A chosen -0.0 stays -0.0 and a chosen +0.0 stays +0.0, from either side (NumPy's
    ``where`` as oracle); ``1 / where(...)`` tells the two apart."""
    chosen = np.array([-0.0, 0.0, -0.0, 0.0, 1.0])
    other = np.array([0.0, -0.0, -0.0, 0.0, -0.0])
    cond_np = np.array([True, True, False, False, False])
    for dtype in (minitorch.float32, minitorch.float64):
        result = minitorch.where(minitorch.tensor(cond_np), minitorch.tensor(chosen, dtype=dtype),
                                 minitorch.tensor(other, dtype=dtype)).numpy()
        expected = np.where(cond_np, chosen, other)
        assert np.signbit(result).tolist() == np.signbit(expected).tolist() == [True, False, True, False, True]
    scalar_side = minitorch.where(minitorch.tensor(cond_np), -0.0, minitorch.tensor(other)).numpy()
    assert np.signbit(scalar_side).tolist() == [True, True, True, False, True]


@forward
def test_clone_and_contiguous_forward(backend: str) -> None:
    values = np.arange(6.0).reshape(2, 3)
    for _, tensor, expected in views_of(values):
        copy = tensor.clone()
        check(copy, expected, F64)
        assert copy.is_contiguous()
        c = tensor.contiguous()
        check(c, expected, F64)
        assert c.is_contiguous()
        assert (c is tensor) == tensor.is_contiguous()
    base = t64(values)
    copy = base.clone()
    copy[0, 0] = 100.0  # a clone owns its memory
    assert base[0, 0].item() == 0.0


# ---------------------------------------------------------------- in-place ops on plain tensors


@forward
def test_inplace_forward(backend: str) -> None:
    values = np.arange(6.0).reshape(2, 3)
    t = t64(values)
    t.add_(t64([1.0, 2.0, 3.0]))
    check(t, values + [1, 2, 3])
    t.mul_(2).sub_(1.0, alpha=3).div_(t64([[2.0], [4.0]]))
    check(t, ((values + [1, 2, 3]) * 2 - 3) / [[2.0], [4.0]])
    # through a transposed view: the base sees the writes
    base = t64(values)
    base.T.mul_(t64([10.0, 100.0]))
    check(base, values * [[10.0], [100.0]])
    # a step-sliced view
    base = t64(values)
    base[:, ::2].fill_(-1.0)
    check(base, [[-1.0, 1.0, -1.0], [-1.0, 4.0, -1.0]])
    base[1].zero_()
    check(base, [[-1.0, 1.0, -1.0], [0.0, 0.0, 0.0]])
    base.copy_(t64([7.0, 8.0, 9.0]))
    check(base, [[7.0, 8.0, 9.0]] * 2)
    base[0, 1:] = t64([5.0, 6.0])
    check(base, [[7.0, 5.0, 6.0], [7.0, 8.0, 9.0]])
    # x op= y with x aliasing y
    alias = t64([1.0, 2.0, 3.0])
    alias.add_(alias)
    check(alias, [2.0, 4.0, 6.0])
    alias.mul_(alias[:])
    check(alias, [4.0, 16.0, 36.0])
    ints = minitorch.tensor([1, 2])
    ints.mul_(3)
    check(ints, [3, 6], minitorch.int64)
    with pytest.raises(RuntimeError, match="can't be cast"):
        ints.add_(1.5)
    with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
        t64(np.zeros(3)).copy_(t64(np.ones((2, 3))))


@forward
def test_inplace_result_must_fit_self(backend: str) -> None:
    """PyTorch: RuntimeError "output with shape [2, 1] doesn't match the broadcast shape [2, 3]"."""
    target = t64(np.zeros((2, 1)))
    with pytest.raises(RuntimeError) as error:
        target.add_(t64([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))
    assert "[2, 1]" in str(error.value) and "[2, 3]" in str(error.value)
    check(target, np.zeros((2, 1)))
    with pytest.raises(RuntimeError):
        t64(np.zeros(3)).mul_(t64(np.ones((1, 3))))


@forward
def test_setitem_value_must_broadcast_to_target(backend: str) -> None:
    """PyTorch: RuntimeError "shape mismatch: value tensor of shape [2, 3] cannot be broadcast to indexing result of shape [2, 1]"."""
    target = t64(np.zeros((2, 1)))
    with pytest.raises(RuntimeError):
        target[:] = t64([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    check(target, np.zeros((2, 1)))

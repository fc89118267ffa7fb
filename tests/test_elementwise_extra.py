"""The everyday elementwise API of issue 17 against PyTorch (the oracle).

Each case is a function of the library (``minitorch`` or ``torch``) and its input tensors,
run under both: values agree in float64 to 1e-12 relative (float32 to float32 rounding),
with the same dtype and shape; gradients of every tensor input agree with torch's and with
central differences; bad calls raise torch's exception type and first line; the in-place
forms bump the version counter and refuse a leaf that requires grad, as torch does.
"""

from __future__ import annotations

import math
from types import ModuleType
from typing import Any, Callable

import numpy as np
import pytest
from gradcheck import gradcheck

import minitorch

INF, NAN = math.inf, math.nan
Case = Callable[..., Any]

RNG = np.random.default_rng(17)
A = RNG.uniform(-2, 2, (3, 4))
B = RNG.uniform(-2, 2, (3, 4))
C = RNG.uniform(0.5, 2, (4,))  # broadcasts against A and B; positive, so a safe divisor
ROW = RNG.uniform(-1, 1, (1, 4))
W = RNG.uniform(-0.2, 1.2, (3, 1))  # lerp weights on both sides of 1/2

#: name -> (case, its input arrays); every input is a float tensor that may require grad
DIFFERENTIABLE: dict[str, tuple[Case, tuple[np.ndarray, ...]]] = {
    "neg": (lambda lib, a: lib.neg(a), (A,)),
    "negative": (lambda lib, a: lib.negative(a), (A,)),
    "negative_method": (lambda lib, a: a.negative(), (A,)),
    "reciprocal": (lambda lib, a: lib.reciprocal(a), (A,)),
    "rsqrt": (lambda lib, c: lib.rsqrt(c), (C,)),
    "square": (lambda lib, a: lib.square(a), (A,)),
    "sign": (lambda lib, a: lib.sign(a) * a, (A,)),
    "sgn": (lambda lib, a: lib.sgn(a) * a, (A,)),
    "sgn_method": (lambda lib, a: a.sgn() + a, (A,)),
    "prod_all": (lambda lib, a: lib.prod(a), (A,)),
    "prod_dim": (lambda lib, a: lib.prod(a, 1), (A,)),
    "prod_dim_keepdim": (lambda lib, a: lib.prod(a, -2, True), (A,)),
    "prod_method": (lambda lib, a: a.prod(dim=0), (A,)),
    "amax": (lambda lib, a: lib.amax(a, 1), (A,)),
    "amin_dims": (lambda lib, a: lib.amin(a, (0, 1), keepdim=True), (A,)),
    "amax_all": (lambda lib, a: lib.amax(a), (A,)),
    "t": (lambda lib, a: lib.t(a) * lib.t(a), (A,)),
    "broadcast_to": (lambda lib, r: lib.broadcast_to(r, (3, 4)) * 2, (ROW,)),
    "clamp_numbers": (lambda lib, a: lib.clamp(a, -0.5, 0.7), (A,)),
    "clip_numbers": (lambda lib, a: lib.clip(a, min=-0.5), (A,)),
    "clamp_tensors": (lambda lib, a, b, r: lib.clamp(a, b, r), (A, B, ROW)),
    "clamp_tensor_min": (lambda lib, a, r: lib.clamp(a, min=r), (A, ROW)),
    "clamp_tensor_max": (lambda lib, a, r: a.clamp(max=r), (A, ROW)),
    "clip_tensors_method": (lambda lib, a, b: a.clip(b - 0.5, b + 0.5), (A, B)),
    "clamp_min": (lambda lib, a: lib.clamp_min(a, 0.1), (A,)),
    "clamp_min_tensor": (lambda lib, a, b: lib.clamp_min(a, b), (A, B)),
    "clamp_max_method": (lambda lib, a, r: a.clamp_max(r), (A, ROW)),
    "lerp_number": (lambda lib, a, b: lib.lerp(a, b, 0.3), (A, B)),
    "lerp_number_high": (lambda lib, a, b: lib.lerp(a, b, 0.75), (A, B)),
    "lerp_tensor": (lambda lib, a, b, w: lib.lerp(a, b, w), (A, B, W)),
    "lerp_method_broadcast": (lambda lib, r, b, w: r.lerp(b, w), (ROW, B, W)),
    "logaddexp": (lambda lib, a, b: lib.logaddexp(a, b), (A, B)),
    "logaddexp_broadcast": (lambda lib, a, r: a.logaddexp(r * 30), (A, ROW)),
    "nan_to_num": (lambda lib, a: lib.nan_to_num(a, nan=1.5), (A,)),
    "addcmul": (lambda lib, a, b, c: lib.addcmul(a, b, c), (A, B, C)),
    "addcmul_value": (lambda lib, a, b, c: lib.addcmul(a, b, c, value=-0.3), (A, B, C)),
    "addcmul_method": (lambda lib, r, b, c: r.addcmul(b, c, value=2), (ROW, B, C)),
    "addcdiv": (lambda lib, a, b, c: lib.addcdiv(a, b, c, value=0.5), (A, B, C)),
    "addcdiv_method": (lambda lib, a, b, c: a.addcdiv(b, c), (A, B, C)),
}


def _inputs(lib: ModuleType, arrays: tuple[np.ndarray, ...], dtype: str, requires_grad: bool) -> list[Any]:
    return [lib.tensor(array, dtype=getattr(lib, dtype), requires_grad=requires_grad) for array in arrays]


def dtype_name(dtype: Any) -> str:
    return str(dtype).rsplit(".", 1)[-1]


def _same(got: Any, expected: Any, rtol: float) -> None:
    assert dtype_name(got.dtype) == dtype_name(expected.dtype), (got.dtype, expected.dtype)
    assert tuple(got.shape) == tuple(expected.shape)
    np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), rtol=rtol, atol=0, equal_nan=True)


@pytest.mark.parametrize("name", sorted(DIFFERENTIABLE))
def test_float64_values_and_gradients_match_torch(backend: str, name: str, torch_ref: Any) -> None:
    case, arrays = DIFFERENTIABLE[name]
    ours, theirs = _inputs(minitorch, arrays, "float64", True), _inputs(torch_ref, arrays, "float64", True)
    got, expected = case(minitorch, *ours), case(torch_ref, *theirs)
    _same(got, expected, rtol=1e-12)
    weights = RNG.standard_normal(tuple(expected.shape))
    (got * minitorch.tensor(weights, dtype=minitorch.float64)).sum().backward()
    (expected * torch_ref.tensor(weights, dtype=torch_ref.float64)).sum().backward()
    for mine, reference in zip(ours, theirs):
        np.testing.assert_allclose(mine.grad.numpy(), reference.grad.numpy(), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("name", sorted(DIFFERENTIABLE))
def test_gradients_match_central_differences(name: str) -> None:
    case, arrays = DIFFERENTIABLE[name]
    gradcheck(lambda *xs: case(minitorch, *xs), *_inputs(minitorch, arrays, "float64", True))


@pytest.mark.parametrize("name", sorted(DIFFERENTIABLE))
def test_float32_values_match_torch(name: str, torch_ref: Any) -> None:
    case, arrays = DIFFERENTIABLE[name]
    got = case(minitorch, *_inputs(minitorch, arrays, "float32", False))
    expected = case(torch_ref, *_inputs(torch_ref, arrays, "float32", False))
    _same(got, expected, rtol=2e-6)


def _grad_fn_names(lib: ModuleType) -> list[str]:
    x = lib.tensor([-1.0, 0.5, 2.0], requires_grad=True)
    y = lib.tensor([0.0, 1.0, 1.0], requires_grad=True)
    outs = [lib.sign(x), lib.sgn(x), lib.prod(x), lib.prod(x, 0), lib.clamp(x, 0, 1), lib.clamp(x, y),
            lib.clamp_min(x, 0.0), lib.clamp_min(x, y), lib.clamp_max(x, 1.0), lib.clamp_max(x, y),
            lib.lerp(x, y, 0.5), lib.lerp(x, y, y), lib.logaddexp(x, y), lib.nan_to_num(x),
            lib.addcmul(x, x, y), lib.addcdiv(x, x, y + 2)]
    return [type(out.grad_fn).__name__ for out in outs]


def test_grad_fn_names_match_torch(torch_ref: Any) -> None:
    assert _grad_fn_names(minitorch) == _grad_fn_names(torch_ref)


# ---- special values ----


def test_clamp_tensor_bounds_send_each_gradient_where_the_value_came_from(torch_ref: Any) -> None:
    """Ties and crossed bounds (min > max), where an even split would be wrong."""
    values = ([-2.0, 0.5, 3.0, 1.0, 0.0, NAN], [0.0, 0.5, 4.0, 1.0, 1.0, 0.0], [1.0, 0.5, 2.0, 1.0, -1.0, 1.0])
    results = []
    for lib in (minitorch, torch_ref):
        x, low, high = (lib.tensor(v, dtype=lib.float64, requires_grad=True) for v in values)
        out = lib.clamp(x, low, high)
        out.backward(lib.tensor([1.0, 10.0, 100.0, 1000.0, 1e4, 1e5], dtype=lib.float64))
        results.append([t.detach().numpy() for t in (out, x.grad, low.grad, high.grad)])
    for got, expected in zip(*results):
        np.testing.assert_array_equal(got, expected)


def test_logaddexp_special_values_match_torch(backend: str, torch_ref: Any) -> None:
    a = [INF, -INF, INF, NAN, 1000.0, -1000.0, 0.0, -INF, 1e-20, 710.0]
    b = [INF, -INF, -INF, 1.0, 1000.0, -1000.0, 0.0, 3.0, -1e-20, -710.0]
    got = minitorch.logaddexp(minitorch.tensor(a, dtype=minitorch.float64), minitorch.tensor(b, dtype=minitorch.float64))
    expected = torch_ref.logaddexp(torch_ref.tensor(a, dtype=torch_ref.float64), torch_ref.tensor(b, dtype=torch_ref.float64))
    _same(got, expected, rtol=1e-15)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_nan_to_num_defaults_per_dtype(backend: str, dtype: str, torch_ref: Any) -> None:
    values = [NAN, INF, -INF, 1.5, -0.0]
    for kwargs in ({}, {"nan": 2.0}, {"posinf": 7.0, "neginf": -7.0}, {"nan": INF}):
        got = minitorch.nan_to_num(minitorch.tensor(values, dtype=getattr(minitorch, dtype)), **kwargs)
        expected = torch_ref.nan_to_num(torch_ref.tensor(values, dtype=getattr(torch_ref, dtype)), **kwargs)
        _same(got, expected, rtol=0)


def test_nan_to_num_gradient_is_zero_where_replaced(torch_ref: Any) -> None:
    grads = []
    for lib in (minitorch, torch_ref):
        x = lib.tensor([NAN, INF, -INF, 2.0], dtype=lib.float64, requires_grad=True)
        x.nan_to_num(nan=1.0).sum().backward()
        grads.append(x.grad.numpy())
    np.testing.assert_array_equal(*grads)


def test_prod_gradient_is_exact_at_zeros(torch_ref: Any) -> None:
    """No division by the zeros: one zero gets the product of the others, two zeros give 0."""
    rows = [[2.0, 0.0, 3.0, -4.0], [0.0, 5.0, 0.0, 1.5], [1.5, -2.0, 0.5, 3.0]]
    for dim in (None, 0, 1):
        grads = []
        for lib in (minitorch, torch_ref):
            x = lib.tensor(rows, dtype=lib.float64, requires_grad=True)
            (lib.prod(x) if dim is None else lib.prod(x, dim)).sum().backward()
            grads.append(x.grad.numpy())
        np.testing.assert_allclose(*grads, rtol=1e-15)
    x = minitorch.tensor(rows, dtype=minitorch.float64, requires_grad=True)
    gradcheck(lambda t: minitorch.prod(t, 1), x)


def test_predicates_match_torch(backend: str, torch_ref: Any) -> None:
    values = [NAN, INF, -INF, 0.0, -1.5, 3e38]
    for dtype in ("float32", "float64"):
        for name in ("isnan", "isinf", "isfinite", "isposinf", "isneginf"):
            got = getattr(minitorch, name)(minitorch.tensor(values, dtype=getattr(minitorch, dtype)))
            expected = getattr(torch_ref, name)(torch_ref.tensor(values, dtype=getattr(torch_ref, dtype)))
            _same(got, expected, rtol=0)
            _same(getattr(minitorch.tensor(values), name)(), expected if dtype == "float32" else getattr(torch_ref.tensor(values), name)(), rtol=0)
    for name in ("isnan", "isinf", "isfinite"):
        for ints in ([1, -2, 0], [True, False]):
            _same(getattr(minitorch, name)(minitorch.tensor(ints)), getattr(torch_ref, name)(torch_ref.tensor(ints)), rtol=0)
    assert not minitorch.isnan(minitorch.tensor([NAN], requires_grad=True)).requires_grad


# ---- comparisons and logic ----

LEFT = [[1.0, NAN, 3.0], [-0.0, 2.0, INF]]
RIGHT = [0.0, NAN, 3.0]


@pytest.mark.parametrize("name", ["eq", "ne", "lt", "le", "gt", "ge", "greater", "greater_equal", "less", "less_equal", "not_equal"])
def test_comparisons_match_torch(backend: str, name: str, torch_ref: Any) -> None:
    for other in (RIGHT, 2, 2.5):
        results = []
        for lib in (minitorch, torch_ref):
            left = lib.tensor(LEFT, dtype=lib.float64)
            right = lib.tensor(other, dtype=lib.float32) if isinstance(other, list) else other
            results.append((getattr(lib, name)(left, right), getattr(left, name)(right)))
        for got, expected in zip(*results):
            _same(got, expected, rtol=0)


@pytest.mark.parametrize("name", ["logical_and", "logical_or", "logical_xor"])
def test_logical_ops_match_torch(backend: str, name: str, torch_ref: Any) -> None:
    pairs = [([1.0, 0.0, NAN, -2.0], [2, 0, 0, 3]), ([True, False, True, False], [[True], [False]]), ([0, 1, 2, 0], [0.0, 0.5, 0.0, 0.0])]
    for left, right in pairs:
        got = getattr(minitorch, name)(minitorch.tensor(left), minitorch.tensor(right))
        expected = getattr(torch_ref, name)(torch_ref.tensor(left), torch_ref.tensor(right))
        _same(got, expected, rtol=0)
        _same(getattr(minitorch.tensor(left), name)(minitorch.tensor(right)), expected, rtol=0)
    _same(minitorch.logical_not(minitorch.tensor([1.5, 0.0, NAN])), torch_ref.logical_not(torch_ref.tensor([1.5, 0.0, NAN])), rtol=0)


# ---- dtype promotion ----

DTYPE_CASES: dict[str, Case] = {
    "clamp_int_by_int_tensors": lambda lib: lib.clamp(lib.tensor([1, 5, 9]), lib.tensor([2, 2, 2]), lib.tensor([6])),
    "clamp_int_by_float_number": lambda lib: lib.clamp(lib.tensor([1, 5]), 1.5),
    "clamp_int_by_0d_double": lambda lib: lib.clamp(lib.tensor([1, 5]), min=lib.tensor(2.5, dtype=lib.float64)),
    "clamp_float_by_double_tensor": lambda lib: lib.clamp(lib.tensor([1.0, 5.0]), min=lib.tensor([2.0], dtype=lib.float64)),
    "clamp_float_by_bool_tensor": lambda lib: lib.clamp(lib.tensor([-1.0, 5.0]), min=lib.tensor([True])),
    "clamp_0d_by_vector": lambda lib: lib.clamp(lib.tensor(0.5), min=lib.tensor([0.0, 1.0, 2.0])),
    "clamp_min_int_by_float": lambda lib: lib.clamp_min(lib.tensor([1, 2]), 1.5),
    "reciprocal_int": lambda lib: lib.reciprocal(lib.tensor([2, 4])),
    "rsqrt_int": lambda lib: lib.rsqrt(lib.tensor([4, 16])),
    "square_int": lambda lib: lib.square(lib.tensor([-3, 2])),
    "sign_int": lambda lib: lib.sign(lib.tensor([-3, 0, 2])),
    "sgn_int": lambda lib: lib.sgn(lib.tensor([-3, 0, 2])),
    "sign_bool": lambda lib: lib.sign(lib.tensor([True, False])),
    "sign_nan": lambda lib: lib.sign(lib.tensor([NAN, -0.0, 0.0, -INF])),
    "prod_int": lambda lib: lib.prod(lib.tensor([[1, 2, 3], [4, 5, 6]]), 1),
    "prod_bool": lambda lib: lib.prod(lib.tensor([True, True])),
    "prod_dtype": lambda lib: lib.prod(lib.tensor([1, 2, 3]), dtype=lib.float64),
    "prod_empty": lambda lib: lib.prod(lib.zeros(0, 3), 0),
    "prod_0d": lambda lib: lib.prod(lib.tensor(2.5), 0, True),
    "logaddexp_float_double": lambda lib: lib.logaddexp(lib.tensor([1.0]), lib.tensor([1.0], dtype=lib.float64)),
    "lerp_0d_double_weight": lambda lib: lib.lerp(lib.tensor([0.0, 1.0]), lib.tensor([2.0, 3.0]), lib.tensor(0.5, dtype=lib.float64)),
    "addcmul_int_fraction_value": lambda lib: lib.addcmul(lib.tensor([1, 2]), lib.tensor([1, 2]), lib.tensor([1, 2]), value=0.5),
    "addcmul_int_int_value": lambda lib: lib.addcmul(lib.tensor([1, 2]), lib.tensor([1, 2]), lib.tensor([1, 2]), value=2),
    "addcmul_float_int": lambda lib: lib.addcmul(lib.tensor([1.0, 2.0]), lib.tensor([1, 2]), lib.tensor([1, 2]), value=0.5),
    "addcmul_double": lambda lib: lib.addcmul(lib.tensor([1.0, 2.0]), lib.tensor([1.0, 2.0], dtype=lib.float64), lib.tensor([1, 2])),
    "addcmul_broadcast": lambda lib: lib.addcmul(lib.tensor(1.0), lib.ones(2, 1), lib.ones(3)),
    "addcdiv_int_input": lambda lib: lib.addcdiv(lib.tensor([1, 2]), lib.tensor([1.0, 2.0]), lib.tensor([2, 4])),
    "nan_to_num_int": lambda lib: lib.nan_to_num(lib.tensor([1, 2]), nan=0.5),
    "nan_to_num_bool": lambda lib: lib.nan_to_num(lib.tensor([True, False])),
    "negative_int": lambda lib: lib.negative(lib.tensor([1, -2])),
    "amax_int": lambda lib: lib.amax(lib.tensor([[1, 7], [3, 2]]), 0),
    "logical_xor_out_float": lambda lib: lib.logical_xor(lib.tensor([1.0, 0.0]), lib.tensor([2, 2]), out=lib.empty(2)),
    "eq_out_float": lambda lib: lib.eq(lib.tensor([1.0, 0.0]), 1, out=lib.empty(2)),
}


@pytest.mark.parametrize("name", sorted(DTYPE_CASES))
def test_dtypes_match_torch(backend: str, name: str, torch_ref: Any) -> None:
    _same(DTYPE_CASES[name](minitorch), DTYPE_CASES[name](torch_ref), rtol=1e-15)


# ---- out= ----

OUT_CASES: dict[str, Case] = {
    "neg": lambda lib, x, out: lib.neg(x, out=out),
    "reciprocal": lambda lib, x, out: lib.reciprocal(x, out=out),
    "rsqrt": lambda lib, x, out: lib.rsqrt(x.abs(), out=out),
    "square": lambda lib, x, out: lib.square(x, out=out),
    "sign": lambda lib, x, out: lib.sign(x, out=out),
    "sgn": lambda lib, x, out: lib.sgn(x, out=out),
    "clamp": lambda lib, x, out: lib.clamp(x, -0.5, 0.5, out=out),
    "clip_tensor": lambda lib, x, out: lib.clip(x, min=x * 0, out=out),
    "clamp_min": lambda lib, x, out: lib.clamp_min(x, 0.0, out=out),
    "clamp_max": lambda lib, x, out: lib.clamp_max(x, x * 0, out=out),
    "lerp": lambda lib, x, out: lib.lerp(x, x * 2, 0.25, out=out),
    "logaddexp": lambda lib, x, out: lib.logaddexp(x, x, out=out),
    "nan_to_num": lambda lib, x, out: lib.nan_to_num(x, out=out),
    "addcmul": lambda lib, x, out: lib.addcmul(x, x, x, value=3, out=out),
    "addcdiv": lambda lib, x, out: lib.addcdiv(x, x, x + 5, out=out),
    "logical_and": lambda lib, x, out: lib.logical_and(x, x, out=out),
    "gt": lambda lib, x, out: lib.gt(x, 0, out=out),
}


@pytest.mark.parametrize("name", sorted(OUT_CASES))
def test_out_writes_torchs_values_into_out(name: str, torch_ref: Any) -> None:
    values = [-1.5, 0.25, 2.0]
    results = []
    for lib in (minitorch, torch_ref):
        out = lib.empty(3, dtype=lib.float64)
        result = OUT_CASES[name](lib, lib.tensor(values, dtype=lib.float64), out)
        assert result is out
        results.append(out)
    _same(*results, rtol=1e-15)


def test_out_refuses_a_graph() -> None:
    x = minitorch.tensor([0.5, 1.5], requires_grad=True)
    with pytest.raises(RuntimeError, match=r"addcmul\(\): functions with out=... arguments don't support automatic differentiation"):
        minitorch.addcmul(x, x, x, out=minitorch.empty(2))


# ---- errors: torch's type and first line ----


def _outcome(case: Case, lib: ModuleType) -> Any:
    try:
        return case(lib)
    except Exception as error:  # noqa: BLE001 - the error is the outcome compared
        # minitorch's own errors subclass the builtin one torch raises (IndexingError is a RuntimeError)
        builtin = next(c for c in type(error).__mro__ if c.__module__ == "builtins")
        return builtin.__name__, str(error).splitlines()[0]


ERROR_CASES: dict[str, Case] = {
    "clamp_no_bounds": lambda lib: lib.clamp(lib.ones(2)),
    "clamp_mixed_bounds": lambda lib: lib.clamp(lib.ones(3), min=lib.zeros(3), max=0.5),
    "clamp_method_mixed_bounds": lambda lib: lib.ones(3).clamp(min=lib.zeros(3), max=0.5),
    "clamp_bad_broadcast": lambda lib: lib.clamp(lib.ones(2), lib.zeros(3)),
    "clamp_min_none": lambda lib: lib.clamp_min(lib.ones(2), None),
    "lerp_end_dtype": lambda lib: lib.lerp(lib.ones(2), lib.ones(2, dtype=lib.float64), 0.5),
    "lerp_weight_dtype": lambda lib: lib.lerp(lib.ones(2), lib.ones(2), lib.ones(2, dtype=lib.float64)),
    "lerp_int_scalar": lambda lib: lib.lerp(lib.tensor([1, 2]), lib.tensor([3, 4]), 0.5),
    "lerp_int_tensor": lambda lib: lib.lerp(lib.tensor([1, 2]), lib.tensor([3, 4]), lib.tensor([1, 1])),
    "lerp_number_end": lambda lib: lib.lerp(lib.ones(2), 1.0, 0.5),
    "lerp_bad_broadcast": lambda lib: lib.lerp(lib.ones(3), lib.zeros(2), 0.5),
    "logaddexp_int": lambda lib: lib.logaddexp(lib.tensor([1, 2]), lib.tensor([1, 2])),
    "logaddexp_number": lambda lib: lib.logaddexp(lib.ones(1), 2.0),
    "isnan_number": lambda lib: lib.isnan(2.0),
    "neg_number": lambda lib: lib.neg(2.0),
    "neg_bool": lambda lib: lib.neg(lib.tensor([True])),
    "logical_not_number": lambda lib: lib.logical_not(2),
    "logical_and_number": lambda lib: lib.logical_and(lib.ones(2), 2),
    "eq_string": lambda lib: lib.eq(lib.ones(2), "a"),
    "eq_number_first": lambda lib: lib.eq(1, lib.ones(2)),
    "eq_bad_broadcast": lambda lib: lib.eq(lib.ones(2), lib.ones(3)),
    "prod_tuple_dim": lambda lib: lib.prod(lib.ones(2, 3), (0, 1)),
    "prod_dim_out_of_range": lambda lib: lib.prod(lib.ones(2, 3), 2),
    "t_3d": lambda lib: lib.t(lib.ones(2, 3, 4)),
    "broadcast_to_bad": lambda lib: lib.broadcast_to(lib.ones(2, 3), (3, 3)),
    "addcdiv_integer_division": lambda lib: lib.addcdiv(lib.tensor([1, 2]), lib.tensor([1, 2]), lib.tensor([1, 2])),
    "addcmul_bool": lambda lib: lib.addcmul(lib.tensor([True]), lib.tensor([True]), lib.tensor([True])),
    "addcmul_number_tensor1": lambda lib: lib.addcmul(lib.ones(2), 2.0, lib.ones(2)),
    "addcmul_bad_broadcast": lambda lib: lib.addcmul(lib.ones(2), lib.ones(2), lib.ones(3)),
    "addcmul_inplace_shape": lambda lib: lib.ones(3).addcmul_(lib.ones(2, 1), lib.ones(3)),
    "addcmul_inplace_cast": lambda lib: lib.ones(2, dtype=lib.int64).addcmul_(lib.ones(2), lib.ones(2)),
    "out_wrong_dtype_lerp": lambda lib: lib.lerp(lib.ones(2), lib.ones(2), 0.5, out=lib.empty(2, dtype=lib.int64)),
    "out_wrong_dtype_addcmul": lambda lib: lib.addcmul(lib.ones(2), lib.ones(2), lib.ones(2), out=lib.empty(2, dtype=lib.int64)),
}


@pytest.mark.parametrize("name", sorted(ERROR_CASES))
def test_errors_match_torch(name: str, torch_ref: Any) -> None:
    got, expected = _outcome(ERROR_CASES[name], minitorch), _outcome(ERROR_CASES[name], torch_ref)
    assert isinstance(expected, tuple), f"torch accepts {name}: the case is wrong"
    assert isinstance(got, tuple) and got[0] == expected[0]
    assert got[1].startswith(expected[1]), (got, expected)  # minitorch may add detail after torch's words


# ---- in place ----


def _inplace_values_and_versions(lib: ModuleType) -> Any:
    a = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=lib.float64)
    alias = a
    b = lib.tensor([0.5, -1.0, 2.0], dtype=lib.float64)
    a.addcmul_(b, b, value=2)
    a.addcdiv_(a, b + 3)
    a.lerp_(b, 0.25)
    a.clamp_min_(0.0)
    a.clamp_max_(lib.tensor([5.0, 4.0, 3.0], dtype=lib.float64))
    lib.clamp_(a, -1.0, 3.5)
    a.nan_to_num_()
    a.sgn_()
    return alias is a, a._version, a.tolist()


def _inplace_on_a_leaf(lib: ModuleType) -> Any:
    w = lib.ones(3, requires_grad=True)
    return w.addcmul_(w, w)


def _inplace_recorded(lib: ModuleType) -> Any:
    w = lib.tensor([1.0, -2.0, 3.0], dtype=lib.float64, requires_grad=True)
    v = lib.tensor([0.5, 0.25, 2.0], dtype=lib.float64, requires_grad=True)
    h = w * 1.0
    h.addcdiv_(v, w, value=0.5)
    h.lerp_(v, v)
    h.clamp_(min=v)
    h.sum().backward()
    return h.tolist(), h._version, type(h.grad_fn).__name__, w.grad.tolist(), v.grad.tolist()


def _inplace_under_no_grad(lib: ModuleType) -> Any:
    w = lib.ones(3, requires_grad=True)
    with lib.no_grad():
        w.addcmul_(lib.ones(3), lib.ones(3), value=0.5)
        w.addcdiv_(lib.ones(3), lib.ones(3) * 4)
        w.clamp_max_(1.5)
    return w.tolist(), w._version, w.requires_grad, w.is_leaf


def _saved_tensor_modified(lib: ModuleType) -> Any:
    w = lib.tensor([1.0, 2.0], requires_grad=True)
    h = w * 1.0
    y = h * h  # saves h
    h.addcmul_(h, h)
    y.sum().backward()


@pytest.mark.parametrize("scenario", [_inplace_values_and_versions, _inplace_on_a_leaf, _inplace_recorded,
                                      _inplace_under_no_grad, _saved_tensor_modified])
def test_inplace_matches_torch(scenario: Callable[[ModuleType], Any], torch_ref: Any) -> None:
    got, expected = _outcome(scenario, minitorch), _outcome(scenario, torch_ref)
    if isinstance(expected, tuple) and isinstance(expected[0], str):
        assert got == expected
        return
    assert type(got) is type(expected)
    np.testing.assert_equal(got, expected) if not isinstance(got, tuple) else _equal_outcomes(got, expected)


def _equal_outcomes(got: tuple[Any, ...], expected: tuple[Any, ...]) -> None:
    assert len(got) == len(expected)
    for mine, theirs in zip(got, expected):
        if isinstance(theirs, (list, float)):
            np.testing.assert_allclose(mine, theirs, rtol=1e-12)
        else:
            assert mine == theirs


def test_the_exposed_names_are_torchs(torch_ref: Any) -> None:
    """Only what torch exposes at the top level: ``softplus``/``logsigmoid`` live in ``nn.functional``."""
    for name in ("softplus", "logsigmoid"):
        assert hasattr(minitorch, name) == hasattr(torch_ref, name)
    for name in ("clamp_min_", "clamp_max_", "clip_", "nan_to_num_", "isposinf", "isneginf", "greater", "less_equal"):
        assert hasattr(torch_ref, name) and hasattr(minitorch, name), name

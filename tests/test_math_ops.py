"""The elementwise math of issue 17 against PyTorch (the oracle), on every backend.

Forward values are compared with torch in float64 to 1e-13 relative (a few units in the
last place: both call a libm), including the special values each function treats apart
(infinities, NaN, signed zeros, the ends of its domain); float32 and int inputs check the
dtype torch gives. Gradients are gradchecked in float64 (central differences) and compared
with torch's. The cuda backend runs the same on the simulator with tiny launch sizes.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np
import pytest
from gradcheck import gradcheck

import minitorch

INF, NAN = math.inf, math.nan
#: values every unary op meets: signed zeros, infinities, NaN, ordinary numbers of both signs
SPECIAL = [0.0, -0.0, INF, -INF, NAN, 0.5, -0.5, 1.0, -1.0, 2.5, -2.5, 1e-300, -3.75, 100.0]


def inside(low: float, high: float) -> Callable[[np.random.Generator, int], np.ndarray]:
    """Points strictly inside ``(low, high)``, away from its ends, for gradchecks."""
    return lambda rng, n: rng.uniform(low + 0.05 * (high - low), high - 0.05 * (high - low), n)


#: op -> (points for the gradcheck, extra special values for the forward check)
UNARY: dict[str, tuple[Callable[[np.random.Generator, int], np.ndarray], list[float]]] = {
    "tan": (inside(-1.4, 1.4), [math.pi / 2, 1e10]),
    "asin": (inside(-1, 1), [1.0 + 1e-16, 1.5, -1.0000001, 0.9999999999]),
    "acos": (inside(-1, 1), [1.5, -1.5, 0.9999999999]),
    "atan": (inside(-5, 5), [1e300]),
    "sinh": (inside(-5, 5), [700.0, -700.0, 711.0, -711.0, 1e-10]),
    "cosh": (inside(-5, 5), [700.0, -711.0]),
    "asinh": (inside(-5, 5), [1e300, -1e-10]),
    "acosh": (inside(1.1, 6), [0.99, 1.0 + 1e-12, 1e300]),
    "atanh": (inside(-1, 1), [0.999999, -0.9999999999, 1.5]),
    "erf": (inside(-3, 3), [6.0, -6.0, 1e-20]),
    "erfc": (inside(-3, 3), [6.0, 26.0, 27.5, -6.0]),
    "erfinv": (inside(-0.95, 0.95), [0.9999999999, 1 - 2.0**-52, -(1 - 2.0**-40), 1e-300, 1.5, 0.5 + 2.0**-53]),
    "log1p": (inside(-0.9, 5), [-1.0, -1.5, 1e-18, -1e-18]),
    "expm1": (inside(-5, 5), [709.0, 710.0, 1e-18, -800.0]),
    "log2": (inside(0.1, 5), [1024.0, 2.0**-1074, -1.0]),
    "log10": (inside(0.1, 5), [1000.0, 1e-300, -1.0]),
    "exp2": (inside(-5, 5), [1023.5, 1024.0, -1074.0, -1080.0]),
    "floor": (inside(0.1, 0.9), [-0.3, 2.0**52 + 1, -(2.0**53), 4.5e15 + 0.5]),
    "ceil": (inside(0.1, 0.9), [-0.3, -0.9999, 2.0**52 + 1, 4.5e15 + 0.5]),
    "trunc": (inside(0.1, 0.9), [-0.3, 0.9999, 4.5e15 + 0.5]),
    "round": (inside(0.1, 0.4), [0.5, 1.5, -1.5, 0.49999999999999994, -0.4, 4.5e15 + 0.5, 2.0**52 - 0.5]),
    "frac": (inside(0.1, 0.9), [-0.3, 1e300]),
    "rsqrt": (inside(0.2, 5), [4.0, 1e-300, 5e-324, 1e300, -1e-300]),
    "reciprocal": (inside(0.2, 5), [3.0, -1e-300, 1e300, 5e-324, -5e-324]),
}
#: sinh/cosh past exp's overflow: torch overflows to inf where the value is still finite
#: (sinh(710) = 1.117e308); NumPy's libm gives the true value, the oracle there
NUMPY_WHERE_TORCH_OVERFLOWS = {"sinh": np.sinh, "cosh": np.cosh}


def dtype_name(dtype: Any) -> str:
    """``float32`` for ``minitorch.float32`` and ``torch.float32`` alike."""
    return str(dtype).rsplit(".", 1)[-1]


def true_overflow(name: str, values: np.ndarray, expected: np.ndarray) -> np.ndarray:
    """``expected`` with NumPy's values where torch's sinh/cosh overflow too early."""
    if name not in NUMPY_WHERE_TORCH_OVERFLOWS:
        return expected
    with np.errstate(over="ignore"):
        return np.where(np.abs(values) < 710.5, NUMPY_WHERE_TORCH_OVERFLOWS[name](values), expected)


def same(actual: np.ndarray, expected: np.ndarray, rtol: float) -> None:
    """Equal to ``rtol`` with NaN where NaN, infinities and the sign of zeros exact."""
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=0, equal_nan=True)
    zeros = expected == 0
    assert np.array_equal(np.signbit(actual[zeros]), np.signbit(expected[zeros])), (actual, expected)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_forward_matches_torch_float64(backend: str, name: str, torch_ref: Any) -> None:
    _, extra = UNARY[name]
    values = np.array(SPECIAL + extra, dtype=np.float64)
    got = getattr(minitorch, name)(minitorch.tensor(values, dtype=minitorch.float64))
    assert got.dtype is minitorch.float64
    expected = getattr(torch_ref, name)(torch_ref.tensor(values, dtype=torch_ref.float64)).numpy()
    same(got.numpy(), true_overflow(name, values, expected), rtol=1e-13)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_method_float32_and_int_dtypes_match_torch(backend: str, name: str, torch_ref: Any) -> None:
    values = np.array([0.25, -1.5, 0.75, 2.0], dtype=np.float32)
    got = getattr(minitorch.tensor(values), name)()
    expected = getattr(torch_ref.tensor(values), name)()
    assert dtype_name(got.dtype) == dtype_name(expected.dtype)
    np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=2e-6, atol=1e-7, equal_nan=True)
    ints = [0, 1, -1, 3]
    if name == "frac":  # floats only
        with pytest.raises(NotImplementedError, match="\"frac_cpu\" not implemented for 'Long'"):
            minitorch.tensor(ints).frac()
        return
    got = getattr(minitorch.tensor(ints), name)()
    expected = getattr(torch_ref.tensor(ints), name)()
    assert dtype_name(got.dtype) == dtype_name(expected.dtype)
    np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=2e-6, atol=1e-7, equal_nan=True)


def test_erfinv_is_float64_exact_across_its_domain(backend: str, torch_ref: Any) -> None:
    rng = np.random.default_rng(1)
    tails = 1 - np.logspace(-16, -0.3, 200)
    values = np.concatenate([rng.uniform(-1, 1, 400), tails, -tails, np.logspace(-300, -1, 50)])
    got = minitorch.erfinv(minitorch.tensor(values, dtype=minitorch.float64)).numpy()
    expected = torch_ref.erfinv(torch_ref.tensor(values, dtype=torch_ref.float64)).numpy()
    np.testing.assert_allclose(got, expected, rtol=1e-15 * 2, atol=0)
    # and it inverts erf: erf(erfinv(y)) = y to rounding
    np.testing.assert_allclose(minitorch.erf(minitorch.tensor(got)).numpy(), values, rtol=4e-16, atol=0)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_gradient(backend: str, name: str, torch_ref: Any) -> None:
    points, _ = UNARY[name]
    values = points(np.random.default_rng(0), 6).reshape(2, 3)
    x = minitorch.tensor(values, dtype=minitorch.float64, requires_grad=True)
    gradcheck(lambda t: getattr(t, name)(), x)
    reference = torch_ref.tensor(values, dtype=torch_ref.float64, requires_grad=True)
    getattr(reference, name)().sum().backward()
    x.grad = None
    getattr(x, name)().sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), reference.grad.numpy(), rtol=1e-13, atol=1e-300)


def test_round_decimals_matches_torch(backend: str, torch_ref: Any) -> None:
    values = np.array([1.2345, -2.675, 1234.5, 0.125, -0.0, 15.5, INF, NAN])
    for decimals in (0, 1, 2, 3, -1, -2):
        got = minitorch.round(minitorch.tensor(values), decimals=decimals)
        expected = torch_ref.round(torch_ref.tensor(values), decimals=decimals)
        same(got.numpy(), expected.numpy(), rtol=0)


def test_aliases_are_the_ops() -> None:
    x = minitorch.tensor([0.25, -0.5])
    for alias, name in [("arcsin", "asin"), ("arccos", "acos"), ("arctan", "atan"), ("arcsinh", "asinh"),
                        ("arccosh", "acosh"), ("arctanh", "atanh"), ("fix", "trunc")]:
        np.testing.assert_array_equal(getattr(minitorch, alias)(x.abs() + 1).numpy(), getattr(minitorch, name)(x.abs() + 1).numpy())
        np.testing.assert_array_equal(getattr(x, alias)().numpy(), getattr(x, name)().numpy())


# ---- out= ----


def test_out_writes_into_the_given_tensor(torch_ref: Any) -> None:
    out = minitorch.empty(3, dtype=minitorch.float64)
    result = minitorch.erf(minitorch.tensor([0.1, 0.2, 0.3], dtype=minitorch.float64), out=out)
    assert result is out
    np.testing.assert_allclose(out.numpy(), torch_ref.erf(torch_ref.tensor([0.1, 0.2, 0.3], dtype=torch_ref.float64)).numpy())
    out = minitorch.empty(2)
    minitorch.remainder(minitorch.tensor([5.0, -5.0]), 3.0, out=out)
    np.testing.assert_array_equal(out.numpy(), [2.0, 1.0])


def test_out_refuses_what_torch_refuses() -> None:
    x = minitorch.tensor([0.5, 1.5], requires_grad=True)
    with pytest.raises(RuntimeError, match="don't support automatic differentiation"):
        minitorch.tan(x, out=minitorch.empty(2))
    with pytest.raises(RuntimeError, match=r"can't be cast to the desired output type"):
        minitorch.floor(minitorch.tensor([0.5]), out=minitorch.empty(1, dtype=minitorch.int64))
    # an out= of another shape is resized, as PyTorch's, with its warning (it had elements)
    out = minitorch.empty(3)
    with pytest.warns(UserWarning, match=r"resized since it had shape \[3\].*required output shape \[2\]"):
        assert minitorch.atan(minitorch.tensor([0.5, 1.5]), out=out) is out
    np.testing.assert_allclose(out.numpy(), np.arctan(np.array([0.5, 1.5], dtype=np.float32)), rtol=1e-6)


# ---- two operands ----

MOD_A = [5.0, -5.0, 5.5, -5.5, 0.0, -0.0, 3.0, -1e-20, INF, -INF, NAN, 7.0, 7.0, 7.0, 1e300]
MOD_B = [3.0, 3.0, -2.0, -2.0, 3.0, -3.0, INF, 1.0, 2.0, 2.0, 2.0, 0.0, -INF, NAN, 1e-300]


@pytest.mark.parametrize("name", ["remainder", "fmod"])
def test_modulo_float_matches_torch_with_special_values(backend: str, name: str, torch_ref: Any) -> None:
    a, b = np.array(MOD_A), np.array(MOD_B)
    got = getattr(minitorch, name)(minitorch.tensor(a), minitorch.tensor(b))
    expected = getattr(torch_ref, name)(torch_ref.tensor(a), torch_ref.tensor(b))
    same(got.numpy(), expected.numpy(), rtol=0)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_fmod_is_exact_over_the_whole_range(backend: str, dtype: str) -> None:
    """C's fmod is exact at any ratio of magnitudes, subnormals included: NumPy's is the oracle."""
    rng = np.random.default_rng(5)
    info = np.finfo(dtype)
    low, high = np.log2(info.smallest_subnormal), np.log2(info.max)
    magnitude = lambda: np.exp2(rng.uniform(low, high, 400)) * rng.choice([-1, 1], 400)  # noqa: E731
    a, b = magnitude().astype(dtype), magnitude().astype(dtype)
    b[b == 0] = 1
    got = minitorch.fmod(minitorch.tensor(a), minitorch.tensor(b)).numpy()
    np.testing.assert_array_equal(got, np.fmod(a, b))
    assert np.array_equal(np.signbit(got), np.signbit(np.fmod(a, b)))


@pytest.mark.parametrize("name", ["remainder", "fmod"])
def test_modulo_int_is_exact_and_refuses_zero(backend: str, name: str, torch_ref: Any) -> None:
    a = [7, -7, 7, -7, 2**62 + 3, -(2**62) - 3, 0]
    b = [3, 3, -3, -3, 10, 10, 5]
    got = getattr(minitorch, name)(minitorch.tensor(a), minitorch.tensor(b))
    expected = getattr(torch_ref, name)(torch_ref.tensor(a), torch_ref.tensor(b))
    assert got.dtype is minitorch.int64
    np.testing.assert_array_equal(got.numpy(), expected.numpy())
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        getattr(minitorch, name)(minitorch.tensor([1, 2]), minitorch.tensor([1, 0]))
    with pytest.raises(NotImplementedError, match=f'"{name}_cpu" not implemented for \'Bool\''):
        getattr(minitorch, name)(minitorch.tensor([True]), minitorch.tensor([True]))


def test_percent_operator_as_python_and_torch(backend: str, torch_ref: Any) -> None:
    cases: list[tuple[Any, Any]] = [
        (minitorch.tensor([5, -5, 7]), 3),
        (minitorch.tensor([5.5, -5.5]), 2),
        (minitorch.tensor([5, 3]), 2.5),
        (5, minitorch.tensor([2, 3])),
        (5.5, minitorch.tensor([2, 3])),
        (minitorch.tensor([7.0, -7.0]), minitorch.tensor([-2.0, 2.0])),
    ]
    for a, b in cases:
        ta = torch_ref.tensor(a.tolist()) if isinstance(a, minitorch.Tensor) else a
        tb = torch_ref.tensor(b.tolist()) if isinstance(b, minitorch.Tensor) else b
        got, expected = a % b, ta % tb
        assert dtype_name(got.dtype) == dtype_name(expected.dtype), (a, b)
        np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-7)
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        minitorch.tensor([3]) % 0


def test_atan2_and_hypot_match_torch_with_special_values(backend: str, torch_ref: Any) -> None:
    a = np.array([0.0, -0.0, 0.0, -0.0, 1.0, -1.0, INF, -INF, INF, NAN, 3.0, 1e200])
    b = np.array([0.0, 0.0, -0.0, -0.0, -INF, INF, INF, 2.0, -INF, 1.0, 4.0, 1e200])
    for name in ("atan2", "arctan2", "hypot"):
        got = getattr(minitorch, name)(minitorch.tensor(a), minitorch.tensor(b))
        expected = getattr(torch_ref, name)(torch_ref.tensor(a), torch_ref.tensor(b))
        same(got.numpy(), expected.numpy(), rtol=1e-15)
    got = minitorch.atan2(minitorch.tensor([1, -2]), minitorch.tensor([3, 1]))
    expected = torch_ref.atan2(torch_ref.tensor([1, -2]), torch_ref.tensor([3, 1]))
    assert got.dtype is minitorch.float32
    np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-6)
    with pytest.raises(NotImplementedError, match="\"hypot_cpu\" not implemented for 'Long'"):
        minitorch.hypot(minitorch.tensor([3]), minitorch.tensor([4]))


@pytest.mark.parametrize("name", ["atan2", "hypot", "remainder", "fmod"])
def test_binary_gradient(backend: str, name: str, torch_ref: Any) -> None:
    rng = np.random.default_rng(2)
    a_values = rng.uniform(0.5, 3.0, (2, 3)) * rng.choice([-1, 1], (2, 3))
    b_values = rng.uniform(0.7, 1.3, (3,)) * np.array([1, -1, 1])  # broadcast; no quotient near an integer
    a = minitorch.tensor(a_values, dtype=minitorch.float64, requires_grad=True)
    b = minitorch.tensor(b_values, dtype=minitorch.float64, requires_grad=True)
    gradcheck(lambda x, y: getattr(x, name)(y), a, b)
    ta = torch_ref.tensor(a_values, requires_grad=True)
    tb = torch_ref.tensor(b_values, requires_grad=True)
    getattr(ta, name)(tb).sum().backward()
    a.grad = b.grad = None
    getattr(a, name)(b).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), ta.grad.numpy(), rtol=1e-13)
    np.testing.assert_allclose(b.grad.numpy(), tb.grad.numpy(), rtol=1e-13)


# ---- the cuda backend (on the simulator in CI) ----


@pytest.mark.usefixtures("small_cuda")
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_on_cuda_matches_torch(name: str, torch_ref: Any) -> None:
    _, extra = UNARY[name]
    values = np.array(SPECIAL + extra, dtype=np.float64)
    got = getattr(minitorch, name)(minitorch.tensor(values, dtype=minitorch.float64, device="cuda"))
    expected = getattr(torch_ref, name)(torch_ref.tensor(values, dtype=torch_ref.float64)).numpy()
    same(got.cpu().numpy(), true_overflow(name, values, expected), rtol=1e-13)
    points, _ = UNARY[name]
    x = minitorch.tensor(points(np.random.default_rng(0), 3), dtype=minitorch.float64, device="cuda", requires_grad=True)
    getattr(x, name)().sum().backward()
    reference = torch_ref.tensor(points(np.random.default_rng(0), 3), dtype=torch_ref.float64, requires_grad=True)
    getattr(reference, name)().sum().backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), reference.grad.numpy(), rtol=1e-13, atol=1e-300)


@pytest.mark.usefixtures("small_cuda")
def test_binary_on_cuda_matches_torch(torch_ref: Any) -> None:
    a, b = np.array(MOD_A), np.array(MOD_B)
    for name in ("remainder", "fmod", "atan2", "hypot"):
        got = getattr(minitorch, name)(minitorch.tensor(a, device="cuda"), minitorch.tensor(b, device="cuda"))
        expected = getattr(torch_ref, name)(torch_ref.tensor(a), torch_ref.tensor(b))
        same(got.cpu().numpy(), expected.numpy(), rtol=1e-15)
    got = minitorch.tensor([7, -7, 2**62 + 3], device="cuda") % minitorch.tensor([3, 3, -10], device="cuda")
    np.testing.assert_array_equal(got.cpu().numpy(), (torch_ref.tensor([7, -7, 2**62 + 3]) % torch_ref.tensor([3, 3, -10])).numpy())


# ---- GELU, float64-exact through the erf op ----


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_matches_torch_to_1e12_in_float64(backend: str, approximate: str, torch_ref: Any) -> None:
    values = np.concatenate([np.linspace(-6, 6, 97), [0.0, -0.0, 1e-8, -1e-8, 20.0, -20.0]])
    x = minitorch.tensor(values, dtype=minitorch.float64, requires_grad=True)
    reference = torch_ref.tensor(values, dtype=torch_ref.float64, requires_grad=True)
    got = minitorch.nn.functional.gelu(x, approximate=approximate)
    expected = torch_ref.nn.functional.gelu(reference, approximate=approximate)
    np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), rtol=1e-12, atol=1e-300)
    weights = np.random.default_rng(3).standard_normal(values.shape)
    (got * minitorch.tensor(weights)).sum().backward()
    (expected * torch_ref.tensor(weights)).sum().backward()
    # the slope Phi(x) + x phi(x) cancels below x = -3 (both sides lose digits there, differently)
    kept = values > -3
    np.testing.assert_allclose(x.grad.numpy()[kept], reference.grad.numpy()[kept], rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(x.grad.numpy(), reference.grad.numpy(), rtol=1e-12, atol=1e-15)
    module = minitorch.nn.GELU(approximate=approximate)
    np.testing.assert_allclose(module(x).detach().numpy(), expected.detach().numpy(), rtol=1e-12, atol=1e-300)

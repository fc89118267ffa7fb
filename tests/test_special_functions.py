"""The special functions (the gamma family, Bessel I0/I1, erfcx, the normal log-CDF and
``minitorch.special``) against PyTorch, the oracle, and mpmath where PyTorch itself is inexact.

Accuracy (float64, errors in units of float64's epsilon :math:`2^{-52}`, relative unless said):

* ``lgamma`` is the C library's on the cpu backend, CPython's ``math.lgamma`` on the simple one:
  4 eps of :math:`\\max(|\\ln\\Gamma(x)|, 1)` (an absolute bound near its roots 1, 2, -2.46, ...).
* ``digamma``: 4 eps for :math:`x > 0` (absolute 4 eps near its root 1.46); below 0 the
  reflection's :math:`\\pi\\cot\\pi x` cancels against :math:`\\psi(1 - x)`, so the bound is
  4 eps of the sum of their magnitudes (PyTorch's is the same method).
* ``polygamma(n)``, :math:`n \\ge 1`: 8 eps against mpmath for :math:`x > 0`; below 0, 8 eps of
  :math:`n!\\sum_k |x + k|^{-n-1}` (the terms cancel). PyTorch's own trigamma is accurate to
  only about 5e-10, so mpmath is the reference for the values.
* ``i0``, ``i0e``, ``i1``, ``i1e``: 3 eps; ``erfcx``: 3 eps for :math:`x > -26` (PyTorch's:
  4 and 130 eps); ``ndtr`` and ``log_ndtr``: 4 eps times :math:`1 + x^2`, the conditioning of
  rounding :math:`x/\\sqrt2`.

float32 is computed in float64 and rounded once by every kernel: within 1 ulp of float32 of
the float64 reference (PyTorch's float32 ``i0`` and trigamma are off by more, so the reference
is float64 PyTorch or mpmath rounded to float32). Values at poles, infinities, NaN and signed
zeros match PyTorch's exactly, with one deliberate difference: the trigamma function at
0, -1, -2, ... is +inf (its double pole), where PyTorch's :math:`\\pi^2/\\sin^2(\\pi x)` gives the
rounding artefact 6.6e32.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import mpmath
import numpy as np
import pytest
from gradcheck import gradcheck

import minitorch

EPS = 2.0**-52
SMALLEST_SUBNORMAL = 2.0**-1074
INF, NAN = math.inf, math.nan
#: the grid every function meets: specials, poles and their neighbours, negative non-integers,
#: tiny, ordinary and large values
GRID = [
    0.0, -0.0, INF, -INF, NAN, -1.0, -2.0, -7.0, 1.0, 2.0,
    -0.5, -2.5, -3.7, -10.25, -100.3, -1.0 + 1e-8, -2.0 - 1e-10, 1e-8, -1e-8, 1e-300, -1e-300, 5e-324,
    0.5, 1.5, 1.4616321449683622, 3.7, 7.25, 12.0, 25.0, 50.0, 1e3, 1e10, 1e300,
]
#: the ops that are op codes of the kernels (one rounding in float32)
KERNEL_OPS = ("lgamma", "digamma", "i0", "i0e", "i1", "i1e", "erfcx")
#: every unary special function: minitorch.special's name -> torch.special's name
UNARY = {name: name for name in KERNEL_OPS + ("ndtr", "log_ndtr", "entr")}
UNARY["lgamma"] = "gammaln"
ORDERS = (1, 2, 3, 5)


def grid(dtype: str) -> np.ndarray:
    """:data:`GRID` in ``dtype`` (in float32, 1e10 and 1e300 become inf, 1e-300 becomes 0)."""
    with np.errstate(over="ignore"):
        return np.array(GRID, dtype=dtype)


def _rng_values(n: int = 120) -> np.ndarray:
    """Random float64 points: wide positives, negative non-integers, and a band around 0."""
    rng = np.random.default_rng(7)
    return np.concatenate([
        rng.uniform(0.01, 40.0, n), np.exp(rng.uniform(-20, 6, n // 2)), rng.uniform(-30.0, 0.0, n),
        rng.uniform(-1.0, 1.0, n // 4),
    ])


def _mp_float(function: Callable[[Any], Any], value: float) -> float:
    """``function(value)`` in mpmath at 40 digits, to float64: ±inf past its range, NaN at a
    pole or a non-finite ``value`` (the special points are checked against PyTorch instead)."""
    if not math.isfinite(value):
        return NAN
    with mpmath.workdps(40):
        try:
            result = function(mpmath.mpf(value))
        except (ValueError, ZeroDivisionError, OverflowError):
            return NAN
        try:
            return float(result)
        except OverflowError:
            return math.copysign(INF, float(mpmath.sign(result)))


def _mp(function: Callable[[Any], Any]) -> Callable[[np.ndarray], np.ndarray]:
    """``function`` of mpmath, elementwise (:func:`_mp_float`)."""
    return lambda values: np.array([_mp_float(function, float(v)) for v in values])


MPMATH: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "lgamma": _mp(lambda x: mpmath.log(abs(mpmath.gamma(x)))),
    "digamma": _mp(mpmath.digamma),
    "i0": _mp(lambda x: mpmath.besseli(0, x)),
    "i1": _mp(lambda x: mpmath.besseli(1, x)),
    "i0e": _mp(lambda x: mpmath.besseli(0, x) * mpmath.exp(-abs(x))),
    "i1e": _mp(lambda x: mpmath.besseli(1, x) * mpmath.exp(-abs(x))),
    # (past 1e8 the asymptotic series' first term, 1/(x sqrt(pi)), is exact to float64)
    "erfcx": _mp(lambda x: mpmath.exp(x * x) * mpmath.erfc(x) if x < 1e8 else 1 / (x * mpmath.sqrt(mpmath.pi))),
    "ndtr": _mp(mpmath.ncdf),
    # (log1p of the upper tail for x > 0: log(ncdf(x)) would keep only 40 - 33 digits of -1.8e-33 at x = 12)
    "log_ndtr": _mp(lambda x: mpmath.log(mpmath.ncdf(x)) if x < 0 else mpmath.log1p(-mpmath.ncdf(-x))),
}


def _call(name: str, x: Any) -> Any:
    return getattr(minitorch.special, name)(x)


def _torch(torch_ref: Any, name: str, x: Any) -> Any:
    return getattr(torch_ref.special, UNARY[name])(x)


def same_specials(actual: np.ndarray, expected: np.ndarray) -> None:
    """NaN where NaN, the same infinities, the sign of zeros: exactly."""
    assert np.array_equal(np.isnan(actual), np.isnan(expected)), (actual, expected)
    infinite = np.isinf(expected)
    assert np.array_equal(np.isinf(actual), infinite), (actual, expected)
    assert np.array_equal(actual[infinite], expected[infinite]), (actual, expected)
    zeros = expected == 0
    assert np.array_equal(np.signbit(actual[zeros]), np.signbit(expected[zeros])), (actual, expected)


def within(actual: np.ndarray, expected: np.ndarray, bound: np.ndarray | float) -> None:
    """Finite values with :math:`|actual - expected| \\le bound` (an array or a number)."""
    finite = np.isfinite(expected)
    error = np.abs(actual[finite] - expected[finite])
    limit = np.broadcast_to(bound, expected.shape)[finite]
    worst = np.argmax(error - limit) if error.size else 0
    got, wanted = actual[finite][worst], expected[finite][worst]
    assert np.all(error <= limit), f"worst: {got!r} vs {wanted!r} (bound {limit[worst]!r})"


@np.errstate(all="ignore")  # infinities and poles in x: their bounds are never used
def bound(name: str, x: np.ndarray, expected: np.ndarray) -> np.ndarray:
    """The float64 error bound of ``name`` at ``x`` (see the module docstring)."""
    size = np.abs(expected)
    if name == "lgamma":
        return 4 * EPS * np.maximum(size, 1.0)
    if name == "digamma":
        cot = np.where(x < 0, np.abs(np.pi / np.tan(np.pi * (x - np.round(x)))), 0.0)
        return 4 * EPS * (np.maximum(size, 1.0) + cot + np.abs(np.log(np.abs(x) + 1)))
    if name in ("ndtr", "log_ndtr"):  # (and as many units of the subnormals where they are)
        conditioning = 1 + np.minimum(x * x, 1e300)
        return 4 * EPS * size * conditioning + 4 * SMALLEST_SUBNORMAL * conditioning
    if name == "erfcx":
        return 3 * EPS * size
    return 3 * EPS * size  # the Bessel functions


@np.errstate(all="ignore")
def polygamma_bound(n: int, x: np.ndarray, expected: np.ndarray) -> np.ndarray:
    r"""8 eps of :math:`|\psi^{(n)}(x)|`, and below 0 of :math:`n! \sum_{k < -x} |x + k|^{-n-1}` too."""
    cancelled = np.zeros_like(x)
    for i, v in enumerate(x):
        if v < 0:
            k = np.arange(0, math.ceil(-v) + 1)
            cancelled[i] = math.factorial(n) * np.sum(np.abs(v + k) ** -(n + 1.0))
    return 8 * EPS * (np.abs(expected) + cancelled)


def mp_polygamma(n: int, values: np.ndarray) -> np.ndarray:
    return np.array([_mp_float(lambda x: mpmath.polygamma(n, x), float(v)) for v in values])


# ---- values: the special points against PyTorch ----


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_special_values_match_torch(backend: str, name: str, dtype: str, torch_ref: Any) -> None:
    values = grid(dtype)
    got = _call(name, minitorch.tensor(values, dtype=getattr(minitorch, dtype)))
    assert str(got.dtype).endswith(dtype)
    got = got.numpy()
    expected = _torch(torch_ref, name, torch_ref.tensor(values, dtype=getattr(torch_ref, dtype))).numpy()
    same_specials(got, expected)
    # the finite values against mpmath (torch's digamma next to a negative pole is off in the
    # seventh digit: its cot(pi x) is not reduced first) or, for entr, torch
    wide = values.astype(np.float64)
    finite = np.isfinite(expected)
    if name == "entr":
        np.testing.assert_allclose(got[finite], expected[finite], rtol=2 * EPS if dtype == "float64" else 2**-23)
        return
    reference = MPMATH[name](wide)
    if dtype == "float64":
        within(got, reference, bound(name, wide, reference))
    else:
        scale = 4 * (1 + wide * wide) if name in ("ndtr", "log_ndtr") else 1.0
        finite &= np.abs(reference) < 3e38
        within(np.where(finite, got, np.nan).astype(np.float64), np.where(finite, reference, np.nan),
               scale * _float32_ulp(reference))


@pytest.mark.parametrize("n", ORDERS)
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_polygamma_special_values_match_torch(backend: str, n: int, dtype: str, torch_ref: Any) -> None:
    values = grid(dtype)
    got = minitorch.polygamma(n, minitorch.tensor(values, dtype=getattr(minitorch, dtype))).numpy()
    expected = torch_ref.polygamma(n, torch_ref.tensor(values, dtype=getattr(torch_ref, dtype))).numpy()
    if n == 1:  # the double pole: +inf, where torch's pi^2 / sin^2(pi x) rounds to a finite 6.6e32
        poles = (values <= 0) & (values == np.floor(values)) & np.isfinite(values)
        assert np.all(got[poles] == INF)
        expected = np.where(poles, INF, expected)
    same_specials(got, expected)


def test_digamma_at_zero_and_negative_integers_as_torch(backend: str) -> None:
    x = minitorch.tensor([0.0, -0.0, -1.0, -2.0, -INF, INF, 1.0], dtype=minitorch.float64)
    got = minitorch.digamma(x).numpy()
    assert got[0] == -INF and got[1] == INF and np.isnan(got[2:5]).all() and got[5] == INF
    assert got[6] == pytest.approx(-0.5772156649015329, rel=EPS)  # -(Euler's gamma)


# ---- values: accuracy over a dense set of points ----


@pytest.mark.parametrize("name", sorted(MPMATH))
def test_float64_accuracy_against_mpmath(backend: str, name: str, torch_ref: Any) -> None:
    values = _rng_values()
    if name == "erfcx":
        values = np.concatenate([values[values > -26.0], [26.6, 1e5, 1e200]])
    if name.startswith("i"):  # densely where the power series is longest, and sums the most roundings
        values = np.concatenate([values, np.random.default_rng(3).uniform(5.0, 20.0, 300)])
    got = _call(name, minitorch.tensor(values, dtype=minitorch.float64)).numpy()
    expected = MPMATH[name](values)
    within(got, expected, bound(name, values, expected))
    # the oracle agrees with torch wherever torch is itself accurate (torch's erfcx is off by up
    # to 130 eps below 0, its ndtr and log_ndtr by 1e-8 relative in the left tail)
    if name not in ("ndtr", "log_ndtr"):
        theirs = _torch(torch_ref, name, torch_ref.tensor(values, dtype=torch_ref.float64)).numpy()
        within(theirs, expected, bound(name, values, expected) * (100 if name == "erfcx" else 10))


@pytest.mark.parametrize("n", ORDERS)
def test_polygamma_float64_accuracy_against_mpmath(backend: str, n: int) -> None:
    values = _rng_values(40)
    got = minitorch.polygamma(n, minitorch.tensor(values, dtype=minitorch.float64)).numpy()
    expected = mp_polygamma(n, values)
    within(got, expected, polygamma_bound(n, values, expected))


def test_polygamma_order_zero_is_digamma(backend: str) -> None:
    x = minitorch.tensor(_rng_values(20), dtype=minitorch.float64)
    assert np.array_equal(minitorch.polygamma(0, x).numpy(), minitorch.digamma(x).numpy(), equal_nan=True)


def _float32_ulp(values: np.ndarray) -> np.ndarray:
    """The spacing of float32 at each of ``values`` (inf past float32's range)."""
    with np.errstate(over="ignore"):
        return np.spacing(np.abs(values).astype(np.float32)).astype(np.float64)


@pytest.mark.parametrize("name", KERNEL_OPS)
def test_float32_is_the_float64_value_rounded(backend: str, name: str) -> None:
    values = _rng_values(40).astype(np.float32)
    if name == "erfcx":
        values = values[values > -9.0]  # erfcx(-9) = 2e35: below, float32 overflows
    if name in ("i0", "i1"):
        values = values[np.abs(values) < 80.0]
    got = _call(name, minitorch.tensor(values, dtype=minitorch.float32)).numpy().astype(np.float64)
    expected = MPMATH[name](values.astype(np.float64))
    finite = np.isfinite(expected) & (np.abs(expected) < 3e38)
    assert np.all(np.abs(got - expected)[finite] <= _float32_ulp(expected)[finite])


@pytest.mark.parametrize("n", (1, 3))
def test_polygamma_float32_is_the_float64_value_rounded(backend: str, n: int) -> None:
    values = _rng_values(20).astype(np.float32)
    values = values[values > 0]  # below 0 the cancelling terms are conditioning, not rounding
    got = minitorch.polygamma(n, minitorch.tensor(values)).numpy().astype(np.float64)
    expected = mp_polygamma(n, values.astype(np.float64))
    finite = np.abs(expected) < 3e38
    assert np.all(np.abs(got - expected)[finite] <= _float32_ulp(expected)[finite])


def test_integer_input_gives_float32_as_torch(backend: str, torch_ref: Any) -> None:
    ints = [1, 2, 3, 7]
    for name in ("lgamma", "digamma", "i0"):
        got = getattr(minitorch, name)(minitorch.tensor(ints))
        assert got.dtype is minitorch.float32
        assert getattr(torch_ref, name)(torch_ref.tensor(ints)).dtype is torch_ref.float32
        # the float64 value rounded (torch's float32 digamma(1) is 4 ulp off)
        expected = getattr(torch_ref, name)(torch_ref.tensor(ints, dtype=torch_ref.float64)).numpy().astype(np.float32)
        np.testing.assert_allclose(got.numpy(), expected, rtol=2**-23, atol=0)
    got = minitorch.polygamma(2, minitorch.tensor(ints))
    assert got.dtype is minitorch.float32
    expected = torch_ref.polygamma(2, torch_ref.tensor(ints, dtype=torch_ref.float64)).numpy().astype(np.float32)
    np.testing.assert_allclose(got.numpy(), expected, rtol=2**-23, atol=0)


# ---- gradients ----

#: op -> points for the gradchecks (off the poles)
GRAD_POINTS = np.array([[0.3, 1.7, 4.2], [-0.4, -2.6, 11.5]])
POSITIVE_POINTS = np.array([[0.3, 1.7, 4.2], [0.9, 2.6, 11.5]])


@pytest.mark.parametrize("name", sorted(UNARY))
def test_gradient_matches_torch_and_central_differences(backend: str, name: str, torch_ref: Any) -> None:
    points = POSITIVE_POINTS if name == "entr" else GRAD_POINTS
    x = minitorch.tensor(points, dtype=minitorch.float64, requires_grad=True)
    gradcheck(lambda t: _call(name, t), x)
    x.grad = None
    _call(name, x).sum().backward()
    reference = torch_ref.tensor(points, dtype=torch_ref.float64, requires_grad=True)
    _torch(torch_ref, name, reference).sum().backward()
    # digamma's derivative is the trigamma function, which torch computes to about 5e-10 only
    np.testing.assert_allclose(x.grad.numpy(), reference.grad.numpy(), rtol=1e-9 if name == "digamma" else 1e-13)


def test_digamma_gradient_is_trigamma_to_float64(backend: str) -> None:
    x = minitorch.tensor(GRAD_POINTS.ravel(), dtype=minitorch.float64, requires_grad=True)
    minitorch.digamma(x).sum().backward()
    expected = mp_polygamma(1, GRAD_POINTS.ravel())
    within(x.grad.numpy(), expected, polygamma_bound(1, GRAD_POINTS.ravel(), expected))


@pytest.mark.parametrize("n", (0, 1, 2, 4))
def test_polygamma_gradient_is_the_next_order(backend: str, n: int, torch_ref: Any) -> None:
    x = minitorch.tensor(GRAD_POINTS, dtype=minitorch.float64, requires_grad=True)
    gradcheck(lambda t: minitorch.polygamma(n, t), x, rtol=1e-5)
    x.grad = None
    out = minitorch.polygamma(n, x)
    assert out.grad_fn.name() == "PolygammaBackward0"
    out.sum().backward()
    expected = mp_polygamma(n + 1, GRAD_POINTS.ravel()).reshape(GRAD_POINTS.shape)
    limit = polygamma_bound(n + 1, GRAD_POINTS.ravel(), expected.ravel()).reshape(expected.shape)
    within(x.grad.numpy(), expected, limit)


def test_gradients_at_poles_and_zero_as_torch(backend: str, torch_ref: Any) -> None:
    values = [0.0, -1.0, 2.0]
    for name in ("lgamma", "digamma"):
        x = minitorch.tensor(values, dtype=minitorch.float64, requires_grad=True)
        getattr(minitorch, name)(x).sum().backward()
        reference = torch_ref.tensor(values, dtype=torch_ref.float64, requires_grad=True)
        getattr(torch_ref, name)(reference).sum().backward()
        if name == "digamma":  # trigamma's pole at -1: +inf (torch: its 1.3e15 artefact)
            assert x.grad.numpy()[1] == INF
            got, expected = x.grad.numpy()[[0, 2]], reference.grad.numpy()[[0, 2]]
        else:
            got, expected = x.grad.numpy(), reference.grad.numpy()
        same_specials(got, expected)
        np.testing.assert_allclose(got, expected, rtol=1e-9)
    for name in ("i1", "i1e"):  # the removable 0/0 of I1(x)/x: 1/2
        x = minitorch.tensor([0.0], dtype=minitorch.float64, requires_grad=True)
        _call(name, x).sum().backward()
        assert x.grad.item() == 0.5


def test_second_derivatives_of_lgamma_and_digamma(backend: str) -> None:
    points = GRAD_POINTS.ravel()
    for name, order in (("lgamma", 1), ("digamma", 2)):
        x = minitorch.tensor(points, dtype=minitorch.float64, requires_grad=True)
        (first,) = minitorch.autograd.grad(getattr(minitorch, name)(x).sum(), x, create_graph=True)
        (second,) = minitorch.autograd.grad(first.sum(), x)
        expected = mp_polygamma(order, points)
        within(second.numpy(), expected, polygamma_bound(order, points, expected))
    # the Hessian of sum(lgamma(x)) is diagonal, the trigamma function on it
    hessian = minitorch.func.hessian(lambda t: t.lgamma().sum())(minitorch.tensor(points[:3], dtype=minitorch.float64))
    expected = mp_polygamma(1, points[:3])
    np.testing.assert_allclose(hessian.numpy(), np.diag(expected), rtol=8 * EPS, atol=0)


def test_log_ndtr_gradient_stays_finite_far_left(backend: str, torch_ref: Any) -> None:
    values = [-40.0, -10.0, -1.0, 0.0, 5.0, 30.0]
    x = minitorch.tensor(values, dtype=minitorch.float64, requires_grad=True)
    minitorch.special.log_ndtr(x).sum().backward()
    reference = torch_ref.tensor(values, dtype=torch_ref.float64, requires_grad=True)
    torch_ref.special.log_ndtr(reference).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), reference.grad.numpy(), rtol=1e-12, atol=1e-300)
    # phi(x) / Phi(x), to a few eps times 1 + x^2 (torch's is off by 1e-13 at -40)
    expected = _mp(lambda t: mpmath.npdf(t) / mpmath.ncdf(t))(np.array(values))
    within(x.grad.numpy(), expected, 4 * EPS * np.abs(expected) * (1 + np.array(values) ** 2))


# ---- composites and minitorch.special ----


@pytest.mark.parametrize("p", [1, 2, 3, 5])
def test_mvlgamma_matches_torch(backend: str, p: int, torch_ref: Any) -> None:
    values = np.array([[2.5, 3.0, 7.75], [10.0, 2.2, 40.0]])
    x = minitorch.tensor(values, dtype=minitorch.float64, requires_grad=True)
    out = minitorch.mvlgamma(x, p)
    assert out.grad_fn.name() == "MvlgammaBackward0"
    reference = torch_ref.tensor(values, dtype=torch_ref.float64, requires_grad=True)
    expected = torch_ref.mvlgamma(reference, p)
    np.testing.assert_allclose(out.detach().numpy(), expected.detach().numpy(), rtol=1e-14)
    out.sum().backward()
    expected.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), reference.grad.numpy(), rtol=1e-13)
    assert np.array_equal(minitorch.special.multigammaln(x.detach(), p).numpy(), out.detach().numpy())


def test_xlog1py_and_entr_match_torch_with_their_rules(backend: str, torch_ref: Any) -> None:
    x_values, y_values = [0.0, 0.0, 0.0, 2.0, -1.5, 3.0], [-1.0, 0.5, NAN, -1.0, 0.25, -2.0]
    x = minitorch.tensor(x_values, dtype=minitorch.float64, requires_grad=True)
    y = minitorch.tensor(y_values, dtype=minitorch.float64, requires_grad=True)
    tx = torch_ref.tensor(x_values, dtype=torch_ref.float64, requires_grad=True)
    ty = torch_ref.tensor(y_values, dtype=torch_ref.float64, requires_grad=True)
    out, expected = minitorch.special.xlog1py(x, y), torch_ref.special.xlog1py(tx, ty)
    same_specials(out.detach().numpy(), expected.detach().numpy())
    np.testing.assert_allclose(out.detach().numpy(), expected.detach().numpy(), rtol=1e-15)
    out.sum().backward()
    expected.sum().backward()
    same_specials(x.grad.numpy(), tx.grad.numpy())
    same_specials(y.grad.numpy(), ty.grad.numpy())
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-15)
    np.testing.assert_allclose(y.grad.numpy(), ty.grad.numpy(), rtol=1e-15)
    # a number on either side
    np.testing.assert_allclose(minitorch.special.xlog1py(2.0, y.detach()).numpy(),
                               torch_ref.special.xlog1py(2.0, ty.detach()).numpy(), rtol=1e-15)
    np.testing.assert_allclose(minitorch.special.xlog1py(x.detach(), 3).numpy(),
                               torch_ref.special.xlog1py(tx.detach(), 3).numpy(), rtol=1e-15)
    values = [0.0, -1.0, 1e-300, 0.5, 2.0, INF, -INF, NAN]
    x = minitorch.tensor(values, dtype=minitorch.float64, requires_grad=True)
    tx = torch_ref.tensor(values, dtype=torch_ref.float64, requires_grad=True)
    out, expected = minitorch.special.entr(x), torch_ref.special.entr(tx)
    same_specials(out.detach().numpy(), expected.detach().numpy())
    out.sum().backward()
    expected.sum().backward()
    same_specials(x.grad.numpy(), tx.grad.numpy())
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-15)


#: minitorch.special's names that are other minitorch ops, called as torch.special's
ALIASES: dict[str, Callable[[Any, Any], Any]] = {
    "gammaln": lambda m, x: m.gammaln(x), "psi": lambda m, x: m.psi(x), "digamma": lambda m, x: m.digamma(x),
    "polygamma": lambda m, x: m.polygamma(2, x), "multigammaln": lambda m, x: m.multigammaln(x + 2, 3),
    "erf": lambda m, x: m.erf(x), "erfc": lambda m, x: m.erfc(x), "erfinv": lambda m, x: m.erfinv(x / 10),
    "expit": lambda m, x: m.expit(x), "logit": lambda m, x: m.logit(x / 10 + 0.5, eps=1e-6),
    "xlogy": lambda m, x: m.xlogy(x, x * x), "sinc": lambda m, x: m.sinc(x),
    "logsumexp": lambda m, x: m.logsumexp(x, 1), "softmax": lambda m, x: m.softmax(x, 0),
    "log_softmax": lambda m, x: m.log_softmax(x, 1), "round": lambda m, x: m.round(x, decimals=1),
    "exp2": lambda m, x: m.exp2(x), "expm1": lambda m, x: m.expm1(x), "log1p": lambda m, x: m.log1p(x),
    "i0": lambda m, x: m.i0(x), "i0e": lambda m, x: m.i0e(x), "i1": lambda m, x: m.i1(x),
    "i1e": lambda m, x: m.i1e(x), "erfcx": lambda m, x: m.erfcx(x), "ndtr": lambda m, x: m.ndtr(x),
    "log_ndtr": lambda m, x: m.log_ndtr(x), "entr": lambda m, x: m.entr(x), "xlog1py": lambda m, x: m.xlog1py(x, x),
}


@pytest.mark.parametrize("name", sorted(ALIASES))
def test_special_namespace_matches_torch_special(name: str, torch_ref: Any) -> None:
    assert name in minitorch.special.__all__
    values = np.array([[0.3, -1.7, 4.2], [2.5, -0.25, 3.0]])
    x = minitorch.tensor(values, dtype=minitorch.float64, requires_grad=True)
    tx = torch_ref.tensor(values, dtype=torch_ref.float64, requires_grad=True)
    got, expected = ALIASES[name](minitorch.special, x), ALIASES[name](torch_ref.special, tx)
    same_specials(got.detach().numpy(), expected.detach().numpy())
    np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), rtol=1e-13)
    if expected.requires_grad:
        expected.sum().backward()
        got.sum().backward()
        finite = np.isfinite(tx.grad.numpy())
        np.testing.assert_allclose(x.grad.numpy()[finite], tx.grad.numpy()[finite], rtol=1e-9)


def test_special_is_a_module_of_the_package() -> None:
    import importlib

    assert importlib.import_module("minitorch.special") is minitorch.special
    x = minitorch.tensor([0.3, 4.5])
    for alias, name in (("gammaln", "lgamma"), ("psi", "digamma"), ("multigammaln", "mvlgamma")):
        args = (2,) if alias == "multigammaln" else ()
        got = getattr(minitorch.special, alias)(x + 1, *args).numpy()
        assert np.array_equal(got, getattr(minitorch, name)(x + 1, *args).numpy())


def test_methods_in_place_forms_and_out(torch_ref: Any) -> None:
    values = np.array([0.5, 2.5, 7.0])
    for name, args in (("lgamma", ()), ("digamma", ()), ("i0", ()), ("polygamma", (2,)), ("mvlgamma", (2,))):
        x = minitorch.tensor(values + 1)
        tx = torch_ref.tensor(values + 1)
        expected = getattr(tx, name)(*args)
        np.testing.assert_allclose(getattr(x, name)(*args).numpy(), expected.numpy(), rtol=2e-7)
        result = getattr(x, f"{name}_")(*args)
        assert result is x
        np.testing.assert_allclose(x.numpy(), expected.numpy(), rtol=2e-7)
    x = minitorch.tensor(values)
    assert minitorch.i0_(x) is x
    out = minitorch.empty(3, dtype=minitorch.float64)
    assert minitorch.lgamma(minitorch.tensor(values, dtype=minitorch.float64), out=out) is out
    expected = torch_ref.lgamma(torch_ref.tensor(values, dtype=torch_ref.float64)).numpy()
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-15)
    assert minitorch.lgamma(minitorch.tensor([2.0], requires_grad=True)).grad_fn.name() == "LgammaBackward0"


def test_bad_arguments_raise_as_torch() -> None:
    x = minitorch.tensor([1.5, 2.5])
    with pytest.raises(RuntimeError, match="polygamma\\(n, x\\) does not support negative n."):
        minitorch.polygamma(-1, x)
    with pytest.raises(TypeError, match="must be int"):
        minitorch.polygamma(1.5, x)
    with pytest.raises(RuntimeError, match="p has to be greater than or equal to 1"):
        minitorch.mvlgamma(x, 0)
    with pytest.raises(TypeError, match="must be Tensor"):
        minitorch.special.i0e([1.0])


# ---- the cuda backend, on the simulator in CI: the same kernels ----


@pytest.mark.usefixtures("small_cuda")
def test_on_cuda_matches_the_cpu(torch_ref: Any) -> None:
    values = np.array([0.0, -0.0, -2.0, -2.5, 1e-300, INF, NAN, 0.7, 4.5, 31.0])
    cpu = minitorch.tensor(values, dtype=minitorch.float64)
    cuda = minitorch.tensor(values, dtype=minitorch.float64, device="cuda")
    for name in KERNEL_OPS:
        got = _call(name, cuda).cpu().numpy()
        same_specials(got, _call(name, cpu).numpy())
        expected = MPMATH[name](values)
        within(got, expected, bound(name, values, expected))
    for n in (1, 3):
        got = minitorch.polygamma(n, cuda).cpu().numpy()
        same_specials(got, minitorch.polygamma(n, cpu).numpy())
        expected = mp_polygamma(n, values)
        within(got, expected, polygamma_bound(n, values, expected))
    x = minitorch.tensor([0.7, 4.5, -2.5], dtype=minitorch.float64, device="cuda", requires_grad=True)
    minitorch.lgamma(x).sum().backward()
    reference = torch_ref.tensor([0.7, 4.5, -2.5], dtype=torch_ref.float64, requires_grad=True)
    torch_ref.lgamma(reference).sum().backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), reference.grad.numpy(), rtol=1e-14)

"""Step 0: the scalar operators in ``minitorch.operators``.

Every expected value comes from somewhere other than the code under test: numbers worked
out by hand, Python's ``math`` module, NumPy, or a finite-difference slope.
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from minitorch import operators

FAST = settings(max_examples=50, deadline=None)

#: a finite-difference step and how far its slope may be from the exact derivative
STEP = 1e-6
SLOPE_TOLERANCE = 1e-4
#: stay this far from a kink (relu at 0) so a finite difference does not straddle it
KINK_MARGIN = 1e-3
#: absolute slack for float rounding where the exact answer may be 0
ROUNDING_TOLERANCE = 1e-9

small = st.floats(min_value=-100, max_value=100, allow_nan=False)
positive = st.floats(min_value=0.1, max_value=100, allow_nan=False)
moderate = st.floats(min_value=-30, max_value=30, allow_nan=False)
nonzero = st.one_of(st.floats(min_value=0.5, max_value=100), st.floats(min_value=-100, max_value=-0.5))
lists = st.lists(small, max_size=20)


def slope(f: Callable[[float], float], x: float) -> float:
    """Independent oracle for a derivative: the central-difference slope of ``f`` at ``x``."""
    return (f(x + STEP) - f(x - STEP)) / (2 * STEP)


# ---------------------------------------------------------------- task 0.1: operators


@pytest.mark.task("0.1")
def test_arithmetic_by_hand() -> None:
    assert operators.mul(2.0, 3.0) == 6.0
    assert operators.mul(-1.5, 4.0) == -6.0
    assert operators.identity(7.5) == 7.5
    assert operators.add(2.0, 3.0) == 5.0
    assert operators.sub(2.0, 3.0) == -1.0
    assert operators.neg(4.0) == -4.0
    assert operators.neg(-4.0) == 4.0
    assert operators.div(6.0, 3.0) == 2.0
    assert operators.inv(4.0) == 0.25
    assert operators.inv(-0.5) == -2.0


@pytest.mark.task("0.1")
def test_division_by_zero_follows_ieee() -> None:
    assert operators.div(1.0, 0.0) == math.inf
    assert operators.div(-1.0, 0.0) == -math.inf
    assert operators.div(1.0, -0.0) == -math.inf
    assert math.isnan(operators.div(0.0, 0.0))
    assert operators.inv(0.0) == math.inf


@pytest.mark.task("0.1")
def test_comparisons_by_hand() -> None:
    assert operators.lt(1.0, 2.0) and not operators.lt(2.0, 1.0) and not operators.lt(2.0, 2.0)
    assert operators.le(2.0, 2.0) and not operators.le(3.0, 2.0)
    assert operators.gt(2.0, 1.0) and not operators.gt(2.0, 2.0)
    assert operators.ge(2.0, 2.0) and not operators.ge(1.0, 2.0)
    assert operators.eq(2.0, 2.0) and not operators.eq(2.0, 3.0)
    assert operators.ne(2.0, 3.0) and not operators.ne(2.0, 2.0)
    assert operators.is_close(1.0, 1.001) and not operators.is_close(1.0, 1.1)


@pytest.mark.task("0.1")
def test_maximum_minimum_by_hand() -> None:
    assert operators.maximum(2.0, 3.0) == 3.0
    assert operators.maximum(-2.0, -3.0) == -2.0
    assert operators.minimum(2.0, 3.0) == 2.0
    assert operators.minimum(-2.0, -3.0) == -3.0
    # NaN wins on either side, as in PyTorch
    assert math.isnan(operators.maximum(math.nan, 1.0))
    assert math.isnan(operators.maximum(1.0, math.nan))
    assert math.isnan(operators.minimum(math.nan, 1.0))
    assert math.isnan(operators.minimum(1.0, math.nan))


@pytest.mark.task("0.1")
def test_unary_functions_by_hand() -> None:
    assert operators.sigmoid(0.0) == 0.5
    assert operators.relu(3.0) == 3.0
    assert operators.relu(-3.0) == 0.0
    assert operators.log(1.0) == 0.0
    assert operators.log(math.e) == pytest.approx(1.0)
    assert operators.exp(0.0) == 1.0
    assert operators.exp(1.0) == pytest.approx(math.e)
    assert operators.sqrt(9.0) == 3.0
    assert operators.tanh(0.0) == 0.0
    assert operators.absolute(-2.5) == 2.5
    assert operators.sign(-2.5) == -1.0
    assert operators.sign(0.0) == 0.0
    assert operators.sign(2.5) == 1.0
    assert operators.power(2.0, 10.0) == 1024.0
    assert operators.power(4.0, 0.5) == 2.0


@pytest.mark.task("0.1")
def test_edge_values_follow_ieee() -> None:
    assert operators.log(0.0) == -math.inf
    assert math.isnan(operators.log(-1.0))
    assert operators.exp(1000.0) == math.inf
    assert math.isnan(operators.sqrt(-1.0))
    assert math.isnan(operators.power(-8.0, 1 / 3))
    assert operators.power(0.0, -1.0) == math.inf
    assert operators.power(10.0, 400.0) == math.inf
    assert operators.power(-10.0, 401.0) == -math.inf
    # extreme inputs must not overflow inside sigmoid
    assert operators.sigmoid(-1000.0) == 0.0
    assert operators.sigmoid(1000.0) == 1.0


@pytest.mark.task("0.1")
@FAST
@given(small, small)
def test_arithmetic_matches_python(x: float, y: float) -> None:
    assert operators.mul(x, y) == pytest.approx(x * y)
    assert operators.add(x, y) == pytest.approx(x + y)
    assert operators.sub(x, y) == pytest.approx(x - y)
    assert operators.maximum(x, y) == max(x, y)
    assert operators.minimum(x, y) == min(x, y)
    assert operators.lt(x, y) == (x < y)
    assert operators.eq(x, y) == (x == y)


@pytest.mark.task("0.1")
@FAST
@given(moderate)
def test_unary_functions_match_numpy(x: float) -> None:
    assert operators.sigmoid(x) == pytest.approx(1 / (1 + np.exp(-x)))
    assert operators.relu(x) == pytest.approx(np.maximum(x, 0.0))
    assert operators.exp(x) == pytest.approx(np.exp(x))
    assert operators.tanh(x) == pytest.approx(np.tanh(x))
    assert operators.absolute(x) == pytest.approx(np.abs(x))
    assert operators.sign(x) == np.sign(x)


@pytest.mark.task("0.1")
@FAST
@given(positive, st.floats(min_value=-3, max_value=3))
def test_positive_domain_matches_numpy(x: float, y: float) -> None:
    assert operators.log(x) == pytest.approx(np.log(x))
    assert operators.sqrt(x) == pytest.approx(np.sqrt(x))
    assert operators.inv(x) == pytest.approx(1 / x)
    assert operators.div(y, x) == pytest.approx(y / x)
    assert operators.power(x, y) == pytest.approx(np.power(x, y))


# ------------------------------------------- task 0.2: properties and backward helpers


@pytest.mark.task("0.2")
@FAST
@given(moderate)
def test_sigmoid_properties(x: float) -> None:
    r""":math:`\sigma(-x) = 1 - \sigma(x)`, :math:`0 \le \sigma(x) \le 1`."""
    assert 0.0 <= operators.sigmoid(x) <= 1.0
    assert operators.sigmoid(-x) == pytest.approx(1.0 - operators.sigmoid(x))


@pytest.mark.task("0.2")
@FAST
@given(moderate, moderate)
def test_sigmoid_is_monotone(x: float, y: float) -> None:
    low, high = sorted((x, y))
    assert operators.sigmoid(low) <= operators.sigmoid(high)


@pytest.mark.task("0.2")
@FAST
@given(small)
def test_relu_properties(x: float) -> None:
    assert operators.relu(x) >= 0.0
    assert operators.relu(x) == (x if x > 0 else 0.0)
    assert operators.relu(operators.relu(x)) == operators.relu(x)


@pytest.mark.task("0.2")
@FAST
@given(moderate, positive)
def test_log_and_exp_are_inverse(x: float, y: float) -> None:
    assert operators.log(operators.exp(x)) == pytest.approx(x, abs=ROUNDING_TOLERANCE)
    assert operators.exp(operators.log(y)) == pytest.approx(y)


@pytest.mark.task("0.2")
@FAST
@given(small, small, small)
def test_algebraic_laws(x: float, y: float, z: float) -> None:
    assert operators.add(x, y) == operators.add(y, x)
    assert operators.mul(x, y) == operators.mul(y, x)
    assert operators.mul(z, operators.add(x, y)) == pytest.approx(
        operators.add(operators.mul(z, x), operators.mul(z, y)), abs=ROUNDING_TOLERANCE
    )
    assert operators.neg(operators.neg(x)) == x
    assert operators.eq(x, x) and not operators.lt(x, x)
    if operators.lt(x, y) and operators.lt(y, z):
        assert operators.lt(x, z)


@pytest.mark.task("0.2")
@FAST
@given(positive, small)
def test_log_back_is_the_slope_of_log(x: float, d: float) -> None:
    assert operators.log_back(x, d) == pytest.approx(
        d * slope(math.log, x), rel=SLOPE_TOLERANCE, abs=SLOPE_TOLERANCE
    )


@pytest.mark.task("0.2")
@FAST
@given(nonzero, small)
def test_inv_back_is_the_slope_of_inv(x: float, d: float) -> None:
    assert operators.inv_back(x, d) == pytest.approx(
        d * slope(lambda v: 1 / v, x), rel=SLOPE_TOLERANCE, abs=SLOPE_TOLERANCE
    )


@pytest.mark.task("0.2")
@FAST
@given(small.filter(lambda v: abs(v) > KINK_MARGIN), small)
def test_relu_back_is_the_slope_of_relu(x: float, d: float) -> None:
    assert operators.relu_back(x, d) == pytest.approx(
        d * slope(lambda v: max(v, 0.0), x), rel=SLOPE_TOLERANCE, abs=SLOPE_TOLERANCE
    )


@pytest.mark.task("0.2")
def test_backward_helpers_by_hand() -> None:
    assert operators.log_back(2.0, 3.0) == 1.5
    assert operators.inv_back(2.0, 3.0) == -0.75
    assert operators.relu_back(2.0, 3.0) == 3.0
    assert operators.relu_back(-2.0, 3.0) == 0.0


# ------------------------------------------------------- task 0.3: higher-order functions


@pytest.mark.task("0.3")
def test_higher_order_by_hand() -> None:
    assert operators.map_each(lambda v: v * 2)([1.0, 2.0, 3.0]) == [2.0, 4.0, 6.0]
    assert operators.zip_with(lambda a, b: a - b)([5.0, 7.0], [1.0, 2.0]) == [4.0, 5.0]
    # reduce folds from the left, starting from `start`: ((10 - 1) - 2) - 3
    assert operators.reduce(lambda a, b: a - b, 10.0)([1.0, 2.0, 3.0]) == 4.0
    assert operators.reduce(lambda a, b: a + b, 5.0)([]) == 5.0
    assert operators.sum_list([]) == 0.0
    assert operators.prod_list([]) == 1.0
    assert operators.prod_list([2.0, 3.0, 4.0]) == 24.0


@pytest.mark.task("0.3")
@FAST
@given(lists)
def test_map_each_matches_comprehension(values: list[float]) -> None:
    assert operators.map_each(math.floor)(values) == [math.floor(v) for v in values]
    assert operators.neg_list(values) == [-v for v in values]
    # map_each accepts any iterable, not only lists
    assert operators.map_each(abs)(iter(values)) == [abs(v) for v in values]


@pytest.mark.task("0.3")
@FAST
@given(st.lists(st.tuples(small, small), max_size=20))
def test_zip_with_matches_numpy(pairs: list[tuple[float, float]]) -> None:
    xs = [x for x, _ in pairs]
    ys = [y for _, y in pairs]
    assert operators.add_lists(xs, ys) == pytest.approx(list(np.add(xs, ys)))
    assert operators.zip_with(max)(xs, ys) == pytest.approx(list(np.maximum(xs, ys)))


@pytest.mark.task("0.3")
@FAST
@given(lists)
def test_sum_list_matches_numpy(values: list[float]) -> None:
    assert operators.sum_list(values) == pytest.approx(math.fsum(values), abs=ROUNDING_TOLERANCE)
    assert operators.sum_list(values) == pytest.approx(float(np.sum(values)), abs=ROUNDING_TOLERANCE)


@pytest.mark.task("0.3")
@FAST
@given(st.lists(st.floats(min_value=-2, max_value=2), max_size=10))
def test_prod_list_matches_math(values: list[float]) -> None:
    assert operators.prod_list(values) == pytest.approx(math.prod(values))
    assert operators.prod_list(values) == pytest.approx(float(np.prod(values)))

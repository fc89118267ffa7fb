r"""Step 0: the scalar functions everything else is built from.

Each function works on plain Python floats. The ``*_back`` functions are derivatives times
an upstream gradient :math:`d`, e.g. ``log_back(x, d)`` is :math:`d \cdot \frac{1}{x}`.
The higher-order helpers at the bottom (``map_each``, ``zip_with``, ``reduce``) are the ideas
the tensor backends later implement over whole arrays.
"""

from __future__ import annotations

import math
from typing import Callable, Iterable

#: how close two floats must be for :func:`is_close`
CLOSE_TOLERANCE = 1e-2


def mul(x: float, y: float) -> float:
    """:math:`x \\cdot y`"""
    # BEGIN SOLUTION 0.1
    return x * y
    # END SOLUTION


def identity(x: float) -> float:
    """:math:`x`"""
    # BEGIN SOLUTION 0.1
    return x
    # END SOLUTION


def add(x: float, y: float) -> float:
    """:math:`x + y`"""
    # BEGIN SOLUTION 0.1
    return x + y
    # END SOLUTION


def sub(x: float, y: float) -> float:
    """:math:`x - y`"""
    # BEGIN SOLUTION 0.1
    return x - y
    # END SOLUTION


def neg(x: float) -> float:
    """:math:`-x`"""
    # BEGIN SOLUTION 0.1
    return -x
    # END SOLUTION


def div(x: float, y: float) -> float:
    """:math:`x / y`, with IEEE results for a zero divisor (``inf`` or ``nan``) as tensors give."""
    # BEGIN SOLUTION 0.1
    if y == 0:
        if x == 0 or x != x:
            return math.nan
        return math.copysign(math.inf, x) * math.copysign(1.0, y)
    return x / y
    # END SOLUTION


def lt(x: float, y: float) -> bool:
    """:math:`x < y`"""
    # BEGIN SOLUTION 0.1
    return x < y
    # END SOLUTION


def le(x: float, y: float) -> bool:
    """:math:`x \\le y`"""
    return x <= y


def gt(x: float, y: float) -> bool:
    """:math:`x > y`"""
    return x > y


def ge(x: float, y: float) -> bool:
    """:math:`x \\ge y`"""
    return x >= y


def eq(x: float, y: float) -> bool:
    """:math:`x = y`"""
    # BEGIN SOLUTION 0.1
    return x == y
    # END SOLUTION


def ne(x: float, y: float) -> bool:
    """:math:`x \\ne y`"""
    return x != y


def maximum(x: float, y: float) -> float:
    """The larger of ``x`` and ``y``; NaN if either is NaN (as PyTorch's ``maximum``)."""
    # BEGIN SOLUTION 0.1
    return x if (x > y or x != x) else y
    # END SOLUTION


def minimum(x: float, y: float) -> float:
    """The smaller of ``x`` and ``y``; NaN if either is NaN."""
    # BEGIN SOLUTION 0.1
    return x if (x < y or x != x) else y
    # END SOLUTION


def is_close(x: float, y: float) -> bool:
    """:math:`|x - y| < 10^{-2}`"""
    # BEGIN SOLUTION 0.1
    return abs(x - y) < CLOSE_TOLERANCE
    # END SOLUTION


def sigmoid(x: float) -> float:
    r""":math:`\sigma(x) = \frac{1}{1 + e^{-x}}`, computed as :math:`\frac{e^x}{1 + e^x}` for
    :math:`x < 0` so that neither branch overflows."""
    # BEGIN SOLUTION 0.1
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    z = math.exp(x)
    return z / (1.0 + z)
    # END SOLUTION


def relu(x: float) -> float:
    """:math:`\\max(x, 0)`"""
    # BEGIN SOLUTION 0.1
    return x if (x > 0 or x != x) else 0.0
    # END SOLUTION


def log(x: float) -> float:
    """:math:`\\ln x` (``-inf`` at 0 and NaN below, as tensors give)."""
    # BEGIN SOLUTION 0.1
    if x == 0:
        return -math.inf
    if x < 0 or x != x:
        return math.nan
    return math.log(x)
    # END SOLUTION


def exp(x: float) -> float:
    """:math:`e^x` (``inf`` on overflow)."""
    # BEGIN SOLUTION 0.1
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf
    # END SOLUTION


def sqrt(x: float) -> float:
    """:math:`\\sqrt{x}` (NaN below 0)."""
    return math.sqrt(x) if x >= 0 else math.nan


def tanh(x: float) -> float:
    """:math:`\\tanh x`"""
    return math.tanh(x)


def absolute(x: float) -> float:
    """:math:`|x|`"""
    return abs(x)


def sign(x: float) -> float:
    """-1, 0 or 1 with the sign of ``x``."""
    return float((x > 0) - (x < 0))


def power(x: float, y: float) -> float:
    """:math:`x^y` (NaN where the real result is undefined, ``inf`` for 0 to a negative power)."""
    try:
        result = x**y
    except ZeroDivisionError:
        return math.inf
    except OverflowError:
        # a negative base to an odd integer power keeps its sign
        return -math.inf if x < 0 and y % 2 == 1 else math.inf
    return math.nan if isinstance(result, complex) else result


def inv(x: float) -> float:
    """:math:`1/x`"""
    # BEGIN SOLUTION 0.1
    return div(1.0, x)
    # END SOLUTION


def log_back(x: float, d: float) -> float:
    r""":math:`d \cdot \frac{d}{dx}\ln x = \frac{d}{x}`"""
    # BEGIN SOLUTION 0.2
    return div(d, x)
    # END SOLUTION


def inv_back(x: float, d: float) -> float:
    r""":math:`d \cdot \frac{d}{dx}\frac{1}{x} = -\frac{d}{x^2}`"""
    # BEGIN SOLUTION 0.2
    return neg(div(d, x * x))
    # END SOLUTION


def relu_back(x: float, d: float) -> float:
    r""":math:`d \cdot \mathbb{1}[x > 0]`"""
    # BEGIN SOLUTION 0.2
    return d if x > 0 else 0.0
    # END SOLUTION


# ---- higher-order functions: the shape of every tensor kernel ----


def map_each(fn: Callable[[float], float]) -> Callable[[Iterable[float]], list[float]]:
    """Lift ``fn`` to act on each element of a list."""
    # BEGIN SOLUTION 0.3
    def apply(values: Iterable[float]) -> list[float]:
        return [fn(v) for v in values]

    return apply
    # END SOLUTION


def zip_with(fn: Callable[[float, float], float]) -> Callable[[Iterable[float], Iterable[float]], list[float]]:
    """Lift ``fn`` to combine two lists element by element."""
    # BEGIN SOLUTION 0.3
    def apply(xs: Iterable[float], ys: Iterable[float]) -> list[float]:
        return [fn(x, y) for x, y in zip(xs, ys)]

    return apply
    # END SOLUTION


def reduce(fn: Callable[[float, float], float], start: float) -> Callable[[Iterable[float]], float]:
    r"""Lift ``fn`` to fold a list: :math:`fn(\dots fn(fn(start, x_0), x_1) \dots, x_n)`."""
    # BEGIN SOLUTION 0.3
    def apply(values: Iterable[float]) -> float:
        result = start
        for v in values:
            result = fn(result, v)
        return result

    return apply
    # END SOLUTION


def neg_list(values: Iterable[float]) -> list[float]:
    """Negate every element, using :func:`map_each`."""
    # BEGIN SOLUTION 0.3
    return map_each(neg)(values)
    # END SOLUTION


def add_lists(xs: Iterable[float], ys: Iterable[float]) -> list[float]:
    """Add two lists element by element, using :func:`zip_with`."""
    # BEGIN SOLUTION 0.3
    return zip_with(add)(xs, ys)
    # END SOLUTION


def sum_list(values: Iterable[float]) -> float:
    """Sum a list, using :func:`reduce`."""
    # BEGIN SOLUTION 0.3
    return reduce(add, 0.0)(values)
    # END SOLUTION


def prod_list(values: Iterable[float]) -> float:
    """Multiply a list together, using :func:`reduce`."""
    # BEGIN SOLUTION 0.3
    return reduce(mul, 1.0)(values)
    # END SOLUTION

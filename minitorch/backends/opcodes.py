"""The op vocabulary every backend shares: op names, op codes and the scalar bodies.

An op is named by a string above the backends (``backend.map("exp", a, out)``) and by an
integer *op code* inside the kernels: its position in one of the tables below. The tables
only grow at the end (append-only), so a code never changes meaning and the kernels Numba
has compiled into its on-disk cache stay valid.

The scalar bodies are written once, here, as plain Python functions of ``(op, x, ...)``
that store their result into ``out[pos]`` (so the store casts to ``out``'s dtype, as
NumPy does) or return one step of a reduction. The same source runs three ways:

* the ``simple`` backend calls them as they are, on NumPy scalars;
* the ``cpu`` backend compiles them with ``numba.njit`` into its kernels, one tight loop
  per op code (:mod:`.cpu_kernels`);
* the ``cuda`` backend compiles them as ``cuda.jit(device=True)`` functions.

So every branch must also be right in plain Python, where ``math.exp`` raises
``OverflowError`` and ``math.log``/``math.sqrt`` raise ``ValueError`` outside their
domain: the guards give the IEEE results (inf, -inf, NaN) that compiled code gives.

Adding a unary op: append its name to :data:`UNARY`, give it a constant with the next
code, and a branch in :func:`unary_into`; then its autograd ``Function`` in
``minitorch/ops/elementwise.py``.
"""

from __future__ import annotations

import math

import numpy as np
from typing import Any

from ..rounding import SPLITTER  # Dekker's splitter 2^27 + 1: x splits into halves whose products are exact

#: elementwise ops of one operand: ``out[i] = f(a[i])`` (position = op code; append only)
UNARY = (
    "copy", "neg", "exp", "log", "sqrt", "abs", "sigmoid", "tanh", "relu", "sign", "logical_not",
    "sin", "cos",
    "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh",
    "erf", "erfc", "erfinv", "log1p", "expm1", "log2", "log10", "exp2",
    "floor", "ceil", "round", "trunc",
    "rsqrt", "reciprocal",
    "bitwise_not",
    "lgamma", "digamma", "i0", "i0e", "i1", "i1e", "erfcx",
)
COPY, NEG, EXP, LOG, SQRT, ABS, SIGMOID, TANH, RELU, SIGN, LOGICAL_NOT = range(11)
SIN, COS = range(11, 13)
TAN, ASIN, ACOS, ATAN, SINH, COSH, ASINH, ACOSH, ATANH = range(13, 22)
ERF, ERFC, ERFINV, LOG1P, EXPM1, LOG2, LOG10, EXP2 = range(22, 30)
FLOOR, CEIL, ROUND, TRUNC = range(30, 34)
RSQRT, RECIPROCAL = range(34, 36)
BITWISE_NOT = 36
#: the special functions (:mod:`minitorch.special`): the log-gamma and its derivative, the
#: modified Bessel functions of order 0 and 1 (and their ``e^{-|x|}``-scaled forms), erfcx
LGAMMA, DIGAMMA, I0, I0E, I1, I1E, ERFCX = range(37, 44)

#: elementwise ops of two operands, broadcast to ``out.shape``: ``out[i] = f(a[i], b[i])``.
#: ``masked`` is ``a if b else 0``: a selection that never multiplies (so inf/nan in the
#: unselected side stay out); ``where_part`` the same with :math:`-0` (see :data:`WHERE_PART`).
#: Position = op code; append only.
BINARY = (
    "add", "sub", "mul", "div", "pow", "maximum", "minimum",
    "lt", "le", "gt", "ge", "eq", "ne", "masked",
    "atan2", "hypot", "fmod", "remainder", "int_fmod", "int_remainder",
    "bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift",
    "polygamma", "where_part",
    "floor_divide", "int_floor_divide", "int_trunc_divide",
)
ADD, SUB, MUL, DIV, POW, MAXIMUM, MINIMUM, LT, LE, GT, GE, EQ, NE, MASKED = range(14)
#: ``fmod``/``remainder`` are the float bodies (exact: ``%`` on magnitudes, the sign of ``x``); the ``int_``
#: ones are integer arithmetic, exact for every int64 (the divisor is checked nonzero before)
ATAN2, HYPOT, FMOD, REMAINDER, INT_FMOD, INT_REMAINDER = range(14, 20)
#: the bitwise ops, for integers and bools only (the tensor layer refuses floats), computed in
#: int64 (``np.int64`` keeps the bodies compilable for every dtype, and the store into a
#: narrower ``out`` wraps as a cast, in plain Python too). A shift by a negative amount or by 64 or more
#: bits gives what shifting one bit at a time would: 0 (or -1 for a negative number shifted right)
BITWISE_AND, BITWISE_OR, BITWISE_XOR, LEFT_SHIFT, RIGHT_SHIFT = range(20, 25)
#: the width of the widest integer (int64): shifting by as many bits empties it
INT_BITS = 64
#: :math:`\psi^{(n)}(x)` for :math:`n \ge 1`, with ``x`` the first operand and ``n`` (a whole
#: number in ``x``'s dtype) the second; :math:`n = 0` is the unary ``digamma``
POLYGAMMA = 25
#: one side of ``where``: ``a`` where ``b`` holds, else :math:`-0`, the identity of IEEE
#: addition (:math:`x + (-0) = x` for every ``x``, :math:`-0` included), so the two sides add up
#: to the chosen values bit for bit; ``masked``'s :math:`+0` would turn a chosen :math:`-0` into
#: :math:`+0`. A selection too: inf and NaN on the unchosen side stay out
WHERE_PART = 26
#: ``a // b`` rounded down: of floats PyTorch's (and NumPy's) ``(a - fmod(a, b)) / b`` corrected
#: to the floor, exact where ``floor(a / b)`` would round (``-0.3 // 0.1`` is -4); of integers
#: exact for every int64, as is the integer quotient rounded towards zero (the divisor is
#: checked nonzero before; :math:`\mathrm{min} / -1` wraps to itself, as in PyTorch)
FLOOR_DIVIDE, INT_FLOOR_DIVIDE, INT_TRUNC_DIVIDE = range(27, 30)

#: reductions along one dimension (position = op code; append only)
REDUCE = ("sum", "prod", "max", "min")
SUM, PROD, MAX, MIN = range(4)

#: reductions that return the int64 position of the extreme value, the first one on ties
ARG_REDUCE = ("argmax", "argmin")
ARGMAX, ARGMIN = range(2)

UNARY_CODES: dict[str, int] = {name: code for code, name in enumerate(UNARY)}
BINARY_CODES: dict[str, int] = {name: code for code, name in enumerate(BINARY)}
REDUCE_CODES: dict[str, int] = {name: code for code, name in enumerate(REDUCE)}
ARG_REDUCE_CODES: dict[str, int] = {name: code for code, name in enumerate(ARG_REDUCE)}

#: above this ``exp`` overflows float64 (``math.exp`` would raise in plain Python)
EXP_OVERFLOW = 709.78
#: above this :math:`|x|`, ``sinh`` and ``cosh`` overflow float64 (the largest finite argument)
SINH_OVERFLOW = 710.4758600739439
#: from this exponent on, :math:`2^x` overflows float64
EXP2_OVERFLOW = 1024.0
#: from this magnitude on every float64 is an integer: floor, ceil, round and trunc return it
INTEGRAL_FLOAT = 2.0**52
#: :math:`2/\sqrt\pi`, the slope of erf at 0
TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
#: Giles' single-precision fit of erfinv ("Approximating the erfinv function", 2010), the start
#: of the Halley steps: the centre in :math:`w - 5/2` and the tails in :math:`\sqrt w - 3`, with
#: :math:`w = -\ln(1 - y^2)` (highest power first)
ERFINV_CENTRE = (
    2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
    -0.00125372503, -0.00417768164, 0.246640727, 1.50140941,
)
ERFINV_TAILS = (
    -0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
    -0.0076224613, 0.00943887047, 1.00167406, 2.83297682,
)
#: ``w`` below which the centre fit holds
ERFINV_SPLIT = 5.0
#: at most this many Halley steps after the fit (each triples the correct digits once close;
#: the far tails, beyond the fit's float32 range, take a few more)
ERFINV_MAX_STEPS = 8
#: the Halley steps stop once a step is below this fraction of the root
ERFINV_TOLERANCE = 1e-17


# ---- the special functions: each from its defining series or asymptotic expansion ----

#: from this magnitude on every float64 is a whole number (and an even one): a pole of the
#: gamma family for :math:`x \le 0`
WHOLE_FLOAT = INTEGRAL_FLOAT
#: above this :math:`\ln\Gamma(x)` overflows float64 (``math.lgamma`` would raise in plain Python)
LGAMMA_OVERFLOW = 2.5599833278516383e305
#: the Bernoulli numbers :math:`B_2, B_4, \dots, B_{16}` of the Euler–Maclaurin and Stirling series
BERNOULLI = (1.0 / 6.0, -1.0 / 30.0, 1.0 / 42.0, -1.0 / 30.0, 5.0 / 66.0, -691.0 / 2730.0, 7.0 / 6.0, -3617.0 / 510.0)
#: :math:`B_{2k} / (2k)`, the coefficients of :math:`x^{-2k}` in the asymptotic series
#: :math:`\psi(x) \sim \ln x - \tfrac{1}{2x} - \sum_k \tfrac{B_{2k}}{2k}\,x^{-2k}`
DIGAMMA_SERIES = tuple(b / (2 * (k + 1)) for k, b in enumerate(BERNOULLI))
#: digamma shifts :math:`x` up by :math:`\psi(x) = \psi(x + 1) - 1/x` to at least this before its
#: asymptotic series: there the 8 terms above reach float64's rounding
DIGAMMA_ASYMPTOTIC = 10.0
#: :math:`B_{2j} / (2j)!`, the coefficients of the Euler–Maclaurin tail of the Hurwitz zeta function
ZETA_TAIL = tuple(b / math.factorial(2 * (k + 1)) for k, b in enumerate(BERNOULLI))
#: the Hurwitz zeta function :math:`\zeta(s, q)` sums its first terms directly until
#: :math:`q + N \ge s + {}`this: then the Euler–Maclaurin tail shrinks by
#: :math:`\approx (s + 2j)^2 / (2\pi (q + N))^2 < 1/10` a term and 8 terms reach float64's rounding
ZETA_SHIFT = 10.0
#: at most this many direct terms (a negative :math:`q` needs :math:`-q` of them): further left
#: a float64 has no fraction worth the name, and the result is NaN
ZETA_MAX_TERMS = 2.0**20
#: below this magnitude :math:`I_0` and :math:`I_1` sum their power series (positive terms, no
#: cancellation); above it the asymptotic series of :math:`e^{-x} I_\nu(x)` converges to rounding
#: before it starts to diverge (its smallest term is about :math:`e^{-2x}`)
BESSEL_SERIES_LIMIT = 20.0
#: at most this many terms of the Bessel asymptotic series (it diverges after about :math:`2x`)
BESSEL_ASYMPTOTIC_TERMS = 60
#: a series stops once its next term is below this fraction of the sum (float64's rounding)
SERIES_TOLERANCE = 2.0**-54
#: above this :math:`I_0(x)` and :math:`|I_1(x)|` overflow float64
BESSEL_OVERFLOW = 713.9876
#: :math:`\sqrt{2\pi}`
SQRT_TWO_PI = math.sqrt(2.0 * math.pi)
#: :math:`1/\sqrt\pi`, the limit of :math:`x\,\mathrm{erfcx}(x)`
ONE_OVER_SQRT_PI = 1.0 / math.sqrt(math.pi)
#: below this :math:`\mathrm{erfcx}(x) \approx 2e^{x^2}` overflows float64
ERFCX_OVERFLOW = -math.sqrt(EXP_OVERFLOW)
#: from here on erfcx sums its asymptotic series :math:`\frac{1}{x\sqrt\pi}\sum_k (-1)^k
#: \frac{(2k-1)!!}{(2x^2)^k}` (about 11 terms to rounding); below it, :math:`e^{x^2}\,\mathrm{erfc}(x)`
ERFCX_ASYMPTOTIC = 12.0
#: at most this many terms of erfcx's asymptotic series
ERFCX_TERMS = 30
#: the largest order of ``polygamma``'s kernel: beyond it :math:`n!` overflows float64 (NaN)
POLYGAMMA_MAX_ORDER = 170.0
#: the special functions compute in float64 whatever the dtype, and round once on the store:
#: ``float(x) * WIDEN`` is a float64 in plain Python and in Numba alike (where ``float()`` of a
#: float32 stays a float32, and the product with a float64 widens it, keeping a zero's sign)
WIDEN = 1.0


def code_of(codes: dict[str, int], op: str) -> int:
    """The op code of ``op`` in one of the ``*_CODES`` tables, or a ValueError naming the known ops."""
    code = codes.get(op)
    if code is None:
        raise ValueError(f"unknown op {op!r}; expected one of {sorted(codes)}")
    return code


def unary_into(op: int, x: Any, out: Any, pos: int) -> None:
    """``out[pos] = op(x)`` for a unary op code (IEEE results outside a function's domain)."""
    if op == COPY:
        out[pos] = x
    elif op == NEG:
        out[pos] = -x
    elif op == EXP:
        out[pos] = math.inf if x > EXP_OVERFLOW else math.exp(x)
    elif op == LOG:
        out[pos] = math.log(x) if x > 0 else (-math.inf if x == 0 else math.nan)
    elif op == SQRT:
        out[pos] = math.sqrt(x) if x >= 0 else math.nan
    elif op == ABS:
        out[pos] = abs(x)
    elif op == SIGMOID:
        # the form that cannot overflow on either side
        if x >= 0:
            out[pos] = 1.0 / (1.0 + math.exp(-x))
        else:
            z = math.exp(x)
            out[pos] = z / (1.0 + z)
    elif op == TANH:
        out[pos] = math.tanh(x)
    elif op == RELU:
        if x > 0 or x != x:
            out[pos] = x
        else:
            out[pos] = 0
    elif op == SIGN:
        if x > 0:
            out[pos] = 1
        elif x < 0:
            out[pos] = -1
        else:
            out[pos] = 0
    elif op == SIN:
        out[pos] = math.sin(x) if abs(x) != math.inf else math.nan
    elif op == COS:
        out[pos] = math.cos(x) if abs(x) != math.inf else math.nan
    elif op == TAN:
        out[pos] = math.tan(x) if abs(x) != math.inf else math.nan
    elif op == ASIN:
        out[pos] = math.asin(x) if abs(x) <= 1 else math.nan
    elif op == ACOS:
        out[pos] = math.acos(x) if abs(x) <= 1 else math.nan
    elif op == ATAN:
        out[pos] = math.atan(x)
    elif op == SINH:
        out[pos] = math.copysign(math.inf, x) if abs(x) > SINH_OVERFLOW else math.sinh(x)
    elif op == COSH:
        out[pos] = math.inf if abs(x) > SINH_OVERFLOW else math.cosh(x)
    elif op == ASINH:
        out[pos] = math.asinh(x)
    elif op == ACOSH:
        out[pos] = math.acosh(x) if x >= 1 else math.nan
    elif op == ATANH:
        if abs(x) < 1:
            out[pos] = math.atanh(x)
        elif abs(x) == 1:
            out[pos] = math.copysign(math.inf, x)
        else:
            out[pos] = math.nan
    elif op == ERF:
        out[pos] = math.erf(x)
    elif op == ERFC:
        out[pos] = math.erfc(x)
    elif op == ERFINV:
        if x == 0 or x != x:
            out[pos] = x
        elif abs(x) < 1:
            # Giles' fit, then Halley steps on erf(r) = |x|, written as erfc(r) = 1 - |x| for
            # |x| > 1/2, where 1 - |x| is exact and erf would cancel
            w = -math.log((1.0 - x) * (1.0 + x))
            if w < ERFINV_SPLIT:
                w = w - 2.5
                fit = ERFINV_CENTRE[0]
                for i in range(1, len(ERFINV_CENTRE)):
                    fit = ERFINV_CENTRE[i] + fit * w
            else:
                w = math.sqrt(w) - 3.0
                fit = ERFINV_TAILS[0]
                for i in range(1, len(ERFINV_TAILS)):
                    fit = ERFINV_TAILS[i] + fit * w
            target = abs(x)
            r = abs(fit * x)
            for _ in range(ERFINV_MAX_STEPS):
                slope = TWO_OVER_SQRT_PI * math.exp(-r * r)  # d erf / dr
                if target > 0.5:
                    step = ((1.0 - target) - math.erfc(r)) / slope
                else:
                    step = (math.erf(r) - target) / slope
                step = step / (1.0 + r * step)  # Halley: erf'' = -2r erf'
                r = r - step
                if abs(step) <= ERFINV_TOLERANCE * r:
                    break
            out[pos] = math.copysign(r, x)
        elif abs(x) == 1:
            out[pos] = math.copysign(math.inf, x)
        else:
            out[pos] = math.nan
    elif op == LOG1P:
        out[pos] = math.log1p(x) if x > -1 else (-math.inf if x == -1 else math.nan)
    elif op == EXPM1:
        out[pos] = math.inf if x > EXP_OVERFLOW else math.expm1(x)
    elif op == LOG2:
        out[pos] = math.log2(x) if x > 0 else (-math.inf if x == 0 else math.nan)
    elif op == LOG10:
        out[pos] = math.log10(x) if x > 0 else (-math.inf if x == 0 else math.nan)
    elif op == EXP2:
        out[pos] = math.inf if x >= EXP2_OVERFLOW else 2.0**x
    elif op == FLOOR or op == CEIL or op == ROUND or op == TRUNC:
        if x != x or abs(x) >= INTEGRAL_FLOAT:  # NaN, infinities and floats that are integers
            out[pos] = x
        else:
            if op == FLOOR:
                whole = float(math.floor(x))
            elif op == CEIL:
                whole = float(math.ceil(x))
            elif op == TRUNC:
                whole = float(math.floor(x)) if x >= 0 else float(math.ceil(x))
            else:  # ROUND: to the nearest integer, ties to the even one (IEEE's default)
                whole = float(math.floor(x))
                above = x - whole  # exact
                if above > 0.5 or (above == 0.5 and whole % 2.0 != 0.0):
                    whole += 1.0
            # a zero keeps the sign of x, as IEEE's: ceil(-0.5) is -0.0
            out[pos] = math.copysign(0.0, x) if whole == 0 else whole
    elif op == RSQRT:  # a zero gives an infinity of its sign, as IEEE's 1 / sqrt(-0.0)
        if x > 0:
            out[pos] = 1.0 / math.sqrt(x)
        else:
            out[pos] = math.copysign(math.inf, x) if x == 0 else math.nan
    elif op == RECIPROCAL:
        out[pos] = 1.0 / x if x != 0 else math.copysign(math.inf, x)
    elif op == BITWISE_NOT:
        out[pos] = ~np.int64(x)
    elif op == LGAMMA:
        v = float(x) * WIDEN
        if v != v:
            out[pos] = math.nan
        elif v <= 0 and (v <= -WHOLE_FLOAT or v == float(math.floor(v))):  # the poles, and -inf
            out[pos] = math.inf
        elif v > LGAMMA_OVERFLOW:
            out[pos] = math.inf
        else:
            out[pos] = math.lgamma(v)
    elif op == DIGAMMA:
        # psi(x) = psi(1 - x) - pi cot(pi x) below 0 (the reflection), then psi(x) = psi(x + 1) - 1/x
        # up to DIGAMMA_ASYMPTOTIC, then ln x - 1/(2x) - sum_k B_2k / (2k x^2k)
        v = float(x) * WIDEN
        if v != v or v == -math.inf:
            out[pos] = math.nan
        elif v == math.inf:
            out[pos] = math.inf
        elif v == 0:
            out[pos] = -math.copysign(math.inf, v)  # PyTorch's: the side of the pole the zero is on
        elif v < 0 and (v <= -WHOLE_FLOAT or v == float(math.floor(v))):
            out[pos] = math.nan
        else:
            psi = 0.0
            if v < 0:
                # cot has period 1: its argument reduced to [-1/2, 1/2] exactly, so that a tiny
                # x keeps all its digits
                reduced = v - float(math.floor(v + 0.5))
                psi = -math.pi / math.tan(math.pi * reduced)
                v = 1.0 - v
            while v < DIGAMMA_ASYMPTOTIC:
                psi -= 1.0 / v
                v += 1.0
            inverse_square = 1.0 / (v * v)
            series = DIGAMMA_SERIES[len(DIGAMMA_SERIES) - 1]
            for k in range(len(DIGAMMA_SERIES) - 2, -1, -1):
                series = DIGAMMA_SERIES[k] + series * inverse_square
            out[pos] = psi + (math.log(v) - 0.5 / v - series * inverse_square)
    elif op == I0 or op == I0E or op == I1 or op == I1E:
        v = float(x) * WIDEN
        size = abs(v)
        order = 1.0 if (op == I1 or op == I1E) else 0.0
        scaled = op == I0E or op == I1E
        if v != v:
            out[pos] = math.nan
        elif size == math.inf:  # PyTorch's: NaN, and 0 for the scaled forms
            out[pos] = (math.copysign(0.0, v) if order == 1.0 else 0.0) if scaled else math.nan
        elif v == 0:
            out[pos] = 1.0 - order
        else:
            if size <= BESSEL_SERIES_LIMIT:
                # I_nu(x) = sum_k (x/2)^(2k + nu) / (k! (k + nu)!). Term k holds (x^2)^k, so the
                # rounding error of x^2 (square_error, by Dekker's split) weighs k times in it:
                # the sum of k term_k times that relative error is added back
                square = size * size
                magnified = SPLITTER * size
                head = magnified - (magnified - size)
                tail = size - head
                square_error = ((head * head - square) + 2.0 * head * tail) + tail * tail
                quarter_square = 0.25 * square
                # (summed with Neumaier's compensation: the rounding of each addition is kept)
                term = 0.5 * size if order == 1.0 else 1.0
                total = term
                lost = 0.0
                weighted = 0.0
                k = 1.0
                while term > SERIES_TOLERANCE * total:
                    term *= quarter_square / (k * (k + order))
                    added = total + term
                    lost += (total - added) + term  # term <= total: the series only grows
                    total = added
                    weighted += k * term
                    k += 1.0
                total += lost
                if square > 0:
                    total += weighted * (square_error / square)
                value = total * math.exp(-size) if scaled else total
            else:
                # e^-x I_nu(x) ~ 1/sqrt(2 pi x) sum_k (-1)^k prod_{j<=k} (4 nu^2 - (2j-1)^2) / (k! (8x)^k)
                # (the terms after the leading 1 summed apart, so that none is rounded to 1's ulp)
                four_nu_square = 4.0 * order * order
                term = 1.0
                rest = 0.0
                for k in range(1, BESSEL_ASYMPTOTIC_TERMS + 1):
                    odd = 2.0 * k - 1.0
                    term *= -(four_nu_square - odd * odd) / (8.0 * k * size)
                    rest += term
                    if abs(term) <= SERIES_TOLERANCE:
                        break
                value = (1.0 + rest) / (SQRT_TWO_PI * math.sqrt(size))
                if not scaled:
                    if size > BESSEL_OVERFLOW:
                        value = math.inf
                    else:
                        half = math.exp(0.5 * size)  # e^x in two halves: e^x alone overflows first
                        value = value * half * half
            out[pos] = math.copysign(value, v) if order == 1.0 else value
    elif op == ERFCX:
        # e^(x^2) erfc(x), with x^2 = hi + lo exactly (Dekker's split); for large x the
        # asymptotic series 1/(x sqrt pi) sum_k (-1)^k (2k-1)!! / (2x^2)^k
        v = float(x) * WIDEN
        if v != v:
            out[pos] = math.nan
        elif v < ERFCX_OVERFLOW:
            out[pos] = math.inf
        elif v == math.inf:
            out[pos] = 0.0
        elif v < ERFCX_ASYMPTOTIC:
            hi = v * v
            magnified = SPLITTER * v
            head = magnified - (magnified - v)
            tail = v - head
            lo = ((head * head - hi) + 2.0 * head * tail) + tail * tail
            out[pos] = math.exp(hi) * math.erfc(v) * (1.0 + lo)
        else:
            inverse_two_square = 0.5 / (v * v)
            term = 1.0
            rest = 0.0  # the terms after the leading 1, summed apart
            for k in range(1, ERFCX_TERMS + 1):
                term *= -(2.0 * k - 1.0) * inverse_two_square
                rest += term
                if abs(term) <= SERIES_TOLERANCE:
                    break
            out[pos] = ONE_OVER_SQRT_PI * (1.0 + rest) / v
    else:  # LOGICAL_NOT
        out[pos] = x == 0


def binary_into(op: int, x: Any, y: Any, out: Any, pos: int) -> None:
    """``out[pos] = op(x, y)`` for a binary op code."""
    if op == ADD:
        out[pos] = x + y
    elif op == SUB:
        out[pos] = x - y
    elif op == MUL:
        out[pos] = x * y
    elif op == DIV:
        out[pos] = x / y
    elif op == POW:
        out[pos] = x**y
    elif op == MAXIMUM:
        out[pos] = x if (x > y or x != x) else y
    elif op == MINIMUM:
        out[pos] = x if (x < y or x != x) else y
    elif op == LT:
        out[pos] = x < y
    elif op == LE:
        out[pos] = x <= y
    elif op == GT:
        out[pos] = x > y
    elif op == GE:
        out[pos] = x >= y
    elif op == EQ:
        out[pos] = x == y
    elif op == NE:
        out[pos] = x != y
    elif op == ATAN2:
        out[pos] = math.atan2(x, y)
    elif op == HYPOT:
        out[pos] = math.hypot(x, y)
    elif op == FMOD or op == REMAINDER:
        # C's fmod (exact; the sign of x); remainder moves it to the sign of y, as PyTorch
        if y == 0 or x != x or y != y or abs(x) == math.inf:
            out[pos] = math.nan
        else:
            # C's fmod from the floored %: on |x| and |y| the two agree, exactly (Numba's CPU
            # target has no math.fmod and its CUDA target no np.fmod; both compile %)
            mod = x if abs(y) == math.inf else math.copysign(abs(x) % abs(y), x)
            if op == REMAINDER and mod != 0 and (mod < 0) != (y < 0):
                mod += y
            out[pos] = mod
    elif op == INT_FMOD:
        mod = x % y  # the floored remainder: the sign of y
        out[pos] = mod - y if (mod != 0 and (mod < 0) != (x < 0)) else mod
    elif op == INT_REMAINDER:
        out[pos] = x % y
    elif op == BITWISE_AND:
        out[pos] = np.int64(x) & np.int64(y)
    elif op == BITWISE_OR:
        out[pos] = np.int64(x) | np.int64(y)
    elif op == BITWISE_XOR:
        out[pos] = np.int64(x) ^ np.int64(y)
    elif op == LEFT_SHIFT:
        out[pos] = np.int64(x) << np.int64(y) if 0 <= y < INT_BITS else np.int64(0)
    elif op == RIGHT_SHIFT:
        if 0 <= y < INT_BITS:
            out[pos] = np.int64(x) >> np.int64(y)
        else:
            out[pos] = np.int64(-1) if x < 0 else np.int64(0)
    elif op == POLYGAMMA:
        # psi^(n)(x) = (-1)^(n+1) n! zeta(n + 1, x), n >= 1, with the Hurwitz zeta function
        # zeta(s, q) = sum_k (q + k)^-s by Euler–Maclaurin summation: N terms directly, then
        # a^(1-s)/(s-1) + a^-s/2 + sum_j B_2j/(2j)! s(s+1)...(s+2j-2) a^(-s-2j+1), a = q + N
        v = float(x) * WIDEN
        n = float(y) * WIDEN
        s = n + 1.0
        sign = 1.0 if n % 2.0 == 1.0 else -1.0
        if v != v or not (1.0 <= n <= POLYGAMMA_MAX_ORDER) or n != float(math.floor(n)):
            out[pos] = math.nan  # (n = 0 is the unary digamma; n! overflows float64 past the largest)
        elif v == math.inf:  # PyTorch's: 0 for the trigamma function, NaN from its zeta for n >= 2
            out[pos] = 0.0 if n == 1.0 else math.nan
        elif v <= 0 and (v <= -WHOLE_FLOAT or v == float(math.floor(v))):  # the poles, and -inf
            out[pos] = math.nan if (v == -math.inf and n == 1.0) else sign * math.inf
        elif v < -ZETA_MAX_TERMS:
            out[pos] = math.nan
        else:
            zeta = 0.0
            terms = 0.0
            a = v
            while a < s + ZETA_SHIFT:
                inverse = 1.0 / a
                if abs(inverse) > 1.0 and s * math.log(abs(inverse)) > EXP_OVERFLOW:
                    zeta += math.copysign(math.inf, inverse) if n % 2.0 == 0.0 else math.inf
                else:
                    zeta += inverse**s
                terms += 1.0
                a = v + terms
            inverse = 1.0 / a
            power = inverse**s
            tail = inverse ** (s - 1.0) / (s - 1.0) + 0.5 * power
            rising = s * inverse * power
            for j in range(len(ZETA_TAIL)):
                tail += ZETA_TAIL[j] * rising
                rising *= (s + 2.0 * j + 1.0) * (s + 2.0 * j + 2.0) * inverse * inverse
            factorial = 1.0
            for k in range(2, int(n) + 1):
                factorial *= k
            out[pos] = sign * factorial * (zeta + tail)
    elif op == FLOOR_DIVIDE:
        if y == 0:
            out[pos] = x / y  # an infinity of the quotient's sign, or NaN for 0 / 0
        else:
            if x != x or y != y or abs(x) == math.inf:
                mod = x - x  # NaN (an infinity less itself)
            else:  # C's fmod, as in FMOD above
                mod = x if abs(y) == math.inf else math.copysign(abs(x) % abs(y), x)
            quotient = (x - mod) / y
            if mod != 0 and (y < 0) != (mod < 0):
                quotient -= 1
            if quotient != quotient or abs(quotient) >= INTEGRAL_FLOAT:
                out[pos] = quotient  # NaN, infinities and floats that are integers
            elif quotient != 0:
                whole = float(math.floor(quotient))
                out[pos] = whole + 1.0 if quotient - whole > 0.5 else whole
            else:
                out[pos] = math.copysign(0.0, x / y)
    elif op == INT_FLOOR_DIVIDE or op == INT_TRUNC_DIVIDE:
        if y == -1:
            out[pos] = -x  # (the smallest integer wraps to itself, where x // -1 may trap)
        else:
            quotient = x // y  # floored
            if op == INT_TRUNC_DIVIDE and quotient < 0 and quotient * y != x:
                quotient += 1
            out[pos] = quotient
    elif op == WHERE_PART:
        if y != 0:
            out[pos] = x
        else:
            out[pos] = -0.0
    else:  # MASKED: a selection, never a product, so inf/nan where y is 0 stay out
        if y != 0:
            out[pos] = x
        else:
            out[pos] = 0


def reduce_step(op: int, acc: Any, x: Any) -> Any:
    """One step of a reduction: ``acc`` combined with the next value ``x`` (NaN wins max/min)."""
    if op == SUM:
        return acc + x
    elif op == PROD:
        return acc * x
    elif op == MAX:
        return acc if (acc > x or acc != acc) else x
    else:  # MIN
        return acc if (acc < x or acc != acc) else x


def is_better(op: int, x: Any, best: Any) -> bool:
    """Whether ``x`` strictly beats ``best`` for argmax/argmin (a NaN beats any number)."""
    if op == ARGMAX:
        return x > best or (x != x and best == best)
    else:  # ARGMIN
        return x < best or (x != x and best == best)

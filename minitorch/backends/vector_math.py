"""``exp``, ``log``, ``tanh``, ``sigmoid`` and ``erf`` on float32 in loops that LLVM vectorises.

Numba compiles ``math.exp(x)`` into a call of the C library's scalar ``exp``: a loop that
calls a function cannot use SIMD registers, and this llvmlite has no vector math library to
call instead. The functions here use only arithmetic, comparisons and bit operations, so a
loop over them becomes SIMD code (16 float32 lanes per instruction with AVX-512, see
:mod:`.vector_width`; 8 with AVX2, 4 with SSE2). The CPU
kernels use them for float32 tensors (:mod:`.cpu_kernels`); the plain-Python bodies of
:mod:`.opcodes` stay the reference, and the tests compare the two in ulps.

Every function follows one pattern:

1. **Range reduction.** Rewrite :math:`f(x)` through a value on a short interval. For
   ``exp``: :math:`x = k \\ln 2 + r` with :math:`|r| \\le \\ln 2 / 2`, so
   :math:`e^x = 2^k e^r`; the product :math:`k \\ln 2` is split in two
   (:math:`\\ln 2 = L_{hi} + L_{lo}`, :math:`L_{hi}` with few enough bits that
   :math:`k L_{hi}` is exact), so :math:`r` loses nothing (Cody and Waite).
2. **A polynomial** on that interval, fitted by ``tools/fit_vector_math.py`` for the
   smallest relative error of the result, evaluated by Horner's rule.
3. **Reconstruction** of the result, and the special values (``inf``, ``nan``, overflow,
   underflow) chosen by :func:`select`, a masked select in vector code, never a branch.

Every constant is a ``numpy.float32``: a Python float is a float64 in Numba, and one would
turn the whole computation into float64. The bit operations go through :func:`float_bits`
and :func:`bits_float`, which reinterpret a float's bits as an integer and back (one LLVM
``bitcast``, free in a vector register).

Accuracy, measured by ``tests/test_vector_math.py`` against float64 NumPy over every
exponent: at most 2 ulp for finite results; ``inf``, ``nan``, ``-0.0`` and the limits as
the C library gives them.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic, overload, register_jitable

from .vector_width import scales_by_powers_of_two


def _float32(*values: float) -> tuple[np.float32, ...]:
    return tuple(np.float32(v) for v in values)


# ---- reinterpreting a float32's bits ----


def float_bits(x: np.float32) -> np.int32:
    """The bits of a float32 as an int32 (plain Python; compiled code uses the intrinsic)."""
    return np.array(x, dtype=np.float32).view(np.int32)[()]


def bits_float(bits: np.int32) -> np.float32:
    """The float32 whose bits are the low 32 of ``bits`` (plain Python; compiled code uses the intrinsic)."""
    return np.array(int(bits) & 0xFFFFFFFF, dtype=np.uint32).view(np.float32)[()]


def _bitcast(to_type: types.Type) -> Any:
    """An intrinsic that reinterprets its one argument's bits as ``to_type``."""

    @intrinsic
    def reinterpret(typingctx: Any, value: types.Type) -> Any:
        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            return builder.bitcast(args[0], context.get_value_type(to_type))

        return to_type(value), codegen

    return reinterpret


_float_bits_intrinsic = _bitcast(types.int32)
_bits_float_intrinsic = _bitcast(types.float32)


@overload(float_bits, target="cpu")
def _float_bits(x: Any) -> Any:
    if x != types.float32:
        return None

    def impl(x: Any) -> Any:
        return _float_bits_intrinsic(x)

    return impl


@overload(bits_float, target="cpu")
def _bits_float(bits: Any) -> Any:
    # Numba computes integer arithmetic in int64: the low 32 bits are the float's
    if not isinstance(bits, types.Integer):
        return None

    def impl(bits: Any) -> Any:
        return _bits_float_intrinsic(np.int32(bits))

    return impl


def select(condition: bool, if_true: Any, if_false: Any) -> Any:
    """``if_true if condition else if_false``, compiled to one ``select`` instruction.

    A conditional expression would compile to branches that LLVM must first turn back into a
    select before it can vectorise the loop (and Numba's inliner mishandles the merge of the
    two branches in an inlined function); this is the select itself.
    """
    return if_true if condition else if_false


@intrinsic
def _select_intrinsic(typingctx: Any, condition: types.Type, if_true: types.Type, if_false: types.Type) -> Any:
    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        chosen, true_value, false_value = args
        return builder.select(chosen, true_value, false_value)

    return if_true(types.boolean, if_true, if_false), codegen


@overload(select, target="cpu")
def _select(condition: Any, if_true: Any, if_false: Any) -> Any:
    if condition != types.boolean or if_true != if_false:
        return None

    def impl(condition: Any, if_true: Any, if_false: Any) -> Any:
        return _select_intrinsic(condition, if_true, if_false)

    return impl


# ---- scaling by a power of two ----


@register_jitable
def times_power_of_two(value: np.float32, k: np.int32) -> np.float32:
    r""":math:`\text{value} \cdot 2^k` rounded once, for :math:`-150 \le k \le 128`: ``value`` times two
    normal powers of two, :math:`2^{\lfloor k/2 \rfloor}` (exact for the values ``exp`` scales) and the
    rest. Compiled for AVX-512, :func:`scaled` is one ``vscalefps`` instead."""
    low = k >> ONE_INT
    high = k - low
    return value * bits_float((low + BIAS) << MANTISSA_BITS) * bits_float((high + BIAS) << MANTISSA_BITS)


def scaled(value: np.float32, k: np.int32) -> np.float32:
    r""":math:`\text{value} \cdot 2^k` rounded once (:func:`times_power_of_two` in plain Python)."""
    return times_power_of_two(value, k)


@intrinsic
def _ldexp_intrinsic(typingctx: Any, value: types.Type, k: types.Type) -> Any:
    """LLVM's ``ldexp``: one instruction (``vscalefps``) with AVX-512, a C library call elsewhere."""

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        float_type, int_type = ir.FloatType(), ir.IntType(32)
        function_type = ir.FunctionType(float_type, [float_type, int_type])
        function = builder.module.declare_intrinsic("llvm.ldexp", [float_type, int_type], function_type)
        return builder.call(function, args)

    return types.float32(types.float32, types.int32), codegen


@overload(scaled, target="cpu")
def _scaled(value: Any, k: Any) -> Any:
    if value != types.float32 or k != types.int32:
        return None
    if not scales_by_powers_of_two():
        def two_multiplies(value: Any, k: Any) -> Any:
            return times_power_of_two(value, k)

        return two_multiplies

    # one rounding as well: both give the correctly rounded product, bit for bit
    def one_instruction(value: Any, k: Any) -> Any:
        return _ldexp_intrinsic(value, k)

    return one_instruction


# ---- constants ----

ZERO, HALF, ONE, TWO = _float32(0.0, 0.5, 1.0, 2.0)
INF, NAN = np.float32(math.inf), np.float32(math.nan)
LOG2E = np.float32(1 / math.log(2))
#: :math:`\ln 2 = L_{hi} + L_{lo}`; :math:`L_{hi}` has 16 significant bits, so :math:`k L_{hi}`
#: is exact for every :math:`|k| < 2^8` (the reductions below need :math:`|k| \le 150`)
LN2_HI = np.float32(round(math.log(2) * 2**16) / 2**16)
LN2_LO = np.float32(math.log(2) - float(LN2_HI))
#: ``exp`` overflows above ``EXP_MAX`` and is 0 below ``EXP_MIN`` (past the smallest subnormal);
#: between them the argument is clamped, so :math:`2^k` never leaves its range
EXP_MAX = np.float32(88.8)
EXP_MIN = np.float32(-104.0)
#: float32's exponent bias and the position of its exponent field
BIAS = np.int32(127)
ZERO_INT, ONE_INT = np.int32(0), np.int32(1)
MANTISSA_BITS = np.int32(23)
#: the sign and exponent fields of a float32's bits
EXPONENT_FIELD = np.int32(-1 << 23)
SMALLEST_NORMAL = np.float32(2.0**-126)
#: subnormal inputs of ``log`` are scaled by this power of two first
SUBNORMAL_SCALE = np.float32(2.0**23)
SUBNORMAL_EXPONENT = np.float32(23.0)
#: the bits of the float32 just above :math:`\sqrt2/2`: ``log`` reduces to :math:`(\sqrt2/2, \sqrt2]`
SQRT_HALF_BITS = np.int32(np.float32(math.sqrt(0.5)).view(np.int32) + 1)
#: where ``tanh`` and ``erf`` switch from their polynomial near 0 to the form through ``exp``
TANH_SPLIT = np.float32(0.625)
ERF_SPLIT = np.float32(1.0)
#: from here on ``erf`` rounds to 1 in float32: its polynomial is evaluated at most here
ERF_ONE = np.float32(3.92)

# ---- polynomials (lowest power first), from tools/fit_vector_math.py ----

#: :math:`e^r = 1 + r + r^2 q(r)`, :math:`|r| \le \ln 2 / 2`; fit error 3.6e-9
EXP_32 = _float32(0.49999988079071045, 0.166665181517601, 0.04166953265666962, 0.008368915878236294,
                  0.0013751407386735082)
#: :math:`\log(1 + f) = f - f^2/2 + f^3 q(f)`, :math:`1/\sqrt2 - 1 \le f \le \sqrt2 - 1`; fit error 6.9e-9
LOG_32 = _float32(0.3333335518836975, -0.2500085234642029, 0.19999825954437256, -0.16621370613574982,
                  0.14227114617824554, -0.13202103972434998, 0.1262032687664032, -0.07362867891788483)
#: :math:`\tanh x = x + x^3 q(x^2)`, :math:`|x| < 0.625`; fit error 1.7e-10
TANH_32 = _float32(-0.3333333134651184, 0.1333320140838623, -0.053946252912282944, 0.021698210388422012,
                   -0.008171788416802883, 0.002138226293027401)
#: :math:`\mathrm{erf}\,x = x + x\,q(x^2)`, :math:`|x| < 1`; fit error 1.3e-9
ERF_32 = _float32(0.12837916612625122, -0.3761262595653534, 0.1128358244895935, -0.026853691786527634,
                  0.005188099108636379, -0.0008008189033716917, 7.847259257687256e-05)
#: :math:`\mathrm{erf}\,x = 1 - e^{q(x)}` (:math:`q \approx \log \mathrm{erfc}`), :math:`1 \le x \le 3.92`;
#: fit error 2.1e-11 (relative to erf)
ERFC_LOG_32 = _float32(0.0002092836075462401, -1.1296873092651367, -0.6329799890518188, -0.10871534794569016,
                       0.025433575734496117, -0.00431200722232461, 0.0004727482737507671,
                       -2.6832371077034622e-05, 3.6146784054835734e-07)


@njit(inline="always", error_model="numpy")
def exp32_split(x: np.float32) -> tuple[np.float32, np.float32]:
    r"""``exp`` of a float32 as a rounded value and the rest: :math:`e^x \approx` high + low.

    :math:`e^x = 2^k e^r`, :math:`k = \mathrm{round}(x / \ln 2)`. The rounding of
    :math:`e^r = 1 + p` is the largest error of the result, half an ulp; ``low`` is what it
    dropped (for :func:`sigmoid32`, which must not add its own roundings to it).
    """
    upper = select(x > EXP_MAX, EXP_MAX, x)  # each a min or max instruction; nan -> itself
    clamped = select(upper < EXP_MIN, EXP_MIN, upper)
    k = np.floor(clamped * LOG2E + HALF)
    r = (clamped - k * LN2_HI) - k * LN2_LO
    q = EXP_32[0] + r * (EXP_32[1] + r * (EXP_32[2] + r * (EXP_32[3] + r * EXP_32[4])))
    p = r + r * r * q
    e_r = ONE + p
    e_r_rest = (ONE - e_r) + p  # exact: |p| < 1
    whole = np.int32(k)
    return select(x != x, x, scaled(e_r, whole)), scaled(e_r_rest, whole)


@njit(inline="always", error_model="numpy")
def exp32(x: np.float32) -> np.float32:
    r"""``exp`` of a float32: :math:`e^x = 2^k e^r`, :math:`k = \mathrm{round}(x / \ln 2)`."""
    return exp32_split(x)[0]


@njit(inline="always", error_model="numpy")
def log32(x: np.float32) -> np.float32:
    r"""``log`` of a float32: :math:`x = 2^e m`, :math:`m \in (\sqrt2/2, \sqrt2]`, so
    :math:`\log x = e \ln 2 + \log m`.

    One integer subtraction finds both: :math:`e` is the exponent field of the bits of ``x`` less
    those of :math:`\sqrt2/2` (the subtraction borrows from it below that mantissa), and :math:`m`
    is ``x`` with :math:`e` taken off its exponent field.
    """
    subnormal = x < SMALLEST_NORMAL
    bits = float_bits(select(subnormal, x * SUBNORMAL_SCALE, x))
    # int32 throughout (Numba widens integer arithmetic to int64, which costs a dozen instructions
    # of conversions in vector code): the subtraction wraps for negative x, whose log is nan anyway
    offset = np.int32(bits - SQRT_HALF_BITS)
    m = bits_float(bits - (offset & EXPONENT_FIELD))
    e = np.float32(np.int32(offset >> MANTISSA_BITS)) - select(subnormal, SUBNORMAL_EXPONENT, ZERO)
    f = m - ONE  # exact
    q = LOG_32[0] + f * (LOG_32[1] + f * (LOG_32[2] + f * (LOG_32[3] + f * (
        LOG_32[4] + f * (LOG_32[5] + f * (LOG_32[6] + f * LOG_32[7]))))))
    log_m = f + f * f * (f * q - HALF)
    result = e * LN2_HI + (log_m + e * LN2_LO)
    # log(+inf) = inf, log(0) = -inf, log(x < 0) = nan, log(nan) = nan
    result = select(x == INF, x, result)
    result = select(x == ZERO, -INF, result)
    return select(x < ZERO, NAN, select(x != x, x, result))


@njit(inline="always", error_model="numpy")
def tanh32(x: np.float32) -> np.float32:
    r"""``tanh`` of a float32: :math:`x + x^3 q(x^2)` near 0, else
    :math:`\mathrm{sign}(x)\,(1 - 2 / (e^{2|x|} + 1))`."""
    a = abs(x)
    z = x * x
    q = TANH_32[0] + z * (TANH_32[1] + z * (TANH_32[2] + z * (TANH_32[3] + z * (
        TANH_32[4] + z * TANH_32[5]))))
    near_zero = select(z == ZERO, x, x + x * z * q)  # -0.0 stays -0.0 (x * z * q would be +0.0)
    far = ONE - TWO / (exp32(a + a) + ONE)  # nan stays nan
    return select(a < TANH_SPLIT, near_zero, select(x > ZERO, far, -far))


@njit(inline="always", error_model="numpy")
def sigmoid32(x: np.float32) -> np.float32:
    r"""``sigmoid`` of a float32 with :math:`z = e^{-|x|}`: :math:`1/(1 + z)` for
    :math:`x \ge 0`, :math:`z/(1 + z)` below (neither can overflow)."""
    z, z_rest = exp32_split(-abs(x))
    # y = n / (1 + z) with n = 1 or z: each of z and 1 + z is carried as a rounded value and
    # the rest, so the division is the one rounding that reaches the result. The rests are
    # small: they enter to first order, (n + n_rest - n * sum_rest / (1 + z)) / sum, with
    # 1 - z/2 standing in for 1 / (1 + z) on [0, 1] (within 9 %, of a term of 2^-24)
    numerator = select(x >= ZERO, ONE, z)
    numerator_rest = select(x >= ZERO, ZERO, z_rest)
    total = ONE + z
    total_rest = ((ONE - total) + z) + z_rest  # Fast2Sum: 1 >= z
    return (numerator + (numerator_rest - numerator * total_rest * (ONE - HALF * z))) / total


@njit(inline="always", error_model="numpy")
def erf32(x: np.float32) -> np.float32:
    r"""``erf`` of a float32: :math:`x + x\,q(x^2)` for :math:`|x| < 1`, else
    :math:`\mathrm{sign}(x)\,(1 - e^{p(|x|)})` with :math:`p \approx \log \mathrm{erfc}`."""
    z = x * x
    q = ERF_32[0] + z * (ERF_32[1] + z * (ERF_32[2] + z * (ERF_32[3] + z * (
        ERF_32[4] + z * (ERF_32[5] + z * ERF_32[6])))))
    near_zero = x + x * q  # nan stays nan
    a = abs(x)
    c = select(a > ERF_ONE, ERF_ONE, a)  # where erf has rounded to 1, the polynomial's last point
    p = ERFC_LOG_32[0] + c * (ERFC_LOG_32[1] + c * (ERFC_LOG_32[2] + c * (ERFC_LOG_32[3] + c * (
        ERFC_LOG_32[4] + c * (ERFC_LOG_32[5] + c * (ERFC_LOG_32[6] + c * (
            ERFC_LOG_32[7] + c * ERFC_LOG_32[8])))))))
    far = ONE - exp32(p)
    return select(a >= ERF_SPLIT, select(x > ZERO, far, -far), near_zero)

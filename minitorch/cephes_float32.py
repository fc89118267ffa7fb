r"""Single-precision ``log`` and ``sincos`` computed step by step as Cephes' float routines do.

PyTorch fills float32 normals on x86 CPUs with vectorised versions of Cephes' ``logf`` and
``sinf``/``cosf``; :mod:`minitorch.draws` runs the same steps in float32 NumPy arithmetic, so
``randn`` gives those numbers bit for bit (correctly rounded library functions would differ
from them in the last bit now and then).

PyTorch's compiler fuses most multiply-adds of those routines into one rounding (a fused
multiply-add); the steps here fuse the same ones.

``log``: write :math:`x = m \cdot 2^e` with :math:`m \in [\tfrac{1}{\sqrt 2}, \sqrt 2)`, then
:math:`\log x = e \log 2 + t - \tfrac{t^2}{2} + t^3 P(t)` with :math:`t = m - 1`, :math:`P` a
degree-8 polynomial, and :math:`\log 2` split in two parts so :math:`e \log 2` keeps its bits.

``sincos``: reduce :math:`|x|` by multiples :math:`j` of :math:`\pi/4` (:math:`j` made even, and
:math:`\pi/4` split in three parts), evaluate a sine and a cosine polynomial on the remainder
:math:`r \in [-\pi/4, \pi/4]`, and pick and sign them by :math:`j \bmod 8`.
"""

from __future__ import annotations

import numpy as np

from .rounding import fused_multiply_add_float32 as fused

F32 = np.float32
#: the smallest normal float32; smaller inputs of ``log`` are raised to it
SMALLEST_NORMAL = F32(np.finfo(np.float32).tiny)
SQRT_HALF = F32(0.707106781186547524)
#: :math:`P` of ``log``, highest power first
LOG_POLYNOMIAL = tuple(F32(c) for c in (
    7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1, -1.2420140846e-1, 1.4249322787e-1,
    -1.6668057665e-1, 2.0000714765e-1, -2.4999993993e-1, 3.3333331174e-1))
#: :math:`\log 2` = LOG2_HIGH + LOG2_LOW, the high part exact in few bits
LOG2_HIGH, LOG2_LOW = F32(0.693359375), F32(-2.12194440e-4)
EXPONENT_BIAS = 127
SIGNIFICAND_BITS = 23
#: :math:`4/\pi`, and :math:`\pi/4` in three parts (the first two exact in few bits)
FOUR_OVER_PI = F32(1.27323954473516)
PI_QUARTER_PARTS = (F32(0.78515625), F32(2.4187564849853515625e-4), F32(3.77489497744594108e-8))
SINE_POLYNOMIAL = (F32(-1.9515295891e-4), F32(8.3321608736e-3), F32(-1.6666654611e-1))
COSINE_POLYNOMIAL = (F32(2.443315711809948e-5), F32(-1.388731625493765e-3), F32(4.166664568298827e-2))


def _horner(start: np.float32, coefficients: tuple[np.float32, ...], t: np.ndarray) -> np.ndarray:
    """:math:`(((c_0 t + c_1) t + c_2) \\cdots)` with each step fused."""
    y = np.full_like(t, start)
    for coefficient in coefficients:
        y = fused(y, t, coefficient)
    return y


def log(x: np.ndarray) -> np.ndarray:
    """Natural log of a float32 array (NaN for :math:`x \\le 0`)."""
    x = np.asarray(x, dtype=F32)
    invalid = x <= 0
    bits = np.maximum(x, SMALLEST_NORMAL).view(np.uint32)
    exponent = ((bits >> SIGNIFICAND_BITS).astype(np.int32) - EXPONENT_BIAS).astype(F32) + F32(1)
    # the significand with exponent -1: m in [0.5, 1)
    m = ((bits & np.uint32(~(0xFF << SIGNIFICAND_BITS) & 0xFFFFFFFF)) | F32(0.5).view(np.uint32)).view(F32)
    small = m < SQRT_HALF
    t = (m - F32(1)) + np.where(small, m, F32(0))
    exponent = exponent - np.where(small, F32(1), F32(0))
    t_squared = t * t
    y = _horner(LOG_POLYNOMIAL[0], LOG_POLYNOMIAL[1:], t)
    y = fused(y * t, t_squared, exponent * LOG2_LOW)
    y = fused(-t_squared, F32(0.5), y)
    result = fused(exponent, LOG2_HIGH, t + y)
    return np.where(invalid, F32(np.nan), result)


def sincos(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sine and cosine of a float32 array (accurate for :math:`|x| < 8192`)."""
    x = np.asarray(x, dtype=F32)
    negative = np.signbit(x)
    x = np.abs(x)
    j = ((x * FOUR_OVER_PI).astype(np.int32) + 1) & ~1
    y = j.astype(F32)
    for part in PI_QUARTER_PARTS:
        x = fused(y, -part, x)
    z = x * x
    cosine_part = _horner(COSINE_POLYNOMIAL[0], COSINE_POLYNOMIAL[1:], z)
    cosine_part = fused(cosine_part * z, z, -(z * F32(0.5))) + F32(1)
    sine_part = _horner(SINE_POLYNOMIAL[0], SINE_POLYNOMIAL[1:], z)
    sine_part = fused(sine_part * z, x, x)
    # j = 2 or 6 (mod 8): the roles of the two polynomials swap
    swapped = (j & 2) != 0
    sine = np.where(swapped, cosine_part, sine_part)
    cosine = np.where(swapped, sine_part, cosine_part)
    sine_negative = negative ^ ((j & 4) != 0)
    cosine_negative = ((j - 2) & 4) == 0
    return np.where(sine_negative, -sine, sine), np.where(cosine_negative, -cosine, cosine)


__all__ = ["log", "sincos"]

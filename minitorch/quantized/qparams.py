"""Choosing a scale and zero point for a range of values.

To quantize values in :math:`[\\min, \\max]` into the integers :math:`q_{\\min}..q_{\\max}`, the
range is first stretched to contain 0 (so that 0, a padding or a ReLU's output, is exact),
then

.. math::
    s = \\frac{\\max - \\min}{q_{\\max} - q_{\\min}}, \\qquad
    z = \\operatorname{round}\\Bigl(q_{\\min} - \\frac{\\min}{s}\\Bigr) \\text{ clamped to } [q_{\\min}, q_{\\max}].

:func:`choose_qparams` is the rule PyTorch's dynamic int8 ``Linear`` applies to each batch
of activations (fbgemm's ``ChooseQuantizationParams``), so that our results match its bit
for bit; the observers of :mod:`minitorch.ao.quantization` apply the same formulas to
recorded ranges.
"""

from __future__ import annotations

import math

import numpy as np

#: a scale below this is raised to it, and the range widened to match
SMALL_SCALE_THRESHOLD = np.float32(6.1e-5)
#: the zero point of a symmetric scheme over unsigned bytes (PyTorch keeps it with reduce_range)
UNSIGNED_SYMMETRIC_ZERO_POINT = 128
#: the scale used when the range is empty (all values 0)
EMPTY_RANGE_SCALE = 0.1


def choose_qparams(low: float, high: float, qmin: int, qmax: int, reduce_range: bool = False) -> tuple[float, int]:
    """``(scale, zero_point)`` for values in ``[low, high]`` and integers ``qmin..qmax``.

    ``reduce_range`` halves the integer range (0..127 for quint8): the x86 int8 instructions
    add pairs of u8 x s8 products in 16 bits, which a full 8-bit range could overflow.
    The scale is a float32 number, as it is when the integers are computed.
    """
    if reduce_range:
        qmin, qmax = qmin // 2, qmax // 2
    low_f = min(np.float32(low), np.float32(0))
    high_f = max(np.float32(high), np.float32(0))
    scale = (float(high_f) - float(low_f)) / (qmax - qmin)
    if np.float32(scale) == 0 or not np.isfinite(np.float32(1) / np.float32(scale)):
        scale = EMPTY_RANGE_SCALE
    if scale < SMALL_SCALE_THRESHOLD:
        original = scale
        scale = float(SMALL_SCALE_THRESHOLD)
        if low_f == 0:
            high_f = np.float32(SMALL_SCALE_THRESHOLD * (qmax - qmin))
        elif high_f == 0:
            low_f = np.float32(-SMALL_SCALE_THRESHOLD * (qmax - qmin))
        else:
            amplifier = np.float32(SMALL_SCALE_THRESHOLD / np.float32(original))
            low_f, high_f = low_f * amplifier, high_f * amplifier
    scale = float(np.float32(scale))
    # the zero point from whichever end of the range loses less to rounding
    from_low = qmin - float(low_f) / scale
    from_high = qmax - float(high_f) / scale
    low_error = abs(qmin) - abs(float(low_f) / scale)
    high_error = abs(qmax) - abs(float(high_f) / scale)
    initial = from_low if low_error < high_error else from_high
    if initial < qmin:
        zero_point = qmin
    elif initial > qmax:
        zero_point = qmax
    else:
        zero_point = int(np.rint(initial))
    return scale, zero_point


def symmetric_qparams(low: float, high: float, qmin: int, qmax: int, eps: float) -> tuple[float, int]:
    """Scale and zero point of a *symmetric* scheme: the range :math:`[-a, a]` with
    :math:`a = \\max(|\\min|, |\\max|)` over the integers, the zero point in the middle
    (0 for signed types, 128 for quint8 whatever its range). The scale is at least ``eps``."""
    amplitude = max(-min(np.float32(low), np.float32(0)), max(np.float32(high), np.float32(0)))
    scale = max(np.float32(amplitude / np.float32((qmax - qmin) / 2)), np.float32(eps))
    zero_point = 0 if qmin < 0 else UNSIGNED_SYMMETRIC_ZERO_POINT
    return float(scale), zero_point


def affine_qparams(low: float, high: float, qmin: int, qmax: int, eps: float) -> tuple[float, int]:
    """Scale and zero point of an *affine* scheme over ``[min(low, 0), max(high, 0)]``,
    the scale at least ``eps`` (the observers' rule)."""
    low_f = min(np.float32(low), np.float32(0))
    high_f = max(np.float32(high), np.float32(0))
    scale = max(np.float32((high_f - low_f) / np.float32(qmax - qmin)), np.float32(eps))
    zero_point = qmin - int(np.rint(low_f / scale))
    zero_point = min(max(zero_point, qmin), qmax)
    if not math.isfinite(float(scale)):
        raise RuntimeError(f"can't choose a scale for the range [{low}, {high}]: it is not finite")
    return float(scale), zero_point

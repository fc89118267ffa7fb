r"""Poisson and binomial draws as PyTorch's CPU kernels make them, word for word.

Both kernels visit the elements one at a time in row-major order of the result, each element
taking float64 uniforms :math:`u = (W \bmod 2^{53}) \cdot 2^{-53}` (one 64-bit word, two 32-bit
words, each) until its sampler accepts; these functions follow them step by step, so a seed gives
PyTorch's numbers.

* Poisson of rate :math:`\lambda` (computed in double whatever the dtype): 0 for :math:`\lambda = 0`;
  below 10, the number of factors before the running product of uniforms falls to
  :math:`e^{-\lambda}`; from 10 up, Hörmann's transformed rejection (PTRS): with
  :math:`b = 0.931 + 2.53\sqrt\lambda`, :math:`a = -0.059 + 0.02483 b`, propose
  :math:`k = \lfloor (2a/u_s + b) U + \lambda + 0.43 \rfloor` from :math:`U = u_1 - \tfrac12`,
  :math:`u_s = \tfrac12 - |U|`, accepted at once inside a box, else when
  :math:`\log(V \alpha^{-1} / (a/u_s^2 + b)) \le -\lambda + k\log\lambda - \log k!` with
  :math:`\alpha^{-1} = 1.1239 + 1.1328/(b - 3.4)` (:math:`\log k!` by the C library's ``lgamma``,
  :mod:`minitorch.c_math`). A negative or NaN rate raises PyTorch's error when its element is reached.
* Binomial of count :math:`n` and probability :math:`p`: 0 for :math:`n \le 0` or :math:`p \le 0`,
  :math:`n` for :math:`p \ge 1`, NaN for a NaN :math:`p`; for :math:`p > \tfrac12`,
  :math:`n - X` with :math:`X` drawn at :math:`q = 1 - p`. Below :math:`np = 10`, inversion: count
  the geometric gaps :math:`\lceil \log u / \log(1 - p) \rceil` that fit in :math:`n`; from 10 up,
  Hörmann's BTRS (transformed rejection with squeeze, as TensorFlow writes it, with its Stirling
  tail terms). A float32 kernel keeps :math:`n`, :math:`p` and the steps the C++ computes in
  ``scalar_t`` in single precision (``narrow``: :math:`\log(1 - p)` by the C library's ``log1pf``);
  the uniforms and the rest are double.

Where PyTorch's loop never ends (a NaN count with :math:`0 < p < 1`) the draw here is NaN, with no
words used. Rates and proposals past the int64 range become its minimum, as an x86-64 conversion
makes them. The uniforms come from :func:`minitorch.draws.scalar_uniforms`, which reads them ahead
in blocks and hands back the words not used, so the stream moves on by exactly the words PyTorch's
kernel uses.
"""

from __future__ import annotations

import math
import struct
from typing import NamedTuple

import numpy as np

from . import c_math
from .draws import Uniform, scalar_uniforms
from .mersenne import MersenneStream

#: PyTorch's message for a negative or NaN Poisson rate
POISSON_RATE_MESSAGE = "invalid Poisson rate, expected rate to be non-negative"
#: both samplers switch from their small-mean method to transformed rejection at this mean
REJECTION_MEAN = 10.0
#: uniforms a transformed-rejection draw takes, with room (two a try, most tries accepted)
REJECTION_UNIFORMS = 3
INT64_MIN = -(2**63)
INT64_LIMIT = 2.0**63
#: :math:`\log k! - (k + \tfrac12)\log(k + 1) + (k + 1) - \tfrac12\log 2\pi` for k = 0..9 (TensorFlow's table)
STIRLING_TAIL = (0.0810614667953272, 0.0413406959554092, 0.0276779256849983, 0.02079067210376509,
                 0.0166446911898211, 0.0138761288230707, 0.0118967099458917, 0.0104112652619720,
                 0.00925546218271273, 0.00833056343336287)
STIRLING_TABLED = len(STIRLING_TAIL)

#: below this a float32 count's differences and sums with a whole number in [0, count] are exact
FLOAT32_EXACT_COUNT = 2.0**24
_FLOAT32 = struct.Struct("f")

def _log(x: float) -> float:
    """C's ``log``: -inf at 0 and NaN below, where :func:`math.log` raises."""
    if x > 0.0:
        return math.log(x)
    return -math.inf if x == 0.0 else math.nan


def _int64_floor(x: float) -> int:
    """``(int64_t)std::floor(x)`` on x86-64: NaN and values past int64's range give its minimum."""
    if not -INT64_LIMIT <= x < INT64_LIMIT:
        return INT64_MIN
    return math.floor(x)


def _single(x: float) -> float:
    """``x`` rounded to float32 (a float32 operation of float32 operands, done in double, rounds the same)."""
    try:
        return _FLOAT32.unpack(_FLOAT32.pack(x))[0]
    except OverflowError:  # past float32's range: inf, which packing refuses
        return float(np.float32(x))


# ---- Poisson ----

def _poisson_rejection(rate: float, uniform: Uniform) -> int:
    """Hörmann's PTRS for a rate of at least 10 (NumPy's and PyTorch's constants)."""
    slam = math.sqrt(rate)
    loglam = math.log(rate)
    b = 0.931 + 2.53 * slam
    a = -0.059 + 0.02483 * b
    log_invalpha = math.log(1.1239 + 1.1328 / (b - 3.4))
    vr = 0.9277 - 3.6224 / (b - 2)
    lgamma = c_math.lgamma
    while True:
        u = uniform() - 0.5
        v = uniform()
        us = 0.5 - abs(u)
        if us == 0.0:  # C: 2a/0 is inf, the proposal -inf, k negative: rejected
            continue
        k = _int64_floor((2 * a / us + b) * u + rate + 0.43)
        if us >= 0.07 and v <= vr:
            return k
        if k < 0 or (us < 0.013 and v > us):
            continue
        if _log(v) + log_invalpha - math.log(a / (us * us) + b) <= -rate + k * loglam - lgamma(k + 1.0):
            return k


def _poisson_one(rate: float, uniform: Uniform) -> int:
    """One draw of PyTorch's ``sample_poisson``."""
    if not rate >= 0:
        raise RuntimeError(POISSON_RATE_MESSAGE)
    if rate >= REJECTION_MEAN:
        return _poisson_rejection(rate, uniform)
    if rate == 0:
        return 0
    enlam = math.exp(-rate)
    count = 0
    product = 1.0
    while True:
        product *= uniform()
        if product > enlam:
            count += 1
        else:
            return count


def poisson(stream: MersenneStream, rates: np.ndarray) -> np.ndarray:
    """Int64 Poisson draws, one per element of ``rates`` (any float dtype, read as double) in row-major order."""
    flat = np.asarray(rates, dtype=np.float64).ravel()
    with np.errstate(invalid="ignore"):
        expected = np.where(flat < REJECTION_MEAN, flat + 1, REJECTION_UNIFORMS)
    with scalar_uniforms(stream, int(np.nansum(np.clip(expected, 0, None)))) as uniform:
        drawn = [_poisson_one(rate, uniform) for rate in flat.tolist()]
    return np.asarray(drawn, dtype=np.int64).reshape(np.shape(rates))


# ---- binomial ----

class _BtrsSetup(NamedTuple):
    """BTRS's constants of one element (double), computed for every element at once."""

    stddev: np.ndarray
    a: np.ndarray
    b: np.ndarray
    c: np.ndarray
    v_r: np.ndarray
    r: np.ndarray
    alpha: np.ndarray
    m: np.ndarray
    count_plus_one: np.ndarray


def _btrs_setup(count: np.ndarray, prob: np.ndarray) -> _BtrsSetup:
    """BTRS's constants for ``count`` and ``prob`` (arrays of the kernel's ``scalar_t``): the steps
    the C++ computes in ``scalar_t`` in that dtype, the others in double."""
    stddev = np.sqrt(count * prob * (1 - prob)).astype(np.float64)
    prob64 = prob.astype(np.float64)
    b = 1.15 + 2.53 * stddev
    return _BtrsSetup(
        stddev=stddev, b=b, a=-0.0873 + 0.0248 * b + 0.01 * prob64, c=(count * prob).astype(np.float64) + 0.5,
        v_r=0.92 - 4.2 / b, r=(prob / (1 - prob)).astype(np.float64), alpha=(2.83 + 5.1 / b) * stddev,
        m=np.floor((count + 1) * prob).astype(np.float64), count_plus_one=(count + 1).astype(np.float64),
    )


def _stirling_tail(k: float) -> float:
    r"""The tail of Stirling's series for :math:`\log k!` (tabled below 10)."""
    if k < STIRLING_TABLED:
        return STIRLING_TAIL[int(k)]
    kp1sq = (k + 1) * (k + 1)
    return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)


def _binomial_inversion(count: float, prob: float, uniform: Uniform, narrow: bool) -> float:
    """Geometric gaps until they pass ``count`` (``prob`` at most 1/2, ``count * prob`` below 10)."""
    if count != count:  # PyTorch's loop never ends
        return math.nan
    logprob = c_math.log1pf(-prob) if narrow else math.log1p(-prob)
    log, ceil, inf = math.log, math.ceil, math.inf
    geom_sum = 0.0
    successes = 0.0
    while True:
        u = uniform()
        ratio = (log(u) if u > 0.0 else -inf) / logprob
        geom_sum += ceil(ratio) if ratio < inf else ratio
        if geom_sum > count:
            return successes
        successes += 1


def _btrs(count: float, setup: tuple[float, ...], uniform: Uniform, narrow: bool) -> float:
    """Hörmann's BTRS (the probability at most 1/2, ``count`` times it at least 10), rounding to
    float32 when ``narrow`` where the C++ computes in ``scalar_t`` and rounding can change a value.
    The bound's terms in ``m`` alone are computed once (the same values the C++ computes each time)."""
    _, a, b, c, v_r, r, alpha, m, count_plus_one = setup
    rounding = narrow and count >= FLOAT32_EXACT_COUNT
    span = count - m + 1
    mode_term = (m + 0.5) * _log((m + 1) / (r * span))
    mode_tail, rest_tail = _stirling_tail(m), _stirling_tail(count - m)
    log, floor = math.log, math.floor
    while True:
        u = uniform() - 0.5
        v = uniform()
        us = 0.5 - abs(u)
        if us == 0.0:  # C: 2a/0 is inf, the proposal -inf (or NaN for an infinite count): rejected
            continue
        proposal = (2 * a / us + b) * u + c
        try:
            k = float(floor(proposal))
        except (OverflowError, ValueError):  # an infinite or NaN proposal (an infinite count)
            k = proposal
        if rounding:
            k = _single(k)
        if k < 0 or k > count:
            continue
        if us >= 0.07 and v <= v_r:
            return k
        if rounding:
            left, rest, successes_plus_one = _single(count - k), _single(_single(count - k) + 1), _single(k + 1)
        else:
            left, rest, successes_plus_one = count - k, count - k + 1, k + 1
        ratio = v * alpha / (a / (us * us) + b)
        try:
            log_v = log(ratio)
            logs = mode_term + count_plus_one * log(span / rest) + (k + 0.5) * log(r * rest / successes_plus_one)
        except ValueError:  # a log of 0 (v = 0: -inf), as C computes it
            log_v = _log(ratio)
            logs = mode_term + count_plus_one * _log(span / rest) + (k + 0.5) * _log(r * rest / successes_plus_one)
        # added in the C++'s order
        if log_v <= logs + mode_tail + rest_tail - _stirling_tail(k) - _stirling_tail(left):
            return k


def _binomial_one(count: float, prob: float, smaller: float, mean: float, flip: bool, setup: tuple[float, ...],
                  uniform: Uniform, narrow: bool) -> float:
    r"""One draw of PyTorch's ``sample_binomial``: ``smaller`` is :math:`\min(p, 1 - p)` as the kernel
    computes it, ``mean`` the count times it, ``flip`` whether :math:`p > \tfrac12`."""
    if count <= 0.0 or prob <= 0.0:
        return 0.0
    if prob >= 1.0:
        return count
    if prob != prob:
        return math.nan
    if mean >= REJECTION_MEAN:
        successes = _btrs(count, setup, uniform, narrow)
    else:
        successes = _binomial_inversion(count, smaller, uniform, narrow)
    if not flip:
        return successes
    return _single(count - successes) if narrow else count - successes


def binomial(stream: MersenneStream, counts: np.ndarray, probs: np.ndarray, narrow: bool = False) -> np.ndarray:
    """Float64 binomial draws, one per element of ``counts`` and ``probs`` (one shape) in row-major
    order, as PyTorch's ``sample_binomial`` draws them; ``narrow``: as its float32 kernel does."""
    dtype = np.dtype(np.float32 if narrow else np.float64)
    count_values = np.asarray(counts, dtype=dtype).ravel()
    prob_values = np.asarray(probs, dtype=dtype).ravel()
    with np.errstate(all="ignore"):
        flipped = prob_values > 0.5
        # qprob = 1.0 - prob: in double, then rounded to scalar_t
        smaller = np.where(flipped, (1.0 - prob_values.astype(np.float64)).astype(dtype), prob_values)
        means = count_values * smaller
        setup = _btrs_setup(count_values, smaller)
        expected = np.clip(np.where(means < REJECTION_MEAN, means + 1, REJECTION_UNIFORMS), 0, None)
    rows = zip(count_values.tolist(), prob_values.tolist(), smaller.tolist(), means.tolist(), flipped.tolist(),
               zip(*(column.tolist() for column in setup)))
    with scalar_uniforms(stream, int(np.nansum(expected))) as uniform:
        drawn = [_binomial_one(*row, uniform, narrow) for row in rows]
    return np.asarray(drawn, dtype=np.float64).reshape(np.shape(counts))


__all__ = ["POISSON_RATE_MESSAGE", "binomial", "poisson"]

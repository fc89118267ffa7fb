r"""How PyTorch's CPU generator turns Mersenne Twister words into samples.

Each function takes a :class:`~minitorch.mersenne.MersenneStream` and returns NumPy values drawn
as PyTorch's CPU kernels draw them, word for word, so a seed gives PyTorch's numbers. The
transforms (``w`` a 32-bit word, ``W`` a 64-bit one, :math:`d` the significand digits of the
dtype: 24 for float32, 53 for float64):

* uniform on :math:`[a, b)`: :math:`u = (w \bmod 2^{d}) \cdot 2^{-d}` (``W`` for float64), then
  :math:`u (b - a) + a` (with one rounding, as PyTorch's compiled kernels fuse such multiply-adds);
* normal, one at a time (fewer than 16 values, or a strided tensor): Box-Muller on two float64
  uniforms, :math:`r = \sqrt{-2 \log(1 - u_2)}`, :math:`\theta = 2 \pi u_1`, giving
  :math:`r \cos \theta` now and holding :math:`r \sin \theta` for the next draw;
* normal, filling 16 or more contiguous values: all uniforms first, then Box-Muller on each
  block of 16 (value :math:`j` pairs with :math:`j + 8`), the last 16 drawn again when the count
  is not a multiple of 16;
* integers in :math:`[a, b)`: :math:`(w \bmod (b - a)) + a` (``W`` when :math:`b - a \ge 2^{32}`);
* a permutation of :math:`n`: Fisher-Yates from the front, swapping :math:`i` with
  :math:`i + (w_i \bmod (n - i))`;
* Bernoulli: :math:`[u < p]`; exponential: :math:`-\log(1 - u) / \lambda`; Cauchy:
  :math:`m + \sigma \tan(\pi (u - \tfrac12))`; geometric: :math:`\lceil \log u / \log(1 - p) \rceil`;
* multinomial with replacement: the first category whose normalised cumulative weight reaches
  a float64 uniform;
* gamma: Marsaglia and Tsang's rejection method, one value at a time, on float64 uniforms and
  normals drawn one at a time (below :math:`\alpha = 1` boosted by :math:`u^{1/\alpha}`).

The 16-bit floats (float16, bfloat16) draw as float32 (their "opmath" type) and round once at
the end: a uniform of float32's 24 digits, moved back to ``a`` where rounding lifted it to ``b``;
a normal fill of whole blocks of 16, each of its own 16 float32 uniforms, then a last block of 16
fresh ones when the count is not a multiple of 16 (PyTorch's fill buffers one block at a time).

Float32 fills of 16 or more normals compute ``log``, ``sin`` and ``cos`` in single precision step by
step as PyTorch's vectorised x86 kernel does (:mod:`minitorch.cephes_float32`); on CPUs where
PyTorch uses the C library's functions instead, its values may differ in the last bit.
"""

from __future__ import annotations

import math
import operator
from contextlib import contextmanager
from typing import Any, Callable, Iterator, Union

import numpy as np

from . import cephes_float32
from .dtypes import cast_array, is_low_precision
from .mersenne import WORD_BITS, MersenneStream
from .rounding import fused_multiply_add_in

#: a normal fill works in blocks of this many values (value j pairs with j + half of it)
NORMAL_BLOCK = 16
#: below this many values (or for a strided tensor) normals are drawn one at a time
NORMAL_FILL_MIN = NORMAL_BLOCK
#: integer ranges at least this wide take 64-bit words
WIDE_RANGE = 2**WORD_BITS
FLOAT64 = np.dtype(np.float64)
FLOAT32 = np.dtype(np.float32)


#: the C library's functions, one element at a time: PyTorch's kernels call them, and NumPy's own
#: float64 versions (vectorised differently on different CPUs) differ from them in the last bit now and then
_C_LIBRARY = {name: np.frompyfunc(getattr(math, name), 1, 1) for name in ("log", "log1p", "exp", "tan", "sin", "cos")}


def c_library(name: str, values: np.ndarray) -> np.ndarray:
    """The C library's ``name`` of float64 ``values`` (NumPy's where the C function would signal
    an error: a log of 0, an exp past the float64 range)."""
    try:
        return _C_LIBRARY[name](values).astype(np.float64)
    except (ValueError, OverflowError):
        with np.errstate(divide="ignore", over="ignore"):
            return getattr(np, name)(values)


def significand_digits(dtype: np.dtype) -> int:
    """Bits of a float dtype's significand, the hidden bit included (24 for float32)."""
    return int(np.finfo(dtype).nmant) + 1


def unit_uniform(stream: MersenneStream, count: int, dtype: np.dtype) -> np.ndarray:
    r"""``count`` values :math:`(w \bmod 2^d) \cdot 2^{-d}` in :math:`[0, 1)`, float64 from 64-bit
    words, narrower floats from 32-bit words and computed in float32 (as PyTorch's kernels)."""
    dtype = np.dtype(dtype)
    digits = significand_digits(dtype)
    mask = np.uint64(2**digits - 1)
    if dtype == FLOAT64:
        return (stream.words64(count) & mask).astype(np.float64) * 2.0**-digits
    return (stream.words32(count) & mask).astype(np.float32) * np.float32(2.0**-digits)


def opmath(dtype: np.dtype) -> np.dtype:
    """The dtype PyTorch's kernels compute a float ``dtype`` in: float64 for float64, else float32."""
    return FLOAT64 if np.dtype(dtype) == FLOAT64 else FLOAT32


def uniform(stream: MersenneStream, count: int, dtype: np.dtype, low: float = 0.0, high: float = 1.0) -> np.ndarray:
    """``count`` uniform values on ``[low, high)`` of ``dtype``: the bounds are cast to ``dtype``
    first (to float32 for the 16-bit floats, which draw float32 values and round them once)."""
    dtype = np.dtype(dtype)
    compute = opmath(dtype)
    unit = unit_uniform(stream, count, compute)  # one read of words: atomic under the twister's own lock
    if not is_low_precision(dtype):
        start, stop = compute.type(dtype.type(low)), compute.type(dtype.type(high))
        return fused_multiply_add_in(compute, unit, stop - start, start).astype(dtype)
    start, stop = compute.type(low), compute.type(high)
    values = cast_array(fused_multiply_add_in(compute, unit, stop - start, start), dtype)
    # a value that rounding lifted to the upper bound becomes the lower one (still in [low, high))
    lower, upper = cast_array(np.array([low, high]), dtype)
    values[values == upper] = lower
    return values


def _box_muller_pairs(stream: MersenneStream, pairs: int) -> tuple[np.ndarray, np.ndarray]:
    """``pairs`` Box-Muller pairs in float64: :math:`(r \\cos\\theta, r \\sin\\theta)`."""
    unit = unit_uniform(stream, 2 * pairs, FLOAT64)
    angle_part, radius_part = unit[0::2], unit[1::2]
    radius = np.sqrt(-2.0 * c_library("log1p", -radius_part))
    theta = 2.0 * math.pi * angle_part
    return radius * c_library("cos", theta), radius * c_library("sin", theta)


def normal_one_at_a_time(stream: MersenneStream, count: int, mean: float = 0.0, std: float = 1.0) -> np.ndarray:
    """``count`` float64 normals drawn one by one, using and leaving the held second sample."""
    values = np.empty(count, dtype=np.float64)
    with stream.lock:
        start = 0
        if count and stream.next_double_normal is not None:
            values[0] = stream.next_double_normal
            stream.next_double_normal = None
            start = 1
        remaining = count - start
        if remaining:
            cosines, sines = _box_muller_pairs(stream, (remaining + 1) // 2)
            interleaved = np.empty(2 * cosines.size, dtype=np.float64)
            interleaved[0::2], interleaved[1::2] = cosines, sines
            values[start:] = interleaved[:remaining]
            if remaining % 2:
                stream.next_double_normal = float(sines[-1])
    return fused_multiply_add_in(FLOAT64, values, std, mean)


def _box_muller_blocks(unit: np.ndarray, mean: float, std: float) -> np.ndarray:
    """Box-Muller on blocks of 16 uniforms (rows of ``unit``) in their own precision: value j of a
    block pairs with value j + 8."""
    compute = unit.dtype.type
    half = NORMAL_BLOCK // 2
    if compute is np.float32:
        radius = np.sqrt(compute(-2.0) * cephes_float32.log(compute(1.0) - unit[:, :half]))
        sine, cosine = cephes_float32.sincos(compute(2.0 * math.pi) * unit[:, half:])
    else:
        radius = np.sqrt(-2.0 * c_library("log", 1.0 - unit[:, :half]))
        theta = 2.0 * math.pi * unit[:, half:]
        sine, cosine = c_library("sin", theta), c_library("cos", theta)
    standard = np.concatenate([radius * cosine, radius * sine], axis=1)
    # PyTorch's fill ends with one fused multiply-add, the mean and std cast to the dtype first
    return fused_multiply_add_in(unit.dtype, standard, std, mean)


def normal_fill(stream: MersenneStream, count: int, dtype: np.dtype, mean: float = 0.0, std: float = 1.0) -> np.ndarray:
    """``count`` (at least 16) normals of a float ``dtype`` the way a contiguous fill draws them."""
    dtype = np.dtype(dtype)
    compute = opmath(dtype)
    whole = count - count % NORMAL_BLOCK
    with stream.lock:  # a 16-bit fill draws its whole blocks only, then the last 16
        unit = unit_uniform(stream, whole if is_low_precision(dtype) else count, compute)
        tail = unit_uniform(stream, NORMAL_BLOCK, compute) if count % NORMAL_BLOCK else None
    values = np.empty(count, compute)  # every value is written below: the blocks, then the last 16 again
    values[:whole] = _box_muller_blocks(unit[:whole].reshape(-1, NORMAL_BLOCK), mean, std).reshape(-1)
    if tail is not None:
        values[count - NORMAL_BLOCK :] = _box_muller_blocks(tail.reshape(1, NORMAL_BLOCK), mean, std).reshape(-1)
    return cast_array(values, dtype)


def normal(stream: MersenneStream, count: int, dtype: np.dtype, mean: float = 0.0, std: float = 1.0,
           contiguous: bool = True) -> np.ndarray:
    """``count`` normals of ``dtype``: a block fill for 16 or more contiguous values, else one at a time."""
    if contiguous and count >= NORMAL_FILL_MIN:
        return normal_fill(stream, count, dtype, mean, std)
    return cast_array(normal_one_at_a_time(stream, count, mean, std), np.dtype(dtype))


def integers(stream: MersenneStream, count: int, low: int, high: int) -> np.ndarray:
    """``count`` int64 values in ``[low, high)``: a word modulo the range, plus ``low``."""
    span = high - low
    words = stream.words64(count) if span >= WIDE_RANGE else stream.words32(count)
    # in unsigned 64-bit arithmetic, wrapping as PyTorch's does for ranges past the int64 maximum
    return ((words % np.uint64(span)) + np.uint64(low % 2**64)).view(np.int64)


def full_range_int64(stream: MersenneStream, count: int) -> np.ndarray:
    """``count`` int64 values over the whole int64 range: 64-bit words read as signed."""
    return stream.words64(count).view(np.int64)


def default_integers(stream: MersenneStream, count: int, dtype: np.dtype, is_bool: bool = False) -> np.ndarray:
    """``random_()`` without bounds: :math:`[0, 2^d]` for a float dtype, every non-negative value of
    an integer dtype (0/1 for bool), from 64-bit words for int64 and float64."""
    dtype = np.dtype(dtype)
    wide = dtype in (np.dtype(np.int64), FLOAT64)
    words = stream.words64(count) if wide else stream.words32(count)
    if is_bool:
        return (words & np.uint64(1)).astype(np.int64)
    if dtype.kind == "f" or is_low_precision(dtype):  # bfloat16's NumPy kind is "V"
        modulus = 2 ** significand_digits(dtype) + 1
    else:
        modulus = int(np.iinfo(dtype).max) + 1
    return (words % np.uint64(modulus)).astype(np.int64)


def permutation(stream: MersenneStream, n: int) -> np.ndarray:
    """A permutation of ``0 .. n-1`` (int64): Fisher-Yates from the front, one 32-bit word per step."""
    order = list(range(n))
    if n > 1:
        offsets = (stream.words32(n - 1) % np.arange(n, 1, -1, dtype=np.uint64)).tolist()
        for i, offset in enumerate(offsets):
            j = i + offset
            order[i], order[j] = order[j], order[i]
    return np.asarray(order, dtype=np.int64)


def bernoulli(stream: MersenneStream, count: int, p: Union[float, np.ndarray]) -> np.ndarray:
    r"""``count`` draws :math:`[u < p]` (bool): float64 uniforms for a number or a float64 ``p``,
    float32 uniforms compared in float32 for a narrower float ``p``."""
    if isinstance(p, np.ndarray) and p.dtype != FLOAT64:
        return unit_uniform(stream, count, FLOAT32) < p.astype(np.float32).reshape(-1)
    chances = p.reshape(-1) if isinstance(p, np.ndarray) else p
    return unit_uniform(stream, count, FLOAT64) < chances


def exponential(stream: MersenneStream, count: int, rate: float) -> np.ndarray:
    r"""``count`` float64 draws :math:`-\log(1 - u) / \lambda` (the log by ``log1p``, as PyTorch's)."""
    return -1.0 / rate * c_library("log1p", -unit_uniform(stream, count, FLOAT64))


def cauchy(stream: MersenneStream, count: int, median: float, sigma: float) -> np.ndarray:
    r"""``count`` float64 draws :math:`m + \sigma \tan(\pi (u - \frac12))`."""
    return fused_multiply_add_in(FLOAT64, c_library("tan", math.pi * (unit_uniform(stream, count, FLOAT64) - 0.5)), sigma, median)


def geometric(stream: MersenneStream, count: int, p: float) -> np.ndarray:
    r"""``count`` float64 draws :math:`\lceil \log u / \log(1 - p) \rceil`."""
    return np.ceil(c_library("log", unit_uniform(stream, count, FLOAT64)) / math.log(1.0 - p))


def log_normal(stream: MersenneStream, count: int, mean: float, std: float) -> np.ndarray:
    r"""``count`` float64 draws :math:`e^{z}`, :math:`z` normal drawn one at a time."""
    return c_library("exp", normal_one_at_a_time(stream, count, mean, std))


def multinomial_with_replacement(stream: MersenneStream, weights: np.ndarray, samples: int) -> np.ndarray:
    """``samples`` categories per row of the 2-D ``weights``: the first whose normalised cumulative
    weight (in the weights' precision, the last one set to 1) reaches a float64 uniform."""
    picked = np.empty((weights.shape[0], samples), dtype=np.int64)
    with stream.lock:
        for row, row_weights in enumerate(weights):
            cumulative = np.cumsum(row_weights, dtype=row_weights.dtype)
            cumulative = cumulative / cumulative[-1]
            cumulative[-1] = 1
            draws = unit_uniform(stream, samples, FLOAT64)
            picked[row] = np.searchsorted(cumulative.astype(np.float64), draws, side="left")
    return picked


#: Marsaglia-Tsang's constants as PyTorch writes them: single-precision literals in double arithmetic
ONE_THIRD_LITERAL = float(np.float32(1.0) / np.float32(3.0))
SQUEEZE_LITERAL = float(np.float32(0.0331))
#: uniforms a gamma draw takes, about (a normal's share of a pair and one uniform a try, most tries accepted)
GAMMA_UNIFORMS = 3


#: uniforms of a loop of scalar draws are read ahead in blocks of this many at least and at most
READ_AHEAD_MIN, READ_AHEAD_MAX = 64, 2**16
#: words of one float64 uniform
WORDS_PER_UNIFORM = 2
#: the next float64 uniform of a stream, as a Python float
Uniform = Callable[[], float]


def _same_position(first: dict[str, Any], second: dict[str, Any]) -> bool:
    """Whether two states of the twister are at the same place of its stream."""
    return first["state"]["pos"] == second["state"]["pos"] and np.array_equal(first["state"]["key"], second["state"]["key"])


@contextmanager
def scalar_uniforms(stream: MersenneStream, expected: int) -> Iterator[Uniform]:
    """A function giving the stream's next float64 uniform, for the loops that draw one value at a
    time (:func:`gamma`, :mod:`minitorch.count_draws`): read ahead in blocks (the first of about
    ``expected``), since one call per word is slow in Python; at the end the stream is left just
    past the uniforms taken, as if they had been read one by one (unless another thread drew from
    it meanwhile: then it stays past the block, as no word may be given twice). The stream's lock
    is held throughout."""
    block_start: dict[str, Any] = {}
    block_end: dict[str, Any] = {}
    block_size = 0
    block: Iterator[float] = iter(())

    def ahead() -> Iterator[float]:
        nonlocal block_start, block_end, block_size, block
        size = min(max(expected, READ_AHEAD_MIN), READ_AHEAD_MAX)
        while True:
            block_start, block_size = stream.bits.state, size
            block = iter(unit_uniform(stream, size, FLOAT64).tolist())
            block_end = stream.bits.state
            yield from block  # (the list's own iterator: no Python step per value)
            size = min(2 * size, READ_AHEAD_MAX)

    with stream.lock:
        try:
            yield ahead().__next__
        finally:
            left = operator.length_hint(block)
            if left and _same_position(stream.bits.state, block_end):
                stream.bits.state = block_start
                stream.bits.random_raw(WORDS_PER_UNIFORM * (block_size - left))


def _standard_normal_scalar(stream: MersenneStream, uniform: Uniform) -> float:
    """One standard normal drawn one at a time from ``uniform`` (``stream``'s, see :func:`scalar_uniforms`;
    using and leaving the held sample), as a Python float."""
    held = stream.next_double_normal
    if held is not None:
        stream.next_double_normal = None
        return held
    angle_part, radius_part = uniform(), uniform()
    radius = math.sqrt(-2.0 * math.log1p(-radius_part))
    theta = 2.0 * math.pi * angle_part
    stream.next_double_normal = radius * math.sin(theta)
    return radius * math.cos(theta)


def _gamma_one(stream: MersenneStream, uniform: Uniform, alpha: float, narrow: bool) -> float:
    r"""One draw of :math:`\mathrm{Gamma}(\alpha, 1)` as PyTorch's CPU kernel draws it: with
    :math:`d = \alpha - \tfrac13`, :math:`c = 1/\sqrt{9d}`, propose :math:`v = (1 + c x)^3` for a
    normal :math:`x` and accept it when :math:`u < 1 - 0.0331 x^4` or
    :math:`\log u < x^2/2 + d(1 - v + \log v)`, returning :math:`d v`. ``narrow``: the dtype is
    float32, whose kernel keeps :math:`\alpha`, :math:`1/\alpha` and :math:`d` in single precision."""
    single = np.float32
    scale = 1.0
    if alpha < 1.0:
        if alpha == 0.0:
            return 0.0
        u = uniform()
        exponent = float(single(1.0) / single(alpha)) if narrow else 1.0 / alpha
        scale *= math.pow(1.0 - u, exponent)
        alpha = float(single(alpha) + single(1.0)) if narrow else alpha + 1.0
    d = float(single(alpha) - single(ONE_THIRD_LITERAL)) if narrow else alpha - ONE_THIRD_LITERAL
    c = 1.0 / math.sqrt(9.0 * d)
    while True:
        while True:
            x = _standard_normal_scalar(stream, uniform)
            y = 1.0 + c * x
            if y > 0:
                break
        v = y * y * y
        u = 1.0 - uniform()
        xx = x * x
        if u < 1.0 - SQUEEZE_LITERAL * xx * xx:
            return scale * d * v
        if math.log(u) < 0.5 * xx + d * (1.0 - v + math.log(v)):
            return scale * d * v


def gamma(stream: MersenneStream, alphas: np.ndarray, narrow: bool = False) -> np.ndarray:
    r"""Float64 draws of :math:`\mathrm{Gamma}(\alpha, 1)`, one per element of ``alphas`` in row-major
    order (``narrow``: as PyTorch's float32 kernel computes them, before the cast to float32)."""
    values = np.asarray(alphas, dtype=np.float64).ravel().tolist()
    with scalar_uniforms(stream, GAMMA_UNIFORMS * len(values)) as uniform:
        drawn = [_gamma_one(stream, uniform, alpha, narrow) for alpha in values]
    return np.asarray(drawn, dtype=np.float64).reshape(np.shape(alphas))


__all__ = [
    "bernoulli", "cauchy", "default_integers", "exponential", "full_range_int64", "gamma", "geometric", "integers",
    "log_normal", "multinomial_with_replacement", "normal", "normal_fill", "normal_one_at_a_time", "permutation",
    "scalar_uniforms", "significand_digits", "uniform", "unit_uniform",
]

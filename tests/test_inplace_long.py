"""In-place elementwise ops on long contiguous runs: the results must be those of NumPy,
whatever the length (short, several vector loops' worth with a remainder, threaded), the offset
of the view, the dtype, and whichever operand is the output's memory.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Callable

import numpy as np
import pytest

import minitorch
from minitorch.backends import opcodes
from minitorch.backends.cpu_kernels import PARALLEL_MIN_WORK, zip_entry

#: a length past several of the kernels' vector loops, with a remainder
LONG = 3 * 1024 + 17

#: short, long, and threaded
LENGTHS = [511, LONG, PARALLEL_MIN_WORK + 5]
DTYPES = [np.float32, np.float64, np.int64]

#: (name, minitorch in-place op, NumPy oracle computing a new array)
InPlace = tuple[str, Callable[[minitorch.Tensor, minitorch.Tensor], object], Callable[[np.ndarray, np.ndarray], np.ndarray]]
OPS: list[InPlace] = [
    ("add_", lambda t, u: t.add_(u), lambda a, b: a + b),
    ("sub_ alpha", lambda t, u: t.sub_(u, alpha=3), lambda a, b: _fused(b, -3, a)),
    ("mul_ number", lambda t, u: t.mul_(3), lambda a, b: a * 3),
    ("rsub into other", lambda t, u: u.sub_(t), lambda a, b: b - a),
    ("add_ itself", lambda t, u: t.add_(t), lambda a, b: a + a),
    ("clamp_", lambda t, u: t.clamp_(-2, 2), lambda a, b: np.clip(a, -2, 2)),
    ("neg_", lambda t, u: t.neg_(), lambda a, b: -a),
]


def _fused(x: np.ndarray, scale: int, z: np.ndarray) -> np.ndarray:
    """``x * scale + z`` rounded once, as PyTorch's ``sub(alpha=)`` (exact rational arithmetic; integers wrap as NumPy's)."""
    if not np.issubdtype(x.dtype, np.floating):
        return x * scale + z
    exact = [Fraction(float(p)) * scale + Fraction(float(q)) for p, q in zip(x, z)]
    if x.dtype == np.float64:
        return np.array([float(e) for e in exact])
    return np.array([_nearest_float32(e) for e in exact], np.float32)


def _nearest_float32(exact: Fraction) -> np.float32:
    """The float32 nearest ``exact``, ties to even, from its two float32 neighbours."""
    guess = np.float32(float(exact))
    around = (np.nextafter(guess, np.float32(-np.inf)), guess, np.nextafter(guess, np.float32(np.inf)))
    return min(around, key=lambda c: (abs(Fraction(float(c)) - exact), int(np.float32(c).view(np.int32)) & 1))


def values(length: int, dtype: type, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(length) * 10).astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.__name__)
@pytest.mark.parametrize("length", LENGTHS)
@pytest.mark.parametrize("op", OPS, ids=lambda op: op[0])
def test_in_place_op_matches_numpy(op: InPlace, length: int, dtype: type) -> None:
    _, apply, oracle = op
    a, b = values(length, dtype, 0), values(length, dtype, 1)
    expected = oracle(a, b)
    t, u = minitorch.tensor(a), minitorch.tensor(b)
    apply(t, u)
    written = u if op[0] == "rsub into other" else t
    np.testing.assert_array_equal(written.numpy(), expected)


@pytest.mark.parametrize("length", LENGTHS)
def test_in_place_on_a_view_with_an_offset(length: int) -> None:
    """Only the view's elements change; the buffer's places are the view's."""
    base = values(length + 7, np.float32, 2)
    other = values(length, np.float32, 3)
    t = minitorch.tensor(base)
    t[7:].mul_(minitorch.tensor(other))
    expected = base.copy()
    expected[7:] *= other
    np.testing.assert_array_equal(t.numpy(), expected)


@pytest.mark.parametrize("length", LENGTHS)
def test_overlapping_shifted_views_read_the_old_values(length: int) -> None:
    """``t[1:] += t[:-1]`` reads every old value (NumPy buffers overlapping operands too)."""
    base = values(length + 1, np.float64, 4)
    t = minitorch.tensor(base)
    t[1:] += t[:-1]
    expected = base.copy()
    expected[1:] += base[:-1].copy()
    np.testing.assert_array_equal(t.numpy(), expected)


def test_kernel_in_place_with_each_operand_as_the_output() -> None:
    """The zip kernel called directly with ``out`` as ``a``, as ``b``, and as both."""
    length = LONG
    shape, strides = np.array([length], np.int64), np.array([1], np.int64)
    kernel = zip_entry(opcodes.SUB, False)
    a, b = values(length, np.float32, 5), values(length, np.float32, 6)
    for target in ("a", "b", "both"):
        x, y = a.copy(), (a.copy() if target == "both" else b.copy())
        out = y if target == "b" else x
        expected = x - y
        kernel(out, shape, strides, x, strides, y if target != "both" else x, strides)
        np.testing.assert_array_equal(out, expected if target != "both" else np.zeros_like(a), err_msg=target)

"""Accuracy of the CPU backend's float32 ``exp``, ``log``, ``tanh``, ``sigmoid`` and ``erf``, in ulps.

The oracle is float64 arithmetic (NumPy and ``math``), exact to about 2^-53 where float32
keeps 2^-24: each float32 result is compared with the exact value, in float32 ulps at that
value. The samples are random float32 of *every* exponent (subnormals included, both signs)
and a dense uniform grid where the functions bend. ``tests/test_vector_math.py`` checks the
same measure against the bounds the docs promise; this script prints the table of the docs::

    python bench/vector_math_accuracy.py
"""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Callable

import numpy as np

#: float32's largest exponent field (255 is inf and nan)
EXPONENT_FIELDS = 255
#: the grid where the functions bend: uniform on [-DENSE_RANGE, DENSE_RANGE]
DENSE_RANGE = 12.0


def erf64(x: np.ndarray) -> np.ndarray:
    return np.array([math.erf(v) for v in x.tolist()])


def sigmoid64(x: np.ndarray) -> np.ndarray:
    z = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + z), z / (1 + z))


#: each function's float64 oracle
ORACLES: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "exp": np.exp, "log": np.log, "tanh": np.tanh, "sigmoid": sigmoid64, "erf": erf64,
}


def every_binade(rng: np.random.Generator, per_binade: int) -> np.ndarray:
    """``per_binade`` random float32 of each exponent, subnormals included, both signs."""
    exponents = np.repeat(np.arange(0, EXPONENT_FIELDS, dtype=np.uint32), per_binade)
    mantissas = rng.integers(0, 1 << 23, exponents.size, dtype=np.uint32)
    positive = ((exponents << 23) | mantissas).view(np.float32)
    return np.concatenate([positive, -positive])


def samples(op: str, per_binade: int, dense: int) -> np.ndarray:
    rng = np.random.default_rng(sum(map(ord, op)))
    return np.concatenate([
        every_binade(rng, per_binade),
        rng.uniform(-DENSE_RANGE, DENSE_RANGE, dense).astype(np.float32),
    ])


def exact(op: str, x: np.ndarray) -> np.ndarray:
    """The float64 values of ``op`` at the float32 ``x``."""
    with np.errstate(all="ignore"):
        return ORACLES[op](x.astype(np.float64))


def ulps(result: np.ndarray, exact_values: np.ndarray) -> np.ndarray:
    """|result - exact| in float32 ulps at the exact value (the subnormal ulp at least)."""
    ulp = np.maximum(np.spacing(np.abs(exact_values.astype(np.float32))).astype(np.float64), 2.0**-149)
    return np.abs(result.astype(np.float64) - exact_values) / ulp


def representable(exact_values: np.ndarray) -> np.ndarray:
    """Where the exact value is a finite float32 (elsewhere the result must be inf or nan)."""
    return np.isfinite(exact_values) & (np.abs(exact_values) <= np.finfo(np.float32).max)


def table(per_binade: int = 2000, dense: int = 1_000_000) -> str:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    import minitorch

    lines = ["| function | samples | max error | mean error | correctly rounded |", "|---|---|---|---|---|"]
    for op in ORACLES:
        x = samples(op, per_binade, dense)
        result = getattr(minitorch, op)(minitorch.tensor(x)).numpy()
        values = exact(op, x)
        finite = representable(values)
        errors = ulps(result[finite], values[finite])
        rounded = np.mean(result[finite] == values[finite].astype(np.float32))
        lines.append(f"| `{op}` | {x.size:,} | {errors.max():.2f} ulp | {errors.mean():.3f} ulp | {rounded:.1%} |")
    return "\n".join(lines)


if __name__ == "__main__":
    print(table())

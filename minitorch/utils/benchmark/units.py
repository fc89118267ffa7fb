"""Time units for people: pick ns/us/ms/s for a value, name the unit, round to significant figures."""

from __future__ import annotations

import math

#: ``log10(seconds) // 3`` -> unit: -3 is nanoseconds ... -1 milliseconds; anything else prints in seconds
_UNIT_OF_THOUSANDS_EXPONENT = {-3: "ns", -2: "us", -1: "ms"}
#: seconds per unit
UNIT_SCALE = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
_UNIT_NAME = {"ns": "nanosecond", "us": "microsecond", "ms": "millisecond", "s": "second"}


def select_unit(t: float) -> tuple[str, float]:
    """The unit that shows ``t`` seconds with one to three leading digits, and its scale in seconds.

    As PyTorch's: the power of a thousand of ``t`` picks ns, us or ms; any other (below 1 ns too) is "s".
    """
    if not t > 0:
        raise ValueError(f"select_unit expects a positive time in seconds, got {t}")
    unit = _UNIT_OF_THOUSANDS_EXPONENT.get(int(math.log10(t) // 3), "s")
    return unit, UNIT_SCALE[unit]


def unit_to_english(u: str) -> str:
    """``"us"`` -> ``"microsecond"``."""
    return _UNIT_NAME[u]


def trim_sigfig(x: float, n: int) -> float:
    """``x`` rounded to ``n`` significant figures (3.14159, 2 -> 3.1), halves to even."""
    if n != int(n):
        raise AssertionError("Number of significant figures must be an integer")
    magnitude = math.ceil(math.log10(abs(x)))
    scale = 10 ** (magnitude - n)
    return float(round(x / scale) * scale)

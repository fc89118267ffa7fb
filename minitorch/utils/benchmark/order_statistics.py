"""The few statistics a :class:`Measurement` reports, on plain lists of floats (float64)."""

from __future__ import annotations

import math
from typing import Sequence


def quantile(sorted_values: Sequence[float], q: float) -> float:
    """The ``q`` quantile of ascending ``sorted_values``, interpolated linearly (``torch.quantile``'s default)."""
    rank = q * (len(sorted_values) - 1)
    below, above = sorted_values[math.floor(rank)], sorted_values[math.ceil(rank)]
    return below + (rank - math.floor(rank)) * (above - below)


def mean(values: Sequence[float]) -> float:
    return math.fsum(values) / len(values)


def population_std(values: Sequence[float]) -> float:
    """The standard deviation with divisor ``n`` (``std(unbiased=False)``) of one or more values."""
    centre = mean(values)
    return math.sqrt(math.fsum((v - centre) ** 2 for v in values) / len(values))

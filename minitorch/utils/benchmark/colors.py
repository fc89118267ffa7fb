"""``Colorize`` and the terminal colours :class:`Compare` gives a time by how it fares against the best."""

from __future__ import annotations

import enum


class Colorize(enum.Enum):
    """Which times a cell is compared with: none, the others in its column (per thread count), or in its row."""

    NONE = "none"
    COLUMNWISE = "columnwise"
    ROWWISE = "rowwise"


BEST = "\033[92m"
GOOD = "\033[34m"
BAD = "\033[2m\033[91m"
VERY_BAD = "\033[31m"
BOLD = "\033[1m"
TERMINATE = "\033[0m"

#: a time within 1% or 100 ns of the best counts as the best; within 10% as good
BEST_RATIO, BEST_MARGIN, GOOD_RATIO = 1.01, 100e-9, 1.1
#: two and five times the best are bad and very bad
BAD_RATIO, VERY_BAD_RATIO = 2.0, 5.0


def color_segment(segment: str, value: float, best_value: float) -> str:
    """``segment`` in the colour of time ``value`` against ``best_value`` (unchanged in between)."""
    if value <= best_value * BEST_RATIO or value <= best_value + BEST_MARGIN:
        return BEST + BOLD + segment + TERMINATE * 2
    if value <= best_value * GOOD_RATIO:
        return GOOD + BOLD + segment + TERMINATE * 2
    if value >= best_value * VERY_BAD_RATIO:
        return VERY_BAD + BOLD + segment + TERMINATE * 2
    if value >= best_value * BAD_RATIO:
        return BAD + segment + TERMINATE * 2
    return segment

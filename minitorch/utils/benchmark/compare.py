"""``Compare``: measurements side by side, one table per label (PyTorch's layout)."""

from __future__ import annotations

import collections
from typing import Iterable, Optional

from .colors import Colorize
from .measurement import Measurement
from .table import render_table


class Compare:
    """Tables of the medians of ``results``: one per label, a row per sub-label (or statement),
    env and thread count, a column per description. Replicates of one task are merged first."""

    def __init__(self, results: Iterable[Measurement]) -> None:
        self._results: list[Measurement] = []
        self.extend_results(results)
        self._trim_significant_figures = False
        self._colorize = Colorize.NONE
        self._highlight_warnings = False

    def extend_results(self, results: Iterable[Measurement]) -> None:
        """Add more measurements (each must be a :class:`Measurement`)."""
        results = list(results)
        for r in results:
            if not isinstance(r, Measurement):
                raise ValueError(f"Expected an instance of `Measurement`, got {type(r)} instead.")
        self._results.extend(results)

    def trim_significant_figures(self) -> None:
        """Show each time with only the figures its spread supports."""
        self._trim_significant_figures = True

    def colorize(self, rowwise: bool = False) -> None:
        """Colour each time against the best of its column (per thread count), or of its row."""
        self._colorize = Colorize.ROWWISE if rowwise else Colorize.COLUMNWISE

    def highlight_warnings(self) -> None:
        """Mark times with a wide spread ``(! XX%)``."""
        self._highlight_warnings = True

    def print(self) -> None:  # noqa: A003 - PyTorch's method name
        print(str(self))

    def _tables(self) -> list[str]:
        by_label: dict[Optional[str], list[Measurement]] = collections.defaultdict(list)
        for m in Measurement.merge(self._results):
            by_label[m.label].append(m)
        return [
            render_table(group, self._colorize, self._trim_significant_figures, self._highlight_warnings)
            for group in by_label.values()
        ]

    def __str__(self) -> str:
        return "\n".join(self._tables())

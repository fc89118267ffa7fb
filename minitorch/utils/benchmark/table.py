"""One table of :class:`Compare`: the measurements of one label, laid out as PyTorch lays them out.

Rows are keyed by (thread count, env, row name), ordered by thread count then env, each thread
count opening with a ``N threads: ----`` line; columns are the descriptions in order of first
appearance. Every time is in the unit of the table's fastest median.
"""

from __future__ import annotations

import math
from typing import Any, Iterable, Optional

from .colors import Colorize, color_segment
from .measurement import Measurement
from .units import select_unit, trim_sigfig, unit_to_english

RowKey = tuple[int, Optional[str], str]

#: the width of the `` (! 20%)`` note after a time in a column that highlights warnings
_NOTE_WIDTH = 7
_COLUMN_SEPARATOR = "  |  "
_ROW_INDENT = "  "
#: the gap between the ``(env)`` of a row and its name
_ENV_GAP = 4
#: the env shown for measurements without one, when a table mixes envs
_UNSPECIFIED_ENV = "Unspecified env"
_LEGEND = "(! XX%) Measurement has high variance, where XX is the IQR / median * 100."


def ordered_unique(elements: Iterable[Any]) -> list[Any]:
    """The distinct elements, in order of first appearance."""
    return list(dict.fromkeys(elements))


def _row_key(m: Measurement) -> RowKey:
    return m.num_threads, m.env, m.as_row_name


def _env_text(env: Optional[str]) -> str:
    return _UNSPECIFIED_ENV if env is None else env


class _ColumnFormat:
    """How one column prints times: one width and number of decimals for all, and the spread note."""

    def __init__(self, measurements: list[Measurement], time_scale: float, trim: bool, highlight_warnings: bool):
        self._scale, self._trim = time_scale, trim
        self._note_width = _NOTE_WIDTH if highlight_warnings and any(m.has_warnings for m in measurements) else 0
        leading_digits = [math.ceil(math.log10(m.median / time_scale)) for m in measurements]
        decimals = (
            min(max(m.significant_figures - digits, 0) for m, digits in zip(measurements, leading_digits))
            if trim else 1
        )
        self._width = max(leading_digits) + decimals + (1 if decimals else 0)
        self._decimals = decimals

    def _text(self, value: float, figures: int, spread: Optional[float]) -> str:
        if self._trim:
            value = trim_sigfig(value, figures)
        note = f" (! {spread * 100:.0f}%)" if self._note_width and spread is not None else ""
        return f"{value:>{self._width}.{self._decimals}f}{note:>{self._note_width}}"

    def cell(self, m: Optional[Measurement]) -> str:
        """The median of ``m`` in the table's unit (blank for no measurement)."""
        if m is None:
            return " " * len(self._text(1.0, 1, None))
        spread = m.iqr / m.median if m.has_warnings else None
        return self._text(m.median / self._scale, m.significant_figures, spread)


def _best_medians(
    grid: list[list[Optional[Measurement]]], threads: list[int], colorize: Colorize
) -> list[list[Optional[float]]]:
    """The median each cell is coloured against: its row's best, or its column's best among the rows of
    the same thread count."""
    if colorize == Colorize.ROWWISE:
        return [[min(m.median for m in row if m is not None)] * len(row) for row in grid]
    best: list[list[Optional[float]]] = []
    for count, row in zip(threads, grid):
        peers = [other for other_count, other in zip(threads, grid) if other_count == count]
        best.append([
            min((other[j].median for other in peers if other[j] is not None), default=None) for j in range(len(row))
        ])
    return best


def render_table(results: list[Measurement], colorize: Colorize, trim: bool, highlight_warnings: bool) -> str:
    """The table of ``results`` (one label), ending with the line that names the unit."""
    unit, scale = select_unit(min(m.median for m in results))
    row_keys: list[RowKey] = sorted(ordered_unique(_row_key(m) for m in results), key=lambda k: (k[0], k[1] or ""))
    column_keys = ordered_unique(m.description for m in results)
    cell_of = {(_row_key(m), m.description): m for m in results}
    grid = [[cell_of.get((row, column)) for column in column_keys] for row in row_keys]
    formats = [
        _ColumnFormat([row[j] for row in grid if row[j] is not None], scale, trim, highlight_warnings)
        for j in range(len(column_keys))
    ]

    envs = ordered_unique(m.env for m in results)
    show_envs = len(envs) > 1
    env_width = max(len(_env_text(env)) for env in envs) if show_envs else 0

    threads = [key[0] for key in row_keys]
    opens_group = [i == 0 or threads[i] != threads[i - 1] for i in range(len(row_keys))]
    text_rows = [[""] + [column or "" for column in column_keys]]
    for index, ((_, env, name), row) in enumerate(zip(row_keys, grid)):
        env_above = "" if opens_group[index] else row_keys[index - 1][1]
        env_label = f"({_env_text(env)})" if show_envs and env != env_above else ""
        text_rows.append([_ROW_INDENT + env_label.ljust(env_width + _ENV_GAP) + name] + [
            column_format.cell(m) for column_format, m in zip(formats, row)
        ])

    widths = [max(len(text) for text in column) for column in zip(*text_rows)]
    header = _COLUMN_SEPARATOR.join(text.center(width) for text, width in zip(text_rows[0], widths))
    lines = [header]
    best = _best_medians(grid, threads, colorize)
    for index, (text_row, row) in enumerate(zip(text_rows[1:], grid)):
        if opens_group[index]:
            lines.append(f"{threads[index]} threads: ".ljust(len(header), "-"))
        cells = [text_row[0].ljust(widths[0])]
        for text, width, m, best_median in zip(text_row[1:], widths[1:], row, best[index]):
            text = text.center(width)
            if colorize != Colorize.NONE and m is not None and best_median is not None:
                text = color_segment(text, m.median, best_median)
            cells.append(text)
        lines.append(_COLUMN_SEPARATOR.join(cells))

    label = results[0].label or ""
    title = "[" + f" {label} ".center(len(header) - 2, "-") + "]"
    legend = _LEGEND + "\n" if highlight_warnings and any(m.has_warnings for m in results) else ""
    return "\n".join([title, *lines, "", f"Times are in {unit_to_english(unit)}s ({unit}).", legend])

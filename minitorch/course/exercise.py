"""Exercise cells: run a student's code inside a notebook and show a check, never a stub's traceback.

A notebook's exercise cell (a code cell tagged ``exercise``) reads::

    with exercise("0.1"):
        compare("sigmoid(0)", operators.sigmoid(0.0), 0.5)

- implemented: each :func:`compare` (numbers, against a tolerance) and :func:`same` (exact
  values: keys, shapes) prints one ``✓``/``✗`` line with the values compared,
  rounded so the line is the same on every CPU;
- still a stub: the release's ``NotImplementedError("Task X.Y: <title> (see <README>)")``
  (of this task or of one it builds on) becomes the single line
  ``task X.Y is not implemented yet — see <README>#<section>``.

Any other error propagates: it is the student's bug and its traceback is the hint.
"""

from __future__ import annotations

import re
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Optional

import numpy as np

#: a release stub's message: ``Task X.Y: <title> (see <README path>)``, the path optional
STUB_MESSAGE = re.compile(r"^Task (?P<id>\d+\.\d+): .*?(?: \(see (?P<guide>[^()\s]+)\))?$", re.DOTALL)
#: significant digits of the numbers a check prints: few enough that float32 results agree across CPUs
PRINTED_DIGITS = 4
#: the comparison tolerances of :func:`compare` (float64 oracles, float32-or-better results)
DEFAULT_RTOL = 1e-5
DEFAULT_ATOL = 1e-6
PASS_MARK, FAIL_MARK = "✓", "✗"


def repository_root() -> Path:
    """The checkout holding the imported ``minitorch`` (the reference or a student's release)."""
    return Path(__file__).resolve().parents[2]


def heading_anchor(heading: str) -> str:
    """The anchor GitHub and mkdocs give a Markdown heading: lower case, punctuation dropped,
    spaces as hyphens (``"2.3 Forward (`Neg`)"`` -> ``"23-forward-neg"``)."""
    kept = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return kept.replace(" ", "-")


def task_section(guide: str, task_id: str, root: Optional[Path] = None) -> str:
    """``guide`` (a step README, relative to the repository) with the anchor of the task's
    ``### X.Y ...`` heading, or ``guide`` alone when the README has no such heading."""
    path = (root or repository_root()) / guide
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return guide
    for line in lines:
        match = re.match(r"^#{2,4}\s+(.*)$", line)
        if match and match.group(1).startswith(f"{task_id} "):
            return f"{guide}#{heading_anchor(match.group(1))}"
    return guide


def not_implemented_line(message: str, root: Optional[Path] = None) -> Optional[str]:
    """The one line shown for a stub's ``NotImplementedError`` message; None for any other message."""
    match = STUB_MESSAGE.match(message)
    if match is None:
        return None
    task_id, guide = match.group("id"), match.group("guide")
    where = f" — see {task_section(guide, task_id, root)}" if guide else ""
    return f"task {task_id} is not implemented yet{where}"


@contextmanager
def exercise(task_id: str) -> Iterator[None]:
    """Run an exercise of task ``task_id``; a stub's ``NotImplementedError`` becomes one line.

    The line names the task whose stub raised (an exercise of 2.4 may first reach the stub of
    2.3). A ``NotImplementedError`` that is not a stub's propagates like any other error.
    """
    try:
        yield
    except NotImplementedError as error:
        line = not_implemented_line(str(error))
        if line is None:
            raise
        print(line)


#: arrays with at most this many elements print their values, larger ones their shape
PRINTED_ELEMENTS = 8


def _number(value: float) -> str:
    return np.format_float_positional(value, precision=PRINTED_DIGITS, unique=True, fractional=False, trim="-")


def _nested(value: np.ndarray) -> str:
    if value.ndim == 0:
        return _number(float(value))
    return "[" + ", ".join(_nested(row) for row in value) + "]"


def _rounded(value: np.ndarray) -> str:
    if value.size <= PRINTED_ELEMENTS:
        return _nested(value)
    return f"array of shape {tuple(value.shape)}"


def compare(label: str, got: object, expected: object, rtol: float = DEFAULT_RTOL, atol: float = DEFAULT_ATOL) -> bool:
    r"""Print ``✓ label: got … (expected …)`` or ``✗ …`` and return whether they agree.

    ``got`` and ``expected`` are numbers, nested lists or arrays (a tensor: pass ``t.tolist()``);
    they agree when the shapes are equal and :math:`|g - e| \le \text{atol} + \text{rtol}\,|e|`
    elementwise (NaN equals NaN). Numbers print to :data:`PRINTED_DIGITS` significant digits,
    arrays of more than :data:`PRINTED_ELEMENTS` by their shape, so the line does not depend on the last bits of a result.
    """
    got_array = np.asarray(got, dtype=np.float64)
    expected_array = np.asarray(expected, dtype=np.float64)
    same_shape = got_array.shape == expected_array.shape
    ok = same_shape and bool(np.allclose(got_array, expected_array, rtol=rtol, atol=atol, equal_nan=True))
    mark = PASS_MARK if ok else FAIL_MARK
    detail = f"{_rounded(got_array)} (expected {_rounded(expected_array)})"
    if not same_shape:
        detail = f"shape {got_array.shape}, expected shape {expected_array.shape}"
    elif not ok and got_array.size > 1:
        worst = float(np.nanmax(np.abs(got_array - expected_array)))
        detail += f", largest difference {worst:.{PRINTED_DIGITS - 1}e}"
    print(f"{mark} {label}: {detail}")
    return ok


def same(label: str, got: object, expected: object) -> bool:
    """Print ``✓ label: got`` when ``got == expected`` (keys, shapes, flags), else ``✗`` with both."""
    ok = bool(got == expected)
    detail = repr(got) if ok else f"{got!r} (expected {expected!r})"
    print(f"{PASS_MARK if ok else FAIL_MARK} {label}: {detail}")
    return ok


__all__ = ["compare", "exercise", "heading_anchor", "not_implemented_line", "same", "task_section"]

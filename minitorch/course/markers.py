"""Solution regions: find them, check them, replace them with stubs.

In a ``.py`` file a region is a run of whole statements of one block inside a function
body, opened by a comment line ``BEGIN SOLUTION <task id>`` and closed by a comment line
``END SOLUTION``, both written as ``#`` comments at the indentation of the statements they
enclose (the task id is e.g. ``0.1``). Regions never nest and never contain a ``def`` line of
their own function, so the file still imports once every region is replaced by a stub.

In a notebook a solution is a whole code cell carrying the cell tag ``solution`` whose
first line names its task (``# Task 0.2: ...``).

Every problem is reported as ``file:line: what is wrong``; nothing is stubbed unless the
whole file is well formed.
"""

from __future__ import annotations

import ast
import json
import re
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Collection, Optional

#: the word both marker lines share (spelled in pieces so this file holds no marker itself)
MARKER_WORD = "SOLUTION"
BEGIN_TEXT = "# BEGIN " + MARKER_WORD
END_TEXT = "# END " + MARKER_WORD
#: a marker line: the marker alone on its line, after the indentation
BEGIN_LINE = re.compile(r"^(?P<indent>[ \t]*)" + re.escape(BEGIN_TEXT) + r"(?:[ \t]+(?P<id>\S+))?[ \t]*$")
END_LINE = re.compile(r"^(?P<indent>[ \t]*)" + re.escape(END_TEXT) + r"[ \t]*$")
TASK_ID = re.compile(r"^\d+\.\d+$")
#: the cell tag of a notebook solution cell, and the comment naming its task on the first line
SOLUTION_TAG = "solution"
CELL_TASK_LINE = re.compile(r"^#\s*Task\s+(?P<id>\d+\.\d+)\b")
#: longest comment line a stub's hint is wrapped to
HINT_WIDTH = 96


class MarkerError(ValueError):
    """A malformed solution region, reported as ``file:line: message``."""

    def __init__(self, path: Path | str, line: int, message: str) -> None:
        super().__init__(f"{path}:{line}: {message}")
        self.path = str(path)
        self.line = line


@dataclass(frozen=True)
class Region:
    """The lines ``begin``..``end`` (1-based, the two marker lines included) of a file."""

    path: str
    task_id: str
    begin: int
    end: int
    indent: str


def has_marker_text(text: str) -> bool:
    """Whether ``text`` still mentions a marker anywhere (a release must not)."""
    return BEGIN_TEXT in text or END_TEXT in text


def find_regions(text: str, path: Path | str, known_ids: Optional[Collection[str]] = None) -> list[Region]:
    """The regions of the Python source ``text``, checked line by line and then against its syntax tree.

    Raises:
        MarkerError: a marker that is not alone on its line, a region that is nested, never
            closed or closed twice, a missing, malformed or unknown task id, an empty region,
            a region outside a function body or one that cuts a statement in two.
    """
    regions: list[Region] = []
    open_at: Optional[tuple[int, str, str]] = None  # (line, indent, task id)
    for number, line in enumerate(text.splitlines(), start=1):
        begin, end = BEGIN_LINE.match(line), END_LINE.match(line)
        if begin:
            if open_at is not None:
                raise MarkerError(path, number, f"nested region: the region opened at line {open_at[0]} is not closed yet")
            task_id = begin.group("id")
            if task_id is None:
                raise MarkerError(path, number, f"region without a task id (write '{BEGIN_TEXT} <step>.<task>')")
            if not TASK_ID.match(task_id):
                raise MarkerError(path, number, f"malformed task id {task_id!r} (expected '<step>.<task>', e.g. '2.3')")
            if known_ids is not None and task_id not in known_ids:
                raise MarkerError(path, number, f"unknown task id {task_id!r}: no assignments/*/tasks.toml defines it")
            open_at = (number, begin.group("indent"), task_id)
        elif end:
            if open_at is None:
                raise MarkerError(path, number, "unbalanced region: an END marker without a BEGIN before it")
            if end.group("indent") != open_at[1]:
                raise MarkerError(path, number, f"the END marker is not indented like its BEGIN at line {open_at[0]}")
            if number == open_at[0] + 1:
                raise MarkerError(path, open_at[0], "empty region")
            regions.append(Region(str(path), open_at[2], open_at[0], number, open_at[1]))
            open_at = None
        elif BEGIN_TEXT in line or END_TEXT in line:
            raise MarkerError(path, number, "a marker must stand alone on its line")
    if open_at is not None:
        raise MarkerError(path, open_at[0], "unbalanced region: this BEGIN marker is never closed")
    if regions:
        _check_against_syntax(text, path, regions)
    return regions


def _blocks(tree: ast.AST) -> list[tuple[ast.AST, list[ast.stmt]]]:
    """Every block of statements in ``tree`` with the node that owns it."""
    found = []
    for node in ast.walk(tree):
        for name in ("body", "orelse", "finalbody", "handlers"):
            block = getattr(node, name, None)
            if isinstance(block, list) and block and isinstance(block[0], (ast.stmt, ast.excepthandler)):
                found.append((node, block))
    return found


def _span(statement: ast.AST) -> tuple[int, int]:
    decorators = getattr(statement, "decorator_list", [])
    first = min([statement.lineno] + [d.lineno for d in decorators])
    return first, statement.end_lineno or statement.lineno


def _check_against_syntax(text: str, path: Path | str, regions: list[Region]) -> None:
    """Each region holds whole statements of one block, and that block lies in a function."""
    try:
        tree = ast.parse(text)
    except SyntaxError as error:
        raise MarkerError(path, error.lineno or 1, f"cannot parse the file: {error.msg}") from None
    blocks = _blocks(tree)
    functions = (ast.FunctionDef, ast.AsyncFunctionDef)
    for region in regions:
        owners = []
        for owner, block in blocks:
            for statement in block:
                first, last = _span(statement)
                if last < region.begin or first > region.end:
                    continue
                if first < region.begin and hasattr(statement, "body"):
                    continue  # a compound statement around the region (its def, an if, ...)
                if not (region.begin < first and last < region.end):
                    raise MarkerError(path, region.begin, f"the region cuts the statement at lines {first}-{last} in two")
                owners.append((owner, statement))
        if not owners:
            raise MarkerError(path, region.begin, "the region holds no statement")
        # the outermost statements of the region: those whose owner is not itself in the region
        inner = {id(s) for _, s in owners}
        outermost = [(o, s) for o, s in owners if id(o) not in inner and not _inside_region(o, region)]
        if len({id(o) for o, _ in outermost}) != 1:
            raise MarkerError(path, region.begin, "the region spans statements of different blocks")
        owner, statement = outermost[0]
        enclosing = [f for f in ast.walk(tree) if isinstance(f, functions) and _span(f)[0] < region.begin <= (f.end_lineno or 0)]
        if not enclosing:
            raise MarkerError(path, region.begin, "a region must lie inside a function body")
        if statement.col_offset != len(region.indent.expandtabs()):
            raise MarkerError(path, region.begin, "the BEGIN marker is not indented like the statements it encloses")


def _inside_region(node: ast.AST, region: Region) -> bool:
    if not isinstance(node, (ast.stmt, ast.excepthandler)):
        return False
    first, last = _span(node)
    return region.begin < first and last < region.end


def stub_lines(indent: str, task_id: str, title: str, hint: str = "", guide: str = "") -> list[str]:
    """The lines replacing a region: the hint as comments, then the ``raise`` (naming ``guide``,
    the step's README, when given)."""
    lines = []
    if hint:
        width = max(HINT_WIDTH - len(indent), 40)
        for part in textwrap.wrap(f"Hint: {hint}", width=width - 2):
            lines.append(f"{indent}# {part}")
    text = f"Task {task_id}: {title}" + (f" (see {guide})" if guide else "")
    message = json.dumps(text, ensure_ascii=False)  # a valid Python string literal
    lines.append(f"{indent}raise NotImplementedError({message})")
    return lines


#: what a stub looks like for a task: (indentation, task id) -> replacement lines
StubMaker = Callable[[str, str], list[str]]


def stub_source(text: str, regions: list[Region], should_stub: Callable[[str], bool], make_stub: StubMaker) -> str:
    """``text`` with each region whose task ``should_stub`` replaced by ``make_stub``'s lines
    and the marker lines of every other region dropped (their code kept)."""
    lines = text.splitlines(keepends=True)
    newline = "\n"
    out: list[str] = []
    cursor = 0
    for region in sorted(regions, key=lambda r: r.begin):
        out.extend(lines[cursor : region.begin - 1])
        if should_stub(region.task_id):
            out.extend(line + newline for line in make_stub(region.indent, region.task_id))
        else:
            out.extend(lines[region.begin : region.end - 1])
        cursor = region.end
    out.extend(lines[cursor:])
    return "".join(out)


# ------------------------------------------------------------------------ notebooks


@dataclass(frozen=True)
class SolutionCell:
    """A notebook code cell tagged ``solution``, by its position in the notebook."""

    path: str
    index: int
    task_id: str


def cell_source(cell: dict) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def find_solution_cells(notebook: dict, path: Path | str, known_ids: Optional[Collection[str]] = None) -> list[SolutionCell]:
    """The solution cells of a notebook (its JSON as a dict); errors name the cell as ``path:cell N``.

    Raises:
        MarkerError: a tagged cell that is not a code cell, lacks the ``# Task X.Y`` first
            line or names an unknown task; a marker comment inside a notebook cell.
    """
    cells = []
    for index, cell in enumerate(notebook.get("cells", [])):
        source = cell_source(cell)
        where = f"{path}:cell {index}"
        if has_marker_text(source):
            raise MarkerError(where, 1, "notebooks mark solutions with the cell tag 'solution', not with marker comments")
        if SOLUTION_TAG not in cell.get("metadata", {}).get("tags", []):
            continue
        if cell.get("cell_type") != "code":
            raise MarkerError(where, 1, "only code cells can be solution cells")
        first = source.splitlines()[0] if source else ""
        match = CELL_TASK_LINE.match(first)
        if match is None:
            raise MarkerError(where, 1, "a solution cell starts with a comment naming its task, e.g. '# Task 0.2: ...'")
        task_id = match.group("id")
        if known_ids is not None and task_id not in known_ids:
            raise MarkerError(where, 1, f"unknown task id {task_id!r}: no assignments/*/tasks.toml defines it")
        cells.append(SolutionCell(str(path), index, task_id))
    return cells


def stub_notebook(notebook: dict, cells: list[SolutionCell], should_stub: Callable[[str], bool], make_stub: StubMaker) -> dict:
    """A copy of ``notebook`` with the chosen solution cells reduced to their first line and a
    stub, their outputs and execution counts cleared."""
    result = dict(notebook)
    result["cells"] = [dict(c) for c in notebook.get("cells", [])]
    for solution in cells:
        if not should_stub(solution.task_id):
            continue
        cell = result["cells"][solution.index]
        first = cell_source(cell).splitlines()[0]
        cell["source"] = "\n".join([first, *make_stub("", solution.task_id)])
        cell["outputs"] = []
        cell["execution_count"] = None
    return result

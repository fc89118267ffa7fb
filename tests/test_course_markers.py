"""The solution-region parser: what it accepts, what it refuses, and how it stubs.

Each bad case is a small source file written to a temporary folder; the error must name
the file and the line a person has to fix.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from minitorch.course.markers import (
    BEGIN_TEXT,
    END_TEXT,
    MarkerError,
    find_regions,
    find_solution_cells,
    stub_lines,
    stub_notebook,
    stub_source,
)

KNOWN = {"0.1", "0.2"}


def source(*lines: str) -> str:
    """Join lines, writing ``BEGIN``/``END`` for the marker comments (kept out of this file)."""
    return "\n".join(line.replace("<BEGIN>", BEGIN_TEXT).replace("<END>", END_TEXT) for line in lines) + "\n"


def check(tmp_path: Path, text: str) -> list:
    path = tmp_path / "fixture.py"
    path.write_text(text)
    return find_regions(path.read_text(), path, KNOWN)


GOOD = source(
    "def add(x, y):",
    '    """x + y"""',
    "    <BEGIN> 0.1",
    "    return x + y",
    "    <END>",
    "",
    "",
    "class Twice:",
    "    @staticmethod",
    "    def apply(x):",
    "        if x is None:",
    "            <BEGIN> 0.2",
    "            raise ValueError('no value')",
    "            <END>",
    "        <BEGIN> 0.2",
    "        def helper(v):",
    "            return 2 * v",
    "",
    "        return helper(x)",
    "        <END>",
)


def test_well_formed_regions_are_found(tmp_path: Path) -> None:
    regions = check(tmp_path, GOOD)
    assert [(r.task_id, r.begin, r.end, r.indent) for r in regions] == [
        ("0.1", 3, 5, "    "),
        ("0.2", 12, 14, "            "),
        ("0.2", 15, 20, "        "),
    ]


@pytest.mark.parametrize(
    "lines, line, words",
    [
        (["def f():", "    <BEGIN> 0.1", "    return 1"], 2, "never closed"),
        (["def f():", "    return 1", "    <END>"], 3, "without a BEGIN"),
        (["def f():", "    <BEGIN> 0.1", "    x = 1", "    <BEGIN> 0.2", "    return x", "    <END>", "    <END>"], 4, "nested"),
        (["def f():", "    <BEGIN>", "    return 1", "    <END>"], 2, "without a task id"),
        (["def f():", "    <BEGIN> 9.9", "    return 1", "    <END>"], 2, "unknown task id '9.9'"),
        (["def f():", "    <BEGIN> two", "    return 1", "    <END>"], 2, "malformed task id"),
        (["def f():", "    return 1  <BEGIN> 0.1", "    <END>"], 2, "alone on its line"),
        (["def f():", "    <BEGIN> 0.1", "    <END>", "    return 1"], 2, "empty region"),
        (["<BEGIN> 0.1", "X = 1", "<END>"], 1, "inside a function body"),
        (["<BEGIN> 0.1", "def f():", "    return 1", "<END>"], 1, "inside a function body"),
        (["def f():", "    <BEGIN> 0.1", "    if True:", "        x = 1", "    <END>", "        y = 2", "    return x"], 2, "cuts the statement"),
        (["def f(x):", "    if x:", "        <BEGIN> 0.1", "        x = 1", "    x = 2", "        <END>", "    return x"], 3, "different blocks"),
        (["def f():", "    <BEGIN> 0.1", "    return 1", "  <END>"], 4, "not indented like its BEGIN"),
    ],
    ids=[
        "unclosed", "stray-end", "nested", "no-id", "unknown-id", "malformed-id", "inline-marker",
        "empty", "module-level", "around-def", "cuts-if", "two-blocks", "end-indent",
    ],
)
def test_bad_regions_are_refused_with_file_and_line(tmp_path: Path, lines: list[str], line: int, words: str) -> None:
    with pytest.raises(MarkerError) as caught:
        check(tmp_path, source(*lines))
    message = str(caught.value)
    assert message.startswith(f"{tmp_path / 'fixture.py'}:{line}: "), message
    assert words in message
    assert caught.value.line == line


def test_without_a_task_list_any_well_formed_id_is_accepted(tmp_path: Path) -> None:
    text = source("def f():", "    <BEGIN> 42.7", "    return 1", "    <END>")
    assert [r.task_id for r in find_regions(text, "fixture.py")] == ["42.7"]


def test_stubbing_keeps_signature_docstring_and_indentation() -> None:
    regions = find_regions(GOOD, "fixture.py", KNOWN)
    stubbed = stub_source(
        GOOD, regions, lambda task: task == "0.2", lambda indent, task: stub_lines(indent, task, "Double it", "use helper")
    )
    assert BEGIN_TEXT not in stubbed and END_TEXT not in stubbed
    tree = ast.parse(stubbed)  # still valid Python
    assert [n.name for n in tree.body] == ["add", "Twice"]
    lines = stubbed.splitlines()
    assert lines[:4] == ["def add(x, y):", '    """x + y"""', "    return x + y", ""]  # kept (step below the tier)
    assert "            # Hint: use helper" in lines
    assert lines.count('        raise NotImplementedError("Task 0.2: Double it")') == 1
    assert lines.count('            raise NotImplementedError("Task 0.2: Double it")') == 1
    assert "helper" not in stubbed.split("class Twice")[1].replace("use helper", "")


def test_stubbed_function_raises_not_implemented() -> None:
    regions = find_regions(GOOD, "fixture.py", KNOWN)
    stubbed = stub_source(GOOD, regions, lambda task: True, lambda indent, task: stub_lines(indent, task, "title"))
    namespace: dict = {}
    exec(compile(stubbed, "fixture.py", "exec"), namespace)
    with pytest.raises(NotImplementedError, match=r"^Task 0\.1: title$"):
        namespace["add"](1, 2)
    with pytest.raises(NotImplementedError, match=r"^Task 0\.2: title$"):
        namespace["Twice"].apply(None)


def test_stub_message_is_a_safe_string_literal() -> None:
    (line,) = stub_lines("", "0.1", 'Quotes " and \\ backslashes')
    namespace: dict = {}
    with pytest.raises(NotImplementedError) as caught:
        exec(line, namespace)
    assert str(caught.value) == 'Task 0.1: Quotes " and \\ backslashes'


def notebook(*cells: dict) -> dict:
    return {"cells": list(cells), "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


def code_cell(text: str, tags: list[str] = ()) -> dict:
    return {
        "cell_type": "code", "execution_count": 3, "id": "c", "metadata": {"tags": list(tags)},
        "outputs": [{"output_type": "stream", "name": "stdout", "text": "6\n"}], "source": text,
    }


def test_notebook_solution_cells_are_stubbed_and_cleared() -> None:
    nb = notebook(code_cell("x = 1"), code_cell("# Task 0.2: double\ny = 2 * x\nprint(y)", ["solution"]))
    cells = find_solution_cells(nb, "nb.ipynb", KNOWN)
    assert [(c.index, c.task_id) for c in cells] == [(1, "0.2")]
    stubbed = stub_notebook(nb, cells, lambda task: True, lambda indent, task: stub_lines(indent, task, "Double"))
    cell = stubbed["cells"][1]
    assert cell["source"] == '# Task 0.2: double\nraise NotImplementedError("Task 0.2: Double")'
    assert cell["outputs"] == [] and cell["execution_count"] is None
    assert stubbed["cells"][0] == nb["cells"][0]
    assert nb["cells"][1]["outputs"]  # the input notebook is left alone


@pytest.mark.parametrize(
    "cell, words",
    [
        (code_cell("y = 2", ["solution"]), "starts with a comment naming its task"),
        (code_cell("# Task 7.7: nope\ny = 2", ["solution"]), "unknown task id '7.7'"),
        ({"cell_type": "markdown", "metadata": {"tags": ["solution"]}, "source": "# Task 0.1"}, "only code cells"),
        (code_cell(source("<BEGIN> 0.1", "y = 2", "<END>")), "cell tag 'solution'"),
    ],
    ids=["no-task-line", "unknown-task", "markdown", "marker-comments"],
)
def test_bad_solution_cells_are_refused(cell: dict, words: str) -> None:
    with pytest.raises(MarkerError, match="nb.ipynb:cell 1:1: ") as caught:
        find_solution_cells(notebook(code_cell("x = 1"), cell), "nb.ipynb", KNOWN)
    assert words in str(caught.value)

"""Notebooks in a student release: exercise cells start empty, stubbed code may fail.

A release keeps the reference's stored outputs, and nbval compares a cell's output with
them. With stubs in the code that cannot hold, so when a release stubs any task every
notebook is rewritten for it:

- an **exercise cell** (a code cell tagged ``exercise`` that calls
  ``exercise("X.Y")``, see :mod:`.exercise`) of a stubbed task loses its stored output and
  execution count and is tagged ``nbval-ignore-output``: nbval runs it and fails on a
  traceback, but compares nothing — it prints "task X.Y is not implemented yet" there.
  An exercise cell of a solved task stays as it is and is checked as in the reference.
- every **other code cell** keeps its outputs (what the student's code should produce) and
  is tagged ``raises-exception`` and ``nbval-ignore-output``: it may reach a stub, or a name
  a failed cell never defined.
"""

from __future__ import annotations

import re
from typing import Callable, Collection, Optional

from .markers import MarkerError, cell_source

EXERCISE_TAG = "exercise"
#: the call naming an exercise cell's task: ``exercise("2.3")``
EXERCISE_CALL = re.compile(r"""\bexercise\(\s*["'](?P<id>\d+\.\d+)["']""")
#: nbval's cell tags: compare no output / let the cell raise
IGNORE_OUTPUT_TAG = "nbval-ignore-output"
RAISES_TAG = "raises-exception"


def exercise_task_ids(notebook: dict, path: str, known_ids: Optional[Collection[str]] = None) -> dict[int, list[str]]:
    """The exercise cells of ``notebook`` by position, each with the task ids it exercises.

    Raises:
        MarkerError: an exercise cell that is not a code cell, calls no ``exercise("X.Y")``,
            or names a task no ``tasks.toml`` defines.
    """
    found: dict[int, list[str]] = {}
    for index, cell in enumerate(notebook.get("cells", [])):
        if EXERCISE_TAG not in cell.get("metadata", {}).get("tags", []):
            continue
        where = f"{path}:cell {index}"
        if cell.get("cell_type") != "code":
            raise MarkerError(where, 1, "only code cells can be exercise cells")
        ids = [match.group("id") for match in EXERCISE_CALL.finditer(cell_source(cell))]
        if not ids:
            raise MarkerError(where, 1, 'an exercise cell runs its checks inside `with exercise("X.Y"):`')
        unknown = [task_id for task_id in ids if known_ids is not None and task_id not in known_ids]
        if unknown:
            raise MarkerError(where, 1, f"unknown task id {unknown[0]!r}: no assignments/*/tasks.toml defines it")
        found[index] = ids
    return found


def _with_tags(cell: dict, *tags: str) -> dict:
    metadata = dict(cell.get("metadata", {}))
    existing = list(metadata.get("tags", []))
    metadata["tags"] = existing + [tag for tag in tags if tag not in existing]
    return {**cell, "metadata": metadata}


def release_notebook(notebook: dict, exercises: dict[int, list[str]], should_stub: Callable[[str], bool]) -> dict:
    """A copy of ``notebook`` for a release that stubs some task (see the module's rules)."""
    cells = []
    for index, cell in enumerate(notebook.get("cells", [])):
        if cell.get("cell_type") != "code":
            cells.append(cell)
        elif index in exercises:
            if any(should_stub(task_id) for task_id in exercises[index]):
                cell = {**_with_tags(cell, IGNORE_OUTPUT_TAG), "outputs": [], "execution_count": None}
            cells.append(cell)
        else:
            cells.append(_with_tags(cell, RAISES_TAG, IGNORE_OUTPUT_TAG))
    return {**notebook, "cells": cells}


__all__ = ["EXERCISE_TAG", "exercise_task_ids", "release_notebook"]

"""Write a student release: the repository with the solutions of steps >= N stubbed.

Releasing step ``N`` keeps the reference code of steps ``< N`` (the release tiers), and
for every task of a later step:

- each ``.py`` solution region of task ``X.Y`` (see :mod:`.markers`) becomes
  ``raise NotImplementedError("Task X.Y: <title> (see assignments/NN-name/README.md)")`` at the region's indentation, after
  the task's hint as a comment; signatures and docstrings stay as they are;
- each notebook cell tagged ``solution`` keeps its ``# Task X.Y`` line and gets the same
  stub; its outputs are cleared;
- each notebook's exercise cells of stubbed tasks lose their outputs, and its other code
  cells may raise under nbval (:mod:`.release_notebooks`).

The release's ``README.md`` is written for the student (:mod:`.student_readme`); the
reference's moves to ``docs/framework-readme.md``. Left out of every release: hidden tests (``tests/hidden/``), the integrity tests of this
tooling (``tests/test_course_*.py``) and the instructors' ``assignments/README.md``.
Everything is checked before anything is written: a malformed region anywhere aborts
the release with ``file:line``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Optional

from .markers import MarkerError, Region, SolutionCell, find_regions, find_solution_cells, stub_lines, stub_notebook, stub_source
from .release_notebooks import exercise_task_ids, release_notebook
from .student_readme import FRAMEWORK_README, student_readme
from .tasks import Task, load_steps, load_tasks, step_of

#: top-level entries of the repository that a release carries
RELEASE_ROOTS = (
    ".ci", ".gitignore", "Makefile", "README.md", "LICENSE", "pyproject.toml", "mkdocs.yml",
    "assignments", "bench", "docs", "minitorch", "notebooks", "tests",
)
#: where hidden tests live: the autograder runs them, students never see them
HIDDEN_TESTS_DIR = "tests/hidden"
#: paths (glob patterns, relative to the root) never released
EXCLUDED = (HIDDEN_TESTS_DIR + "/*", "tests/test_course_*.py", "assignments/README.md")
#: directories skipped when the repository is not a git checkout
SKIPPED_DIRS = {".git", ".venv", "__pycache__", ".pytest_cache", ".hypothesis", ".ipynb_checkpoints", "out", "build", "dist"}


@dataclass
class ReleasePlan:
    """What a release of ``step`` holds: files to copy as they are and files to rewrite."""

    root: Path
    step: int
    tasks: dict[str, Task]
    copied: list[str] = field(default_factory=list)
    rewritten: dict[str, str] = field(default_factory=dict)
    stubbed: dict[str, list[str]] = field(default_factory=dict)  # task id -> where its stubs went


def repository_files(root: Path) -> list[str]:
    """The files of the checkout at ``root`` (tracked or not ignored), as POSIX relative paths."""
    try:
        listing = subprocess.run(
            ["git", "-C", str(root), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            check=True, capture_output=True, text=True,
        ).stdout
        names = [name for name in listing.split("\0") if name]
    except (OSError, subprocess.CalledProcessError):
        names = []
        for folder, dirs, files in os.walk(root):
            dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not d.endswith(".egg-info"))
            for name in files:
                names.append(Path(folder, name).relative_to(root).as_posix())
    return sorted({n for n in names if (root / n).is_file()})


def belongs_in_release(name: str) -> bool:
    path = PurePosixPath(name)
    if path.parts[0] not in RELEASE_ROOTS or "__pycache__" in path.parts:
        return False
    return not any(path.match(pattern) or name.startswith(pattern.rstrip("*")) for pattern in EXCLUDED)


def make_stub_maker(tasks: dict[str, Task], guides: dict[int, str]):
    """Stubs for one file: the task's hint goes above its first stub in the file only; the
    message names the step's README (``guides``: step number -> its path)."""
    hinted: set[str] = set()

    def make(indent: str, task_id: str) -> list[str]:
        task = tasks[task_id]
        hint = task.hint if task_id not in hinted else ""
        hinted.add(task_id)
        return stub_lines(indent, task_id, task.title, hint, guides.get(task.step, ""))

    return make


def plan_release(root: Path | str, step: int) -> ReleasePlan:
    """Check every solution region of the repository and work out the release of ``step``.

    Raises:
        MarkerError: the first malformed region or solution cell found.
    """
    root = Path(root)
    tasks = load_tasks(root)
    plan = ReleasePlan(root=root, step=step, tasks=tasks)
    should_stub = lambda task_id: step_of(task_id) >= step  # noqa: E731 - the tier rule, named
    names = repository_files(root)
    guides = {s.number: (s.directory.relative_to(root) / "README.md").as_posix() for s in load_steps(root)}
    for name in names:
        if not belongs_in_release(name):
            continue
        path = root / name
        if name == "README.md":  # the student's README; the reference's moves to the docs
            notebooks = sorted(n for n in names if n.startswith("notebooks/") and n.endswith(".ipynb"))
            plan.rewritten["README.md"] = student_readme(load_steps(root), step, root, notebooks)
            plan.rewritten[FRAMEWORK_README] = path.read_text(encoding="utf-8")
            continue
        make_stub = make_stub_maker(tasks, guides)
        if name.endswith(".py"):
            text = path.read_text(encoding="utf-8")
            regions = find_regions(text, name, tasks.keys())
            if regions:
                plan.rewritten[name] = stub_source(text, regions, should_stub, make_stub)
                _note_stubs(plan, name, regions, should_stub)
                continue
        elif name.endswith(".ipynb"):
            notebook = json.loads(path.read_text(encoding="utf-8"))
            cells = find_solution_cells(notebook, name, tasks.keys())
            exercises = exercise_task_ids(notebook, name, tasks.keys())
            if any(should_stub(t) for t in tasks):
                stubbed = stub_notebook(notebook, cells, should_stub, make_stub)
                stubbed = release_notebook(stubbed, exercises, should_stub)
                plan.rewritten[name] = json.dumps(stubbed, indent=1, ensure_ascii=False) + "\n"
                _note_stubs(plan, name, cells, should_stub)
                continue
        plan.copied.append(name)
    return plan


def _note_stubs(plan: ReleasePlan, name: str, found: list[Region] | list[SolutionCell], should_stub) -> None:
    for item in found:
        if should_stub(item.task_id):
            where = f"{name}:{item.begin}" if isinstance(item, Region) else f"{name}:cell {item.index}"
            plan.stubbed.setdefault(item.task_id, []).append(where)


#: the file that marks a folder as a release written by this module (so it may be pruned)
STAMP_FILE = ".student-release"


def is_student_release(folder: Path | str) -> bool:
    """Whether ``folder`` is a release written by :func:`write_release` (a student's checkout)."""
    return (Path(folder) / STAMP_FILE).is_file()


def write_release(plan: ReleasePlan, out: Path | str) -> Path:
    """Write ``plan`` under ``out``: an empty or missing folder, or an earlier release.

    Files of an earlier release that this one lacks are removed; files whose content is
    unchanged are not rewritten, and copies keep their source's modification time, so a
    later release to the same folder reuses Numba's on-disk cache of their kernels.
    """
    out = Path(out).resolve()
    root = plan.root.resolve()
    if out == root or (root in out.parents and out.relative_to(root).parts[0] in RELEASE_ROOTS):
        raise ValueError(f"refusing to write a release into the repository's own files ({out})")
    if out.exists() and any(out.iterdir()) and not (out / STAMP_FILE).exists():
        raise ValueError(f"{out} is not empty and holds no earlier release; choose an empty folder")
    wanted = set(plan.copied) | set(plan.rewritten) | {STAMP_FILE}
    if out.exists():
        for folder, dirs, files in os.walk(out):
            dirs[:] = [d for d in dirs if d not in SKIPPED_DIRS]
            for name in files:
                relative = Path(folder, name).relative_to(out).as_posix()
                if relative not in wanted:
                    os.remove(Path(folder, name))
    for name in plan.copied:
        target = out / name
        target.parent.mkdir(parents=True, exist_ok=True)
        source = plan.root / name
        stat = target.stat() if target.exists() else None
        if stat is None or stat.st_mtime_ns != source.stat().st_mtime_ns or stat.st_size != source.stat().st_size:
            shutil.copy2(source, target)
    for name, text in plan.rewritten.items():
        target = out / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if not target.exists() or target.read_text(encoding="utf-8") != text:
            target.write_text(text, encoding="utf-8")
    (out / STAMP_FILE).write_text(f"step = {plan.step}\n", encoding="utf-8")
    return out


def release(root: Path | str, step: int, out: Path | str) -> ReleasePlan:
    """Check and plan the release of ``step``, then write it to ``out``."""
    plan = plan_release(root, step)
    write_release(plan, out)
    return plan


def summary(plan: ReleasePlan, out: Optional[Path | str] = None) -> str:
    """A few lines saying what the release holds."""
    stubbed = sorted(plan.stubbed, key=lambda t: tuple(int(p) for p in t.split(".")))
    lines = [
        f"student release of step {plan.step}" + (f" written to {out}" if out else ""),
        f"  {len(plan.copied) + len(plan.rewritten)} files, {len(plan.rewritten)} with solutions removed",
        f"  stubbed tasks: {', '.join(stubbed) if stubbed else 'none'}",
    ]
    missing = [t for t in plan.tasks if step_of(t) >= plan.step and t not in plan.stubbed]
    if missing:
        lines.append(f"  warning: tasks with no solution region: {', '.join(missing)}")
    return "\n".join(lines)


__all__ = ["MarkerError", "ReleasePlan", "is_student_release", "plan_release", "release", "repository_files", "summary",
           "write_release"]

"""Which tests carry points: only those that fail on their task's stub.

A test that passes on a student release with nothing implemented (it checks a shape, an
error message the stub already gets right, a default) measures nothing the student wrote.
The grader therefore runs the course's own stub release of each graded step once, in the
trusted way (the course's code only, never a submission), and scores a task on the tests
that failed there. A release with nothing implemented scores 0 by construction.

The answer depends only on the course's files, so it is cached under the course's
``out/`` folder (the grader's, never visible to graded code), keyed by a hash of the files
that decide it: change a test, a stub or a ``tasks.toml`` and it is computed again.

The same cache records which tasks may be graded remotely (:func:`remote_ready`): a task is,
once the reference has passed every one of its tests (the hidden ones included) through the
remote-object protocol.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Iterable

from .autograde import GRADING_DIR, HIDDEN_TESTS_DIR, build_workspace, grade, read_report, run_pytest
from .release import release
from .tasks import ASSIGNMENTS_DIR, Task, step_of

CACHE_DIR = Path("out") / "grader-calibration"
#: folders whose files decide which tests pass on the stubs
DECIDING_PARTS = ("minitorch", "tests", ASSIGNMENTS_DIR, "pyproject.toml")
SKIPPED = {"__pycache__", ".pytest_cache", ".hypothesis", ".numba-cache"}


def course_fingerprint(course_root: Path) -> str:
    """sha256 over the names and contents of the files that decide the stubs' outcomes."""
    digest = hashlib.sha256()
    for part in DECIDING_PARTS:
        top = course_root / part
        paths = [top] if top.is_file() else []
        for folder, dirs, files in os.walk(top):
            dirs[:] = sorted(d for d in dirs if d not in SKIPPED)
            paths.extend(Path(folder, name) for name in sorted(files) if not name.endswith(".pyc"))
        for path in paths:
            digest.update(path.relative_to(course_root).as_posix().encode() + b"\0")
            digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


def passing_on_stubs(course_root: Path, tasks: Iterable[Task], timeout: float) -> dict[str, set[str]]:
    """For each task, the node ids of its tests that pass on the course's stub release."""
    tasks = list(tasks)
    fingerprint = course_fingerprint(course_root)
    cache = course_root / CACHE_DIR
    answer: dict[str, set[str]] = {}
    for step in sorted({step_of(t.id) for t in tasks}):
        stored = {t.id: cache / f"task-{t.id}-{fingerprint[:16]}.json" for t in tasks if step_of(t.id) == step}
        missing = [t for t in tasks if t.id in stored and not stored[t.id].is_file()]
        if missing:
            cache.mkdir(parents=True, exist_ok=True)
            for task_id, passing in _measure(course_root, step, missing, timeout).items():
                stored[task_id].write_text(json.dumps(passing, indent=1) + "\n", encoding="utf-8")
        for task_id, path in stored.items():
            answer[task_id] = set(json.loads(path.read_text(encoding="utf-8")))
    return answer


def _measure(course_root: Path, step: int, tasks: list[Task], timeout: float) -> dict[str, list[str]]:
    """Run every task of ``step`` on the stub release of ``step``; the passing node ids per task."""
    every_task = sorted(t.id for t in tasks)
    with tempfile.TemporaryDirectory(prefix="minitorch-calibration-") as scratch:
        released = Path(scratch, "release")
        release(course_root, step, released)
        workspace = build_workspace(course_root, released / "minitorch", Path(scratch, "workspace"), hidden=True)
        shutil.rmtree(workspace / GRADING_DIR, ignore_errors=True)
        known: dict[str, list[str]] = {t: [] for t in every_task}
        for task in tasks:
            targets = [t for t in task.tests if (course_root / t).exists()]
            if (course_root / HIDDEN_TESTS_DIR).is_dir():
                targets.append(HIDDEN_TESTS_DIR)
            report = Path(scratch, f"{task.id}.jsonl")
            run_pytest(workspace, targets, report, tasks=[task.id], timeout=timeout)
            outcomes, _ = read_report(report)
            known[task.id] = sorted(o.nodeid for o in outcomes.values() if o.status == "passed")
    return known


def remote_ready(course_root: Path, tasks: Iterable[Task], timeout: float) -> set[str]:
    """The ids of ``tasks`` to grade remotely: those whose tests the reference passes, every one
    of them, when graded that way (measured once per course version)."""
    candidates = list(tasks)
    fingerprint = course_fingerprint(course_root)
    cache = course_root / CACHE_DIR
    stored = {t.id: cache / f"remote-{t.id}-{fingerprint[:16]}.json" for t in candidates}
    missing = [t.id for t in candidates if not stored[t.id].is_file()]
    if missing:
        cache.mkdir(parents=True, exist_ok=True)
        results, broken = grade(course_root, course_root, task_ids=missing, timeout=timeout, remote_tasks=missing)
        for result in results:
            passed = not broken and not result.problems and bool(result.outcomes) and all(
                o.status == "passed" for o in result.outcomes)
            failing = [o.nodeid for o in result.outcomes if o.status != "passed"]
            record = {"ready": passed, "tests": len(result.outcomes), "failing": failing, "problems": result.problems}
            stored[result.task.id].write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    return {task_id for task_id, path in stored.items() if json.loads(path.read_text(encoding="utf-8")).get("ready") is True}

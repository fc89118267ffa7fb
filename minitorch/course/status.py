"""Where a student stands: ``minitorch course status`` (``make status``).

One pytest run over the task-tagged tests of the chosen steps, in the checkout itself (the
student's own code on the student's own machine: nothing to protect, so no sandbox and no
stub calibration, unlike :func:`~minitorch.course.autograde.grade`). Each task is then
*done* (every test passes), *started* (some pass) or *to do* (none pass), with the first line
of its first failure, its points at the share of tests passed, and the next task to work on.
"""

from __future__ import annotations

import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Optional

from .autograde import DEFAULT_TIMEOUT, POINTS_DIGITS, TestOutcome, choose_tasks, read_report, run_pytest
from .tasks import Task

#: the longest first line of a failure shown in the table
FAILURE_WIDTH = 70


@dataclass
class TaskStatus:
    task: Task
    outcomes: list[TestOutcome]

    @property
    def passed(self) -> int:
        return sum(o.status == "passed" for o in self.outcomes)

    @property
    def state(self) -> str:
        if not self.outcomes:
            return "no tests"
        if self.passed == len(self.outcomes):
            return "done"
        return "started" if self.passed else "to do"

    @property
    def points(self) -> float:
        share = self.passed / len(self.outcomes) if self.outcomes else 0.0
        return round(self.task.points * share, POINTS_DIGITS)

    def first_failure(self) -> str:
        """The first line of the first failing test's error, or ''."""
        for outcome in self.outcomes:
            if outcome.status != "passed":
                line = (outcome.detail().strip().splitlines() or [outcome.status])[0]
                return line if len(line) <= FAILURE_WIDTH else line[: FAILURE_WIDTH - 3] + "..."
        return ""


def course_status(course_root: Path | str, steps: Optional[Iterable[int]] = None, timeout: float = DEFAULT_TIMEOUT,
                  backends: Iterable[str] = (), task_ids: Optional[Iterable[str]] = None) -> tuple[list[TaskStatus], list[str]]:
    """Each chosen task's status, and the problems of the run (collection errors, a timeout).

    ``backends`` keeps only the tests of those backends (``("cpu",)``: a quicker check of step 2,
    whose tests run every op on three backends); tests without a backend always run. ``task_ids``
    keeps only those tasks."""
    root = Path(course_root).resolve()
    tasks = choose_tasks(root, steps, task_ids)
    targets = sorted({t for task in tasks for t in task.tests if (root / t).exists()})
    if not targets:
        return [TaskStatus(task, []) for task in tasks], ["no test file of these tasks exists"]
    with tempfile.TemporaryDirectory(prefix="minitorch-status-") as folder:
        report = Path(folder) / "report.jsonl"
        code, tail = run_pytest(root, targets, report, tasks=[t.id for t in tasks], backends=backends, timeout=timeout)
        outcomes, problems = read_report(report)
    if code is None:
        problems.append(f"the tests were stopped after {timeout:g} s; the tasks after that point show as not run")
    by_task: dict[str, list[TestOutcome]] = {task.id: [] for task in tasks}
    for outcome in outcomes.values():
        if outcome.task in by_task:
            by_task[outcome.task].append(outcome)
    return [TaskStatus(task, by_task[task.id]) for task in tasks], problems


def status_table(statuses: list[TaskStatus]) -> str:
    """A Markdown table of the tasks, then the totals and the next task to work on."""
    lines = ["| task | title | state | tests | points | first failure |", "|---|---|---|---|---|---|"]
    for s in statuses:
        lines.append(f"| {s.task.id} | {s.task.title} | {s.state} | {s.passed}/{len(s.outcomes)} | "
                     f"{s.points:g}/{s.task.points:g} | {s.first_failure().replace('|', '/')} |")
    earned = sum(s.points for s in statuses)
    possible = sum(s.task.points for s in statuses)
    lines.append("")
    lines.append(f"{sum(s.state == 'done' for s in statuses)} of {len(statuses)} tasks done, "
                 f"{earned:g} of {possible:g} points")
    upcoming = next((s for s in statuses if s.state != "done"), None)
    if upcoming is None:
        lines.append("Every task here passes.")
    else:
        files = ", ".join(upcoming.task.files)
        lines.append(f"Next: task {upcoming.task.id}, {upcoming.task.title} (in {files}); "
                     f"check it with: make status TASK={upcoming.task.id}")
    return "\n".join(lines)


def print_status(course_root: Path | str, steps: Optional[Iterable[int]], timeout: float,
                 backends: Iterable[str] = (), task_ids: Optional[Iterable[str]] = None) -> int:
    """Run, print the table and the time it took; 0 unless the run itself had problems."""
    start = time.perf_counter()
    statuses, problems = course_status(course_root, steps, timeout, backends, task_ids)
    for problem in problems:
        print(problem)
    print(status_table(statuses))
    print(f"({time.perf_counter() - start:.1f} s)")
    return 1 if problems else 0

"""Score a copy of minitorch task by task.

For a submission (a folder holding a ``minitorch/`` package) the grader builds a workspace:
the submission's package next to the course's own tests (hidden ones included) and
``pyproject.toml``, so a submission cannot change what grades it. Then, for each task, a
fresh ``python -m pytest`` process runs that task's tests with a small plugin
(:mod:`.grading_plugin`) that records every test's outcome. A task scores its points times
the fraction of its tests that passed. A crash, a timeout or a package that does not import
costs only the tests it touches, and the output says what broke.

Results: a table on stdout and a Gradescope ``results.json`` (``score``, ``output`` and one
entry per task under ``tests`` with ``name``, ``number``, ``score``, ``max_score``,
``status``, ``output`` and ``visibility``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Optional

from .tasks import Task, load_tasks, step_of

PLUGIN_MODULE = "minitorch_grading_plugin"
#: seconds one task's test process may run before it is stopped
DEFAULT_TIMEOUT = 600
#: characters of a task's failure output kept in results.json
MAX_TASK_OUTPUT = 6000
#: failing tests listed with their traceback per task (the rest by name)
SHOWN_FAILURES = 3
HIDDEN_TESTS_DIR = "tests/hidden"
#: what the workspace takes from the course (the grader's side) and from the submission
COURSE_PARTS = ("tests", "pyproject.toml")
SUBMISSION_PARTS = ("minitorch",)
#: what a workspace copy leaves behind
IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache", ".hypothesis")
POINTS_DIGITS = 2


@dataclass
class TestOutcome:
    nodeid: str
    status: str  # passed, failed, skipped or "not run"
    hidden: bool = False
    exception: Optional[str] = None
    message: str = ""
    output: str = ""


@dataclass
class TaskResult:
    task: Task
    outcomes: list[TestOutcome] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # collection errors, crashes, timeouts

    @property
    def passed(self) -> int:
        return sum(o.status == "passed" for o in self.outcomes)

    @property
    def total(self) -> int:
        return len(self.outcomes)

    @property
    def score(self) -> float:
        if self.total == 0:
            return 0.0
        return round(self.task.points * self.passed / self.total, POINTS_DIGITS)

    def output(self) -> str:
        lines = [f"{self.passed}/{self.total} tests passed"]
        lines.extend(self.problems)
        failed = [o for o in self.outcomes if o.status != "passed"]
        for outcome in failed:
            name = "a hidden test" if outcome.hidden else outcome.nodeid
            detail = f"{outcome.exception}: {outcome.message}" if outcome.exception else outcome.message
            lines.append(f"- {outcome.status}: {name}" + (f" ({detail.splitlines()[0][:200]})" if detail and not outcome.hidden else ""))
        shown = [o for o in failed if o.output and not o.hidden][:SHOWN_FAILURES]
        for outcome in shown:
            lines.append(f"\n==== {outcome.nodeid}\n{outcome.output}")
        text = "\n".join(lines)
        return text if len(text) <= MAX_TASK_OUTPUT else text[: MAX_TASK_OUTPUT - 4] + "\n..."


# ---------------------------------------------------------------------- running


def plugin_dir() -> Path:
    """A folder holding the plugin as a top-level module, importable without minitorch."""
    folder = Path(tempfile.mkdtemp(prefix="minitorch-grading-"))
    shutil.copy(Path(__file__).with_name("grading_plugin.py"), folder / f"{PLUGIN_MODULE}.py")
    return folder


def pytest_environment(workspace: Path, plugins: Path, extra: Optional[dict[str, str]] = None) -> dict[str, str]:
    """The environment of a test process: the workspace's package first, its own Numba cache."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(plugins), str(workspace)])
    env.setdefault("NUMBA_CACHE_DIR", str(workspace / ".numba-cache"))
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.update(extra or {})
    return env


def run_pytest(
    workspace: Path,
    targets: Iterable[str],
    report: Path,
    tasks: Iterable[str] = (),
    backends: Iterable[str] = (),
    timeout: float = DEFAULT_TIMEOUT,
    env: Optional[dict[str, str]] = None,
    extra_args: Iterable[str] = (),
) -> tuple[Optional[int], str]:
    """Run pytest on ``targets`` inside ``workspace`` with the grading plugin writing ``report``.

    Returns the exit code (None after a timeout) and the tail of the process's output.
    """
    plugins = plugin_dir()
    command = [
        sys.executable, "-m", "pytest", "-p", PLUGIN_MODULE, "--grading-report", str(report),
        "-q", "--no-header", "-p", "no:cacheprovider", "-p", "no:randomly", "--tb=short",
        *[f"--grading-task={t}" for t in tasks], *[f"--grading-backend={b}" for b in backends],
        *extra_args, *targets,
    ]
    try:
        done = subprocess.run(
            command, cwd=workspace, env=pytest_environment(workspace, plugins, env),
            capture_output=True, text=True, timeout=timeout,
        )
        return done.returncode, (done.stdout + done.stderr)[-MAX_TASK_OUTPUT:]
    except subprocess.TimeoutExpired as expired:
        output = expired.stdout or ""
        text = output.decode(errors="replace") if isinstance(output, bytes) else output
        return None, text[-MAX_TASK_OUTPUT:]
    finally:
        shutil.rmtree(plugins, ignore_errors=True)


def read_report(report: Path) -> tuple[dict[str, TestOutcome], list[str]]:
    """The outcomes recorded in a plugin report (tests without a result are 'not run')."""
    outcomes: dict[str, TestOutcome] = {}
    errors: list[str] = []
    if not report.exists():
        return outcomes, errors
    for line in report.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if record["kind"] == "collected":
            outcomes[record["nodeid"]] = TestOutcome(record["nodeid"], "not run", hidden=record["hidden"])
        elif record["kind"] == "error":
            errors.append(f"could not collect {record['nodeid']}:\n{record['output']}")
        elif record["kind"] == "result" and record["nodeid"] in outcomes:
            outcome = outcomes[record["nodeid"]]
            if outcome.status == "failed":
                continue  # a teardown error after a failure: keep the first failure
            outcome.status = record["status"]
            outcome.exception = record["exception"]
            outcome.message = record["message"]
            outcome.output = record["output"]
    return outcomes, errors


def build_workspace(course_root: Path, submission: Path, workspace: Path) -> Path:
    """Copy the submission's package and the course's tests into ``workspace`` (replaced)."""
    if not (submission / "minitorch").is_dir():
        raise FileNotFoundError(f"{submission} holds no minitorch/ package to grade")
    workspace.mkdir(parents=True, exist_ok=True)
    for part, source in [(p, course_root) for p in COURSE_PARTS] + [(p, submission) for p in SUBMISSION_PARTS]:
        target = workspace / part
        if target.is_dir():
            shutil.rmtree(target)
        elif target.exists():
            target.unlink()
        if (source / part).is_dir():
            shutil.copytree(source / part, target, ignore=IGNORED, copy_function=shutil.copy2)
        elif (source / part).exists():
            shutil.copy2(source / part, target)
    return workspace


def import_check(workspace: Path) -> Optional[str]:
    """None when ``import minitorch`` works in the workspace, else the traceback's tail."""
    plugins = plugin_dir()
    try:
        done = subprocess.run(
            [sys.executable, "-c", "import minitorch"], cwd=workspace,
            env=pytest_environment(workspace, plugins), capture_output=True, text=True, timeout=DEFAULT_TIMEOUT,
        )
    finally:
        shutil.rmtree(plugins, ignore_errors=True)
    return None if done.returncode == 0 else done.stderr[-MAX_TASK_OUTPUT:]


def grade_task(workspace: Path, task: Task, timeout: float = DEFAULT_TIMEOUT) -> TaskResult:
    """Run one task's tests (its listed files and the hidden tests) in a fresh process."""
    result = TaskResult(task)
    targets = [t for t in task.tests if (workspace / t).exists()]
    result.problems.extend(f"test file {t} is missing" for t in task.tests if t not in targets)
    if (workspace / HIDDEN_TESTS_DIR).is_dir():
        targets.append(HIDDEN_TESTS_DIR)
    if not targets:
        result.problems.append("no test file to run")
        return result
    with tempfile.TemporaryDirectory(prefix="minitorch-grade-") as scratch:
        report = Path(scratch, "report.jsonl")
        code, tail = run_pytest(workspace, targets, report, tasks=[task.id], timeout=timeout)
        outcomes, errors = read_report(report)
    result.outcomes = list(outcomes.values())
    result.problems.extend(errors)
    if code is None:
        result.problems.append(f"the tests were stopped after {timeout:g} s (an endless loop?)")
    elif code not in (0, 1, 5) or (code == 1 and not outcomes and not errors):
        # 5 = nothing collected; anything else beyond 1 is a crash or a usage error
        result.problems.append(f"pytest ended with exit code {code}:\n{tail}")
    if not result.outcomes and not result.problems:
        result.problems.append("no test of this task was collected")
    return result


def grade(
    course_root: Path | str,
    submission: Path | str,
    steps: Optional[Iterable[int]] = None,
    task_ids: Optional[Iterable[str]] = None,
    workspace: Optional[Path | str] = None,
    timeout: float = DEFAULT_TIMEOUT,
) -> tuple[list[TaskResult], Optional[str]]:
    """Grade ``submission`` against the course at ``course_root``.

    Returns the per-task results and, when the package fails to import, its traceback.
    """
    course_root, submission = Path(course_root).resolve(), Path(submission).resolve()
    tasks = list(load_tasks(course_root).values())
    if steps is not None:
        chosen_steps = set(steps)
        tasks = [t for t in tasks if step_of(t.id) in chosen_steps]
    if task_ids is not None:
        chosen = set(task_ids)
        unknown = chosen - {t.id for t in load_tasks(course_root).values()}
        if unknown:
            raise ValueError(f"unknown task ids: {', '.join(sorted(unknown))}")
        tasks = [t for t in tasks if t.id in chosen]
    owned = workspace is None
    folder = Path(tempfile.mkdtemp(prefix="minitorch-workspace-")) if owned else Path(workspace).resolve()
    try:
        build_workspace(course_root, submission, folder)
        broken = import_check(folder)
        results = []
        for task in tasks:
            result = grade_task(folder, task, timeout)
            if broken:
                result.problems.insert(0, "the package does not import (see the top of the output)")
            results.append(result)
        return results, broken
    finally:
        if owned:
            shutil.rmtree(folder, ignore_errors=True)


# ---------------------------------------------------------------------- reporting


def table(results: list[TaskResult]) -> str:
    """The per-task table printed after grading."""
    width = max([len(r.task.title) for r in results] + [len("title")])
    width = min(width, 60)
    lines = [f"{'task':<6}{'title':<{width}}  {'passed':>8}  {'failed':>6}  {'points':>13}"]
    for r in results:
        title = r.task.title if len(r.task.title) <= width else r.task.title[: width - 1] + "…"
        failed = r.total - r.passed
        lines.append(
            f"{r.task.id:<6}{title:<{width}}  {f'{r.passed}/{r.total}':>8}  {failed:>6}  {f'{r.score:g}/{r.task.points:g}':>13}"
        )
    score = sum(r.score for r in results)
    maximum = sum(r.task.points for r in results)
    lines.append(f"{'total':<6}{'':<{width}}  {'':>8}  {'':>6}  {f'{round(score, POINTS_DIGITS):g}/{maximum:g}':>13}")
    return "\n".join(lines)


def gradescope_results(results: list[TaskResult], broken: Optional[str]) -> dict:
    """The ``results.json`` Gradescope reads."""
    output = "Graded task by task; each task scores its points times the fraction of its tests passed."
    if broken:
        output = "The package failed to import, so most tests could not run:\n" + broken
    return {
        "score": round(sum(r.score for r in results), POINTS_DIGITS),
        "output": output,
        "visibility": "visible",
        "stdout_visibility": "visible",
        "tests": [
            {
                "name": f"Task {r.task.id}: {r.task.title}",
                "number": r.task.id,
                "score": r.score,
                "max_score": r.task.points,
                "status": "passed" if r.total and r.passed == r.total else "failed",
                "output": r.output(),
                "visibility": "visible",
            }
            for r in results
        ],
    }


def write_results(results: list[TaskResult], broken: Optional[str], path: Path | str) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(gradescope_results(results, broken), indent=2) + "\n", encoding="utf-8")

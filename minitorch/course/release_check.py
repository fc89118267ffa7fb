"""``minitorch course release-check --step N``: is the release of step N fit to hand out?

It writes the release of step ``N`` and checks, each a ✓/✗ line:

(a) every task of step ``N`` fails on its own stub, and every failing test fails with a
    stub's ``NotImplementedError`` and nothing else (the integrity probe of :mod:`.probe`:
    in place for plain Python, on the release for Numba kernels);
(b) the release imports (``python -c "import minitorch"`` inside it);
(c) the step's notebook runs under nbval in the release (exercise cells print "not
    implemented yet", see :mod:`.release_notebooks`);
(d) the reference, a solved copy, scores full points on the step, graded as a student's
    submission is (:func:`.autograde.grade` with the stub calibration of :mod:`.calibration`).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

from .autograde import grade
from .calibration import passing_on_stubs, remote_ready
from .release import release
from .tasks import load_tasks, step_of

#: parametrizations of each test function the probe runs (as the integrity tests do)
PROBE_PER_TEST = 3
#: seconds allowed to each check's child process
DEFAULT_TIMEOUT = 900.0
#: the failing tests named in a ✗ line
SHOWN_PROBLEMS = 5
NBVAL_OPTIONS = ("--nbval", "--nbval-current-env", "--nbval-sanitize-with", "notebooks/nbval-sanitize.cfg")


@dataclass
class Check:
    """One check's verdict, what it found and how long it took."""

    label: str
    ok: bool
    detail: str = ""
    seconds: float = 0.0

    def line(self) -> str:
        mark = "✓" if self.ok else "✗"
        detail = f": {self.detail}" if self.detail else ""
        return f"{mark} {self.label} ({self.seconds:.0f} s){detail}"


def from_stub(message: str, task_id: str) -> bool:
    """Whether a failure's message is the ``NotImplementedError`` of ``task_id``'s stub (also
    when a test's ``pytest.raises(RuntimeError, match=...)`` caught it: NotImplementedError is a
    RuntimeError, and pytest then reports the stub's text as the actual message)."""
    stub = f"Task {task_id}:"
    return message.startswith(f"NotImplementedError: {stub}") or f"Actual message: '{stub}" in message


def judge_probe_report(report: Path, task_ids: list[str], stubbed: list[str]) -> tuple[list[str], list[str]]:
    """From a probe report: the failures no stub of ``stubbed`` explains, and the tasks of
    ``task_ids`` whose own stub fails none of their tests."""
    own: dict[str, int] = defaultdict(int)
    wrong: list[str] = []
    for line in report.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if record["kind"] != "result" or record["status"] != "failed":
            continue
        if from_stub(record["message"], record["task"]):
            own[record["task"]] += 1
        elif not any(from_stub(record["message"], t) for t in stubbed):
            wrong.append(f"{record['nodeid']} ({record['when']}): {record['message'][:300]}")
    return wrong, [t for t in task_ids if not own[t]]


def release_env(folder: Path, cpu_backend: Optional[str] = None) -> dict[str, str]:
    """The environment of a process that must import the release's ``minitorch``, not the
    reference's (``cpu_backend``: the ``MINITORCH_CPU_BACKEND`` to set, if any)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(folder)
    env["NUMBA_CACHE_DIR"] = str(folder / ".numba-cache")
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    if cpu_backend is not None:
        env["MINITORCH_CPU_BACKEND"] = cpu_backend
    return env


def _run(command: list[str], folder: Path, timeout: float, cpu_backend: Optional[str] = None) -> subprocess.CompletedProcess:
    env = release_env(folder, cpu_backend)
    return subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True, timeout=timeout)


def _tail(text: str, lines: int = 5) -> str:
    return " | ".join(line for line in text.strip().splitlines()[-lines:])


def probe_command(report: Path, task_ids: list[str], targets: list[str], *extra: str) -> list[str]:
    """The pytest command running the integrity probe on ``targets`` for ``task_ids``."""
    return [
        sys.executable, "-m", "pytest", "-p", "minitorch.course.probe", "--probe-report", str(report),
        f"--probe-per-test={PROBE_PER_TEST}", "-q", "--tb=no", "-rN", "-p", "no:randomly", "-p", "no:cacheprovider",
        *[f"--probe-task={t}" for t in task_ids], *extra, *targets,
    ]


def _probe(folder: Path, task_ids: list[str], targets: list[str], stubbed: list[str], timeout: float,
           *extra: str) -> list[str]:
    """Run the probe in ``folder`` and judge it: the problems found (none when all is well)."""
    with tempfile.TemporaryDirectory(prefix="minitorch-release-check-") as scratch:
        report = Path(scratch, "probe.jsonl")
        # the simple backend, as the integrity tests probe: a kernel task's tests choose their backend
        done = _run(probe_command(report, task_ids, targets, *extra), folder, timeout, cpu_backend="simple")
        if done.returncode not in (0, 1) or not report.is_file():
            return [f"pytest could not run: {_tail(done.stdout + done.stderr)}"]
        wrong, silent = judge_probe_report(report, task_ids, stubbed)
    problems = [f"tasks whose stub fails none of their tests: {', '.join(silent)}"] if silent else []
    if wrong:
        problems.append(f"{len(wrong)} tests fail otherwise than with a stub's NotImplementedError: "
                        + "; ".join(wrong[:SHOWN_PROBLEMS]))
    return problems


def check_stubs(course_root: Path, folder: Path, step: int, timeout: float) -> Check:
    """(a) each task of ``step`` fails on its own stub, and only ever on stubs.

    As the integrity tests do: a task in plain Python is probed on the reference with its own
    stub swapped in and no other (in a release, a later task's tests may stop at an earlier
    task's stub first); a task in Numba kernels, which cannot be swapped, on the release itself.
    """
    from .probe import plan_swaps  # imports pytest: only when probing

    tasks = load_tasks(course_root)
    task_ids = [t for t in tasks if step_of(t) == step]
    swaps, unswappable = plan_swaps(course_root, set(task_ids))
    in_place = [t for t in task_ids if swaps[t] and t not in unswappable]
    in_release = [t for t in task_ids if t not in in_place]
    problems: list[str] = []
    for chosen, where, stubbed, extra in (
        (in_place, course_root, [], ("--probe-backend=simple",)),
        (in_release, folder, [t for t in tasks if step_of(t) >= step], ("--probe-release",)),
    ):
        targets = sorted({f for t in chosen for f in tasks[t].tests if (where / f).exists()})
        if chosen:
            problems += _probe(where, chosen, targets, stubbed, timeout, *extra)
    where = (f"{', '.join(in_place)} probed in place" if in_place else "") + ("; " if in_place and in_release else "") + (
        f"{', '.join(in_release)} on the release" if in_release else "")
    return Check("", not problems, "; ".join(problems) or where)


def check_import(folder: Path, timeout: float) -> Check:
    """(b) the release's package imports, from the release itself."""
    script = f"import minitorch; assert minitorch.__file__.startswith({str(folder.resolve())!r}), minitorch.__file__"
    done = _run([sys.executable, "-c", script], folder, timeout)
    return Check("", done.returncode == 0, _tail(done.stderr) if done.returncode else "")


def step_notebooks(folder: Path, step: int) -> list[str]:
    """The notebooks of ``step`` in the release: ``notebooks/NN*.ipynb`` (``09_training``, ``09b_...``)."""
    return sorted(p.relative_to(folder).as_posix() for p in (folder / "notebooks").glob(f"{step:02d}*.ipynb"))


def check_notebooks(folder: Path, step: int, timeout: float) -> Check:
    """(c) the step's notebooks pass nbval in the release."""
    notebooks = step_notebooks(folder, step)
    if not notebooks:
        return Check("", False, f"no notebooks/{step:02d}*.ipynb in the release")
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *NBVAL_OPTIONS, *notebooks]
    done = _run(command, folder, timeout)
    return Check("", done.returncode == 0, ", ".join(notebooks) + ("" if done.returncode == 0 else f": {_tail(done.stdout)}"))


def check_full_points(course_root: Path, step: int, timeout: float) -> Check:
    """(d) the reference, graded like a submission, scores every point of ``step``."""
    tasks = [t for t in load_tasks(course_root).values() if step_of(t.id) == step]
    unscored = passing_on_stubs(course_root, tasks, timeout)
    remote = remote_ready(course_root, tasks, timeout)
    results, broken = grade(course_root, course_root, steps=[step], timeout=timeout, unscored=unscored, remote_tasks=remote)
    if broken:
        return Check("", False, broken.splitlines()[0])
    short = [f"{r.task.id} {r.score:g}/{r.task.points:g}" for r in results if r.score != r.task.points or not r.total]
    score, maximum = sum(r.score for r in results), sum(r.task.points for r in results)
    return Check("", not short, f"{score:g}/{maximum:g}" + (f"; short: {', '.join(short)}" if short else ""))


#: the checks in order: label and how to run it on (course root, release folder, step, timeout)
CHECKS: tuple[tuple[str, Callable[[Path, Path, int, float], Check]], ...] = (
    ("(a) each task of the step fails only on its own stub", lambda root, folder, step, t: check_stubs(root, folder, step, t)),
    ("(b) the release imports", lambda root, folder, step, t: check_import(folder, t)),
    ("(c) the step's notebooks run under nbval in the release", lambda root, folder, step, t: check_notebooks(folder, step, t)),
    ("(d) a solved copy scores full points", lambda root, folder, step, t: check_full_points(root, step, t)),
)


def release_check(course_root: Path | str, step: int, out: Optional[Path | str] = None, timeout: float = DEFAULT_TIMEOUT,
                  show: Callable[[str], None] = print) -> list[Check]:
    """Write the release of ``step`` to ``out`` (a temporary folder when None) and run every check,
    showing each line as it is decided."""
    course_root = Path(course_root).resolve()
    if step not in {step_of(t) for t in load_tasks(course_root)}:
        raise ValueError(f"no task of step {step} in {course_root / 'assignments'}")
    with tempfile.TemporaryDirectory(prefix="minitorch-release-check-") as scratch:
        folder = Path(out).resolve() if out is not None else Path(scratch, "release")
        release(course_root, step, folder)
        show(f"release of step {step} written to {folder}")
        checks = []
        for label, run_check in CHECKS:
            started = time.perf_counter()
            try:
                check = run_check(course_root, folder, step, timeout)
            except subprocess.TimeoutExpired:
                check = Check("", False, f"timed out after {timeout:g} s")
            check.label, check.seconds = label, time.perf_counter() - started
            show(check.line())
            checks.append(check)
    return checks


__all__ = ["Check", "from_stub", "judge_probe_report", "probe_command", "release_check"]

"""Score a copy of minitorch task by task.

For a submission (a folder holding a ``minitorch/`` package, checked by
:func:`find_package`) every run gets a fresh workspace: a copy of the submission's package
next to the course's own tests and ``pyproject.toml``, which stay the grader's files. The
import check, then each task's tests, then (apart, never shown) each task's hidden tests
run in a fresh ``python -m pytest`` process inside a :class:`~.sandbox.Sandbox`, with a
small plugin (:mod:`.grading_plugin`) that records every test's outcome. A task scores its
points times the fraction of its scored tests (those failing on its stub, see
:mod:`.calibration`) that passed. A crash, a timeout or a package that does not import
costs only the tests it touches, and the output says what broke in one sentence.

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

from .sandbox import Sandbox, installed_sources, read_tail
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
#: bytes of a plugin report read back (a larger one is cut: the rest counts as not run)
MAX_REPORT_BYTES = 32 * 1024 * 1024
#: where the grading plugin and the report live inside a sandbox workspace
GRADING_DIR = ".grading"
REPORT_NAME = "report.jsonl"
#: the package folder of a submission and the file that makes it a package
PACKAGE = "minitorch"
PACKAGE_INIT = "__init__.py"
NUMBA_CACHE = ".numba-cache"
PYTEST_OPTIONS = ("-q", "--no-header", "-p", "no:cacheprovider", "-p", "no:randomly", "--tb=short")
#: the remote-object package as the sandbox and the trusted test process import it
REMOTE_PACKAGE = "minitorch_remote"
REMOTE_PLUGIN = f"{REMOTE_PACKAGE}.plugin"
REMOTE_WORKER = f"{REMOTE_PACKAGE}.worker"
#: where the trusted test process of a remote run lives, inside the grader's own folder
TRUSTED_DIR = "trusted"


@dataclass
class TestOutcome:
    nodeid: str
    status: str  # passed, failed, skipped or "not run"
    hidden: bool = False
    exception: Optional[str] = None
    message: str = ""
    output: str = ""
    task: str = ""  # the task id of its marker

    def detail(self) -> str:
        """``Exception: message`` of a failure (the message alone when no exception was recorded)."""
        return f"{self.exception}: {self.message}" if self.exception else self.message


@dataclass
class TaskResult:
    task: Task
    outcomes: list[TestOutcome] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # collection errors, crashes, timeouts
    unscored: set[str] = field(default_factory=set)  # node ids that pass on the task's stub

    @property
    def scored(self) -> list[TestOutcome]:
        """The outcomes that carry points: tests that fail on the task's stub."""
        return [o for o in self.outcomes if o.nodeid not in self.unscored]

    @property
    def passed(self) -> int:
        return sum(o.status == "passed" for o in self.scored)

    @property
    def total(self) -> int:
        return len(self.scored)

    @property
    def score(self) -> float:
        if self.total == 0:
            return 0.0
        return round(self.task.points * self.passed / self.total, POINTS_DIGITS)

    def output(self) -> str:
        lines = [f"{self.passed}/{self.total} tests passed"]
        free = len(self.outcomes) - len(self.scored)
        if free:
            lines.append(f"({free} more tests pass without any code written and carry no points)")
        lines.extend(self.problems)
        failed = [o for o in self.scored if o.status != "passed"]
        for outcome in failed:
            name = "a hidden test" if outcome.hidden else outcome.nodeid
            detail = outcome.detail()
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
    """The outcomes recorded in a plugin report (tests without a result are 'not run').

    A line that is not a well-formed record is skipped and noted, never fatal."""
    outcomes: dict[str, TestOutcome] = {}
    errors: list[str] = []
    if not report.is_file():
        return outcomes, errors
    malformed = 0
    for line in report.read_bytes()[:MAX_REPORT_BYTES].decode("utf-8", errors="replace").splitlines():
        try:
            record = json.loads(line)
            kind, nodeid = record["kind"], str(record["nodeid"])
        except (ValueError, KeyError, TypeError):
            malformed += 1
            continue
        if kind == "collected":
            outcomes[nodeid] = TestOutcome(nodeid, "not run", hidden=bool(record.get("hidden")),
                                           task=str(record.get("task") or ""))
        elif kind == "error":
            errors.append(f"could not collect {nodeid}:\n{record.get('output', '')}")
        elif kind == "result" and nodeid in outcomes:
            outcome = outcomes[nodeid]
            if outcome.status == "failed":
                continue  # a teardown error after a failure: keep the first failure
            status = record.get("status")
            outcome.status = status if status in ("passed", "failed", "skipped") else "failed"
            outcome.exception = record.get("exception") if isinstance(record.get("exception"), str) else None
            outcome.message = str(record.get("message", ""))
            outcome.output = str(record.get("output", ""))
    if malformed:
        errors.append(f"{malformed} line(s) of the test report were not valid records and were ignored")
    return outcomes, errors


class SubmissionError(ValueError):
    """A submission that cannot be graded at all; its message is one sentence for the student."""


def find_package(submission: Path) -> Path:
    """The submission's ``minitorch/`` folder, checked: a real folder with ``__init__.py`` and no links.

    A submission uploaded as one enclosing folder (``repo/minitorch/``) is accepted too."""
    if not submission.is_dir():
        raise SubmissionError(f"The submission {submission.name!r} is not a folder.")
    package = submission / PACKAGE
    if not package.exists() and not package.is_symlink():
        inner = [d for d in submission.iterdir() if d.is_dir() and not d.is_symlink() and (d / PACKAGE).is_dir()]
        if len(inner) == 1:
            package = inner[0] / PACKAGE
        else:
            found = ", ".join(sorted(p.name for p in submission.iterdir())[:10]) or "nothing"
            raise SubmissionError(
                f"The submission has no minitorch/ folder at its top level (it holds: {found}); upload the minitorch/ package folder."
            )
    if package.is_symlink() or not package.is_dir():
        raise SubmissionError("The submission's minitorch/ must be a plain folder, not a link or a file.")
    for folder, dirs, files in os.walk(package):
        for name in dirs + files:
            if Path(folder, name).is_symlink():
                relative = Path(folder, name).relative_to(package.parent)
                raise SubmissionError(f"The submission contains a symbolic link ({relative}); upload plain files only.")
    if not (package / PACKAGE_INIT).is_file():
        raise SubmissionError("The submission's minitorch/ folder has no __init__.py, so it is not a Python package.")
    if all(f.stat().st_size == 0 for f in package.rglob("*.py")):
        raise SubmissionError("The submission's minitorch/ package is empty: it holds no Python code.")
    return package


def _fresh_folder(folder: Path) -> None:
    """``folder``, emptied: a reused folder is never trusted."""
    if folder.is_symlink() or folder.is_file():
        folder.unlink()
    elif folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)


def _copy_course_tests(course_root: Path, folder: Path, hidden: bool) -> None:
    skip_hidden = shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache", ".hypothesis", "hidden")
    shutil.copytree(course_root / "tests", folder / "tests", ignore=IGNORED if hidden else skip_hidden, symlinks=False)
    if (course_root / "pyproject.toml").is_file():
        shutil.copy(course_root / "pyproject.toml", folder / "pyproject.toml")


def _copy_grading_code(folder: Path) -> None:
    """The grading plugin and the remote-object package, as top-level modules of ``folder``."""
    folder.mkdir()
    shutil.copy(Path(__file__).with_name("grading_plugin.py"), folder / f"{PLUGIN_MODULE}.py")
    shutil.copytree(Path(__file__).with_name("remote"), folder / REMOTE_PACKAGE, ignore=IGNORED)


def build_workspace(course_root: Path, package: Path, workspace: Path, hidden: bool = False, tests: bool = True) -> Path:
    """A fresh ``workspace``: a copy of the submission's package, the course's tests (the
    hidden ones only when ``hidden``; none without ``tests``), ``pyproject.toml``, the
    grading plugin and the remote-object package.

    Anything already in ``workspace`` is removed first: a reused folder is never trusted."""
    _fresh_folder(workspace)
    if tests:
        _copy_course_tests(course_root, workspace, hidden)
    shutil.copytree(package, workspace / PACKAGE, ignore=IGNORED, symlinks=True)
    _copy_grading_code(workspace / GRADING_DIR)
    return workspace


def build_trusted_folder(course_root: Path, folder: Path, hidden: bool, course_package: bool = False) -> Path:
    """A fresh folder, readable by the grader alone, for the trusted test process of a
    remote run: the course's tests, ``pyproject.toml``, the grading code, and with
    ``course_package`` the course's own minitorch (whose proxied modules the worker answers)."""
    _fresh_folder(folder)
    os.chmod(folder, 0o700)
    _copy_course_tests(course_root, folder, hidden)
    _copy_grading_code(folder / GRADING_DIR)
    if course_package:
        shutil.copytree(course_root / PACKAGE, folder / PACKAGE, ignore=IGNORED, symlinks=False)
    return folder


def sandbox_env(workspace: Path, numba_cache: Path) -> dict[str, str]:
    """What a graded process adds to the scrubbed environment: the plugin and the package on
    its path, and the grading's Numba cache."""
    return {
        "PYTHONPATH": os.pathsep.join([str(workspace / GRADING_DIR), str(workspace)]),
        "NUMBA_CACHE_DIR": str(numba_cache),
    }


def hidden_from_graded_code(course_root: Path) -> list[Path]:
    """Folders graded code must not see: the course and where the installed minitorch lives."""
    return [course_root, *installed_sources()]


@dataclass
class Grading:
    """One submission's grading: the course, the package, and the folder its runs use."""

    course_root: Path
    package: Path
    base: Path  # grader-owned; holds the logs and the sandbox workspace
    timeout: float

    remote_tasks: frozenset[str] = frozenset()  # task ids whose tests run remotely (see :meth:`remote_pytest`)

    def __post_init__(self) -> None:
        self.base.mkdir(parents=True, exist_ok=True)
        os.chmod(self.base, 0o711)
        self.workspace = self.base / "box"
        self.logs = self.base / "logs"
        self.logs.mkdir(exist_ok=True)
        os.chmod(self.logs, 0o700)
        self.sandbox = Sandbox.create(self.workspace, hidden_from_graded_code(self.course_root))
        self.sandbox.writable = (".home", ".tmp", PACKAGE, GRADING_DIR)
        # one Numba cache for all runs of this submission (the workspace path stays the same,
        # so kernels compile once); never shared with another grading, which it could poison
        self.numba_cache = self.base / NUMBA_CACHE
        self.numba_cache.mkdir(exist_ok=True)
        if self.sandbox.user is not None:
            os.chown(self.numba_cache, self.sandbox.user.pw_uid, self.sandbox.user.pw_gid)
        self.runs = 0

    def run(self, argv: list[str], hidden: bool = False) -> tuple[Optional[int], str, Path]:
        """Run ``argv`` (after the interpreter) on a fresh workspace; exit code, output tail, report."""
        build_workspace(self.course_root, self.package, self.workspace, hidden=hidden)
        self.sandbox.extra_env = sandbox_env(self.workspace, self.numba_cache)
        self.runs += 1
        log = self.logs / f"run{self.runs}.log"
        done = self.sandbox.run([self.sandbox.interpreter(), *argv], self.timeout, log)
        report = self.logs / f"run{self.runs}.jsonl"
        produced = self.workspace / GRADING_DIR / REPORT_NAME
        if produced.is_file() and not produced.is_symlink():
            with open(produced, "rb") as source, open(report, "wb") as target:
                target.write(source.read(MAX_REPORT_BYTES))
        return done.returncode, done.output, report

    def import_error(self) -> Optional[str]:
        """None when ``import minitorch`` works in the sandbox, else what went wrong."""
        code, tail, _ = self.run(["-c", f"import {PACKAGE}"])
        if code is None:
            return f"importing minitorch did not finish within {self.timeout:g} s (an endless loop or a wait at import time?)"
        return None if code == 0 else tail[-MAX_TASK_OUTPUT:] or f"importing minitorch ended with exit code {code}"

    def pytest(self, targets: list[str], task: Task, hidden: bool) -> tuple[Optional[int], str, Path]:
        if task.id in self.remote_tasks:
            return self.remote_pytest(targets, task, hidden)
        report = self.workspace / GRADING_DIR / REPORT_NAME
        return self.run(
            ["-m", "pytest", "-p", PLUGIN_MODULE, "--grading-report", str(report), *PYTEST_OPTIONS,
             f"--grading-task={task.id}", *targets],
            hidden=hidden,
        )


    def remote_pytest(self, targets: list[str], task: Task, hidden: bool) -> tuple[Optional[int], str, Path]:
        """Run ``targets`` in a trusted process of the grader whose ``minitorch`` is a proxy of
        a sandboxed worker importing the submission (see :mod:`.remote`): the outcomes are
        recorded where graded code never runs. Exit code of the tests, output tail, report."""
        build_workspace(self.course_root, self.package, self.workspace, tests=False)
        boundary = task.proxied_modules()
        trusted = build_trusted_folder(self.course_root, self.base / TRUSTED_DIR, hidden, course_package=bool(boundary))
        self.runs += 1
        report = self.logs / f"run{self.runs}.jsonl"
        trusted_log = self.logs / f"run{self.runs}-tests.log"
        worker_reads, trusted_writes = os.pipe()
        trusted_reads, worker_writes = os.pipe()
        open_fds = {worker_reads, trusted_writes, trusted_reads, worker_writes}
        self.sandbox.extra_env = dict(
            sandbox_env(self.workspace, self.numba_cache), MINITORCH_REMOTE_FDS=f"{worker_reads},{worker_writes}",
            NUMBA_ENABLE_CUDASIM=os.environ.get("NUMBA_ENABLE_CUDASIM", "1"),
        )
        env = dict(
            os.environ, PYTHONPATH=str(trusted / GRADING_DIR), PYTHONDONTWRITEBYTECODE="1",
            MINITORCH_REMOTE_FDS=f"{trusted_reads},{trusted_writes}",
            MINITORCH_REMOTE_TIMEOUT=str(self.timeout),  # a first call may compile every kernel: no shorter limit
            NUMBA_ENABLE_CUDASIM=os.environ.get("NUMBA_ENABLE_CUDASIM", "1"),
        )
        if boundary:  # only these come from the worker; the rest is the course's own, on the trusted path
            env["MINITORCH_REMOTE_MODULES"] = ",".join(boundary)
            env["PYTHONPATH"] = os.pathsep.join([str(trusted / GRADING_DIR), str(trusted)])
        command = [sys.executable, "-m", "pytest", "-p", REMOTE_PLUGIN, "-p", PLUGIN_MODULE, "--grading-report", str(report),
                   *PYTEST_OPTIONS, f"--grading-task={task.id}", *targets]
        outcome: dict[str, Optional[int]] = {"code": None}

        def close(*fds: int) -> None:
            for fd in fds:
                if fd in open_fds:
                    open_fds.discard(fd)
                    os.close(fd)

        def drive() -> None:
            close(worker_reads, worker_writes)  # only the worker holds its ends now: its exit is an end of file
            with open(trusted_log, "wb") as out:
                try:
                    outcome["code"] = subprocess.run(
                        command, cwd=trusted, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                        pass_fds=(trusted_reads, trusted_writes), timeout=self.timeout,
                    ).returncode
                except subprocess.TimeoutExpired:
                    outcome["code"] = None

        try:
            self.sandbox.run([self.sandbox.interpreter(), "-m", REMOTE_WORKER], self.timeout, self.logs / f"run{self.runs}.log",
                             pass_fds=(worker_reads, worker_writes), driver=drive)
        finally:
            close(*list(open_fds))
            shutil.rmtree(trusted, ignore_errors=True)
        return outcome["code"], read_tail(trusted_log), report


def grade_task(grading: Grading, task: Task, broken: Optional[str]) -> TaskResult:
    """Run one task's listed test files in a fresh sandboxed process (the hidden tests come later)."""
    result = TaskResult(task)
    targets = [t for t in task.tests if (grading.course_root / t).exists() and not _is_hidden_path(t)]
    result.problems.extend(f"test file {t} is missing" for t in task.tests if not (grading.course_root / t).exists())
    if broken:
        result.problems.insert(0, "not run: the package does not import (see the top of the output)")
        return result
    if not targets:
        result.problems.append("no test file to run")
        return result
    code, tail, report = grading.pytest(targets, task, hidden=False)
    outcomes, errors = read_report(report)
    result.outcomes = list(outcomes.values())
    result.problems.extend(errors)
    result.problems.extend(_run_problems(code, tail, outcomes, errors, grading.timeout))
    if not result.outcomes and not result.problems:
        result.problems.append("no test of this task was collected")
    return result


def grade_hidden(grading: Grading, result: TaskResult) -> None:
    """Run the hidden tests of ``result``'s task and add their outcomes; nothing about them is shown."""
    if not (grading.course_root / HIDDEN_TESTS_DIR).is_dir():
        return
    code, tail, report = grading.pytest([HIDDEN_TESTS_DIR], result.task, hidden=True)
    outcomes, errors = read_report(report)
    for outcome in outcomes.values():
        outcome.hidden = True
        outcome.message = outcome.output = outcome.exception = ""
    result.outcomes.extend(outcomes.values())
    if errors or _run_problems(code, tail, outcomes, errors, grading.timeout):
        result.problems.append("the hidden tests of this task did not all run (a crash, a timeout or a collection error)")


def _is_hidden_path(path: str) -> bool:
    return path == HIDDEN_TESTS_DIR or path.startswith(HIDDEN_TESTS_DIR + "/")


def _run_problems(code: Optional[int], tail: str, outcomes: dict, errors: list, timeout: float) -> list[str]:
    if code is None:
        return [f"the tests were stopped after {timeout:g} s (an endless loop?)"]
    if code < 0 or code not in (0, 1, 5) or (code == 1 and not outcomes and not errors):
        # 5 = nothing collected; anything else beyond 1 is a crash, a signal or a usage error
        what = f"was killed by signal {-code} (out of memory or CPU time?)" if code < 0 else f"ended with exit code {code}"
        return [f"the test process {what}:\n{tail}"]
    return []


def choose_tasks(course_root: Path, steps: Optional[Iterable[int]], task_ids: Optional[Iterable[str]]) -> list[Task]:
    """The tasks to grade (all by default); ValueError for an unknown task id."""
    every = load_tasks(course_root)
    tasks = list(every.values())
    if steps is not None:
        chosen_steps = set(steps)
        tasks = [t for t in tasks if step_of(t.id) in chosen_steps]
    if task_ids is not None:
        chosen = set(task_ids)
        unknown = chosen - set(every)
        if unknown:
            raise ValueError(f"unknown task ids: {', '.join(sorted(unknown))}")
        tasks = [t for t in tasks if t.id in chosen]
    return tasks


def grade(
    course_root: Path | str,
    submission: Path | str,
    steps: Optional[Iterable[int]] = None,
    task_ids: Optional[Iterable[str]] = None,
    workspace: Optional[Path | str] = None,
    timeout: float = DEFAULT_TIMEOUT,
    unscored: Optional[dict[str, set[str]]] = None,
    remote_tasks: Optional[Iterable[str]] = None,
) -> tuple[list[TaskResult], Optional[str]]:
    """Grade ``submission`` against the course at ``course_root``.

    Returns the per-task results and, when the submission cannot run at all (a bad layout,
    a package that does not import), one message saying why. ``workspace`` is wiped first.
    ``unscored`` maps a task id to the node ids that carry no points (those passing on the
    task's stub, see :mod:`.calibration`). ``remote_tasks`` are the task ids whose tests run
    in a trusted process against a sandboxed worker (default: all of them; the CLI passes only
    those whose every test the reference passes that way, see :mod:`.calibration`).
    """
    course_root, submission = Path(course_root).resolve(), Path(submission).absolute()
    tasks = choose_tasks(course_root, steps, task_ids)
    try:
        package = find_package(submission)
    except SubmissionError as error:
        return [TaskResult(t, problems=["not run: " + str(error)]) for t in tasks], str(error)
    owned = workspace is None
    base = Path(tempfile.mkdtemp(prefix="minitorch-grading-")) if owned else Path(workspace).absolute()
    if not owned and base.exists():
        shutil.rmtree(base)  # a reused workspace is never trusted
    try:
        remote = {t.id for t in tasks} if remote_tasks is None else set(remote_tasks)
        grading = Grading(course_root, package, base, timeout, frozenset(remote))
        broken = grading.import_error()
        results = [grade_task(grading, task, broken) for task in tasks]
        for result in results:
            result.unscored = set((unscored or {}).get(result.task.id, ()))
        if not broken:
            for result in results:  # after every visible run: nothing they show can come from a hidden one
                grade_hidden(grading, result)
        if broken:
            broken = "The package failed to import, so no test could run:\n" + broken
        return results, broken
    finally:
        if owned:
            shutil.rmtree(base, ignore_errors=True)


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
        output = broken
    return {
        "score": round(sum(r.score for r in results), POINTS_DIGITS),
        "output": output,
        "visibility": "visible",
        "stdout_visibility": "hidden",  # the grader's log is for the instructor
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


def failure_results(message: str) -> dict:
    """A ``results.json`` for a run that could not grade anything (score 0, ``message`` shown)."""
    return {"score": 0, "output": message, "visibility": "visible", "stdout_visibility": "hidden", "tests": []}


def write_json(data: dict, path: Path | str) -> None:
    """Write ``data`` to ``path`` atomically (a rename), so a reader never sees half a file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    partial.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    os.replace(partial, path)


def write_results(results: list[TaskResult], broken: Optional[str], path: Path | str) -> None:
    write_json(gradescope_results(results, broken), path)

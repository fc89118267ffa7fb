"""Command line of the course tooling: ``python -m minitorch.course {student,grade,status,release-check,tasks}``.

:func:`add_subcommands` attaches the same subcommands to another ``argparse`` parser (the
``minitorch`` command), so both entry points share one definition.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Optional, Sequence

import traceback

from .autograde import DEFAULT_TIMEOUT, choose_tasks, failure_results, grade, table, write_json, write_results
from .calibration import passing_on_stubs, remote_ready
from .markers import MarkerError
from .release import is_student_release, release, summary
from .release_check import DEFAULT_TIMEOUT as RELEASE_CHECK_TIMEOUT, release_check
from .status import print_status
from .tasks import TaskFileError, task_table, update_table


#: the whole status run (every step's tests in one process) may take this long
STATUS_TIMEOUT = 1800.0


def _course_root(value: Optional[str]) -> Path:
    """The course repository: ``--root``, else the current folder (where the Makefile runs)."""
    return Path(value or ".").resolve()


def run_student(args: argparse.Namespace) -> int:
    root = _course_root(args.root)
    try:
        plan = release(root, args.step, args.out)
    except (MarkerError, TaskFileError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print(summary(plan, args.out))
    return 0


def run_grade(args: argparse.Namespace) -> int:
    root = _course_root(args.root)
    submission = Path(args.submission or root)
    try:
        tasks = choose_tasks(root, args.step or None, args.task or None)
        if is_student_release(root):
            # a student grading their own checkout: its code has no solutions to stub, so every
            # test counts here, and there is no reference to check the remote protocol with (nor
            # anything to protect): the tests run in-process; the course's grader does both
            print("grading a student release: every visible test counts here; the course's grader also runs "
                  "hidden tests and leaves out those that pass with nothing implemented")
            unscored: dict[str, set[str]] = {}
            remote: set[str] = set()
        else:
            unscored = passing_on_stubs(root, tasks, args.timeout)
            remote = remote_ready(root, tasks, args.timeout)
            for task in tasks:
                if task.id not in remote:
                    print(f"warning: task {task.id} is graded inside the sandbox's test process: the reference "
                          "does not pass all its tests remotely", file=sys.stderr)
        results, broken = grade(
            root, submission, steps=args.step or None, task_ids=args.task or None,
            workspace=args.workspace, timeout=args.timeout, unscored=unscored, remote_tasks=remote,
        )
    except (TaskFileError, ValueError) as error:  # the instructor's mistake: nothing was graded
        print(f"error: {error}", file=sys.stderr)
        return 1
    except Exception:  # a fault of the grader itself: the student still gets a results.json
        traceback.print_exc()
        write_json(failure_results("The autograder failed before it could grade this submission; please tell your instructor."), args.results)
        print(f"results written to {args.results}")
        return 1
    if broken:
        print(broken)
    print(table(results))
    write_results(results, broken, args.results)
    print(f"results written to {args.results}")
    return 0


def run_tasks(args: argparse.Namespace) -> int:
    root = _course_root(args.root)
    if args.update:
        changed = update_table(args.update, root)
        print(f"{args.update}: task table {'updated' if changed else 'already up to date'}")
    else:
        print(task_table(root))
    return 0


def run_status(args: argparse.Namespace) -> int:
    root = _course_root(args.root)
    try:
        return print_status(root, args.step or None, args.timeout, args.backend or (), args.task or None)
    except (TaskFileError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1


def run_release_check(args: argparse.Namespace) -> int:
    root = _course_root(args.root)
    try:
        checks = release_check(root, args.step, args.out, args.timeout)
    except (MarkerError, TaskFileError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    failed = [c for c in checks if not c.ok]
    print(f"release of step {args.step}: " + (f"{len(failed)} of {len(checks)} checks failed" if failed else "every check passed"))
    return 1 if failed else 0


def add_subcommands(subparsers: argparse._SubParsersAction) -> None:
    """Add ``student``, ``grade``, ``status``, ``release-check`` and ``tasks`` to ``subparsers``."""
    student = subparsers.add_parser("student", help="write a student release with the solutions of steps >= STEP stubbed")
    student.add_argument("--step", type=int, required=True, help="first step whose solutions are removed")
    student.add_argument("--out", required=True, help="folder to write the release to (empty, or an earlier release)")
    student.add_argument("--root", help="the course repository (default: the current folder)")
    student.set_defaults(handler=run_student)

    grader = subparsers.add_parser("grade", help="run the task-tagged tests against a copy of minitorch and score each task")
    grader.add_argument("--submission", help="folder holding the minitorch/ package to grade (default: the course itself)")
    grader.add_argument("--step", type=int, action="append", help="grade only this step (repeatable)")
    grader.add_argument("--task", action="append", help="grade only this task id (repeatable)")
    grader.add_argument("--results", default="results.json", help="where to write Gradescope's results.json")
    grader.add_argument("--workspace", help="folder for the grading copy (reused, so Numba's cache survives)")
    grader.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, help="seconds allowed per task")
    grader.add_argument("--root", help="the course repository with the tests (default: the current folder)")
    grader.set_defaults(handler=run_grade)

    status = subparsers.add_parser("status", help="run your code's task tests: each task's state, points and the next task")
    status.add_argument("--step", type=int, action="append", help="only this step (repeatable; default: every step)")
    status.add_argument("--timeout", type=float, default=STATUS_TIMEOUT, help="seconds allowed for the whole run")
    status.add_argument("--backend", action="append", help="only the tests of this backend (repeatable; e.g. cpu)")
    status.add_argument("--task", action="append", help="only this task id (repeatable)")
    status.add_argument("--root", help="the course checkout (default: the current folder)")
    status.set_defaults(handler=run_status)

    checker = subparsers.add_parser("release-check", help="write the release of STEP and check its stubs, import, notebooks and full points")
    checker.add_argument("--step", type=int, required=True, help="the step whose release is checked")
    checker.add_argument("--out", help="folder for the release (empty, or an earlier release; default: a temporary folder)")
    checker.add_argument("--timeout", type=float, default=RELEASE_CHECK_TIMEOUT, help="seconds allowed to each check's run")
    checker.add_argument("--root", help="the course repository (default: the current folder)")
    checker.set_defaults(handler=run_release_check)

    tasks = subparsers.add_parser("tasks", help="print the Markdown table of all tasks")
    tasks.add_argument("--update", metavar="FILE", help="rewrite the table inside FILE (between its task-table lines) instead")
    tasks.add_argument("--root", help="the course repository (default: the current folder)")
    tasks.set_defaults(handler=run_tasks)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``minitorch course ...`` subcommand's options: the same subcommands."""
    add_subcommands(parser.add_subparsers(required=True, metavar="{student,grade,status,release-check,tasks}"))


def run(args: argparse.Namespace) -> int:
    return args.handler(args)


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m minitorch.course", description=__doc__.splitlines()[0])
    add_subcommands(parser.add_subparsers(required=True, metavar="{student,grade,status,release-check,tasks}"))
    args = parser.parse_args(argv)
    return args.handler(args)


if __name__ == "__main__":
    sys.exit(main())

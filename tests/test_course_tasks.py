"""The task registry agrees with the code and the tests.

Every ``@pytest.mark.task`` id is defined in an ``assignments/*/tasks.toml``; every task has
tests, lives in the files it lists, and has solution code (a region or a notebook cell) for
the student release to stub; the instructors' README shows the current task table.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest

from minitorch.course.autograde import read_report, run_pytest
from minitorch.course.release import HIDDEN_TESTS_DIR, plan_release
from minitorch.course.tasks import TABLE_BEGIN, TABLE_END, TaskFileError, load_steps, load_tasks, read_step, task_table

ROOT = Path(__file__).resolve().parents[1]
#: seconds allowed to collect the whole suite
COLLECT_TIMEOUT = 300


@pytest.fixture(scope="module")
def tagged(tmp_path_factory: pytest.TempPathFactory) -> dict[str, set[str]]:
    """Task id -> the test files holding tests marked with it (collected by pytest itself)."""
    report = tmp_path_factory.mktemp("collect") / "report.jsonl"
    code, tail = run_pytest(ROOT, ["tests"], report, timeout=COLLECT_TIMEOUT, extra_args=["--collect-only"])
    _, errors = read_report(report)
    assert code == 0 and not errors, f"collection failed:\n{tail}\n{errors}"
    files: dict[str, set[str]] = defaultdict(set)
    for line in report.read_text().splitlines():
        record = json.loads(line)
        if record["kind"] == "collected" and record["task"] is not None:
            files[record["task"]].add(record["nodeid"].split("::")[0])
    return files


def test_task_files_are_well_formed() -> None:
    steps = load_steps(ROOT)
    assert [s.number for s in steps] == sorted({s.number for s in steps})
    assert {0, 1, 2} <= {s.number for s in steps}
    for step in steps:
        assert step.tasks, f"{step.directory} defines no task"
        assert (step.directory / "README.md").is_file(), f"{step.directory} has no README.md for students"
        for task in step.tasks:
            for name in task.files + task.tests + task.proxied:
                assert (ROOT / name).is_file(), f"task {task.id} lists {name}, which does not exist"


def test_bad_task_files_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "tasks.toml"
    path.write_text('step = 3\nname = "x"\n[[task]]\nid = "4.1"\ntitle = "t"\npoints = 5\n')
    with pytest.raises(TaskFileError, match="does not start with the step number 3"):
        read_step(path)
    path.write_text('step = 3\nname = "x"\n[[task]]\nid = "3.1"\ntitle = "t"\npoints = 0\n')
    with pytest.raises(TaskFileError, match="points must be positive"):
        read_step(path)
    path.write_text('step = 3\nname = "x"\n[[task]]\nid = "3.1"\npoints = 1\n')
    with pytest.raises(TaskFileError, match="missing key 'title'"):
        read_step(path)
    path.write_text('step = 3\nname = "x"\nproxied = ["tests/conftest.py"]\n')
    with pytest.raises(TaskFileError, match="'proxied' lists modules of minitorch"):
        read_step(path)
    path.write_text('step = 3\nname = "x"\nproxied = ["minitorch/a.py"]\n'
                    '[[task]]\nid = "3.1"\ntitle = "t"\npoints = 1\nfiles = ["minitorch/a.py", "minitorch/b.py"]\n')
    with pytest.raises(TaskFileError, match=r"files \['minitorch/b.py'\] are not among the step's proxied modules"):
        read_step(path)


def test_proxied_modules_are_named_as_python_imports_them(tmp_path: Path) -> None:
    path = tmp_path / "tasks.toml"
    path.write_text('step = 3\nname = "x"\nproxied = ["minitorch/backends/cpu_kernels.py", "minitorch/nn/__init__.py"]\n'
                    '[[task]]\nid = "3.1"\ntitle = "t"\npoints = 1\nfiles = ["minitorch/nn/__init__.py"]\n')
    (task,) = read_step(path).tasks
    assert task.proxied_modules() == ("minitorch.backends.cpu_kernels", "minitorch.nn")
    assert load_tasks(ROOT)["0.1"].proxied_modules() == ()  # the whole package


def test_every_tagged_test_names_a_defined_task(tagged: dict[str, set[str]]) -> None:
    unknown = sorted(set(tagged) - set(load_tasks(ROOT)))
    assert not unknown, f"tests are marked with tasks no tasks.toml defines: {unknown} (in {[sorted(tagged[t]) for t in unknown]})"


def test_every_task_has_tests(tagged: dict[str, set[str]]) -> None:
    untested = [task_id for task_id in load_tasks(ROOT) if task_id not in tagged]
    assert not untested, f"tasks without a single test: {untested}"


def test_tests_live_in_the_files_their_task_lists(tagged: dict[str, set[str]]) -> None:
    tasks = load_tasks(ROOT)
    misplaced = {
        task_id: sorted(f for f in files if f not in tasks[task_id].tests and not f.startswith(HIDDEN_TESTS_DIR + "/"))
        for task_id, files in tagged.items()
        if task_id in tasks
    }
    misplaced = {k: v for k, v in misplaced.items() if v}
    assert not misplaced, f"add these files to the task's 'tests' list (the autograder runs only those): {misplaced}"


def test_every_task_has_solution_code_to_stub() -> None:
    plan = plan_release(ROOT, 0)
    missing = [task_id for task_id in load_tasks(ROOT) if task_id not in plan.stubbed]
    assert not missing, f"tasks with no solution region or solution cell: {missing}"


def test_instructors_readme_shows_the_current_task_table() -> None:
    text = (ROOT / "assignments" / "README.md").read_text()
    between = text.split(TABLE_BEGIN, 1)[1].split(TABLE_END, 1)[0].strip()
    assert between == task_table(ROOT), "run: python -m minitorch.course tasks --update assignments/README.md"

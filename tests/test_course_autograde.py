"""The autograder, run the way instructors run it: ``python -m minitorch.course grade``.

Checked on the cheapest task (0.1, scalar operators, whose tests run in seconds), against
expectations computed here rather than taken from the grader:

- the reference scores the task's points from ``tasks.toml``, in valid Gradescope format;
- the step-0 student release scores 0, and the output names ``NotImplementedError`` and
  the task;
- a package that does not import is graded without a crash: the usual exit code, a valid
  ``results.json`` with score 0 and the error in the output;
- a package with one wrong function gets partial credit: points times the fraction of the
  task's tests that pass, the fraction measured here by a plain pytest run;
- a submission without a package scores 0 with a message; an unknown task (the
  instructor's mistake) ends with exit code 1 and no ``results.json``.

One workspace per submission (``--workspace``) under the session's temporary folder.
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from minitorch.course import autograde
from minitorch.course.release import release
from minitorch.course.tasks import Task, load_tasks

ROOT = Path(__file__).resolve().parents[1]
TASK = "0.1"
TEST_FILE = "tests/test_operators.py"
GRADE_TIMEOUT = 300
#: exit code of ``grade`` once a submission was graded, whatever its score
GRADED = 0
#: exit code of ``grade`` when the instructor asked for something it cannot do (unknown task)
USAGE_ERROR = 1
ENTRY_KEYS = {"name": str, "score": (int, float), "max_score": (int, float), "status": str, "output": str, "visibility": str}
VISIBILITIES = {"visible", "hidden", "after_due_date", "after_published"}
PYCACHE = shutil.ignore_patterns("__pycache__", "*.pyc")


@pytest.fixture(scope="module")
def task() -> Task:
    return load_tasks(ROOT)[TASK]


def grade_cli(submission: Path, out: Path, *extra: str) -> tuple[subprocess.CompletedProcess, Path]:
    """Run the grader's CLI on ``submission`` (task 0.1); returns the process and results path."""
    results = out / "results.json"
    command = [
        sys.executable, "-m", "minitorch.course", "grade", "--submission", str(submission),
        "--task", TASK, "--results", str(results), "--workspace", str(out / "workspace"), *extra,
    ]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=GRADE_TIMEOUT)
    return done, results


def copy_package(source: Path, dest: Path) -> Path:
    """A submission folder holding only a copy of ``source``'s ``minitorch/``."""
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copytree(source / "minitorch", dest / "minitorch", ignore=PYCACHE)
    return dest


def load_results(path: Path) -> dict:
    """``results.json`` read and checked against Gradescope's format."""
    assert path.is_file(), "the grader wrote no results.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    assert isinstance(data.get("score"), (int, float)) and not isinstance(data["score"], bool)
    assert isinstance(data.get("tests"), list) and data["tests"]
    for entry in data["tests"]:
        for key, kind in ENTRY_KEYS.items():
            assert key in entry, f"test entry lacks {key!r}: {entry}"
            assert isinstance(entry[key], kind) and not isinstance(entry[key], bool), (key, entry[key])
        assert entry["status"] in {"passed", "failed"}
        assert entry["visibility"] in VISIBILITIES
        assert 0 <= entry["score"] <= entry["max_score"]
    assert data["score"] == pytest.approx(sum(e["score"] for e in data["tests"]))
    return data


def only_entry(data: dict, task: Task) -> dict:
    """The single entry of ``task`` (``--task`` restricts grading to it)."""
    assert len(data["tests"]) == 1, [e["name"] for e in data["tests"]]
    entry = data["tests"][0]
    assert TASK in entry["name"] and entry["max_score"] == pytest.approx(task.points)
    return entry


def task_tests(task_id: str) -> list[str]:
    """Names of the test functions in TEST_FILE marked ``@pytest.mark.task(task_id)``."""
    tree = ast.parse((ROOT / TEST_FILE).read_text(encoding="utf-8"))
    names = []
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef) or not node.name.startswith("test"):
            continue
        for deco in node.decorator_list:
            if (
                isinstance(deco, ast.Call) and ast.unparse(deco.func) == "pytest.mark.task"
                and deco.args and ast.literal_eval(deco.args[0]) == task_id
            ):
                names.append(node.name)
    return names


def plain_pytest_outcomes(submission: Path, names: list[str], report: Path) -> dict[str, bool]:
    """Run the named tests directly on ``submission``'s package: name -> passed."""
    env = dict(os.environ, PYTHONPATH=str(submission), PYTHONDONTWRITEBYTECODE="1")
    targets = [f"{ROOT / TEST_FILE}::{name}" for name in names]
    subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
         f"--junitxml={report}", *targets],
        cwd=submission, env=env, capture_output=True, text=True, timeout=GRADE_TIMEOUT,
    )
    outcomes = {}
    for case in ET.parse(report).iter("testcase"):
        bad = any(child.tag in ("failure", "error", "skipped") for child in case)
        outcomes[case.get("name")] = not bad
    return outcomes


# ---------------------------------------------------------------------- the reference


@pytest.fixture(scope="module")
def reference_run(tmp_path_factory: pytest.TempPathFactory):
    return grade_cli(ROOT, tmp_path_factory.mktemp("reference"))


def test_reference_scores_full_points(reference_run, task: Task) -> None:
    done, results = reference_run
    assert done.returncode == GRADED, done.stderr
    data = load_results(results)
    entry = only_entry(data, task)
    assert entry["status"] == "passed"
    assert entry["score"] == pytest.approx(task.points)
    assert data["score"] == pytest.approx(task.points)


def test_reference_table_names_the_task_and_its_points(reference_run, task: Task) -> None:
    done, _ = reference_run
    rows = [line for line in done.stdout.splitlines() if line.split()[:1] == [TASK]]
    assert len(rows) == 1, done.stdout
    points = f"{task.points:g}"
    assert task.title[:30] in rows[0]
    assert f"{points}/{points}" in rows[0]


# ---------------------------------------------------------------------- the student release


@pytest.fixture(scope="module")
def student_run(tmp_path_factory: pytest.TempPathFactory):
    released = tmp_path_factory.mktemp("release") / "step-0"
    release(ROOT, 0, released)
    submission = copy_package(released, tmp_path_factory.mktemp("student-submission"))
    return grade_cli(submission, tmp_path_factory.mktemp("student"))


def test_student_release_scores_zero(student_run, task: Task) -> None:
    done, results = student_run
    assert done.returncode == GRADED, done.stderr
    data = load_results(results)
    entry = only_entry(data, task)
    assert entry["score"] == 0 and data["score"] == 0
    assert entry["status"] == "failed"
    assert "NotImplementedError" in entry["output"]
    assert f"Task {TASK}" in entry["output"]


# ---------------------------------------------------------------------- a package that does not import


BREAKAGES = {
    "import-error": ('raise ImportError("boom")\n', "boom"),
    "syntax-error": ("def broken(:\n", "SyntaxError"),
}


@pytest.mark.parametrize("kind", sorted(BREAKAGES))
def test_unimportable_package_is_graded_zero_without_crashing(kind: str, task: Task, tmp_path: Path) -> None:
    code, symptom = BREAKAGES[kind]
    submission = copy_package(ROOT, tmp_path / "submission")
    with open(submission / "minitorch" / "__init__.py", "a", encoding="utf-8") as f:
        f.write("\n" + code)
    done, results = grade_cli(submission, tmp_path / "grading")
    assert done.returncode == GRADED, done.stderr
    assert "Traceback" not in done.stderr, done.stderr  # the grader itself did not crash
    data = load_results(results)
    entry = only_entry(data, task)
    assert entry["score"] == 0 and data["score"] == 0
    assert entry["status"] == "failed"
    assert symptom in data["output"] or symptom in entry["output"]
    assert "import" in entry["output"]
    assert symptom in done.stdout


# ---------------------------------------------------------------------- partial credit


def break_mul(operators: Path) -> None:
    """Make ``mul`` return ``x + y``: the whole function, found by its lines, is replaced."""
    lines = operators.read_text(encoding="utf-8").splitlines(keepends=True)
    tree = ast.parse("".join(lines))
    (node,) = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "mul"]
    replacement = ["def mul(x: float, y: float) -> float:\n", "    return x + y\n"]
    lines[node.lineno - 1 : node.end_lineno] = replacement
    operators.write_text("".join(lines), encoding="utf-8")


def test_one_wrong_function_gets_partial_credit(task: Task, tmp_path: Path) -> None:
    submission = copy_package(ROOT, tmp_path / "submission")
    break_mul(submission / "minitorch" / "operators.py")

    names = task_tests(TASK)
    assert names, f"no test of task {TASK} in {TEST_FILE}"
    expected = plain_pytest_outcomes(submission, names, tmp_path / "junit.xml")
    assert sorted(expected) == sorted(names)
    passing = sum(expected.values())
    assert 0 < passing < len(names), expected  # the break is visible, but not to every test

    done, results = grade_cli(submission, tmp_path / "grading")
    assert done.returncode == GRADED, done.stderr
    data = load_results(results)
    entry = only_entry(data, task)
    assert entry["status"] == "failed"
    assert 0 < entry["score"] < task.points
    assert entry["score"] == pytest.approx(task.points * passing / len(names), abs=0.01)
    assert entry["output"].startswith(f"{passing}/{len(names)} tests passed")
    for name, passed in expected.items():
        listed = f"- failed: {TEST_FILE}::{name}" in entry["output"]
        assert listed != passed, (name, passed)


# ---------------------------------------------------------------------- usage errors


def test_submission_without_package_scores_zero_with_a_message(task: Task, tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    done, results = grade_cli(empty, tmp_path / "no-package")
    assert done.returncode == GRADED, done.stderr
    assert "Traceback" not in done.stderr
    data = load_results(results)
    assert data["score"] == 0 and only_entry(data, task)["score"] == 0
    assert "no minitorch/ folder" in data["output"]


def test_unknown_task_is_a_usage_error_without_results(tmp_path: Path) -> None:
    results = tmp_path / "unknown" / "results.json"
    done = subprocess.run(
        [sys.executable, "-m", "minitorch.course", "grade", "--task", "99.99", "--results", str(results),
         "--workspace", str(tmp_path / "unknown" / "workspace")],
        cwd=ROOT, capture_output=True, text=True, timeout=GRADE_TIMEOUT,
    )
    assert done.returncode == USAGE_ERROR
    assert "99.99" in done.stderr and "Traceback" not in done.stderr
    assert not results.exists()


# ---------------------------------------------------------------------- tests that pass on stubs


def test_tests_passing_on_the_stub_carry_no_points(task: Task) -> None:
    """Three tests, one of which passes on the stub: the other two share the points."""
    outcomes = [autograde.TestOutcome("t::free", "passed"), autograde.TestOutcome("t::a", "passed"), autograde.TestOutcome("t::b", "failed")]
    result = autograde.TaskResult(task, outcomes=outcomes, unscored={"t::free"})
    assert (result.passed, result.total) == (1, 2)
    assert result.score == pytest.approx(task.points / 2)
    assert "1 more tests pass without any code written" in result.output()
    stub_like = autograde.TaskResult(task, outcomes=[autograde.TestOutcome("t::free", "passed"), autograde.TestOutcome("t::b", "failed")], unscored={"t::free"})
    assert stub_like.score == 0

"""``minitorch course status``: each task's state, points and first failure, and the next task,
on a small made-up course whose tests pass, fail or error by construction."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from minitorch.course.status import course_status, status_table

TASKS = '''step = 0
name = "made-up"

[[task]]
id = "0.1"
title = "All passing"
points = 10
files = ["pkg/one.py"]
tests = ["tests/test_made_up.py"]

[[task]]
id = "0.2"
title = "Half passing"
points = 6
files = ["pkg/two.py"]
tests = ["tests/test_made_up.py"]

[[task]]
id = "0.3"
title = "Nothing passing"
points = 4
files = ["pkg/three.py"]
tests = ["tests/test_made_up.py"]
'''

TESTS = '''import pytest

@pytest.mark.task("0.1")
def test_one_a():
    assert 1 + 1 == 2

@pytest.mark.task("0.1")
def test_one_b():
    assert "a" * 2 == "aa"

@pytest.mark.task("0.2")
def test_two_passes():
    assert True

@pytest.mark.task("0.2")
def test_two_fails():
    assert 2 + 2 == 5, "two and two make four"

@pytest.mark.task("0.3")
def test_three():
    raise NotImplementedError("task 0.3 is not implemented yet")

def test_untagged_is_not_counted():
    assert False
'''


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("course")
    (root / "assignments" / "00-made-up").mkdir(parents=True)
    (root / "assignments" / "00-made-up" / "tasks.toml").write_text(TASKS)
    (root / "tests").mkdir()
    (root / "tests" / "test_made_up.py").write_text(TESTS)
    (root / "pytest.ini").write_text("[pytest]\nmarkers =\n    task(id): the course task a test grades\n")
    return root


def test_states_points_and_first_failures(course: Path) -> None:
    statuses, problems = course_status(course, timeout=120)
    assert problems == []
    by_id = {s.task.id: s for s in statuses}
    assert [(s.state, s.passed, len(s.outcomes), s.points) for s in statuses] == [
        ("done", 2, 2, 10.0), ("started", 1, 2, 3.0), ("to do", 0, 1, 0.0)]
    assert by_id["0.1"].first_failure() == ""
    assert "two and two make four" in by_id["0.2"].first_failure()
    assert by_id["0.3"].first_failure() == "NotImplementedError: task 0.3 is not implemented yet"


def test_table_names_the_next_task_and_its_files(course: Path) -> None:
    statuses, _ = course_status(course, timeout=120)
    text = status_table(statuses)
    assert "1 of 3 tasks done, 13 of 20 points" in text
    assert "Next: task 0.2, Half passing (in pkg/two.py); check it with: make status TASK=0.2" in text
    assert "| 0.3 | Nothing passing | to do | 0/1 | 0/4 |" in text


def test_command_line_prints_the_table(course: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "minitorch.course", "status", "--root", str(course), "--step", "0"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "| 0.1 | All passing | done | 2/2 | 10/10 |" in done.stdout


def test_unknown_step_has_no_tasks(course: Path) -> None:
    statuses, problems = course_status(course, steps=[7], timeout=120)
    assert statuses == [] and problems == ["no test file of these tasks exists"]


def test_backend_choice_keeps_that_backends_tests(tmp_path: Path) -> None:
    (tmp_path / "assignments" / "00-made-up").mkdir(parents=True)
    (tmp_path / "assignments" / "00-made-up" / "tasks.toml").write_text(TASKS.split("[[task]]")[0] + "[[task]]" + TASKS.split("[[task]]")[1])
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_made_up.py").write_text(
        'import pytest\n\n@pytest.mark.task("0.1")\n@pytest.mark.parametrize("backend", ["simple", "cpu", "cuda"])\n'
        'def test_each_backend(backend):\n    assert backend != "cuda"\n\n@pytest.mark.task("0.1")\ndef test_no_backend():\n    assert True\n'
    )
    (tmp_path / "pytest.ini").write_text("[pytest]\nmarkers =\n    task(id): the course task a test grades\n")
    every, _ = course_status(tmp_path, timeout=120)
    assert (every[0].passed, len(every[0].outcomes)) == (3, 4)  # cuda fails
    cpu_only, _ = course_status(tmp_path, timeout=120, backends=["cpu"])
    assert (cpu_only[0].state, cpu_only[0].passed, len(cpu_only[0].outcomes)) == ("done", 2, 2)

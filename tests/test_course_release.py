"""Integrity of the student release (DESIGN §3): checked, not assumed.

- The release of step 0 (every solution stubbed) holds no marker, compiles, imports every
  module, leaves out hidden tests and instructor material, and its notebooks still open.
- The tiers: releasing step N keeps the reference code of the steps before N.
- Each task's tests fail on that task's stub, and only with its ``NotImplementedError``:
  one pytest process probes every task whose code is plain Python (swapping in the stubbed
  code of one task at a time, :mod:`minitorch.course.probe`); the tasks in Numba kernels
  run on a real release of their step. Every task needs at least one test its stub fails.

To stay cheap the probe runs the ``simple`` backend only, at most a few parametrizations
of each test function, Hypothesis without shrinking; releases are written to a fixed
folder so Numba's cache of unchanged kernels survives between runs.
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import nbformat
import pytest

from minitorch.course.markers import SOLUTION_TAG, has_marker_text
from minitorch.course.probe import plan_swaps, unwrap_simulator_message
from minitorch.course.release import HIDDEN_TESTS_DIR, plan_release, release
from minitorch.course.release_check import from_stub, judge_probe_report, probe_command
from minitorch.course.tasks import load_steps, load_tasks, step_of

ROOT = Path(__file__).resolve().parents[1]
#: where integrity releases go: a fixed folder, so Numba's on-disk cache keeps their kernels
RELEASES = ROOT / ".venv" / "course-integrity" if (ROOT / ".venv").is_dir() else None
PROBE_TIMEOUT = 900


def release_dir(tmp_path_factory: pytest.TempPathFactory, step: int) -> Path:
    return (RELEASES if RELEASES else tmp_path_factory.getbasetemp()) / f"step-{step}"


def probe_env(folder: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["MINITORCH_CPU_BACKEND"] = "simple"
    env["NUMBA_CACHE_DIR"] = str(folder / ".numba-cache")
    env["PYTHONPATH"] = str(folder)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def run_probe(folder: Path, task_ids: list[str], targets: list[str], report: Path, *extra: str) -> str:
    """Run the probe plugin in ``folder`` on ``targets``; returns the output's tail."""
    command = probe_command(report, task_ids, targets, *extra)
    done = subprocess.run(command, cwd=folder, env=probe_env(folder), capture_output=True, text=True, timeout=PROBE_TIMEOUT)
    assert done.returncode in (0, 1), f"pytest could not run:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout[-2000:]


def check_report(report: Path, task_ids: list[str], stubbed: list[str]) -> None:
    """Every failure comes from a stub in ``stubbed``; every task fails at least one test on its own stub."""
    wrong, silent = judge_probe_report(report, task_ids, stubbed)
    assert not wrong, "tests failing otherwise than with a stub's NotImplementedError:\n" + "\n".join(wrong)
    assert not silent, f"tasks whose stub fails none of their tests: {silent}"


# ------------------------------------------------------------------ the release itself


@pytest.fixture(scope="module")
def release0(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = release_dir(tmp_path_factory, 0)
    release(ROOT, 0, folder)
    return folder


def released_files(folder: Path) -> list[Path]:
    skipped = {".numba-cache", "__pycache__", ".pytest_cache", ".hypothesis"}
    return [p for p in folder.rglob("*") if p.is_file() and not skipped & set(p.relative_to(folder).parts)]


def test_release_has_no_markers_and_compiles(release0: Path) -> None:
    files = released_files(release0)
    assert any(p.name == "operators.py" for p in files)
    for path in files:
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        assert not has_marker_text(text), f"marker left in {path}"
        if path.suffix == ".py":
            ast.parse(text, filename=str(path))


def test_release_leaves_out_hidden_and_instructor_files(release0: Path) -> None:
    names = {p.relative_to(release0).as_posix() for p in released_files(release0)}
    assert not [n for n in names if n.startswith(HIDDEN_TESTS_DIR + "/")]
    assert not [n for n in names if Path(n).name.startswith("test_course_")]
    assert "assignments/README.md" not in names
    assert {"README.md", "Makefile", "pyproject.toml", "tests/conftest.py", "assignments/00-operators/README.md"} <= names


def test_release_imports_every_module(release0: Path) -> None:
    script = (
        "import importlib, pkgutil, minitorch\n"
        "assert minitorch.__file__.startswith(%r), minitorch.__file__\n"
        "names = [m.name for m in pkgutil.walk_packages(minitorch.__path__, 'minitorch.') if not m.name.endswith('__main__')]\n"
        "for name in names: importlib.import_module(name)\n"
        "print(len(names))\n"
    ) % str(release0)
    env = probe_env(release0) | {"NUMBA_ENABLE_CUDASIM": "1"}
    done = subprocess.run([sys.executable, "-c", script], cwd=release0, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert int(done.stdout.split()[-1]) > 10


def test_release_stubs_say_which_task(release0: Path) -> None:
    text = (release0 / "minitorch" / "operators.py").read_text()
    tasks = load_tasks(ROOT)
    assert f'raise NotImplementedError("Task 0.1: {tasks["0.1"].title} (see assignments/00-operators/README.md)")' in text
    assert "def mul(x: float, y: float) -> float:" in text and ":math:`x \\\\cdot y`" in text  # signature and docstring kept
    assert "return x * y" not in text


def test_release_notebooks_open_with_solutions_stubbed(release0: Path) -> None:
    notebooks = sorted((release0 / "notebooks").glob("*.ipynb"))
    assert notebooks
    for path in notebooks:
        notebook = nbformat.read(path, as_version=4)
        nbformat.validate(notebook)
        for cell in notebook.cells:
            if SOLUTION_TAG in cell.metadata.get("tags", []):
                assert "raise NotImplementedError(\"Task " in cell.source and not cell.outputs, path


def test_release_tiers_keep_earlier_steps() -> None:
    plan = plan_release(ROOT, 2)
    assert plan.stubbed and min(step_of(t) for t in plan.stubbed) == 2
    assert "NotImplementedError" not in plan.rewritten["minitorch/operators.py"]
    assert "return x * y" in plan.rewritten["minitorch/operators.py"]
    assert "Task 2.1:" in plan.rewritten["minitorch/tensor_data.py"]


def test_release_readme_speaks_to_the_student() -> None:
    """The release's README names the student's steps, tasks, files and commands; the reference's
    README is kept in the docs."""
    plan = plan_release(ROOT, 2)
    readme = plan.rewritten["README.md"]
    assert readme.startswith("# minitorch: your course, from step 2")
    assert "Steps 0 to 1 are solved for you" in readme
    for task in load_tasks(ROOT).values():
        row = f"| {task.id} | {task.title} |"
        assert (row in readme) == (step_of(task.id) >= 2), task.id
        if step_of(task.id) >= 2:
            assert f"`make status TASK={task.id}`" in readme and f"`{task.files[0]}`" in readme
    for command in ("make lab", "make status STEP=2", "make grade STEP=2", "## Handing in"):
        assert command in readme
    assert "assignments/02-tensor/README.md" in readme and "notebooks/02_tensor.ipynb" in readme
    assert plan.rewritten["docs/framework-readme.md"] == (ROOT / "README.md").read_text(encoding="utf-8")


def test_status_of_one_task_runs_in_a_release(release0: Path) -> None:
    """``make status TASK=0.1`` in a step-0 release: the task's tests run and fail on its stub."""
    command = [sys.executable, "-m", "minitorch", "course", "status", "--task", "0.1", "--root", str(release0)]
    done = subprocess.run(command, cwd=release0, env=probe_env(release0), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    row = next(line for line in done.stdout.splitlines() if line.startswith("| 0.1 |"))
    assert "| to do |" in row and "| 0/" in row and "NotImplementedError: Task 0.1" in row
    assert "0 of 1 tasks done" in done.stdout and "Next: task 0.1" in done.stdout


def test_grade_runs_in_a_release_without_calibrating_on_the_students_code(release0: Path, tmp_path: Path) -> None:
    """``make grade`` in a release: its code has no solution regions, so stub calibration would
    measure the student's own code (and leave their passing tests out); every visible test counts."""
    results = tmp_path / "results.json"
    calibration = release0 / "out" / "grader-calibration"
    if calibration.exists():  # left by an earlier run in this reused folder
        shutil.rmtree(calibration)
    command = [sys.executable, "-m", "minitorch.course", "grade", "--task", "0.1", "--results", str(results)]
    done = subprocess.run(command, cwd=release0, env=probe_env(release0), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "grading a student release: every visible test counts here" in done.stdout
    graded = json.loads(results.read_text())
    assert graded["score"] == 0 and graded["tests"][0]["max_score"] == load_tasks(ROOT)["0.1"].points
    assert not calibration.exists()


def test_release_refuses_to_overwrite_a_folder_it_did_not_write(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(ValueError, match="not empty"):
        release(ROOT, 0, tmp_path)
    with pytest.raises(ValueError, match="repository's own files"):
        release(ROOT, 0, ROOT / "minitorch")


# ------------------------------------------------------ every task fails on its own stub


def test_probe_sees_a_stub_through_the_cuda_simulator() -> None:
    """The simulator re-raises a kernel thread's error with the thread's ids before its text."""
    stub = "Task 3.4: CUDA kernels: index helpers, the op tables, map and zip on a 1-D grid"
    wrapped = f"NotImplementedError: tid=[3, 0, 0] ctaid=[1, 0, 0]: {stub}"
    assert unwrap_simulator_message(wrapped) == f"NotImplementedError: {stub}"
    assert from_stub(unwrap_simulator_message(wrapped), "3.4")
    # any other error stays what it is, so it still counts as a wrong failure
    assert unwrap_simulator_message("AssertionError: tid=[0, 0, 0] ctaid=[0, 0, 0]: boom") == "AssertionError: boom"
    assert unwrap_simulator_message("AssertionError: assert 1 == 2") == "AssertionError: assert 1 == 2"


def probe_plan() -> tuple[list[str], list[str], dict[int, list[str]]]:
    """Tasks probed in place, their test files, and per step the tasks needing a real release."""
    tasks = load_tasks(ROOT)
    swaps, unswappable = plan_swaps(ROOT, set(tasks))
    in_place = [t for t in tasks if swaps[t] and t not in unswappable]
    by_release: dict[int, list[str]] = defaultdict(list)
    for task_id in tasks:
        if task_id in unswappable:
            by_release[step_of(task_id)].append(task_id)
    files = sorted({f for t in in_place for f in tasks[t].tests})
    return in_place, files, dict(by_release)


def test_each_task_fails_on_its_own_stub_only_with_not_implemented(tmp_path: Path) -> None:
    in_place, files, _ = probe_plan()
    assert {"0.1", "1.4", "2.3"} <= set(in_place)
    report = tmp_path / "probe.jsonl"
    run_probe(ROOT, in_place, files, report, "--probe-backend=simple")
    check_report(report, in_place, stubbed=[])  # one task at a time: only its own stub is active


@pytest.mark.parametrize("step", sorted({s.number for s in load_steps(ROOT)} & {0, 3, 11}))
def test_release_tests_fail_only_with_not_implemented(step: int, tmp_path_factory: pytest.TempPathFactory) -> None:
    """On a real release: step 0 (everything stubbed), and steps 3 and 11, whose Numba kernels
    the in-place probe cannot swap."""
    _, _, by_release = probe_plan()
    tasks = load_tasks(ROOT)
    task_ids = by_release.get(step, []) if step else [t for t in tasks if step_of(t) == 0]
    if not task_ids:
        pytest.skip(f"step {step} has no task that needs a real release")
    folder = release_dir(tmp_path_factory, step)
    release(ROOT, step, folder)
    report = tmp_path_factory.mktemp(f"release-{step}") / "probe.jsonl"
    files = sorted({f for t in task_ids for f in tasks[t].tests})
    run_probe(folder, task_ids, files, report, "--probe-release")
    check_report(report, task_ids, stubbed=[t for t in tasks if step_of(t) >= step])

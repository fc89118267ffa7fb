"""Exercise cells (:mod:`minitorch.course.exercise`), how a release rewrites them
(:mod:`minitorch.course.release_notebooks`) and ``release-check`` on step 0.

Expected lines and anchors are written out by hand; the notebooks' own outputs are checked
by nbval (the reference) and by ``release-check`` (a release).
"""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
from pathlib import Path

import pytest

from minitorch.course.exercise import compare, exercise, heading_anchor, not_implemented_line, same
from minitorch.course.markers import MarkerError, cell_source, stub_lines
from minitorch.course import cli as course_cli
from minitorch.course import release_check as release_check_module
from minitorch.course.release import ReleasePlan, plan_release, release
from minitorch.course.release_check import Check, check_import, check_notebooks, judge_probe_report, release_env
from minitorch.course.release_notebooks import EXERCISE_TAG, exercise_task_ids
from minitorch.course.tasks import load_tasks, step_of

ROOT = Path(__file__).resolve().parents[1]
#: the course notebooks, one per step: NN_name.ipynb
NOTEBOOKS = sorted(p for p in (ROOT / "notebooks").glob("*.ipynb") if re.match(r"\d{2}_", p.name))
#: release-check's folder: fixed, so Numba's cache of the release's kernels survives runs
CHECK_DIR = ROOT / ".venv" / "course-integrity" / "exercises-step-0" if (ROOT / ".venv").is_dir() else None
#: seconds allowed to a child process
TIMEOUT = 600
GUIDE_00 = "assignments/00-operators/README.md"


def raise_stub(task_id: str, title: str, guide: str) -> None:
    """Run the ``raise`` line a release puts in place of a solution."""
    exec(stub_lines("", task_id, title, "", guide)[-1])


# ------------------------------------------------------------------ the helper


def test_heading_anchor_follows_githubs_rule() -> None:
    assert heading_anchor("0.1 The basic functions") == "01-the-basic-functions"
    assert heading_anchor("0.2 The `*_back` helpers") == "02-the-_back-helpers"
    assert heading_anchor("2.5 The engine (`topological_order`, `sum_to_shape`)") == "25-the-engine-topological_order-sum_to_shape"


def test_stub_message_becomes_one_line_naming_the_task_and_its_section(capsys: pytest.CaptureFixture[str]) -> None:
    with exercise("0.3"):
        raise_stub("0.1", "Scalar arithmetic (and more)", GUIDE_00)
    assert capsys.readouterr().out == f"task 0.1 is not implemented yet — see {GUIDE_00}#01-the-basic-functions\n"
    assert not_implemented_line("Task 0.2: x") == "task 0.2 is not implemented yet"
    assert not_implemented_line("Task 0.2: x (see assignments/nowhere.md)") == "task 0.2 is not implemented yet — see assignments/nowhere.md"


def test_other_errors_keep_their_traceback(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(NotImplementedError, match="not a stub"):
        with exercise("0.1"):
            raise NotImplementedError("not a stub")
    with pytest.raises(ZeroDivisionError):
        with exercise("0.1"):
            print(1 / 0)
    assert capsys.readouterr().out == ""


def test_compare_prints_rounded_values_and_a_verdict(capsys: pytest.CaptureFixture[str]) -> None:
    assert compare("sigmoid(2)", 1.0 / (1.0 + math.exp(-2.0)), 0.8807970779778823)
    assert compare("nan", [math.nan, 1.0], [math.nan, 1.0])
    assert not compare("sum", [1.0, 2.0], [1.0, 2.5])
    assert not compare("shape", [1.0], [1.0, 2.0])
    assert compare("large", [[0.0] * 3] * 3, [[1e-9] * 3] * 3)
    assert same("keys", ["0.weight"], ["0.weight"]) and not same("count", 10, 11)
    assert capsys.readouterr().out.splitlines() == [
        "✓ sigmoid(2): 0.8808 (expected 0.8808)",
        "✓ nan: [nan, 1] (expected [nan, 1])",
        "✗ sum: [1, 2] (expected [1, 2.5]), largest difference 5.000e-01",
        "✗ shape: shape (1,), expected shape (2,)",
        "✓ large: array of shape (3, 3) (expected array of shape (3, 3))",
        "✓ keys: ['0.weight']",
        "✗ count: 10 (expected 11)",
    ]


# ------------------------------------------------------------------ the notebooks


def test_every_notebook_has_an_exercise_of_its_own_step() -> None:
    tasks = load_tasks(ROOT)
    assert len(NOTEBOOKS) >= 10
    for path in NOTEBOOKS:
        notebook = json.loads(path.read_text(encoding="utf-8"))
        exercises = exercise_task_ids(notebook, path.name, tasks.keys())
        assert exercises, f"{path.name} has no exercise cell"
        for index, task_ids in exercises.items():
            assert {step_of(t) for t in task_ids} == {int(path.name[:2])}, path.name
            assert cell_source(notebook["cells"][index - 1]).startswith("## Exercise:"), path.name
            outputs = "".join("".join(o.get("text", "")) for o in notebook["cells"][index]["outputs"])
            assert "✓" in outputs and "✗" not in outputs and "not implemented" not in outputs, path.name


def test_malformed_exercise_cells_are_refused() -> None:
    def notebook(cell_type: str, source: str) -> dict:
        return {"cells": [{"cell_type": cell_type, "metadata": {"tags": [EXERCISE_TAG]}, "source": source, "outputs": []}]}

    with pytest.raises(MarkerError, match=r"x.ipynb:cell 0:1: only code cells"):
        exercise_task_ids(notebook("markdown", "text"), "x.ipynb")
    with pytest.raises(MarkerError, match="inside `with exercise"):
        exercise_task_ids(notebook("code", "print(1)"), "x.ipynb")
    with pytest.raises(MarkerError, match="unknown task id '0.9'"):
        exercise_task_ids(notebook("code", 'with exercise("0.9"):\n    pass'), "x.ipynb", {"0.1"})


def released_notebook(plan: ReleasePlan, name: str) -> dict:
    return json.loads(plan.rewritten[f"notebooks/{name}"])


def test_release_empties_stubbed_exercises_and_lets_other_cells_raise() -> None:
    plan = plan_release(ROOT, 2)
    reference = json.loads((ROOT / "notebooks" / "00_operators.ipynb").read_text(encoding="utf-8"))
    solved = released_notebook(plan, "00_operators.ipynb")
    stubbed = released_notebook(plan, "02_tensor.ipynb")
    for index in exercise_task_ids(solved, "00"):  # step 0 is solved in this release: checked as in the reference
        assert solved["cells"][index] == reference["cells"][index]
    for index in exercise_task_ids(stubbed, "02"):
        cell = stubbed["cells"][index]
        assert cell["outputs"] == [] and cell["execution_count"] is None
        assert cell["metadata"]["tags"] == [EXERCISE_TAG, "nbval-ignore-output"]
    demos = [c for i, c in enumerate(stubbed["cells"]) if c["cell_type"] == "code" and i not in exercise_task_ids(stubbed, "02")]
    assert demos and all(c["metadata"]["tags"] == ["raises-exception", "nbval-ignore-output"] for c in demos)
    assert any(c["outputs"] for c in demos)  # the reference's outputs stay: what the student's code should show


def test_a_release_stubbing_nothing_keeps_the_notebooks() -> None:
    last = max(step_of(t) for t in load_tasks(ROOT))
    plan = plan_release(ROOT, last + 1)
    assert {f"notebooks/{p.name}" for p in NOTEBOOKS} <= set(plan.copied)


# ------------------------------------------------------------------ release-check


def test_probe_verdict_names_foreign_failures_and_silent_tasks(tmp_path: Path) -> None:
    def record(task: str, message: str, status: str = "failed") -> str:
        return json.dumps({"kind": "result", "status": status, "task": task, "nodeid": f"t::{task}", "when": "call",
                           "message": message})

    report = tmp_path / "probe.jsonl"
    report.write_text("\n".join([
        record("0.1", "NotImplementedError: Task 0.1: x"),
        record("0.2", "NotImplementedError: Task 0.1: x"),  # a later task reaching an earlier stub: allowed
        record("0.2", "AssertionError: assert 1 == 2"),
        record("0.3", "", status="passed"),
    ]) + "\n")
    wrong, silent = judge_probe_report(report, ["0.1", "0.2", "0.3"], stubbed=["0.1", "0.2", "0.3"])
    assert wrong == ["t::0.2 (call): AssertionError: assert 1 == 2"]
    assert silent == ["0.2", "0.3"]


def test_release_check_prints_a_line_per_check_and_fails_on_any_cross(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """The command's frame, with its checks replaced by stand-ins (the real ones run below and in
    ``test_course_release.py``; all four together take minutes: ``make release-check``)."""
    verdicts = [True, True, False, True]
    fake = tuple((f"check {i}", lambda root, folder, step, t, ok=ok: Check("", ok, "why" if not ok else "")) for i, ok in enumerate(verdicts))
    monkeypatch.setattr(release_check_module, "CHECKS", fake)
    code = course_cli.main(["release-check", "--step", "0", "--out", str(tmp_path / "release"), "--root", str(ROOT)])
    lines = capsys.readouterr().out.splitlines()
    assert code == 1
    assert [line[:9] for line in lines[1:5]] == ["✓ check 0", "✓ check 1", "✗ check 2", "✓ check 3"]
    assert lines[3].endswith(": why") and lines[-1] == "release of step 0: 1 of 4 checks failed"
    assert (tmp_path / "release" / "notebooks" / "00_operators.ipynb").is_file()
    assert course_cli.main(["release-check", "--step", "99", "--root", str(ROOT)]) == 1
    assert "no task of step 99" in capsys.readouterr().err


def test_release_of_step_0_imports_and_its_notebook_degrades(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Checks (b) and (c) of release-check on a real release, and what the student sees there."""
    folder = CHECK_DIR or tmp_path_factory.mktemp("release-check") / "release"
    release(ROOT, 0, folder)
    imported, notebooks = check_import(folder, TIMEOUT), check_notebooks(folder, 0, TIMEOUT)
    assert imported.ok, imported.detail
    assert notebooks.ok and notebooks.detail == "notebooks/00_operators.ipynb", notebooks.detail
    notebook = json.loads((folder / "notebooks" / "00_operators.ipynb").read_text(encoding="utf-8"))
    (index,) = exercise_task_ids(notebook, "00")
    code = cell_source(notebook["cells"][index])
    done = subprocess.run([sys.executable, "-c", code], cwd=folder / "notebooks", env=release_env(folder),
                          capture_output=True, text=True, timeout=TIMEOUT)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines() == [
        f"task 0.1 is not implemented yet — see {GUIDE_00}#01-the-basic-functions",
        f"task 0.3 is not implemented yet — see {GUIDE_00}#03-higher-order-functions",
    ]
    missing = check_notebooks(folder, 42, TIMEOUT)
    assert not missing.ok and missing.detail == "no notebooks/42*.ipynb in the release"

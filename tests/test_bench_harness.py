"""The benchmark harness's own logic: medians, ratios, targets, table cells, selection.

Nothing here is timed or compared with a clock: speed is measured by ``bench/run.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

import compare  # noqa: E402
import harness  # noqa: E402
from harness import MINITORCH, NUMPY, TORCH, Case, Row, Settings, Target  # noqa: E402


def measured(times: dict[str, list[float]], rows: list[Row] | None = None, flops: float | None = None) -> Case:
    case = Case("op", "group", {}, rows=rows or [Row(MINITORCH)], flops=flops)
    case.times = times
    return case


def test_median_and_ratios():
    case = measured({MINITORCH: [3.0, 1.0, 2.0], NUMPY: [1.0, 1.0], TORCH: [4.0]})
    assert case.median(MINITORCH) == 2.0
    assert case.ratio(MINITORCH, NUMPY) == 2.0
    assert case.ratio(MINITORCH, TORCH) == 0.5
    assert case.median("missing") is None
    assert harness.safe_ratio(1.0, 0.0) is None
    assert harness.safe_ratio(None, 2.0) is None


def test_gflops_and_blas_fraction_only_with_flops():
    case = measured({MINITORCH: [2.0], NUMPY: [0.5]}, flops=4e9)
    assert case.gflops(MINITORCH) == 2.0
    assert case.blas_fraction(MINITORCH) == 0.25
    assert measured({MINITORCH: [2.0], NUMPY: [0.5]}).blas_fraction(MINITORCH) is None


def test_interleaved_ratios_are_paired():
    # minitorch takes 1.5x PyTorch's time at the machine's speed; a slow spell (3x) covers both
    # batches of repetition 2 and only minitorch's of repetitions 3 and 4
    torch_s = [1.0, 3.0, 1.0, 1.0, 1.0]
    mine = [1.5 * slowdown for slowdown in [1.0, 3.0, 3.0, 3.0, 1.0]]
    case = measured({MINITORCH: mine, TORCH: torch_s})
    assert case.ratio(MINITORCH, TORCH) == 4.5  # not interleaved: the ratio of the medians (4.5 / 1.0)
    case.interleaved = True
    assert case.ratio(MINITORCH, TORCH) == 1.5  # pairs 1.5, 1.5, 4.5, 4.5, 1.5
    assert harness.paired_ratio([2.0, 6.0, 3.0], [1.0, 2.0, 3.0]) == 2.0  # the median of 2, 3, 1
    assert harness.paired_ratio([1.0, 2.0], [1.0]) is None  # unequal counts: no pairs
    assert harness.paired_ratio([1.0], [0.0]) is None
    assert harness.paired_ratio(None, [1.0]) is None


def test_interleaved_blas_fraction_and_status_use_the_pairs():
    case = measured({MINITORCH: [2.0, 6.0, 2.0], NUMPY: [1.0, 3.0, 1.0], TORCH: [1.0, 3.0, 1.0]},
                    rows=[Row(MINITORCH, target=Target("torch_ratio", 2.0))], flops=1e9)
    case.interleaved = True
    assert case.blas_fraction(MINITORCH) == 0.5
    assert case.status(case.rows[0]) == "<=2x torch: met"
    case.times[TORCH] = [0.9, 3.0, 0.9]  # pairs 2.2, 2, 2.2
    assert case.status(case.rows[0]) == "<=2x torch: missed"


@pytest.mark.parametrize(("target", "mine", "torch_ratio", "blas_fraction", "verdict"), [
    (Target("torch_ratio", 1.5), 1.5, 1.5, None, True),
    (Target("torch_ratio", 1.5), 1.6, 1.6, None, False),
    (Target("torch_ratio", 1.5), 1.0, None, None, None),
    (Target("blas_fraction", 0.25), 4.0, None, 0.25, True),
    (Target("blas_fraction", 0.25), 4.1, None, 0.24, False),
    (Target("blas_fraction", 0.25), 4.1, None, None, None),
    (Target("seconds", 3.0), 2.9, None, None, True),
    (Target("seconds", 3.0), 3.0, None, None, False),
    (Target("seconds", 3.0), None, None, None, None),
])
def test_target_evaluation(target, mine, torch_ratio, blas_fraction, verdict):
    assert target.evaluate(mine, torch_ratio, blas_fraction) is verdict


def test_target_status_text():
    assert harness.target_status(Target("torch_ratio", 5), 4.0, 4.0, None) == "<=5x torch: met"
    assert harness.target_status(Target("blas_fraction", 0.25), 5.0, None, 0.2) == ">=25% BLAS: missed"
    assert harness.target_status(Target("seconds", 3), None, None, None) == "<3 s: n/a"
    assert harness.target_status(None, 1.0, 1.0, 1.0) == ""
    with pytest.raises(ValueError, match="unknown target kind"):
        Target("faster", 1.0)


def test_formatting():
    assert harness.format_time(None) == "n/a"
    assert harness.format_time(2.5) == "2.5 s"
    assert harness.format_time(0.00123) == "1.23 ms"
    assert harness.format_time(4.5e-7) == "450 ns"
    assert harness.format_number(1234.5, "x") == "1234x"
    assert harness.format_number(0.0123) == "0.0123"
    assert harness.format_percent(0.256) == "26%"


def test_table_rows_variants_and_summary():
    rows = [Row(MINITORCH, "a @ b"), Row("kernel", "course kernel", Target("blas_fraction", 0.25))]
    case = measured({MINITORCH: [2.0], "kernel": [3.0], NUMPY: [1.0], TORCH: [1.0]}, rows=rows, flops=2e9)
    other = measured({MINITORCH: [1.0]})
    other.group = "another group"
    lines = harness.table([case, other])
    assert lines[0].startswith("case") and lines[0].endswith("TARGET")
    first, second = lines[2], lines[3]
    assert first.startswith("op a @ b") and "2 s" in first and "2x" in first and "50%" in first
    assert second.startswith("op course kernel") and "33%" in second and second.endswith(">=25% BLAS: met")
    assert lines[4] == ""  # a new group starts after a blank line
    assert harness.row_values(case, rows[1])[4] == "3x"
    assert harness.targets_summary([case]) == {"met": 1, "missed": 0, "n/a": 0}
    data = harness.case_json(case)
    assert data["rows"][1]["target_status"] == "met" and data["median_s"]["kernel"] == 3.0


def test_select_by_name_or_group():
    cases = [Case("matmul 1024 float32", "matmul", {}), Case("add 1e7", "elementwise", {})]
    assert harness.select(cases, None) == cases
    assert [c.name for c in harness.select(cases, "MATMUL 10")] == ["matmul 1024 float32"]
    assert [c.name for c in harness.select(cases, "^elementwise$")] == ["add 1e7"]


def test_repeats_fit_the_budget_within_bounds():
    settings = Settings(repeats=15, min_repeats=5, budget_scale=1.0)
    assert harness.repeats_for(0.01, 1.0, settings) == 15
    assert harness.repeats_for(0.1, 1.0, settings) == 10
    assert harness.repeats_for(2.0, 1.0, settings) == 5


def test_measure_interleaves_and_reports_failures():
    order: list[str] = []

    def failing_factory():
        raise harness.NotAvailable("no such kernel here")

    def failing_call():
        raise RuntimeError("boom")

    case = Case("op", "group", {
        MINITORCH: lambda: (lambda: order.append(MINITORCH)),
        NUMPY: lambda: (lambda: order.append(NUMPY)),
        TORCH: lambda: None,  # not installed: silently n/a
        "kernel": failing_factory,
        "broken": lambda: failing_call,
    }, rows=[Row(MINITORCH), Row("kernel"), Row("broken")])
    harness.measure(case, Settings(repeats=3, min_repeats=3, min_batch_s=0.0))
    assert len(case.times[MINITORCH]) == len(case.times[NUMPY]) == 3
    assert TORCH not in case.times and TORCH not in case.notes
    assert case.notes["kernel"] == "no such kernel here"
    assert case.notes["broken"] == "RuntimeError: boom"


def test_the_busy_core_runner_times_beside_a_busy_process_and_cleans_up(monkeypatch):
    import cases_nn
    import minitorch

    started = []
    real_popen = cases_nn.subprocess.Popen

    def popen(*args, **kwargs):
        started.append(real_popen(*args, **kwargs))
        return started[-1]

    monkeypatch.setattr(cases_nn.subprocess, "Popen", popen)
    seen = []
    case = Case("op", "group", {MINITORCH: lambda: (lambda: seen.append(started[0].poll()))},
                runner=cases_nn.with_a_busy_core, settle_s=0.0)
    threads = minitorch.get_num_threads()
    harness.measure(case, Settings(repeats=3, min_repeats=3, min_batch_s=0.0))
    assert len(case.times[MINITORCH]) == 3 and MINITORCH not in case.notes
    assert seen and set(seen) == {None}  # the busy process ran through every call
    assert started[0].poll() is not None  # and was stopped afterwards
    assert minitorch.get_num_threads() == threads


def test_compare_matches_rows_by_name():
    def run(seconds: dict[str, float]) -> dict:
        return {"cases": [{"rows": [{"name": name, "median_s": value, "target": None, "target_status": None}
                                    for name, value in seconds.items()]}]}

    lines = compare.compare(run({"add": 2.0, "gone": 1.0}), run({"add": 1.0, "new": 3.0}))
    assert lines[2].startswith("add") and lines[2].endswith("2x")
    assert lines[3].startswith("new") and "n/a" in lines[3]
    assert lines[4].startswith("gone") and lines[4].endswith("n/a")

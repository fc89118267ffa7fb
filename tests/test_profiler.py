"""``minitorch.profiler`` against ``torch.profiler`` on the same small program: event keys and call
counts, ``record_function`` nesting, the schedule's steps, the table's layout, the chrome trace;
and no trace of the profiler in the op path once it stops."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import minitorch
from minitorch.autograd.function import Function

BACKWARD = "autograd::engine::evaluate_function: "


def program(lib: ModuleType) -> None:
    """Two linear layers and a ReLU, forward under a label, then backward."""
    lib.manual_seed(0)
    model = lib.nn.Sequential(lib.nn.Linear(8, 16), lib.nn.ReLU(), lib.nn.Linear(16, 2))
    x = lib.randn(4, 8)
    with lib.profiler.record_function("model_inference"):
        loss = model(x).sum()
    loss.backward()


def profiled(lib: ModuleType, **options: Any) -> Any:
    program(lib)  # once before, so compile time and lazy set-up stay out of the profile
    with lib.profiler.profile(activities=[lib.profiler.ProfilerActivity.CPU], **options) as prof:
        program(lib)
    return prof


def counts(prof: Any) -> dict[str, int]:
    return {row.key: row.count for row in prof.key_averages()}


def test_backward_and_label_keys_are_torch_s(torch_ref: ModuleType) -> None:
    ours, theirs = counts(profiled(minitorch)), counts(profiled(torch_ref))
    for key in ["model_inference"] + [k for k in theirs if k.startswith(BACKWARD)]:
        assert ours.get(key) == theirs[key], key


@pytest.mark.parametrize("op", ["aten::addmm", "aten::relu", "aten::sum"])
def test_forward_ops_are_counted_as_torch(op: str, torch_ref: ModuleType) -> None:
    assert counts(profiled(minitorch))[op] == counts(profiled(torch_ref))[op]


def test_ops_nest_inside_their_label() -> None:
    prof = profiled(minitorch)
    (label,) = [e for e in prof.events() if e.name == "model_inference"]
    inside = {child.name for child in label.children}
    assert {"aten::addmm", "aten::relu", "aten::sum"} <= inside
    assert all(label.start_ns <= c.start_ns and c.end_ns <= label.end_ns for c in label.children)
    assert label.cpu_time_total >= sum(c.cpu_time_total for c in label.children)


def test_shapes_are_recorded_and_grouped() -> None:
    prof = profiled(minitorch, record_shapes=True)
    rows = {(row.key, row.input_shapes) for row in prof.key_averages(group_by_input_shape=True)}
    assert ("aten::relu", "[[4, 16]]") in rows


@pytest.mark.parametrize("arguments", [
    {"wait": 1, "warmup": 1, "active": 2},
    {"wait": 0, "warmup": 0, "active": 1, "repeat": 2},
    {"wait": 2, "warmup": 1, "active": 1, "repeat": 1, "skip_first": 3},
])
@pytest.mark.filterwarnings("ignore:Profiler won't be using warmup")
def test_schedule_steps_as_torch(arguments: dict, torch_ref: ModuleType) -> None:
    ours = minitorch.profiler.schedule(**arguments)
    theirs = torch_ref.profiler.schedule(**arguments)
    assert [ours(step).name for step in range(14)] == [theirs(step).name for step in range(14)]


def test_a_scheduled_profile_records_only_active_steps_as_torch(torch_ref: ModuleType) -> None:
    results = []
    for lib in (minitorch, torch_ref):
        program(lib)
        ready = []
        with lib.profiler.profile(schedule=lib.profiler.schedule(wait=1, warmup=1, active=2, repeat=1),
                                  on_trace_ready=lambda p: ready.append(counts(p).get("aten::relu"))) as prof:
            for _ in range(6):
                program(lib)
                prof.step()
        results.append(ready)
    assert results[0] == results[1] == [2]


def test_no_warmup_warns_as_torch() -> None:
    with pytest.warns(UserWarning, match="Profiler won't be using warmup"):
        minitorch.profiler.schedule(wait=0, warmup=0, active=1)


def test_table_is_laid_out_as_torch_s() -> None:
    table = profiled(minitorch, profile_memory=True).key_averages().table(sort_by="cpu_time_total", row_limit=5)
    lines = table.splitlines()
    for column in ("Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg", "CPU Mem",
                   "Self CPU Mem", "# of Calls"):
        assert column in lines[1]
    assert lines[0] == lines[2] and set(lines[0]) <= {"-", " "}
    assert len([l for l in lines[3:] if l and not l.startswith("-") and "Self CPU time total" not in l]) == 5
    assert lines[-1].startswith("Self CPU time total: ")
    with pytest.raises(ValueError, match="sort_by must be one of"):
        profiled(minitorch).key_averages().table(sort_by="wall_time")


def test_chrome_trace_is_valid_json_with_nested_complete_events(tmp_path: Path) -> None:
    path = tmp_path / "trace.json"
    profiled(minitorch, record_shapes=True).export_chrome_trace(str(path))
    events = json.loads(path.read_text())["traceEvents"]
    assert {e["ph"] for e in events} == {"X"}
    (label,) = [e for e in events if e["name"] == "model_inference"]
    assert label["cat"] == "user_annotation"
    relu = next(e for e in events if e["name"] == "aten::relu")
    assert label["ts"] <= relu["ts"] and relu["ts"] + relu["dur"] <= label["ts"] + label["dur"] + 1e-3
    assert relu["args"]["Input Dims"] == [[4, 16]]


def test_the_op_path_is_untouched_outside_a_profile() -> None:
    original = Function.__dict__["apply"]
    with minitorch.profiler.profile():
        assert Function.__dict__["apply"] is not original
        with pytest.raises(RuntimeError, match="Profiler is already enabled"):
            minitorch.profiler.profile().start()
    assert Function.__dict__["apply"] is original
    assert minitorch.autograd.profiling.active is None


def test_record_function_as_a_decorator_and_without_a_profile() -> None:
    @minitorch.profiler.record_function("double")
    def double(x: minitorch.Tensor) -> minitorch.Tensor:
        return x * 2

    assert double(minitorch.ones(2)).tolist() == [2.0, 2.0]  # no profile: just runs
    with minitorch.profiler.profile() as prof:
        double(minitorch.ones(2))
    assert counts(prof)["double"] == 1 and counts(prof)["aten::mul"] == 1

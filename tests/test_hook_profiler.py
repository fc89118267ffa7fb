"""Task 10.1: the forward-hook profiler. Call counts against the real profiler's op events and
hand counts; times from a hand-driven clock, so every total and self time is derived by hand
(no test reads the wall clock's values); with the real clock, only the identities that hold
whatever the times are."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import minitorch
from minitorch import nn
from minitorch.profiler import profile
from minitorch.profiler.hook_profiler import NS_PER_MS, HookProfiler

pytestmark = pytest.mark.task("10.1")

RUNS = 3


class FakeClock:
    """Integer nanoseconds that move only when a module's forward says so."""

    def __init__(self) -> None:
        self.now_ns = 0

    def __call__(self) -> int:
        return self.now_ns

    def advance_ms(self, ms: int) -> None:
        self.now_ns += ms * NS_PER_MS


class Work(nn.Module):
    """A forward that takes ``ms`` milliseconds on the fake clock."""

    def __init__(self, clock: FakeClock, ms: int) -> None:
        super().__init__()
        self.clock, self.ms = clock, ms

    def forward(self, x: Any) -> Any:
        self.clock.advance_ms(self.ms)
        return x


class Boom(nn.Module):
    def forward(self, x: Any) -> Any:
        raise ValueError("boom")


class Outer(nn.Module):
    """1 ms of its own, then ``pre`` (2 ms), then ``inner`` = ``a`` (3 ms) + 4 ms of its own + ``b`` (5 ms)."""

    def __init__(self, clock: FakeClock, last: nn.Module | None = None) -> None:
        super().__init__()
        self.clock = clock
        self.pre = Work(clock, 2)
        self.inner = nn.Sequential(Work(clock, 3), Work(clock, 4), Work(clock, 5))
        self.last = last

    def forward(self, x: Any) -> Any:
        self.clock.advance_ms(1)
        x = self.inner(self.pre(x))
        return self.last(x) if self.last is not None else x


def mlp() -> nn.Sequential:
    minitorch.manual_seed(0)
    return nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 2))


def test_counts_match_the_real_profilers_op_events() -> None:
    """Each Linear runs one ``aten::addmm`` and each ReLU one ``aten::relu`` (the op profiler's view)."""
    model, x = mlp(), minitorch.randn(2, 3)
    with HookProfiler(model) as prof, profile() as real:
        for _ in range(RUNS):
            model(x)
    ops = {row.key: row.count for row in real.key_averages()}
    calls = {row.name: row.calls for row in prof.rows()}
    assert list(calls) == ["Sequential", "0", "1", "2", "3", "4"]
    assert calls["Sequential"] == RUNS
    assert calls["0"] + calls["2"] + calls["4"] == ops["aten::addmm"] == 3 * RUNS
    assert calls["1"] + calls["3"] == ops["aten::relu"] == 2 * RUNS


def test_a_shared_module_is_one_row_with_every_call() -> None:
    class Twice(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fc = nn.Linear(3, 3)
            self.again = self.fc  # the same module under a second name

        def forward(self, x: Any) -> Any:
            return self.again(self.fc(x))

    model = Twice()
    with HookProfiler(model) as prof:
        model(minitorch.randn(2, 3))
        model(minitorch.randn(2, 3))
    assert [(row.name, row.calls) for row in prof.rows()] == [("Twice", 2), ("fc", 4)]


def test_total_and_self_times_on_a_hand_driven_clock() -> None:
    clock = FakeClock()
    model = Outer(clock)
    with HookProfiler(model, clock=clock) as prof:
        model(minitorch.zeros(1))
        model(minitorch.zeros(1))
    # per call: Outer 1 + 2 + (3 + 4 + 5) = 15 ms, of which 1 its own; inner 12, none its own
    expected = {"Outer": (2, 30, 2), "pre": (2, 4, 4), "inner": (2, 24, 0), "inner.0": (2, 6, 6),
                "inner.1": (2, 8, 8), "inner.2": (2, 10, 10)}
    got = {row.name: (row.calls, row.total_ms, row.self_ms) for row in prof.rows()}
    assert got == expected
    assert [row.name for row in prof.rows(sort_by="self_ms")][:3] == ["inner.2", "inner.1", "inner.0"]


def test_table_lists_name_calls_total_and_self_ms() -> None:
    clock = FakeClock()
    model = Outer(clock)
    with HookProfiler(model, clock=clock) as prof:
        model(minitorch.zeros(1))
    lines = prof.table(sort_by="total_ms").splitlines()
    assert lines[0].split() == ["Name", "Calls", "Total", "ms", "Self", "ms"]
    assert [line.split() for line in lines[2:]] == [
        ["Outer", "1", "15.000", "1.000"], ["inner", "1", "12.000", "0.000"], ["inner.2", "1", "5.000", "5.000"],
        ["inner.1", "1", "4.000", "4.000"], ["inner.0", "1", "3.000", "3.000"], ["pre", "1", "2.000", "2.000"]]
    with pytest.raises(ValueError, match="sort_by must be one of .* got 'cpu_time'"):
        prof.table(sort_by="cpu_time")


def test_a_forward_that_raises_still_closes_its_call() -> None:
    """The forward hook runs even when forward raises (``always_call``), so the stack stays right."""
    clock = FakeClock()
    model = Outer(clock, last=Boom())
    with HookProfiler(model, clock=clock) as prof:
        with pytest.raises(ValueError, match="boom"):
            model(minitorch.zeros(1))
        assert prof.open_calls == []
        model.last = None  # the same profiler goes on with a working model
        model(minitorch.zeros(1))
    rows = {row.name: (row.calls, row.total_ms, row.self_ms) for row in prof.rows()}
    assert rows["last"] == (1, 0, 0)
    assert rows["Outer"] == (2, 30, 2) and rows["inner"] == (2, 24, 0)


def test_self_times_add_up_to_the_total_with_the_real_clock() -> None:
    """Whatever the times, the self times of a call tree telescope to the root's total."""
    model, x = mlp(), minitorch.randn(2, 3)
    with HookProfiler(model) as prof:
        model(x)
    rows = prof.rows()
    assert sum(row.self_ns for row in rows) == rows[0].total_ns
    assert all(0 <= row.self_ns <= row.total_ns for row in rows)
    assert all(rows[0].total_ns >= row.total_ns for row in rows)


def test_hooks_leave_outputs_alone_and_are_removed_on_exit() -> None:
    model, x = mlp(), minitorch.randn(2, 3, dtype=minitorch.float64)
    model = model.double()
    expected = model(x).detach().numpy()
    with HookProfiler(model) as prof:
        inside = model(x).detach().numpy()
        assert all(len(m._forward_hooks) == 1 and len(m._forward_pre_hooks) == 1 for m in model.modules())
    np.testing.assert_array_equal(inside, expected)
    assert all(not m._forward_hooks and not m._forward_pre_hooks for m in model.modules())
    model(x)  # not counted: the hooks are gone
    assert [row.calls for row in prof.rows()] == [1] * 6

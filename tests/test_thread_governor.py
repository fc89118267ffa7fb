"""The thread governor: one thread fewer after a threaded kernel stalls, one back after a hold.

Most tests drive a governor with a hand-moved clock and stand-in kernels, so each decision is
checked exactly; the last runs a real Numba kernel whose second thread arrives late, as one the
scheduler holds back does. (Whether the operating system stalls threads on a busy machine, and
what the governor saves then, is measured by the benchmark's "another process busy" case.)
"""

from __future__ import annotations

import math
import threading

import numba
import numpy as np
import pytest

import minitorch
from minitorch.backends import cpu_thread_governor as governor_module
from minitorch.backends.cpu_thread_governor import (
    HOLD_SECONDS, MAX_HOLD_SECONDS, PROBE_SECONDS, SLACK, STALL_SECONDS, STRIKE_SECONDS, STRIKES, ThreadGovernor,
)

FAST = 1e-4  # seconds a stand-in kernel takes for WORK units when nothing stalls
WORK = 100_000
STALL = 8e-3  # one scheduler time slice or two, as measured on a busy 2-core machine


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class Kernel:
    """Stands in for a Numba dispatcher: advances the clock by the next duration, counts its calls."""

    def __init__(self, clock: Clock) -> None:
        self.clock, self.overloads, self.calls = clock, {"float32": object()}, 0

    def __call__(self, seconds: float, compiles: bool = False) -> int:
        self.clock.now += seconds
        if compiles:
            self.overloads[f"signature {len(self.overloads)}"] = object()
        self.calls += 1
        return self.calls


class Threads:
    """Numba's per-thread count as the governor sees it, with every change recorded."""

    def __init__(self, count: int) -> None:
        self.count, self.changes = count, []

    def get(self) -> int:
        return self.count

    def set(self, count: int) -> None:
        self.count = count
        self.changes.append(count)


def stall_repeatedly(governor: ThreadGovernor, kernel: Kernel, seconds: float = STALL) -> None:
    """STRIKES stalled calls in a row: what takes a thread away (fewer are hiccups)."""
    for _ in range(STRIKES):
        governor.run(WORK, kernel, seconds)


class Probe:
    """Stands in for the pings: the fastest ping's seconds (free cores by default), and the calls."""

    def __init__(self) -> None:
        self.seconds, self.calls = 2e-6, 0

    def __call__(self) -> float:
        self.calls += 1
        return self.seconds


def make(threads: int = 4, probe: Probe | None = None) -> tuple[ThreadGovernor, Clock, Kernel, Threads]:
    clock, numba_threads = Clock(), Threads(threads)
    governor = ThreadGovernor(clock=clock, get_threads=numba_threads.get, set_threads=numba_threads.set,
                              probe=probe or Probe())
    return governor, clock, Kernel(clock), numba_threads


def test_calls_at_their_usual_speed_leave_the_count_alone() -> None:
    governor, _, kernel, threads = make()
    for seconds in (FAST, FAST * 1.5, FAST, FAST * 3, FAST):
        governor.run(WORK, kernel, seconds)
    assert threads.changes == [] and governor.current() == governor.wanted() == 4


def test_the_kernel_runs_with_its_arguments_and_its_result_comes_back() -> None:
    governor, _, kernel, _ = make()
    assert governor.run(WORK, kernel, FAST) == 1
    assert governor.run(WORK, kernel, FAST) == 2 and kernel.calls == 2


def test_a_stall_takes_one_thread_away_and_the_next_takes_another_down_to_one() -> None:
    governor, _, kernel, threads = make(threads=3)
    governor.run(WORK, kernel, FAST)
    stall_repeatedly(governor, kernel)
    assert threads.changes == [2] and governor.current() == 2
    stall_repeatedly(governor, kernel)
    stall_repeatedly(governor, kernel)  # one thread left: nothing more to take
    assert threads.changes == [2, 1] and governor.current() == 1
    assert governor.wanted() == 3  # what the user asked for is still reported


def test_a_few_stalls_spread_out_are_hiccups() -> None:
    governor, clock, kernel, threads = make()
    governor.run(WORK, kernel, FAST)
    for _ in range(STRIKES - 1):
        governor.run(WORK, kernel, STALL)
    assert threads.changes == []
    for _ in range(10):  # hiccups further apart than the strike window, STRIKES - 1 at a time
        clock.now += STRIKE_SECONDS * 1.1
        for _ in range(STRIKES - 1):
            governor.run(WORK, kernel, STALL)
    assert threads.changes == []
    governor.run(WORK, kernel, STALL)  # one more within the window: a thread goes
    assert threads.changes == [3]
    for _ in range(STRIKES - 1):  # the next thread takes as many stalls again
        governor.run(WORK, kernel, STALL)
    assert threads.changes == [3]
    governor.run(WORK, kernel, STALL)
    assert threads.changes == [3, 2]


def test_a_slower_call_within_the_slack_is_not_a_stall() -> None:
    governor, _, kernel, threads = make()
    governor.run(WORK, kernel, FAST)
    # another layout through the same kernel: many times slower, below the slack
    governor.run(WORK, kernel, SLACK * FAST + STALL_SECONDS * 0.9)
    assert threads.changes == []
    # a call of ten times the work may take ten times as long
    governor.run(10 * WORK, kernel, 10 * SLACK * FAST + STALL_SECONDS * 0.9)
    assert threads.changes == []


def test_a_long_call_is_measured_against_its_work() -> None:
    governor, _, kernel, threads = make()
    governor.run(WORK, kernel, FAST)
    governor.run(1000 * WORK, kernel, 1000 * FAST + STALL)  # a stall of 8 ms inside a 100 ms call
    assert threads.changes == []
    stall_repeatedly(governor, kernel, FAST + STALL)
    assert threads.changes == [3]


def test_a_first_call_that_compiled_its_kernel_does_not_set_the_pace() -> None:
    governor, _, kernel, threads = make()
    governor.run(WORK, kernel, 2.0, True)  # two seconds of compiling: the next call's time replaces it
    governor.run(WORK, kernel, FAST)
    assert threads.changes == []
    stall_repeatedly(governor, kernel, FAST + STALL)  # measured against the second call
    assert threads.changes == [3]


def test_a_plain_function_runs_untimed() -> None:
    governor, clock, _, threads = make()

    def spy(seconds: float) -> str:
        clock.now += seconds
        return "ran"

    durations = [FAST] + [STALL] * (2 * STRIKES)
    assert [governor.run(WORK, spy, seconds) for seconds in durations] == ["ran"] * len(durations)
    assert threads.changes == []


def test_slow_calls_that_compiled_new_signatures_are_no_stalls() -> None:
    governor, _, kernel, threads = make()
    governor.run(WORK, kernel, FAST)
    governor.run(WORK, kernel, 1.5, True)  # float64 this time: compiled (or loaded from the cache)
    governor.run(WORK, kernel, 0.01, True)  # int32: loaded from the cache
    assert threads.changes == []
    stall_repeatedly(governor, kernel)
    assert threads.changes == [3]


def test_the_first_timed_call_sets_the_pace_and_faster_ones_lower_it() -> None:
    governor, _, kernel, threads = make()
    governor.run(WORK, kernel, STALL)  # a stall before anything is known: it is the fastest so far
    assert threads.changes == []
    governor.run(WORK, kernel, FAST)
    stall_repeatedly(governor, kernel)
    assert threads.changes == [3]


def test_each_kernel_has_a_pace_of_its_own() -> None:
    governor, clock, quick, threads = make()
    slow = Kernel(clock)
    governor.run(WORK, quick, FAST)
    governor.run(WORK, slow, 30 * FAST)  # another kernel's first call, 30 times slower: not a stall
    governor.run(WORK, slow, 30 * FAST)
    assert threads.changes == []


def test_a_thread_comes_back_after_the_hold() -> None:
    governor, clock, kernel, threads = make(threads=2)
    governor.run(WORK, kernel, FAST)
    stall_repeatedly(governor, kernel)
    assert threads.changes == [1]
    clock.now += HOLD_SECONDS * 0.9
    governor.run(WORK, kernel, FAST)
    assert threads.changes == [1]
    clock.now += HOLD_SECONDS * 0.2
    governor.run(WORK, kernel, FAST)
    assert threads.changes == [1, 2] and governor.current() == 2


def test_when_every_call_stalls_from_the_start_a_probe_finds_the_busy_cores() -> None:
    probe = Probe()
    governor, clock, kernel, threads = make(threads=2, probe=probe)
    governor.run(WORK, kernel, STALL)  # the kernel's pace is a stall...
    governor.run(WORK, kernel, STALL)  # ...so this one is at the usual pace: the cores are probed
    assert probe.calls == 1 and threads.changes == []  # free cores: the pings were fast
    probe.seconds = STALL
    governor.run(WORK, kernel, STALL)
    assert probe.calls == 1  # at most one probe a second
    clock.now += PROBE_SECONDS
    governor.run(WORK, kernel, STALL)
    assert probe.calls == 2 and threads.changes == [1]
    governor.run(WORK, kernel, FAST)  # on one thread the kernel shows its real pace
    clock.now += HOLD_SECONDS
    governor.run(WORK, kernel, FAST)
    assert threads.changes == [1, 2]
    stall_repeatedly(governor, kernel)  # now the pace tells the stalls
    assert threads.changes == [1, 2, 1] and probe.calls == 2


def test_a_long_call_on_free_cores_is_probed_and_left_alone() -> None:
    probe = Probe()
    governor, clock, kernel, threads = make(probe=probe)
    for _ in range(4):  # the first sets the pace, the next three are at it
        governor.run(1000 * WORK, kernel, 1000 * FAST)  # 100 ms at the kernel's usual pace
        clock.now += PROBE_SECONDS
    governor.run(WORK, kernel, FAST)  # a short call is never probed
    assert probe.calls == 3 and threads.changes == []


def test_threads_come_back_one_hold_at_a_time_up_to_the_count_asked_for() -> None:
    governor, clock, kernel, threads = make(threads=4)
    governor.run(WORK, kernel, FAST)
    for _ in range(3):
        stall_repeatedly(governor, kernel)
    assert threads.changes == [3, 2, 1]
    for _ in range(5):
        clock.now += 4 * HOLD_SECONDS  # (each hold is the first: no thread had come back in between)
        governor.run(WORK, kernel, FAST)
    assert threads.changes == [3, 2, 1, 2, 3, 4] and governor.current() == 4


def test_a_stall_soon_after_a_thread_came_back_doubles_the_hold() -> None:
    governor, clock, kernel, threads = make(threads=2)
    governor.run(WORK, kernel, FAST)
    hold = HOLD_SECONDS
    for _ in range(12):
        stall_repeatedly(governor, kernel)  # the stall: one thread fewer for `hold` seconds
        assert governor.current() == 1
        clock.now += hold - 1e-3
        governor.run(WORK, kernel, FAST)
        assert governor.current() == 1, f"the thread came back before a hold of {hold} s"
        clock.now += 2e-3
        governor.run(WORK, kernel, FAST)
        assert governor.current() == 2
        hold = min(2 * hold, MAX_HOLD_SECONDS)
    assert hold == MAX_HOLD_SECONDS


def test_a_stall_long_after_a_thread_came_back_starts_the_hold_over() -> None:
    governor, clock, kernel, threads = make(threads=2)
    governor.run(WORK, kernel, FAST)
    stall_repeatedly(governor, kernel)
    clock.now += HOLD_SECONDS + 0.01
    governor.run(WORK, kernel, FAST)  # back (a hold of 1 s)
    stall_repeatedly(governor, kernel)  # at once: the next hold is 2 s
    clock.now += 2 * HOLD_SECONDS + 0.01
    governor.run(WORK, kernel, FAST)
    clock.now += 60.0  # a quiet minute
    stall_repeatedly(governor, kernel)
    clock.now += HOLD_SECONDS + 0.01
    governor.run(WORK, kernel, FAST)
    assert threads.changes == [1, 2, 1, 2, 1, 2]


def test_one_thread_asked_for_is_never_changed() -> None:
    governor, _, kernel, threads = make(threads=1)
    governor.run(WORK, kernel, FAST)
    for _ in range(5):
        stall_repeatedly(governor, kernel)
    assert threads.changes == [] and governor.current() == 1


def test_reset_is_the_users_count_and_forgets_the_stalls() -> None:
    governor, clock, kernel, threads = make(threads=4)
    governor.run(WORK, kernel, FAST)
    stall_repeatedly(governor, kernel)
    governor.reset(2)
    assert threads.changes == [3, 2] and governor.current() == governor.wanted() == 2
    clock.now += 10 * MAX_HOLD_SECONDS
    governor.run(WORK, kernel, FAST)
    assert threads.changes == [3, 2]  # nothing to bring back above the count the user set
    stall_repeatedly(governor, kernel)
    assert threads.changes == [3, 2, 1]


def test_each_python_thread_has_its_own_count() -> None:
    governor, _, kernel, threads = make(threads=4)
    governor.run(WORK, kernel, FAST)
    stall_repeatedly(governor, kernel)
    seen = {}

    def other() -> None:
        seen["before"] = governor.current()
        governor.reset(2)
        seen["after"] = governor.current()

    worker = threading.Thread(target=other)
    worker.start()
    worker.join()
    assert seen == {"before": 3, "after": 2}  # the other thread starts from Numba's count (the stand-in's)...
    assert governor.current() == 3 and governor.wanted() == 4  # ...and this thread's state is untouched


def test_the_hold_constants_make_sense() -> None:
    assert 0 < STALL_SECONDS < 0.05 and SLACK >= 2 and STALL_SECONDS < STRIKE_SECONDS < HOLD_SECONDS
    assert STRIKES >= 2
    assert HOLD_SECONDS < MAX_HOLD_SECONDS and math.log2(MAX_HOLD_SECONDS / HOLD_SECONDS).is_integer()


def test_set_num_threads_goes_through_the_governor() -> None:
    before = minitorch.get_num_threads()
    try:
        minitorch.set_num_threads(1)
        assert governor_module.GOVERNOR.current() == governor_module.GOVERNOR.wanted() == 1
        assert minitorch.get_num_threads() == 1
    finally:
        minitorch.set_num_threads(before)
    assert minitorch.get_num_threads() == before


@numba.njit(parallel=True)
def late_second_thread(seen: np.ndarray, late: int) -> None:
    """Writes the thread count it was launched on; with ``late`` > 0 the second thread spins ``late``
    steps first, as a thread that the scheduler held back arrives late (on one thread nothing waits)."""
    seen[0] = numba.get_num_threads()  # read on the launching thread
    for i in numba.prange(1, seen.size):
        seen[i] = i
        if late and numba.get_thread_id() == 1:
            x = 1.0
            for _ in range(late):
                x = x * 1.0000001 + 1e-9
            seen[i] += x * 0.0


LATE = 20_000_000  # 20-70 ms of spinning on this machine: a stall by any measure


@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="a stall needs a second thread to wait for")
def test_real_kernels_that_wait_for_a_late_thread_run_on_fewer_threads() -> None:
    """Numba's own thread count and clock, and a real kernel whose second thread arrives late.

    The probe stands in for the pings and reports busy cores: whether the pace of the first calls
    was a stall too (a busy machine) or not, a late call then takes a thread away."""
    probe = Probe()
    probe.seconds = STALL
    governor, before = ThreadGovernor(probe=probe), numba.get_num_threads()
    seen = np.zeros(8)
    try:
        for _ in range(5):  # compiled, then the kernel's pace
            governor.run(seen.size, late_second_thread, seen, 0)
        assert seen[0] <= before
        for _ in range(STRIKES):
            governor.run(seen.size, late_second_thread, seen, LATE)
        after = numba.get_num_threads()
        assert after < before and governor.current() == after and governor.wanted() == before
        governor.run(seen.size, late_second_thread, seen, 0)
        assert seen[0] == after  # the next kernel was launched on the fewer threads
    finally:
        numba.set_num_threads(before)

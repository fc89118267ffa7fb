"""One thread fewer while other programs hold the cores: the thread governor.

A threaded kernel returns when the last of its threads is done. When another program keeps a
core busy, the operating system runs the thread waiting there only when its time slice comes
round, and the whole kernel waits for it. Measured on a 2-core machine while a test run used
both cores: an empty threaded kernel took 8 ms instead of 2 us (334 of 400 calls), and a training
step of a 784-256-10 MLP took 48 ms on 2 threads against 1.4 ms on one. PyTorch's thread pool
stalls the same way; a laptop with a busy browser meets it.

So the cpu backend runs its threaded kernels through :func:`governed`, which times each call
against the fastest that kernel has run per unit of work. A call that took more than
:data:`STALL_SECONDS` beyond :data:`SLACK` times that waited for a thread the scheduler held
back. :data:`STRIKES` stalls within :data:`STRIKE_SECONDS` (fewer are hiccups: an idle virtual
machine here had two to six in 5 s of kernels) and the calling thread's kernels run on one thread
fewer (``numba.set_num_threads``, which every ``prange`` loop reads when it starts). After
``hold`` seconds one thread comes back; a stall within ``hold`` seconds of that doubles the hold
(up to :data:`MAX_HOLD_SECONDS`), and one long after it starts again from :data:`HOLD_SECONDS`.

Where every call stalls (every core busy from the start), a kernel's fastest call is a stall too.
So a call slower than :data:`STALL_SECONDS` that is not a stall by its kernel's pace (a long call,
or one of such a kernel) sends a probe, at most once every :data:`PROBE_SECONDS`: :data:`PINGS`
empty threaded kernels, which take microseconds on free cores. When even the fastest of them
took over :data:`PING_STALL_SECONDS`, every thread waits for the scheduler, and one goes.

A slow call that compiled its kernel (or loaded it from the cache) is no stall: Numba's table of
compiled signatures grew; nor is a slow call of something that is not a Numba dispatcher (a
test's spy). The state is each Python thread's own, as Numba's thread count is. Results do not
depend on the count: every kernel cuts its work into the same parts whatever the number of threads.
"""

from __future__ import annotations

import functools
import math
import threading
import time
from typing import Any, Callable

import numba
import numpy as np
from numba import prange

from .serial_twins import note_threads_started, serial_only, serial_version

#: a call this much slower than its kernel's fastest (plus the slack) waited for a thread
STALL_SECONDS = 2e-3
#: a call may take this many times its kernel's fastest time per unit of work (another layout
#: or dtype through the same kernel) before its excess counts as a stall
SLACK = 16.0
#: this many stalls within STRIKE_SECONDS take a thread away (busy cores stall many calls a second)
STRIKES = 3
STRIKE_SECONDS = 0.5
#: at most one probe this often
PROBE_SECONDS = 1.0
#: empty threaded kernels per probe, and the time the fastest of them must exceed
PINGS = 3
PING_STALL_SECONDS = 1e-3
#: seconds on one thread fewer before the governor tries one more again
HOLD_SECONDS = 1.0
#: the longest hold, reached when every thread given back stalls again at once
MAX_HOLD_SECONDS = 64.0


class _ThreadState(threading.local):
    """One Python thread's count: what its user asked for, what it runs on, when one comes back."""

    def __init__(self) -> None:
        self.wanted = 0  # 0: not read from Numba yet
        self.current = 0
        self.forget_stalls()

    def forget_stalls(self) -> None:
        self.hold = HOLD_SECONDS
        self.raise_at = math.inf
        self.raised_at = -math.inf
        self.strikes_from = -math.inf  # when the first of the recent stalls came
        self.strikes = 0
        self.probe_at = -math.inf


@functools.lru_cache(maxsize=None)
def _ping_kernel() -> Any:
    """An empty ``prange`` loop, one task per thread (compiled at the first probe, then cached).

    (``parallel=True``: the loop has no array expression that another parallel feature could take.)"""

    @numba.njit(parallel=True, cache=True)
    def ping(marks: np.ndarray) -> None:
        for i in prange(marks.size):
            marks[i] = i

    return ping


def fastest_ping() -> float:
    """Seconds the fastest of :data:`PINGS` empty threaded kernels took on the calling thread's threads."""
    ping, marks = _ping_kernel(), np.zeros(numba.get_num_threads(), np.int64)
    ping(marks)  # compiled or loaded the first time: not timed
    fastest = math.inf
    for _ in range(PINGS):
        start = time.perf_counter()
        ping(marks)
        fastest = min(fastest, time.perf_counter() - start)
    return fastest


def _signature_count(kernel: Any) -> int:
    """How many signatures a Numba dispatcher has compiled or loaded (-1: not a dispatcher)."""
    signatures = getattr(kernel, "overloads", None)
    return -1 if signatures is None else len(signatures)


class ThreadGovernor:
    """Times threaded kernel calls and takes a thread away from the calling thread after stalls.

    ``clock``, ``get_threads``, ``set_threads`` and ``probe`` are the process's and Numba's by
    default; tests pass their own to drive the governor by hand.
    """

    def __init__(self, clock: Callable[[], float] = time.perf_counter,
                 get_threads: Callable[[], int] = numba.get_num_threads,
                 set_threads: Callable[[int], None] = numba.set_num_threads,
                 probe: Callable[[], float] = fastest_ping) -> None:
        self._clock, self._get_threads, self._set_threads, self._probe = clock, get_threads, set_threads, probe
        self._state = _ThreadState()
        #: seconds per unit of work of each kernel's fastest call (all threads share it: a lost
        #: update between two threads only keeps a slower figure a little longer)
        self._fastest: dict[Any, float] = {}
        #: how many signatures each kernel had compiled at its fastest call or its last slow one
        self._signatures: dict[Any, int] = {}

    def run(self, work: int, kernel: Any, *args: Any) -> Any:
        """``kernel(*args)``, timed; ``work`` (elements, multiply-adds) scales the kernel's fastest time.

        A call at its usual speed costs two clock reads and one look-up beside the kernel. In a
        forked child of a process that ran threads, the kernel's serial twin runs instead
        (:mod:`.serial_twins`)."""
        if serial_only():
            return serial_version(kernel)(*args)
        note_threads_started()
        state, clock = self._state, self._clock
        start = clock()
        if start >= state.raise_at:
            self._add_thread(state, start)
        result = kernel(*args)
        elapsed = clock() - start
        work = work or 1
        usual = self._fastest.get(kernel, math.inf) * work
        if elapsed < usual:
            # the first call's time (a compile) is replaced by the next one's
            self._fastest[kernel], self._signatures[kernel] = elapsed / work, _signature_count(kernel)
        elif elapsed > STALL_SECONDS + SLACK * usual:
            if not self._compiled(kernel):
                self._stalled(state, start + elapsed)
        elif elapsed > STALL_SECONDS and start >= state.probe_at:
            self._probe_cores(state, start + elapsed)
        return result

    def _compiled(self, kernel: Any) -> bool:
        """Whether ``kernel`` compiled (or loaded from the cache) a signature since its fastest call or its
        last slow one, which is what made this call slow. A kernel that is not a Numba dispatcher (a test's
        spy) is never taken to have stalled."""
        count = _signature_count(kernel)
        known, self._signatures[kernel] = self._signatures.get(kernel), count
        return count < 0 or known != count

    def _threads_now(self, state: _ThreadState) -> int:
        if not state.wanted:
            state.wanted = state.current = self._get_threads()
        return state.current

    def _stalled(self, state: _ThreadState, now: float) -> None:
        if self._threads_now(state) <= 1:
            return
        if now - state.strikes_from < STRIKE_SECONDS:
            state.strikes += 1
        else:
            state.strikes_from, state.strikes = now, 1
        if state.strikes >= STRIKES:
            state.strikes_from, state.strikes = -math.inf, 0  # the next thread takes as many stalls again
            self._drop_thread(state, now)

    def _probe_cores(self, state: _ThreadState, now: float) -> None:
        """After a slow call at its kernel's usual pace (a long call, or every call of it stalls)."""
        state.probe_at = now + PROBE_SECONDS
        if self._threads_now(state) > 1 and self._probe() > PING_STALL_SECONDS:
            self._drop_thread(state, self._clock())

    def _drop_thread(self, state: _ThreadState, now: float) -> None:
        soon_after_raise = now - state.raised_at < state.hold
        state.hold = min(2 * state.hold, MAX_HOLD_SECONDS) if soon_after_raise else HOLD_SECONDS
        state.current -= 1
        self._set_threads(state.current)
        state.raise_at = now + state.hold

    def _add_thread(self, state: _ThreadState, now: float) -> None:
        state.current += 1
        self._set_threads(state.current)
        state.raised_at = now
        state.raise_at = now + state.hold if state.current < state.wanted else math.inf

    def reset(self, count: int) -> None:
        """The calling thread's kernels run on ``count`` threads from now on (the user's choice)."""
        state = self._state
        state.wanted = state.current = count
        state.forget_stalls()
        self._set_threads(count)

    def wanted(self) -> int:
        """The count the calling thread asked for (the governor may run it on fewer for a while)."""
        return self._state.wanted or self._get_threads()

    def current(self) -> int:
        """The count the calling thread's kernels run on now."""
        return self._state.current or self._get_threads()


#: the process's governor, which every threaded cpu kernel runs under
GOVERNOR = ThreadGovernor()

#: ``governed(work, kernel, *args)``: ``kernel(*args)`` on the threads :data:`GOVERNOR` allows the calling thread now
governed = GOVERNOR.run

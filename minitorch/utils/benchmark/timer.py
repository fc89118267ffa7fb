"""``Timer``: time a Python statement with the standard library's ``timeit``, the way PyTorch's does.

Differences from ``timeit.Timer``: warm-up runs, minitorch's thread count set to ``num_threads``
for the measurement (one by default, so comparisons are like for like), a wait for the
accelerator around each reading of the clock, and replicates (:meth:`Timer.blocked_autorange`)
instead of ``repeat``/``autorange``. Each call returns a :class:`Measurement`.
"""

from __future__ import annotations

import enum
import sys
import textwrap
import timeit
from typing import Any, Callable, Optional, Union

from ... import accelerator
from .measurement import Measurement
from .task_spec import TaskSpec
from .threads import set_torch_threads

#: no run is reported below 1 ns (a clock read alone costs more; it also keeps times nonzero)
MIN_TIME = 1e-9
#: timeit(number) first warms up with number // WARMUP_DIVISOR runs (at least MIN_WARMUP_RUNS), not reported
WARMUP_DIVISOR = 100
MIN_WARMUP_RUNS = 2
#: block-size search: clock overhead from the median of this many (odd) empty blocks; the block grows tenfold
#: until the overhead is at most MAX_RELATIVE_OVERHEAD of it and it lasts min_run_time / MIN_RUN_FRACTION
OVERHEAD_SAMPLES = 5
BLOCK_GROWTH = 10
MAX_RELATIVE_OVERHEAD = 1e-4
MIN_RUN_FRACTION = 1000
#: the largest block (PyTorch's C++ timer takes a 32-bit count; kept so both pick the same blocks)
MAX_BLOCK = 2**31 - 1
#: adaptive_autorange sizes its block for this long and checks the spread from this many replicates on
ADAPTIVE_BLOCK_RUN_TIME = 0.05
ADAPTIVE_MIN_REPLICATES = 4

Callback = Callable[[int, float], Any]


def timer() -> float:
    """``timeit.default_timer()``, after waiting for the accelerator's queued work when there is one."""
    if accelerator.is_available():
        accelerator.synchronize()
    return timeit.default_timer()


class Language(enum.Enum):
    """The language of a statement (only Python is supported)."""

    PYTHON = 0
    CPP = 1


_PYTHON_NAMES = (Language.PYTHON, "py", "python")
_CPP_NAMES = (Language.CPP, "cpp", "c++")


def _tidy(code: str) -> str:
    """``code`` dedented, without the newline that opens a triple-quoted block and trailing space."""
    code = textwrap.dedent(code)
    return (code[1:] if code.startswith("\n") else code).rstrip()


class Timer:
    """Times ``stmt`` (after ``setup``) in a loop, with ``globals`` as its global names.

    ``label``, ``sub_label``, ``description`` and ``env`` are carried into the measurements for
    :class:`Compare`'s table; ``num_threads`` is minitorch's thread count while timing. ``minitorch``
    is available to the statement as ``torch`` unless ``globals`` names ``torch``.
    """

    def __init__(
        self,
        stmt: str = "pass",
        setup: str = "pass",
        global_setup: str = "",
        timer: Callable[[], float] = timer,
        globals: Optional[dict[str, Any]] = None,  # noqa: A002 - PyTorch's (and timeit's) keyword
        label: Optional[str] = None,
        sub_label: Optional[str] = None,
        description: Optional[str] = None,
        env: Optional[str] = None,
        num_threads: int = 1,
        language: Union[Language, str] = Language.PYTHON,
    ) -> None:
        if not isinstance(stmt, str):
            raise ValueError("Currently only a `str` stmt is supported.")
        if language in _CPP_NAMES:
            raise NotImplementedError(
                "Timer(language='cpp') is not supported by minitorch: PyTorch compiles the C++ snippet against "
                "libtorch, which minitorch does not have. Time the Python statement instead."
            )
        if language not in _PYTHON_NAMES:
            raise ValueError(f"Invalid language `{language}`.")
        if global_setup:
            raise ValueError(
                f"global_setup is C++ only, got `{global_setup}`. Most likely this code can simply be moved to `setup`."
            )
        if not isinstance(setup, str):
            raise TypeError(f"Timer's setup must be a string of Python code, got {type(setup).__name__!r}")
        # a copy: running the code adds ``__builtins__``, and the caller's dict stays as it was
        self._globals = dict(globals or {})
        self._globals.setdefault("torch", sys.modules[__name__.split(".")[0]])
        stmt, setup = _tidy(stmt), _tidy(setup)
        self._timer = timeit.Timer(stmt=stmt, setup=setup, timer=timer, globals=self._globals)
        self._task_spec = TaskSpec(
            stmt=stmt, setup=setup, global_setup=global_setup, label=label, sub_label=sub_label,
            description=description, env=env, num_threads=num_threads,
        )

    def _timeit(self, number: int) -> float:
        return max(self._timer.timeit(number), MIN_TIME)

    def _measurement(self, number: int, times: list[float]) -> Measurement:
        return Measurement(number_per_run=number, raw_times=times, task_spec=self._task_spec)

    def timeit(self, number: int = 1000000) -> Measurement:
        """One replicate of ``number`` runs (as ``timeit.Timer.timeit``), after a short warm-up."""
        with set_torch_threads(self._task_spec.num_threads):
            self._timeit(max(number // WARMUP_DIVISOR, MIN_WARMUP_RUNS))
            return self._measurement(number, [self._timeit(number)])

    def repeat(self, repeat: int = -1, number: int = -1) -> None:
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def autorange(self, callback: Optional[Callback] = None) -> None:
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def _estimate_block_size(self, min_run_time: float) -> int:
        """The runs per replicate: grown tenfold from 1 until the clock's overhead is negligible
        (the searching also warms up)."""
        with set_torch_threads(self._task_spec.num_threads):
            overhead = sorted(self._timeit(0) for _ in range(OVERHEAD_SAMPLES))[OVERHEAD_SAMPLES // 2]
            number = 1
            while True:
                time_taken = self._timeit(number)
                if overhead / time_taken <= MAX_RELATIVE_OVERHEAD and time_taken >= min_run_time / MIN_RUN_FRACTION:
                    return number
                if time_taken > min_run_time or number * BLOCK_GROWTH > MAX_BLOCK:
                    return number
                number *= BLOCK_GROWTH

    def _replicates(
        self,
        number: int,
        can_stop: Callable[[list[float]], bool],
        min_run_time: float,
        max_run_time: Optional[float],
        callback: Optional[Callback],
    ) -> list[float]:
        """Replicates of ``number`` runs until ``min_run_time`` is spent and ``can_stop`` agrees, or
        ``max_run_time`` is passed."""
        times: list[float] = []
        total = 0.0
        with set_torch_threads(self._task_spec.num_threads):
            while True:
                spent = self._timeit(number)
                times.append(spent)
                total += spent
                if callback:
                    callback(number, spent)
                stop = can_stop(times)
                if max_run_time and total > max_run_time:
                    break
                if total >= min_run_time and stop:
                    break
        return times

    def blocked_autorange(self, callback: Optional[Callback] = None, min_run_time: float = 0.2) -> Measurement:
        """Replicates of one block size (chosen so the clock's overhead is negligible) until
        ``min_run_time`` seconds are spent; ``callback(number, seconds)`` after each."""
        number = self._estimate_block_size(min_run_time)
        times = self._replicates(number, lambda _: True, min_run_time, None, callback)
        return self._measurement(number, times)

    def adaptive_autorange(
        self,
        threshold: float = 0.1,
        *,
        min_run_time: float = 0.01,
        max_run_time: float = 10.0,
        callback: Optional[Callback] = None,
    ) -> Measurement:
        """As :meth:`blocked_autorange`, but also until IQR / median of the replicates (4 or more)
        is below ``threshold``, or ``max_run_time`` seconds are spent."""
        number = self._estimate_block_size(ADAPTIVE_BLOCK_RUN_TIME)

        def spread_is_small(times: list[float]) -> bool:
            enough = len(times) >= ADAPTIVE_MIN_REPLICATES
            return enough and self._measurement(number, times).meets_confidence(threshold)

        times = self._replicates(number, spread_is_small, min_run_time, max_run_time, callback)
        return self._measurement(number, times)

    def collect_callgrind(self, number: int = 100, *, repeats: Optional[int] = None, collect_baseline: bool = True,
                          retain_out_file: bool = False) -> Any:
        raise NotImplementedError(
            "Timer.collect_callgrind is not supported by minitorch (it needs Valgrind and PyTorch's C++ "
            "instrumentation); use blocked_autorange or adaptive_autorange for wall times."
        )

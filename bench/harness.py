"""The benchmark harness: cases, interleaved timing, medians, ratios, targets, table and JSON.

Pure logic on the standard library only (no minitorch, NumPy or PyTorch import), so it can
be tested quickly and reused by every ``cases_*.py`` module. Vocabulary:

* a **case** is one measured operation; its **keys** are the implementations timed side by
  side: ``minitorch``, ``numpy`` and ``torch`` (the reference columns), plus optional
  **variants** of minitorch (another backend, the course's own kernel) shown as rows of
  their own against the same NumPy and PyTorch medians;
* each key has a **factory** that builds the zero-argument call to time. Factories run
  lazily, at measurement time, and a factory or call that fails turns that key into
  ``n/a`` with the reason recorded, so the harness runs on older minitorch checkouts;
* a **target** is the issue's goal for a row (a ratio to PyTorch, a fraction of NumPy's
  BLAS, an absolute time), evaluated as ``met`` / ``missed``.
"""

from __future__ import annotations

import gc
import math
import re
import statistics
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

Call = Callable[[], Any]
Factory = Callable[[], Optional[Call]]

MINITORCH, NUMPY, TORCH = "minitorch", "numpy", "torch"
LIBRARIES = (MINITORCH, NUMPY, TORCH)
NOT_AVAILABLE = "n/a"
GIGA = 1e9
TIME_UNITS = ((1.0, "s"), (1e-3, "ms"), (1e-6, "us"), (1e-9, "ns"))
MET, MISSED = "met", "missed"


class NotAvailable(Exception):
    """Raised by a factory when its implementation cannot run here; the message says why."""


# ---- targets ----


@dataclass(frozen=True)
class Target:
    """A goal for one row. ``kind``:

    * ``"torch_ratio"``: minitorch's time over PyTorch's at most ``value``;
    * ``"blas_fraction"``: NumPy's time over minitorch's (the fraction of NumPy's BLAS
      speed reached) at least ``value``;
    * ``"seconds"``: minitorch's time at most ``value`` seconds.
    """

    kind: str
    value: float

    KINDS = ("torch_ratio", "blas_fraction", "seconds")

    def __post_init__(self) -> None:
        if self.kind not in self.KINDS:
            raise ValueError(f"unknown target kind {self.kind!r}; expected one of {self.KINDS}")

    @property
    def text(self) -> str:
        if self.kind == "torch_ratio":
            return f"<={self.value:g}x torch"
        if self.kind == "blas_fraction":
            return f">={self.value:.0%} BLAS"
        return f"<{self.value:g} s"

    def evaluate(self, mine: Optional[float], torch_ratio: Optional[float],
                 blas_fraction: Optional[float]) -> Optional[bool]:
        """True (met), False (missed), or None when a figure it needs is missing. ``mine`` is
        minitorch's time, ``torch_ratio`` its time over PyTorch's, ``blas_fraction`` NumPy's
        time over its (as :meth:`Case.ratio` and :meth:`Case.blas_fraction` give them)."""
        if mine is None:
            return None
        if self.kind == "torch_ratio":
            return None if torch_ratio is None else torch_ratio <= self.value
        if self.kind == "blas_fraction":
            return None if blas_fraction is None else blas_fraction >= self.value
        return mine < self.value


def target_status(target: Optional[Target], mine: Optional[float], torch_ratio: Optional[float],
                  blas_fraction: Optional[float]) -> str:
    """``"<text>: met"``, ``"<text>: missed"``, ``"<text>: n/a"``, or ``""`` without a target."""
    if target is None:
        return ""
    verdict = target.evaluate(mine, torch_ratio, blas_fraction)
    return f"{target.text}: {NOT_AVAILABLE if verdict is None else (MET if verdict else MISSED)}"


# ---- arithmetic on medians ----


def median(samples: Optional[list[float]]) -> Optional[float]:
    return statistics.median(samples) if samples else None


def safe_ratio(numerator: Optional[float], denominator: Optional[float]) -> Optional[float]:
    """``numerator / denominator``, or None when either is missing or the denominator is 0."""
    if numerator is None or not denominator:
        return None
    return numerator / denominator


def paired_ratio(numerators: Optional[list[float]], denominators: Optional[list[float]]) -> Optional[float]:
    """The median over repetitions of ``numerators[i] / denominators[i]``: each pair was timed
    in the same repetition, one batch after the other, so a slow spell of the machine that
    spans the pair divides out. None unless both have as many samples (none of them 0)."""
    if not numerators or not denominators or len(numerators) != len(denominators) or not all(denominators):
        return None
    return statistics.median([n / d for n, d in zip(numerators, denominators)])


def gflops(flops: Optional[float], seconds: Optional[float]) -> Optional[float]:
    return None if flops is None or not seconds else flops / seconds / GIGA


# ---- cases ----


@dataclass
class Row:
    """One table row of a case: ``key`` is ``minitorch`` or a variant; ``label`` goes after the case name."""

    key: str
    label: str = ""
    target: Optional[Target] = None


#: the default pause before each timed batch. After its last parallel region an OpenMP pool
#: (Numba's and PyTorch's, each with its default wait policy) spins about 10 ms before its
#: threads sleep (measured here from the threads' CPU time: 8-10 ms after an ``exp`` of 1e6);
#: 20 ms lets them sleep, so the next library timed gets both cores
SETTLE_S = 0.02


@dataclass
class Case:
    """One measured operation, timed for every key that has a factory."""

    name: str
    group: str
    factories: dict[str, Factory]
    rows: list[Row] = field(default_factory=lambda: [Row(MINITORCH)])
    flops: Optional[float] = None
    #: seconds of timed batches per key to aim for (repeats are cut to fit, never below the minimum)
    budget_s: float = 1.0
    #: at most this many repetitions whatever the settings (calls of several seconds)
    max_repeats: Optional[int] = None
    #: seconds of idle before each timed batch: a library's idle threads keep spinning for a
    #: while after its last call and would take the cores from whichever library is timed next
    #: (:data:`SETTLE_S`; the matmul cases wait longer, for OpenBLAS)
    settle_s: float = SETTLE_S
    #: fills ``times`` itself instead of the in-process timing loop (subprocess measurements)
    runner: Optional[Callable[["Case", "Settings"], None]] = None
    #: ``times`` holds interleaved repetitions (sample ``i`` of every key from repetition ``i``):
    #: ratios are then paired (:func:`paired_ratio`), else ratios of medians
    interleaved: bool = False
    description: str = ""
    times: dict[str, list[float]] = field(default_factory=dict)
    calls_per_batch: dict[str, int] = field(default_factory=dict)
    #: why a key has no figures
    notes: dict[str, str] = field(default_factory=dict)

    @property
    def keys(self) -> list[str]:
        """Reference libraries first, then variants, in a stable order."""
        variants = [row.key for row in self.rows if row.key not in LIBRARIES]
        return [*LIBRARIES, *variants]

    def median(self, key: str) -> Optional[float]:
        return median(self.times.get(key))

    def ratio(self, key: str, other: str) -> Optional[float]:
        """``key``'s time over ``other``'s (above 1: ``key`` is slower): the median of the
        per-repetition ratios where the repetitions were interleaved, else the ratio of medians."""
        if self.interleaved:
            paired = paired_ratio(self.times.get(key), self.times.get(other))
            if paired is not None:
                return paired
        return safe_ratio(self.median(key), self.median(other))

    def gflops(self, key: str) -> Optional[float]:
        return gflops(self.flops, self.median(key))

    def blas_fraction(self, key: str) -> Optional[float]:
        """The fraction of NumPy's speed ``key`` reaches (NumPy's time over ``key``'s); matmul only."""
        return self.ratio(NUMPY, key) if self.flops else None

    def status(self, row: Row) -> str:
        return target_status(row.target, self.median(row.key), self.ratio(row.key, TORCH), self.blas_fraction(row.key))

    def row_name(self, row: Row) -> str:
        return f"{self.name} {row.label}".rstrip()


@dataclass(frozen=True)
class Settings:
    """How hard to measure: ``repeats`` at most, ``min_repeats`` at least, batches of ``min_batch_s``."""

    repeats: int = 15
    min_repeats: int = 5
    min_batch_s: float = 0.02
    #: multiplies every case's ``budget_s``
    budget_scale: float = 1.0
    #: fresh-process repetitions (import, first result)
    process_repeats: int = 5
    quick: bool = False


def select(cases: list[Case], pattern: Optional[str]) -> list[Case]:
    """The cases whose name or group matches ``pattern`` (a case-insensitive regular expression)."""
    if not pattern:
        return cases
    regex = re.compile(pattern, re.IGNORECASE)
    return [case for case in cases if regex.search(case.name) or regex.search(case.group)]


# ---- timing ----


def time_batch(call: Call, number: int) -> float:
    """Seconds per call over ``number`` calls (garbage collection off, as ``timeit`` does)."""
    gc.disable()
    try:
        start = time.perf_counter()
        for _ in range(number):
            call()
        return (time.perf_counter() - start) / number
    finally:
        gc.enable()


def calibrate(call: Call, min_batch_s: float) -> tuple[int, float]:
    """Warm ``call`` up; return (calls per batch of at least ``min_batch_s``, seconds per call).

    The first call compiles or loads kernels and is not timed; a slow call (one lasting a
    batch by itself) is not repeated further, so a 2-second matmul costs two warm-up calls.
    """
    call()
    per_call = time_batch(call, 1)
    if per_call < min_batch_s:
        call()  # caches and thread pools settle before the batch size is chosen
    number = 1
    while per_call * number < min_batch_s:
        number *= 2
        per_call = time_batch(call, number)
    return number, per_call


def repeats_for(per_batch_s: float, budget_s: float, settings: Settings) -> int:
    """Interleaved repetitions: as many as fit ``budget_s``, between the minimum and maximum."""
    if per_batch_s <= 0:
        return settings.repeats
    fit = math.floor(budget_s * settings.budget_scale / per_batch_s)
    return max(settings.min_repeats, min(settings.repeats, fit))


def _describe(error: BaseException) -> str:
    if isinstance(error, NotAvailable):
        return str(error)
    text = str(error).splitlines()[0] if str(error) else ""
    return f"{type(error).__name__}: {text}"[:200]


def build_calls(case: Case) -> dict[str, Call]:
    """Run the factories; a factory that fails or returns None leaves its key out (with a note)."""
    calls: dict[str, Call] = {}
    for key in case.keys:
        factory = case.factories.get(key)
        if factory is None:
            continue
        try:
            call = factory()
        except Exception as error:  # noqa: BLE001 - any failure makes this key n/a, the run goes on
            case.notes[key] = _describe(error)
            continue
        if call is not None:  # None: silently n/a (PyTorch not installed: the header says so)
            calls[key] = call
    return calls


def measure(case: Case, settings: Settings) -> None:
    """Fill ``case.times``: interleaved batches of every key, the order rotating each repetition."""
    if case.runner is not None:
        try:
            case.runner(case, settings)
        except Exception as error:  # noqa: BLE001
            case.notes[MINITORCH] = _describe(error)
        return
    measure_interleaved(case, settings)


def measure_interleaved(case: Case, settings: Settings) -> None:
    """:func:`measure`'s in-process timing: calibrate every key, then the interleaved batches."""
    calls = build_calls(case)
    per_call: dict[str, float] = {}
    for key in list(calls):
        try:
            case.calls_per_batch[key], per_call[key] = calibrate(calls[key], settings.min_batch_s)
        except Exception as error:  # noqa: BLE001
            case.notes[key] = _describe(error)
            del calls[key]
    if not calls:
        return
    slowest = max(per_call[key] * case.calls_per_batch[key] for key in calls)
    repeats = repeats_for(slowest, case.budget_s, settings)
    if case.max_repeats is not None:
        repeats = min(repeats, case.max_repeats)
    present = list(calls)
    case.times = {key: [] for key in present}
    case.interleaved = True
    for repeat in range(repeats):
        shift = repeat % len(present)
        for key in present[shift:] + present[:shift]:
            if case.settle_s:
                time.sleep(case.settle_s)
            case.times[key].append(time_batch(calls[key], case.calls_per_batch[key]))


# ---- output ----


def format_time(seconds: Optional[float]) -> str:
    if seconds is None:
        return NOT_AVAILABLE
    for scale, unit in TIME_UNITS:
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds * 1e9:.3g} ns"


def format_number(value: Optional[float], suffix: str = "") -> str:
    """Three significant digits, never in exponent notation (1234 -> "1234")."""
    if value is None:
        return NOT_AVAILABLE
    return f"{value:.0f}{suffix}" if abs(value) >= 1000 else f"{value:.3g}{suffix}"


def format_percent(value: Optional[float]) -> str:
    return NOT_AVAILABLE if value is None else f"{value:.0%}"


COLUMNS = ("case", "minitorch", "numpy", "torch", "mt/numpy", "mt/torch",
           "GFLOP/s mt", "np", "torch", "%BLAS", "TARGET")
WIDTHS = (52, 10, 10, 10, 9, 9, 11, 7, 7, 7, 2)


def _line(values: tuple[str, ...]) -> str:
    first, *middle, last = values
    text = f"{first:<{WIDTHS[0]}}" + "".join(f"{v:>{w}}" for v, w in zip(middle, WIDTHS[1:-1]))
    return (text + " " * WIDTHS[-1] + last).rstrip()


def row_values(case: Case, row: Row) -> tuple[str, ...]:
    """The table cells of one row: the reference columns are the case's NumPy and PyTorch medians."""
    flops = case.flops is not None
    return (
        case.row_name(row),
        format_time(case.median(row.key)),
        format_time(case.median(NUMPY)),
        format_time(case.median(TORCH)),
        format_number(case.ratio(row.key, NUMPY), "x"),
        format_number(case.ratio(row.key, TORCH), "x"),
        format_number(case.gflops(row.key)) if flops else "",
        format_number(case.gflops(NUMPY)) if flops else "",
        format_number(case.gflops(TORCH)) if flops else "",
        format_percent(case.blas_fraction(row.key)) if flops else "",
        case.status(row),
    )


def table(cases: list[Case]) -> list[str]:
    """The results table, a blank line between groups of cases."""
    lines = [_line(COLUMNS), "-" * (sum(WIDTHS) + len("<=1.5x torch: missed"))]
    group = None
    for case in cases:
        if group is not None and case.group != group:
            lines.append("")
        group = case.group
        for row in case.rows:
            lines.append(_line(row_values(case, row)))
    return lines


def notes(cases: list[Case]) -> list[str]:
    """Why figures are missing: ``case [key]: reason``."""
    return [f"{case.name} [{key}]: {reason}" for case in cases for key, reason in case.notes.items()]


def targets_summary(cases: list[Case]) -> dict[str, int]:
    counts = {MET: 0, MISSED: 0, NOT_AVAILABLE: 0}
    for case in cases:
        for row in case.rows:
            if row.target is not None:
                counts[case.status(row).rsplit(": ", 1)[1]] += 1
    return counts


def case_json(case: Case) -> dict[str, Any]:
    """Everything measured for one case: medians, samples, ratios, GFLOP/s, targets, notes."""
    keys = [key for key in case.keys if key in case.factories or key in case.times or key in LIBRARIES]
    return {
        "name": case.name,
        "group": case.group,
        "description": case.description,
        "flops": case.flops,
        "median_s": {key: case.median(key) for key in keys},
        "samples_s": {key: case.times.get(key) for key in keys},
        "calls_per_batch": case.calls_per_batch,
        "rows": [
            {
                "name": case.row_name(row),
                "key": row.key,
                "median_s": case.median(row.key),
                "ratio_over_numpy": case.ratio(row.key, NUMPY),
                "ratio_over_torch": case.ratio(row.key, TORCH),
                "ratio_of_medians_over_torch": safe_ratio(case.median(row.key), case.median(TORCH)),
                "gflops": case.gflops(row.key),
                "blas_fraction": case.blas_fraction(row.key),
                "target": row.target.text if row.target else None,
                "target_status": case.status(row).rsplit(": ", 1)[1] if row.target else None,
            }
            for row in case.rows
        ],
        "gflops": {key: case.gflops(key) for key in keys} if case.flops else None,
        "notes": case.notes,
    }


@dataclass
class Context:
    """What case builders need: PyTorch (or None), whether this is a ``--quick`` run, the seed."""

    torch: Any = None
    quick: bool = False
    seed: int = 0

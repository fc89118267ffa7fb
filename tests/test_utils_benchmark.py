"""``minitorch.utils.benchmark`` against PyTorch's ``torch.utils.benchmark``.

Wall times differ from run to run, so the comparisons give both libraries the same fake clock
(``Timer(timer=...)``): a clock that advances by the runs of the statement since its last
reading, each run scaled by a scripted factor. With it both Timers must call the clock in the
same order, pick the same block sizes and replicate counts, and report identical raw times; the
statistics, ``repr`` and ``Compare`` tables built from the same times must match line for line.
Real runs check that the statement runs as often as stated and that ``num_threads`` is applied
while timing and restored after.
"""

from __future__ import annotations

import pickle
from types import ModuleType
from typing import Any, Callable, Optional

import numba
import pytest

import minitorch
from minitorch.utils import benchmark

#: seconds the fake clock advances per reading, and per run of the statement (before its factor)
TICK = 1e-8
RUN_COST = 1e-6
#: per-run cost factors, cycled over the clock's readings: spreads of under 10%, 10-25% and over 25%
STEADY = (1.0, 1.01, 0.99, 1.02, 0.98, 1.0, 1.03)
FLUCTUATING = (1.0, 1.12, 0.97, 1.08, 0.88, 1.04, 1.0)
NOISY = (1.0, 2.0, 0.7, 1.5, 0.8, 3.0, 1.1)
#: the mean is summed in a different order than PyTorch's
MEAN_REL = 1e-12
#: the first line of a Measurement's repr names its class and address
FIRST_LINE = {"minitorch": "<minitorch.utils.benchmark.measurement.Measurement object at 0x",
              "torch": "<torch.utils.benchmark.utils.common.Measurement object at 0x"}


@pytest.fixture(scope="module")
def tb(torch_ref: ModuleType) -> ModuleType:
    """PyTorch's benchmark module."""
    from torch.utils import benchmark as theirs

    return theirs


class ScriptedClock:
    """A fake ``timer``: each reading adds the statement's runs since the last one, times
    ``RUN_COST`` and the next scripted factor, plus ``TICK``. The statement counts its runs in
    ``runs[0]`` (``globals={"runs": clock.runs}``, ``stmt="runs[0] += 1"``)."""

    def __init__(self, factors: tuple[float, ...], run_cost: float = RUN_COST, tick: float = TICK) -> None:
        self.factors, self.run_cost, self.tick = factors, run_cost, tick
        self.runs = [0]
        self.readings = 0
        self.now = 0.0
        self._runs_seen = 0

    def __call__(self) -> float:
        ran, self._runs_seen = self.runs[0] - self._runs_seen, self.runs[0]
        self.now += ran * self.run_cost * self.factors[self.readings % len(self.factors)] + self.tick
        self.readings += 1
        return self.now


def scripted_timer(lib: ModuleType, factors: tuple[float, ...], clock_options: Optional[dict[str, float]] = None,
                   **kwargs: Any) -> tuple[Any, ScriptedClock]:
    clock_options = clock_options or {}
    clock = ScriptedClock(factors, **clock_options)
    return lib.Timer("runs[0] += 1", timer=clock, globals={"runs": clock.runs}, **kwargs), clock


def body(measurement: Any) -> list[str]:
    """The repr's lines after the first (which holds the class's module and the object's address)."""
    return repr(measurement).splitlines()[1:]


def assert_same_measurement(ours: Any, theirs: Any) -> None:
    assert ours.number_per_run == theirs.number_per_run
    assert ours.raw_times == theirs.raw_times
    assert ours.times == theirs.times
    assert ours.median == theirs.median
    assert ours.iqr == theirs.iqr
    assert ours.mean == pytest.approx(theirs.mean, rel=MEAN_REL)
    assert ours.significant_figures == theirs.significant_figures
    assert ours.has_warnings == theirs.has_warnings
    assert ours.meets_confidence() == theirs.meets_confidence()
    for field in ("title", "stmt", "setup", "label", "sub_label", "description", "env", "num_threads", "as_row_name"):
        assert getattr(ours, field) == getattr(theirs, field), field
    assert body(ours) == body(theirs)


# ---- Timer with the scripted clock ----

LABELS = {"label": "add", "sub_label": "float", "description": "n=1"}


@pytest.mark.parametrize("number", [1, 7, 250, 1000])
def test_timeit_matches_torch(number: int, tb: ModuleType) -> None:
    ours, our_clock = scripted_timer(benchmark, STEADY, **LABELS)
    theirs, their_clock = scripted_timer(tb, STEADY, **LABELS)
    assert_same_measurement(ours.timeit(number), theirs.timeit(number))
    assert our_clock.runs == their_clock.runs and our_clock.readings == their_clock.readings


@pytest.mark.parametrize("factors", [STEADY, FLUCTUATING, NOISY], ids=["steady", "fluctuating", "noisy"])
@pytest.mark.parametrize("min_run_time", [0.01, 0.05])
def test_blocked_autorange_matches_torch(factors: tuple[float, ...], min_run_time: float, tb: ModuleType) -> None:
    ours, our_clock = scripted_timer(benchmark, factors, **LABELS)
    theirs, their_clock = scripted_timer(tb, factors, **LABELS)
    our_calls: list[tuple[int, float]] = []
    their_calls: list[tuple[int, float]] = []
    mine = ours.blocked_autorange(callback=lambda n, t: our_calls.append((n, t)), min_run_time=min_run_time)
    reference = theirs.blocked_autorange(callback=lambda n, t: their_calls.append((n, t)), min_run_time=min_run_time)
    assert_same_measurement(mine, reference)
    assert our_calls == their_calls
    assert [t for _, t in our_calls] == mine.raw_times
    assert our_clock.runs == their_clock.runs
    assert sum(mine.raw_times) >= min_run_time


@pytest.mark.parametrize("factors", [STEADY, FLUCTUATING, NOISY], ids=["steady", "fluctuating", "noisy"])
@pytest.mark.parametrize("threshold", [0.1, 0.3])
def test_adaptive_autorange_matches_torch(factors: tuple[float, ...], threshold: float, tb: ModuleType) -> None:
    limits = {"min_run_time": 0.01, "max_run_time": 0.2}
    ours, our_clock = scripted_timer(benchmark, factors)
    theirs, their_clock = scripted_timer(tb, factors)
    our_calls: list[tuple[int, float]] = []
    their_calls: list[tuple[int, float]] = []
    mine = ours.adaptive_autorange(threshold, callback=lambda n, t: our_calls.append((n, t)), **limits)
    reference = theirs.adaptive_autorange(threshold, callback=lambda n, t: their_calls.append((n, t)), **limits)
    assert_same_measurement(mine, reference)
    assert our_calls == their_calls and our_clock.runs == their_clock.runs


def test_adaptive_autorange_stops_on_a_small_spread_or_the_time_limit() -> None:
    steady = scripted_timer(benchmark, STEADY)[0].adaptive_autorange(0.1, min_run_time=0.01, max_run_time=0.2)
    assert len(steady.raw_times) >= 4 and steady.meets_confidence(0.1)
    noisy = scripted_timer(benchmark, NOISY)[0].adaptive_autorange(0.01, min_run_time=0.01, max_run_time=0.2)
    assert not noisy.meets_confidence(0.01)
    assert sum(noisy.raw_times) > 0.2 and sum(noisy.raw_times[:-1]) <= 0.2


#: a clock whose readings are exact binary fractions: totals reach min_run_time exactly
EXACT_CLOCK = {"run_cost": 2.0**-10, "tick": 0.0}


@pytest.mark.parametrize("method, kwargs, replicates", [
    ("blocked_autorange", {"min_run_time": 2.0**-7}, 8),
    ("adaptive_autorange", {"min_run_time": 1e-6}, 4),
])
def test_replicate_counts_at_the_edges_match_torch(method: str, kwargs: dict[str, float], replicates: int,
                                                   tb: ModuleType) -> None:
    """Replicates stop as soon as their total reaches min_run_time, and adaptive needs four (as PyTorch's)."""
    ours = getattr(scripted_timer(benchmark, (1.0,), EXACT_CLOCK)[0], method)(**kwargs)
    theirs = getattr(scripted_timer(tb, (1.0,), EXACT_CLOCK)[0], method)(**kwargs)
    assert_same_measurement(ours, theirs)
    assert len(ours.raw_times) == replicates and ours.number_per_run == 1


def test_times_are_at_least_a_nanosecond(tb: ModuleType) -> None:
    """A clock that never moves reports 1 ns per replicate, as PyTorch's."""
    for lib in (benchmark, tb):
        assert lib.Timer("pass", timer=lambda: 1.0).timeit(10).raw_times == [1e-9]


# ---- Measurement's statistics and repr, from the same times ----

SPECS = [
    {"stmt": "x + y"},
    {"stmt": "x + y", "label": "add", "sub_label": "int", "description": "n=4", "num_threads": 4},
    {"stmt": "x + y", "setup": "x = 1", "sub_label": "sub"},
    {"stmt": "z = x * y\nz.sum()", "setup": "x = torch.ones(3)\ny = x", "description": "multi"},
    {"stmt": "a = 1\nb = 2", "sub_label": "s", "label": None},
]
#: per-run times: one, two, three and many replicates; from under a nanosecond to seconds; spreads that warn
RAW_TIMES = [
    [3.2e-6],
    [4.5e-7, 4.7e-7],
    [2.47e-5, 2.61e-5, 2.38e-5],
    [1.2e-2, 1.25e-2, 1.18e-2, 1.21e-2, 1.3e-2],
    [2.5, 2.7, 2.4, 2.6],
    [5e-10, 6e-10, 5.5e-10, 5.2e-10],
    [1e-6, 1.3e-6, 0.9e-6, 1.15e-6, 1.2e-6, 0.95e-6],
    [1e-6, 2e-6, 0.5e-6, 3e-6, 1.1e-6, 0.8e-6, 1.6e-6],
    [8.0e-8, 8.1e-8, 8.0e-8, 7.9e-8, 8.2e-8, 8.0e-8, 8.05e-8, 7.95e-8, 8.0e-8],
    [1.0e-3 * (1 + 1e-3 * k) for k in (0, 3, -2, 1, -1, 2, 0, 1)],
    [3.7e-4 * (1 + 1e-6 * k) for k in (0, 3, -2, 1, -1, 2, 0, 1, 5, -4)],
]
#: replicates with spreads that warn, and that Compare trims to 2 and 4 figures
SPREADS = [RAW_TIMES[6], RAW_TIMES[7], RAW_TIMES[9], RAW_TIMES[10]]


def make_pair(tb: ModuleType, spec: dict[str, Any], times: list[float], number: int = 10) -> tuple[Any, Any]:
    """The same measurement in both libraries (``times`` per run)."""
    spec = {"setup": "pass", **spec}
    raw = [t * number for t in times]
    return (benchmark.Measurement(number, list(raw), benchmark.TaskSpec(**spec)),
            tb.Measurement(number, list(raw), tb.TaskSpec(**spec)))


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("times", RAW_TIMES)
def test_measurement_matches_torch(spec: dict[str, Any], times: list[float], tb: ModuleType) -> None:
    ours, theirs = make_pair(tb, spec, times)
    assert_same_measurement(ours, theirs)
    assert repr(ours).startswith(FIRST_LINE["minitorch"]) and repr(theirs).startswith(FIRST_LINE["torch"])


def test_repr_layout_by_hand() -> None:
    """The repr, written out: median, quartiles, counts and the warning for a 21% spread."""
    m = benchmark.Measurement(100, [1e-4, 1.1e-4, 1.2e-4, 1.3e-4, 0.9e-4],
                              benchmark.TaskSpec("x @ y", "pass", label="mm", sub_label="8x8", description="cpu"))
    assert body(m) == [
        "mm: 8x8",
        "cpu",
        "  Median: 1.10 us",
        "  IQR:    0.20 us (1.00 to 1.20)",
        "  5 measurements, 100 runs per measurement, 1 thread",
        "  WARNING: Interquartile range is 18.2% of the median measurement.",
        "           This could indicate system fluctuation.",
    ]


def test_merge_matches_torch(tb: ModuleType) -> None:
    pairs = [make_pair(tb, SPECS[i % 2], RAW_TIMES[i], number=i + 1) for i in range(3, 7)]
    merged = benchmark.Measurement.merge(p[0] for p in pairs)
    reference = tb.Measurement.merge(p[1] for p in pairs)
    assert len(merged) == len(reference) == 2
    for ours, theirs in zip(merged, reference):
        assert ours.number_per_run == 1 and ours.metadata is None
        assert_same_measurement(ours, theirs)


def test_a_measurement_without_times_says_so() -> None:
    m = benchmark.Measurement(1, [], benchmark.TaskSpec("x", "pass"))
    with pytest.raises(ValueError, match="no raw_times"):
        _ = m.median


def test_a_measurement_pickles_with_its_statistics() -> None:
    m = benchmark.Measurement(3, [1.0, 2.0, 4.0, 3.5], benchmark.TaskSpec("x", "pass"), metadata={"k": 1})
    before = repr(m).splitlines()[1:]
    copy = pickle.loads(pickle.dumps(m))
    assert copy == m and body(copy) == before and copy.metadata == {"k": 1}


def test_units_and_significant_figures_match_torch(tb: ModuleType) -> None:
    for t in [3e-10, 1e-9, 2.2e-9, 1e-6, 4.56e-5, 1e-3, 0.0123, 1.0, 42.0]:
        assert benchmark.select_unit(t) == tb.select_unit(t), t
    for unit in ("ns", "us", "ms", "s"):
        assert benchmark.unit_to_english(unit) == tb.unit_to_english(unit)
    for x in [3.14159, 0.0123456, 987.654, 12.5, 1.0, 7.0e-4]:
        for n in (1, 2, 3, 4):
            assert benchmark.trim_sigfig(x, n) == pytest.approx(tb.trim_sigfig(x, n), rel=1e-6), (x, n)
    with pytest.raises(AssertionError, match="must be an integer"):
        benchmark.trim_sigfig(1.0, 1.5)


# ---- Compare ----

def compare_pair(tb: ModuleType, entries: list[tuple[dict[str, Any], list[float]]]) -> tuple[Any, Any]:
    pairs = [make_pair(tb, spec, times) for spec, times in entries]
    return benchmark.Compare([p[0] for p in pairs]), tb.Compare([p[1] for p in pairs])


def grid(label: str, sub_labels: list[str], descriptions: list[str], scale: float,
         spreads: Optional[list[list[float]]] = None, **spec: Any) -> list[Any]:
    """One measurement per (sub_label, description), times growing with both, spreads cycling through ``spreads``."""
    spreads = spreads or SPREADS
    entries = []
    for i, sub_label in enumerate(sub_labels):
        for j, description in enumerate(descriptions):
            base = scale * (1 + i) * (1 + 3 * j)
            spread = spreads[(i + j) % len(spreads)]
            times = [base * t / spread[0] for t in spread]
            entries.append(({"stmt": f"f{i}(x)", "label": label, "sub_label": sub_label, "description": description,
                             **spec}, times))
    return entries


TABLES = {
    "one_cell": [({"stmt": "x + y", "label": "add", "description": "n=1"}, [1e-6, 1.01e-6])],
    "grid": grid("matmul", ["float", "double", "int"], ["n=1", "n=16", "n=256"], 2e-6),
    "precise": grid("precise", ["a", "b"], ["x", "y", "z"], 1.23e-5, spreads=SPREADS[2:]),
    "stmt_rows": [({"stmt": "x * y", "label": "mul", "description": "a"}, [3e-5]),
                  ({"stmt": "torch.mul(x, y)", "label": "mul", "description": "b"}, [4e-5, 4.4e-5, 3.9e-5, 4e-5])],
    "two_labels": grid("relu", ["a", "b"], ["small", "large"], 3e-8) + grid("gelu", ["a"], ["small"], 7e-3),
    "threads": (grid("conv", ["float", "half"], ["1x1", "3x3"], 1e-4, num_threads=1)
                + grid("conv", ["float", "half"], ["1x1", "3x3"], 4e-5, num_threads=4)),
    "envs": (grid("sum", ["x"], ["d1", "d2"], 1e-6, env="A") + grid("sum", ["x", "y"], ["d1"], 1.4e-6, env="B_env")
             + grid("sum", ["x"], ["d2"], 5e-7, env="A", num_threads=2)),
    "holes": [({"stmt": "s", "label": "holes", "sub_label": "r1", "description": "c1"}, [5e-3, 6e-3]),
              ({"stmt": "s", "label": "holes", "sub_label": "r2", "description": "c2"}, [2e-2, 1e-2, 3e-2, 2.5e-2]),
              ({"stmt": "s", "label": "holes", "sub_label": "r3", "description": "c1"}, [7e-4])],
    "replicates": [({"stmt": "x", "label": "rep", "description": "d"}, RAW_TIMES[6]),
                   ({"stmt": "x", "label": "rep", "description": "d"}, RAW_TIMES[7]),
                   ({"stmt": "y", "label": "rep", "description": "d"}, RAW_TIMES[2])],
}

OPTIONS: dict[str, Callable[[Any], None]] = {
    "plain": lambda c: None,
    "trim": lambda c: c.trim_significant_figures(),
    "warnings": lambda c: c.highlight_warnings(),
    "columnwise": lambda c: c.colorize(),
    "rowwise": lambda c: c.colorize(rowwise=True),
    "everything": lambda c: (c.trim_significant_figures(), c.highlight_warnings(), c.colorize()),
}


@pytest.mark.parametrize("option", list(OPTIONS))
@pytest.mark.parametrize("table", list(TABLES))
def test_compare_matches_torch(table: str, option: str, tb: ModuleType) -> None:
    ours, theirs = compare_pair(tb, TABLES[table])
    OPTIONS[option](ours)
    OPTIONS[option](theirs)
    assert str(ours).splitlines() == str(theirs).splitlines()
    assert str(ours) == str(theirs)


def test_compare_layout_by_hand(capsys: pytest.CaptureFixture[str]) -> None:
    """A small table written out: rows by sub-label, a column per description, the unit of the fastest."""
    def m(sub_label: str, description: str, seconds: float) -> Any:
        spec = benchmark.TaskSpec("f(x)", "pass", label="op", sub_label=sub_label, description=description)
        return benchmark.Measurement(1, [seconds], spec)

    compare = benchmark.Compare([m("a", "n=1", 1.5e-6), m("a", "n=2", 12.25e-6)])
    compare.extend_results([m("bb", "n=1", 3e-6)])
    compare.print()
    assert capsys.readouterr().out.splitlines() == [
        "[---------- op ---------]",
        "          |  n=1  |  n=2 ",
        "1 threads: --------------",
        "      a   |  1.5  |  12.2",
        "      bb  |  3.0  |      ",
        "",
        "Times are in microseconds (us).",
        "",
    ]


def test_compare_renders_measurements_torch_cannot(tb: ModuleType) -> None:
    """Without descriptions, and with envs some unset, PyTorch's Compare raises TypeError; ours prints."""
    plain = make_pair(tb, {"stmt": "a", "label": "L"}, [1e-6])
    with_env = make_pair(tb, {"stmt": "b", "label": "L", "env": "E"}, [2e-6])
    with pytest.raises(TypeError):
        str(tb.Compare([plain[1]]))
    assert str(benchmark.Compare([plain[0]])).splitlines()[1:4] == ["         |     ", "1 threads: ----", "      a  |  1.0"]
    with pytest.raises(TypeError):
        str(tb.Compare([plain[1], with_env[1]]))
    text = str(benchmark.Compare([plain[0], with_env[0]]))
    assert "(Unspecified env)  a" in text and "(E)                b" in text


def test_compare_rejects_what_is_not_a_measurement(tb: ModuleType) -> None:
    for lib in (benchmark, tb):
        with pytest.raises(ValueError, match="Expected an instance of `Measurement`, got <class 'int'> instead."):
            lib.Compare([1])


# ---- real runs ----

def test_timeit_runs_the_statement_number_times_plus_the_warmup() -> None:
    counts = {"stmt": 0, "setup": 0}
    timer = benchmark.Timer("counts['stmt'] += 1", setup="counts['setup'] += 1", globals={"counts": counts})
    m = timer.timeit(500)
    assert m.number_per_run == 500 and len(m.raw_times) == 1
    assert counts == {"stmt": 500 + 5, "setup": 2}  # warm-up: 500 // 100 runs, with its own setup


def test_blocked_autorange_runs_each_replicate_number_per_run_times() -> None:
    counter = [0]
    seen: list[int] = []
    timer = benchmark.Timer("counter[0] += 1", globals={"counter": counter})
    m = timer.blocked_autorange(callback=lambda number, _: seen.append(counter[0]), min_run_time=0.02)
    assert len(seen) == len(m.raw_times) >= 1
    assert [b - a for a, b in zip(seen, seen[1:])] == [m.number_per_run] * (len(seen) - 1)
    assert sum(m.raw_times) >= 0.02
    assert m.mean > 0 and m.median > 0


def test_torch_is_minitorch_in_the_statement_unless_given() -> None:
    given: dict[str, Any] = {"x": minitorch.ones(2)}
    out: list[Any] = []
    benchmark.Timer("out.append(torch)", globals={**given, "out": out}).timeit(1)
    assert out[0] is minitorch
    benchmark.Timer("out.append(torch)", globals={"out": out, "torch": "mine"}).timeit(1)
    assert out[-1] == "mine"
    benchmark.Timer("torch.add(x, x)", globals=given).timeit(3)
    assert set(given) == {"x"}  # the caller's dict is not changed


def test_multiline_code_is_dedented() -> None:
    out: list[int] = []
    timer = benchmark.Timer("""
        y = x + 1
        out.append(y)
    """, setup="""
        x = 41
    """, globals={"out": out})
    m = timer.timeit(2)
    assert out == [42] * 4 and m.stmt == "y = x + 1\nout.append(y)" and m.setup == "x = 41"


@pytest.fixture
def two_threads() -> Any:
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("Numba's pool has one thread: num_threads cannot be seen to change")
    prior = minitorch.get_num_threads()
    minitorch.set_num_threads(2)
    yield
    minitorch.set_num_threads(prior)


@pytest.mark.parametrize("run", [lambda t: t.timeit(5), lambda t: t.blocked_autorange(min_run_time=0.01),
                                 lambda t: t.adaptive_autorange(min_run_time=0.01, max_run_time=0.05)],
                         ids=["timeit", "blocked_autorange", "adaptive_autorange"])
@pytest.mark.parametrize("num_threads", [1, 2])
def test_num_threads_applies_while_timing_and_is_restored(run: Any, num_threads: int, two_threads: None) -> None:
    minitorch.set_num_threads(3 - num_threads)
    seen: set[int] = set()
    m = run(benchmark.Timer("seen.add(torch.get_num_threads())", globals={"seen": seen}, num_threads=num_threads))
    assert seen == {num_threads} and m.num_threads == num_threads
    assert minitorch.get_num_threads() == 3 - num_threads


def test_num_threads_is_restored_when_the_statement_fails(two_threads: None) -> None:
    with pytest.raises(ZeroDivisionError):
        benchmark.Timer("1 / 0", num_threads=1).timeit(3)
    assert minitorch.get_num_threads() == 2


# ---- what is not supported, and bad input ----

def test_bad_input_errors_match_torch(tb: ModuleType) -> None:
    cases: list[tuple[dict[str, Any], type[Exception], Optional[str]]] = [
        ({"stmt": lambda: None}, ValueError, "Currently only a `str` stmt is supported."),
        ({"setup": lambda: None}, TypeError, None),
        ({"global_setup": "#include <x>"}, ValueError, "global_setup is C++ only, got `#include <x>`."),
        ({"language": "rust"}, ValueError, "Invalid language `rust`."),
    ]
    for kwargs, error, message in cases:
        for lib in (benchmark, tb):
            with pytest.raises(error) as raised:
                lib.Timer(**kwargs)
            if message:
                assert str(raised.value).startswith(message)
    for lib in (benchmark, tb):
        timer = lib.Timer("pass")
        for method in (timer.repeat, timer.autorange):
            with pytest.raises(NotImplementedError, match="See `Timer.blocked_autorange.`"):
                method()


def test_cpp_callgrind_and_fuzzers_raise_not_implemented() -> None:
    for language in ("cpp", "c++", benchmark.Language.CPP):
        with pytest.raises(NotImplementedError, match="language='cpp'"):
            benchmark.Timer("x", language=language)
    with pytest.raises(NotImplementedError, match="collect_callgrind"):
        benchmark.Timer("pass").collect_callgrind()
    for name in ("Fuzzer", "FuzzedParameter", "FuzzedTensor", "FuzzedSparseTensor", "ParameterAlias"):
        with pytest.raises(NotImplementedError, match=name):
            getattr(benchmark, name)()


def test_public_names_are_torchs(tb: ModuleType) -> None:
    assert minitorch.utils.benchmark is benchmark
    missing = set(benchmark.__all__) - set(dir(tb))
    assert not missing

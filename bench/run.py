"""minitorch's CPU backend against NumPy and PyTorch CPU, measured in the same run.

Run with ``make bench`` (which installs the CPU build of PyTorch first) or
``python bench/run.py``. Each case runs the same float32 data in the three libraries; the
repetitions are interleaved (one batch of each library in turn, the order rotating), and
the table shows medians. Thread counts are fixed before any library starts its pools. The
figures also go to ``bench/results/latest.json``. PyTorch is optional: without it, its
columns read "n/a". See ``bench/README.md``.
"""

from __future__ import annotations

import os

#: cores of the reference machine: every library gets this many threads
THREADS = 2
# Must happen before NumPy (OpenBLAS) or PyTorch (OpenMP) start their thread pools.
os.environ["OPENBLAS_NUM_THREADS"] = str(THREADS)
# Idle OpenMP threads sleep instead of spinning, so one library's idle pool does not steal
# the cores the next interleaved measurement needs (minitorch's cpu backend sets the same).
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import argparse  # noqa: E402 - the environment above must be set first
import gc  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from datetime import datetime, timezone  # noqa: E402
from pathlib import Path  # noqa: E402
from types import ModuleType  # noqa: E402
from typing import Any, Callable, Optional  # noqa: E402

import numpy as np  # noqa: E402

#: 1-minute load average before anything runs: other processes make every figure noisy
LOAD_AT_START = os.getloadavg()[0]
REPO_ROOT = Path(__file__).resolve().parent.parent
# ``python bench/run.py`` puts bench/ first on sys.path: make the checkout's minitorch importable
sys.path.insert(0, str(REPO_ROOT))

import minitorch  # noqa: E402

LIBRARIES = ("minitorch", "numpy", "torch")
DEFAULT_REPEATS = 15
DEFAULT_JSON = REPO_ROOT / "bench" / "results" / "latest.json"
#: each timed batch repeats the call until it lasts at least this long
MIN_BATCH_S = 0.02
#: calls before timing (Numba compiles or loads its kernels on the first one)
WARMUP_CALLS = 3
SEED = 0
ADD_SIZES = (10**6, 10**7)
REDUCE_SIDE = 4096
MATMUL_SIDES = (256, 512, 1024)
SMALL_SIDE = 8
FLOPS_PER_MULTIPLY_ADD = 2
GIGA = 1e9
NS_PER_S = 1e9
TIME_UNITS = ((1.0, "s"), (1e-3, "ms"), (1e-6, "us"), (1e-9, "ns"))
NOT_AVAILABLE = "n/a"

Call = Callable[[], Any]


def _load_torch() -> Optional[ModuleType]:
    """PyTorch with ``THREADS`` intra-op threads, or None when it is not installed."""
    try:
        import torch
    except ImportError:
        return None
    torch.set_num_threads(THREADS)
    return torch


@dataclass
class Case:
    """One measured operation: a zero-argument call per library (None: not measured)."""

    name: str
    calls: dict[str, Optional[Call]]
    flops: Optional[float] = None
    times: dict[str, list[float]] = field(default_factory=dict)

    def median(self, library: str) -> Optional[float]:
        samples = self.times.get(library)
        return statistics.median(samples) if samples else None

    def ratio(self, other: str) -> Optional[float]:
        """minitorch's median time over ``other``'s."""
        mine, theirs = self.median("minitorch"), self.median(other)
        return mine / theirs if mine is not None and theirs else None

    def gflops(self, library: str) -> Optional[float]:
        seconds = self.median(library)
        return self.flops / seconds / GIGA if self.flops is not None and seconds else None


def _float32(rng: np.random.Generator, *shape: int) -> np.ndarray:
    return rng.standard_normal(shape, dtype=np.float32)


def _three(torch: Optional[ModuleType], arrays: list[np.ndarray],
           op: Callable[..., Any]) -> dict[str, Optional[Call]]:
    """``op`` on the same arrays as minitorch tensors, NumPy arrays and PyTorch tensors (shared memory)."""
    mt = [minitorch.from_numpy(a) for a in arrays]
    calls: dict[str, Optional[Call]] = {"minitorch": lambda: op(*mt), "numpy": lambda: op(*arrays), "torch": None}
    if torch is not None:
        th = [torch.from_numpy(a) for a in arrays]
        calls["torch"] = lambda: op(*th)
    return calls


def _add_cases(torch: Optional[ModuleType], rng: np.random.Generator) -> list[Case]:
    cases = []
    for size in ADD_SIZES:
        arrays = [_float32(rng, size), _float32(rng, size)]
        cases.append(Case(f"add 1e{len(str(size)) - 1} float32", _three(torch, arrays, lambda a, b: a + b)))
    return cases


def _sum_cases(torch: Optional[ModuleType], rng: np.random.Generator) -> list[Case]:
    array = _float32(rng, REDUCE_SIDE, REDUCE_SIDE)
    cases = []
    for axis in (0, 1):
        calls = _three(torch, [array], lambda a, d=axis: a.sum(d))
        cases.append(Case(f"sum {REDUCE_SIDE}x{REDUCE_SIDE} axis {axis}", calls))
    return cases


def _matmul_cases(torch: Optional[ModuleType], rng: np.random.Generator) -> list[Case]:
    cases = []
    for side in MATMUL_SIDES:
        arrays = [_float32(rng, side, side), _float32(rng, side, side)]
        flops = float(FLOPS_PER_MULTIPLY_ADD * side**3)
        cases.append(Case(f"matmul {side}", _three(torch, arrays, lambda a, b: a @ b), flops=flops))
    return cases


def _small_add_case(torch: Optional[ModuleType], rng: np.random.Generator) -> Case:
    arrays = [_float32(rng, SMALL_SIDE, SMALL_SIDE), _float32(rng, SMALL_SIDE, SMALL_SIDE)]
    return Case(f"add {SMALL_SIDE}x{SMALL_SIDE} (per-op overhead)", _three(torch, arrays, lambda a, b: a + b))


def _graph_inputs(library: ModuleType, arrays: list[np.ndarray]) -> list[Any]:
    """Leaf tensors that require grad, copies of ``arrays`` (minitorch and PyTorch alike)."""
    return [library.tensor(a, requires_grad=True) for a in arrays]


def _three_op_graph(a: Any, b: Any) -> Any:
    """mul, add, sum: a scalar that depends on both leaves."""
    return (a * b + a).sum()


def _backward_cases(torch: Optional[ModuleType], rng: np.random.Generator) -> list[Case]:
    """fwd+bwd of the 3-op graph, and ``backward()`` alone on a kept graph (no NumPy: no autograd)."""
    arrays = [_float32(rng, SMALL_SIDE, SMALL_SIDE), _float32(rng, SMALL_SIDE, SMALL_SIDE)]
    step: dict[str, Optional[Call]] = {"numpy": None, "torch": None}
    backward: dict[str, Optional[Call]] = {"numpy": None, "torch": None}
    libraries = {"minitorch": minitorch, "torch": torch}
    for name, library in libraries.items():
        if library is None:
            continue
        leaves = _graph_inputs(library, arrays)
        kept = _three_op_graph(*leaves)
        step[name] = lambda lv=leaves: _three_op_graph(*lv).backward()
        backward[name] = lambda out=kept: out.backward(retain_graph=True)
    shape = f"{SMALL_SIDE}x{SMALL_SIDE}"
    return [Case(f"fwd+backward() 3 ops {shape}", step), Case(f"backward() 3-op graph {shape}", backward)]


def build_cases(torch: Optional[ModuleType]) -> list[Case]:
    rng = np.random.default_rng(SEED)
    return [
        *_add_cases(torch, rng),
        *_sum_cases(torch, rng),
        *_matmul_cases(torch, rng),
        _small_add_case(torch, rng),
        *_backward_cases(torch, rng),
    ]


def _time_batch(call: Call, number: int) -> float:
    """Seconds per call over ``number`` calls (garbage collection off, as ``timeit`` does)."""
    gc.disable()
    try:
        start = time.perf_counter()
        for _ in range(number):
            call()
        return (time.perf_counter() - start) / number
    finally:
        gc.enable()


def _calls_per_batch(call: Call) -> int:
    """Warm ``call`` up, then how many calls make a batch of at least ``MIN_BATCH_S``."""
    for _ in range(WARMUP_CALLS):
        call()
    per_call = _time_batch(call, 1)
    number = 1
    while per_call * number < MIN_BATCH_S:
        number *= 2
        per_call = _time_batch(call, number)
    return number


def measure(case: Case, repeats: int) -> None:
    """Fill ``case.times``: ``repeats`` interleaved batches per library, the order rotating."""
    present = [lib for lib in LIBRARIES if case.calls.get(lib) is not None]
    numbers = {lib: _calls_per_batch(case.calls[lib]) for lib in present}  # type: ignore[arg-type]
    case.times = {lib: [] for lib in present}
    for repeat in range(repeats):
        shift = repeat % len(present)
        for lib in present[shift:] + present[:shift]:
            case.times[lib].append(_time_batch(case.calls[lib], numbers[lib]))  # type: ignore[arg-type]


def format_time(seconds: Optional[float]) -> str:
    if seconds is None:
        return NOT_AVAILABLE
    for scale, unit in TIME_UNITS:
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds * NS_PER_S:.3g} ns"


def format_number(value: Optional[float], suffix: str = "") -> str:
    return NOT_AVAILABLE if value is None else f"{value:.3g}{suffix}"


def _header(torch: Optional[ModuleType], repeats: int) -> list[str]:
    import numba

    torch_text = f"PyTorch {torch.__version__} (torch.set_num_threads({torch.get_num_threads()}))" if torch else "PyTorch: not installed"
    return [
        f"minitorch {minitorch.__version__}, backend {minitorch.backends.get_cpu_backend_name()!r} "
        f"(Numba {numba.__version__}, {numba.get_num_threads()} threads: its default, one per core)",
        f"NumPy {np.__version__} (BLAS threads: OPENBLAS_NUM_THREADS={os.environ['OPENBLAS_NUM_THREADS']})",
        torch_text,
        f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; "
        f"OMP_WAIT_POLICY={os.environ.get('OMP_WAIT_POLICY')}; load average at start {LOAD_AT_START:.2f} "
        "(figures are only clean on an otherwise idle machine)",
        f"median of {repeats} interleaved repetitions (each a batch of >= {MIN_BATCH_S * 1e3:.0f} ms), float32; "
        "ratio = minitorch time / other time (above 1: minitorch is slower)",
    ]


COLUMNS = ("case", "minitorch", "numpy", "torch", "mt/numpy", "mt/torch", "GFLOP/s mt", "GFLOP/s np", "GFLOP/s torch")
WIDTHS = (30, 10, 10, 10, 9, 9, 11, 11, 14)


def _row(values: tuple[str, ...]) -> str:
    first, rest = values[0], values[1:]
    line = f"{first:<{WIDTHS[0]}}" + "".join(f"{v:>{w}}" for v, w in zip(rest, WIDTHS[1:]))
    return line.rstrip()


def table(cases: list[Case]) -> list[str]:
    lines = [_row(COLUMNS), "-" * sum(WIDTHS)]
    for case in cases:
        flops = [format_number(case.gflops(lib)) if case.flops else "" for lib in LIBRARIES]
        lines.append(_row((
            case.name,
            *(format_time(case.median(lib)) for lib in LIBRARIES),
            format_number(case.ratio("numpy"), "x"),
            format_number(case.ratio("torch"), "x"),
            *flops,
        )))
    return lines


def to_json(cases: list[Case], torch: Optional[ModuleType], repeats: int, header: list[str]) -> dict[str, Any]:
    import numba

    return {
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "description": header,
        "settings": {
            "repeats": repeats,
            "min_batch_s": MIN_BATCH_S,
            "dtype": "float32",
            "numba_threads": numba.get_num_threads(),
            "openblas_num_threads": int(os.environ["OPENBLAS_NUM_THREADS"]),
            "torch_threads": torch.get_num_threads() if torch else None,
            "cpu_count": os.cpu_count(),
            "load_average_at_start": LOAD_AT_START,
        },
        "versions": {
            "minitorch": minitorch.__version__,
            "numba": numba.__version__,
            "numpy": np.__version__,
            "torch": torch.__version__ if torch else None,
            "python": platform.python_version(),
        },
        "cases": [
            {
                "name": case.name,
                "median_s": {lib: case.median(lib) for lib in LIBRARIES},
                "samples_s": {lib: case.times.get(lib) for lib in LIBRARIES},
                "ratio_minitorch_over": {"numpy": case.ratio("numpy"), "torch": case.ratio("torch")},
                "gflops": {lib: case.gflops(lib) for lib in LIBRARIES} if case.flops else None,
            }
            for case in cases
        ],
    }


def parse_args(argv: Optional[list[str]] = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=DEFAULT_REPEATS, help="interleaved repetitions per case")
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON, help="where to write the figures")
    parser.add_argument("--no-torch", action="store_true", help="leave PyTorch out even when installed")
    args = parser.parse_args(argv)
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    return args


def main(argv: Optional[list[str]] = None) -> list[Case]:
    args = parse_args(argv)
    torch = None if args.no_torch else _load_torch()
    header = _header(torch, args.repeats)
    print("\n".join(header), flush=True)
    cases = build_cases(torch)
    for case in cases:
        print(f"  measuring {case.name} ...", end="\r", flush=True, file=sys.stderr)
        measure(case, args.repeats)
    print(" " * sum(WIDTHS), end="\r", file=sys.stderr)
    print()
    print("\n".join(table(cases)))
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(to_json(cases, torch, args.repeats, header), indent=2) + "\n")
    print(f"\nfigures written to {args.json}")
    return cases


if __name__ == "__main__":
    main()

"""minitorch against NumPy and PyTorch CPU: every benchmark, measured side by side in one run.

Run with ``make bench`` (which installs the CPU build of PyTorch first) or
``python bench/run.py [--quick] [--only PATTERN]``. Each case runs the same data in the
libraries it compares; the repetitions are interleaved (one batch of each library in turn,
the order rotating) and the table shows medians, the ratios of minitorch's time to NumPy's
and PyTorch's, GFLOP/s for matmul and the issue's targets (met / missed). Thread counts
are fixed before any library starts its pools. The figures also go to
``bench/results/latest.json``. PyTorch is optional: without it, its columns read "n/a".

The harness imports the minitorch of the checkout it lives in, so copying ``bench/`` into
an older checkout measures that one (cases it cannot run read "n/a"). See ``bench/README.md``.
"""

from __future__ import annotations

import os
import time

STARTED = time.perf_counter()
#: cores of the reference machine: every library gets this many threads
THREADS = int(os.environ.get("BENCH_THREADS", "2"))
# Must happen before NumPy (OpenBLAS), Numba or PyTorch (OpenMP) start their thread pools.
os.environ["OPENBLAS_NUM_THREADS"] = str(THREADS)
os.environ.setdefault("NUMBA_NUM_THREADS", str(THREADS))
# OMP_WAIT_POLICY is left as each library's users get it: idle OpenMP threads spin for a few
# milliseconds before they sleep, which makes back-to-back small parallel ops fast. (PASSIVE, which
# this bench once set, made every parallel region wake sleeping threads: PyTorch's MLP step took
# 2.2x as long, minitorch's 1.3x.) Each timed batch waits harness.SETTLE_S first, so one
# library's spinning pool does not take the cores the next measurement needs.
# OpenBLAS's own threads (NumPy's matmul) spin too: by default an idle one sleeps after 2**28
# cycles (about 0.1 s), which outlasts the matmul cases' pause before each batch and takes a core
# from whichever library is timed next (a 1024 float32 matmul by the Numba kernel: 26-28 ms in the
# bench, 18 ms alone). 2**22 cycles (a millisecond or two) still keeps them awake between NumPy's
# own back-to-back calls; 2**4, the least, made NumPy's 128-512 products up to 2x slower.
os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "22")

import argparse  # noqa: E402 - the environment above must be set first
import json  # noqa: E402
import platform  # noqa: E402
import sys  # noqa: E402
from datetime import datetime, timezone  # noqa: E402
from pathlib import Path  # noqa: E402
from types import ModuleType  # noqa: E402
from typing import Any, Optional  # noqa: E402

import numpy as np  # noqa: E402

#: 1-minute load average before anything runs: other processes make every figure noisy
LOAD_AT_START = os.getloadavg()[0]
BENCH_DIR = Path(__file__).resolve().parent
REPO_ROOT = BENCH_DIR.parent
# this checkout's minitorch, and the harness modules next to this file
sys.path[:0] = [str(REPO_ROOT), str(BENCH_DIR)]

import minitorch  # noqa: E402

import cases_matmul  # noqa: E402
import cases_nn  # noqa: E402
import cases_ops  # noqa: E402
import cases_quant  # noqa: E402
import cases_rnn  # noqa: E402
import cases_startup  # noqa: E402
import harness  # noqa: E402

DEFAULT_JSON = BENCH_DIR / "results" / "latest.json"
FULL = harness.Settings(repeats=15, min_repeats=5, min_batch_s=0.02, budget_scale=1.0, process_repeats=5)
QUICK = harness.Settings(repeats=3, min_repeats=3, min_batch_s=0.01, budget_scale=0.2, process_repeats=2, quick=True)
CASE_MODULES = (cases_ops, cases_matmul, cases_nn, cases_rnn, cases_quant, cases_startup)


def load_torch(enabled: bool) -> Optional[ModuleType]:
    """PyTorch with ``THREADS`` intra-op threads, or None when it is not installed (or not wanted)."""
    if not enabled:
        return None
    try:
        import torch
    except ImportError:
        return None
    torch.set_num_threads(THREADS)
    return torch


def build_cases(ctx: harness.Context) -> list[harness.Case]:
    return [case for module in CASE_MODULES for case in module.cases(ctx)]


def versions(torch: Optional[ModuleType]) -> dict[str, Optional[str]]:
    import numba

    return {
        "minitorch": getattr(minitorch, "__version__", None),
        "numba": numba.__version__,
        "numpy": np.__version__,
        "torch": torch.__version__ if torch else None,
        "python": platform.python_version(),
    }


def header(torch: Optional[ModuleType], settings: harness.Settings) -> list[str]:
    import numba

    backend = getattr(minitorch.backends, "get_cpu_backend_name", lambda: "cpu")()
    torch_text = (f"PyTorch {torch.__version__} (torch.set_num_threads({torch.get_num_threads()}))"
                  if torch else "PyTorch: not installed (its columns read n/a)")
    return [
        f"minitorch {getattr(minitorch, '__version__', '?')} from {REPO_ROOT.name}/, cpu backend {backend!r} "
        f"(Numba {numba.__version__}, {numba.config.NUMBA_NUM_THREADS} threads)",
        f"NumPy {np.__version__} (OPENBLAS_NUM_THREADS={os.environ['OPENBLAS_NUM_THREADS']})",
        torch_text,
        f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; "
        f"OMP_WAIT_POLICY={os.environ.get('OMP_WAIT_POLICY', 'unset (the default)')}, "
        f"OPENBLAS_THREAD_TIMEOUT={os.environ.get('OPENBLAS_THREAD_TIMEOUT')}; load average at start {LOAD_AT_START:.2f} "
        "(figures are only clean on an otherwise idle machine)",
        f"medians of {settings.min_repeats}-{settings.repeats} interleaved repetitions (batches of "
        f">= {settings.min_batch_s * 1e3:.0f} ms), {settings.process_repeats} for fresh processes; "
        "ratio = minitorch time / other time, the median of each repetition's ratio (above 1: minitorch is slower); "
        "%BLAS = NumPy time / minitorch time, likewise",
    ]


def to_json(cases: list[harness.Case], torch: Optional[ModuleType], settings: harness.Settings,
            lines: list[str], args: argparse.Namespace, wall_s: float) -> dict[str, Any]:
    import numba

    return {
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "description": lines,
        "settings": {
            "quick": settings.quick,
            "only": args.only,
            "repeats": settings.repeats,
            "min_repeats": settings.min_repeats,
            "min_batch_s": settings.min_batch_s,
            "budget_scale": settings.budget_scale,
            "process_repeats": settings.process_repeats,
            "threads": THREADS,
            "numba_threads": numba.config.NUMBA_NUM_THREADS,
            "openblas_num_threads": int(os.environ["OPENBLAS_NUM_THREADS"]),
            "torch_threads": torch.get_num_threads() if torch else None,
            "cpu_count": os.cpu_count(),
            "load_average_at_start": LOAD_AT_START,
            "load_average_at_end": os.getloadavg()[0],
            "wall_s": wall_s,
        },
        "versions": versions(torch),
        "targets": harness.targets_summary(cases),
        "course_kernel_entry": cases_matmul.entry_used,
        "cases": [harness.case_json(case) for case in cases],
    }


def parse_args(argv: Optional[list[str]] = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="few repetitions: checks the harness, not for figures")
    parser.add_argument("--only", metavar="PATTERN",
                        help="only the cases whose name or group matches this regular expression (e.g. 'matmul 1024')")
    parser.add_argument("--repeats", type=int, help="at most this many interleaved repetitions per case")
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON, help="where to write the figures")
    parser.add_argument("--no-torch", action="store_true", help="leave PyTorch out even when installed")
    parser.add_argument("--list", action="store_true", help="list the cases and exit")
    args = parser.parse_args(argv)
    if args.repeats is not None and args.repeats < 1:
        parser.error("--repeats must be at least 1")
    return args


def settings_for(args: argparse.Namespace) -> harness.Settings:
    settings = QUICK if args.quick else FULL
    if args.repeats is not None:
        settings = harness.Settings(**{**settings.__dict__, "repeats": args.repeats,
                                       "min_repeats": min(settings.min_repeats, args.repeats)})
    return settings


def main(argv: Optional[list[str]] = None) -> list[harness.Case]:
    args = parse_args(argv)
    settings = settings_for(args)
    torch = load_torch(not args.no_torch)
    cases = harness.select(build_cases(harness.Context(torch=torch, quick=settings.quick)), args.only)
    if args.list:
        print("\n".join(f"{case.group:<28} {case.name}" for case in cases))
        return cases
    if not cases:
        sys.exit(f"no case matches {args.only!r} (see --list)")
    lines = header(torch, settings)
    print("\n".join(lines), flush=True)
    # progress on one rewritten line in a terminal; one line per case in a log file
    progress_end = "\r" if sys.stderr.isatty() else "\n"
    for number, case in enumerate(cases, 1):
        print(f"  [{number}/{len(cases)}] {case.name} ...".ljust(80), end=progress_end, flush=True, file=sys.stderr)
        harness.measure(case, settings)
    if sys.stderr.isatty():
        print(" " * 80, end="\r", file=sys.stderr)
    wall = time.perf_counter() - STARTED
    print()
    print("\n".join(harness.table(cases)))
    summary = harness.targets_summary(cases)
    print(f"\ntargets: {summary[harness.MET]} met, {summary[harness.MISSED]} missed, "
          f"{summary[harness.NOT_AVAILABLE]} n/a; whole run {wall:.0f} s")
    if cases_matmul.entry_used:
        print(f"course kernel rows: {cases_matmul.entry_used} called directly")
    missing = harness.notes(cases)
    if missing:
        print("n/a because:\n  " + "\n  ".join(missing))
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(to_json(cases, torch, settings, lines, args, wall), indent=2) + "\n")
    shown = args.json.relative_to(REPO_ROOT) if args.json.is_relative_to(REPO_ROOT) else args.json
    print(f"figures written to {shown}")
    return cases


if __name__ == "__main__":
    main()

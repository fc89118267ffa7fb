"""Hunt for calls that crash, hang or silently accept what PyTorch refuses.

Every hostile call of ``hostile_cases.py`` runs in a child process, under minitorch and
under PyTorch (the oracle), many calls per child. The child announces each call before
making it, so when it dies (a segfault in a kernel, an abort) or stops answering (a hang)
the parent knows which call did it, records it and starts a fresh child after it. A crash is
then rerun alone and, when it needs the calls before it (memory corrupted earlier), the
shortest run of calls that still crashes is found by bisection. Outcomes:

``crash``   the child died: killed by a signal or exited without answering;
``hang``    no answer before the deadline;
``silent``  PyTorch raises, minitorch returns a value;
``differs`` both return, with different shapes, dtypes or values (for a reader to judge);
``ok``      both raise, or both return the same.

Run it from the repository root::

    python tools/hunt_crashes.py [--generic] [--only PREFIX] [--report FILE]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import select
import subprocess
import sys
import tempfile
import time
import warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Optional

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from hostile_cases import HAND_CASES, Case, generic_cases  # noqa: E402

ROOT = HERE.parent
DEADLINE_S = 60.0  # per call: the first call of a kernel may compile it
IMPORT_S = 180.0  # a child's import of the library, before its first call (slow on a busy machine)
MEMORY_LIMIT = 8 * 2 ** 30  # address space of a child: a huge allocation fails instead of swapping
MAX_VALUES = 64  # tensors up to this many elements are compared value by value
DIGITS = 5  # values are compared after rounding to this many significant digits
#: PyTorch errors that say "this argument set does not fit the signature", not "this input is bad"
SIGNATURE_ERRORS = ("TypeError", "AttributeError")


# ---- the child: run cases, one JSON line per case ----


def describe(value: Any, depth: int = 0) -> Any:
    """A JSON-able summary of a call's result: shape, dtype and (small tensors) rounded values."""
    if hasattr(value, "shape") and hasattr(value, "dtype") and hasattr(value, "tolist"):
        shape = [int(n) for n in value.shape]
        summary: dict[str, Any] = {"shape": shape, "dtype": str(value.dtype).rsplit(".", 1)[-1]}
        if math.prod(shape) <= MAX_VALUES:
            summary["values"] = describe(value.detach().tolist() if hasattr(value, "detach") else value.tolist(), depth + 1)
        return summary
    if isinstance(value, (list, tuple)) and depth < 4:
        return [describe(v, depth + 1) for v in list(value)[:MAX_VALUES]]
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, (int, float)):
        value = float(value)
        return repr(value) if not math.isfinite(value) else float(f"{value:.{DIGITS}g}")
    return type(value).__name__


def run_child(library: str, cases_file: str) -> None:
    """Run every case of ``cases_file`` with ``library``, writing ``S i`` before and ``R i JSON`` after each."""
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    protocol = os.dup(1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)  # what the calls print must not mix with the protocol
    if library == "torch":
        import torch as lib
    else:
        import minitorch as lib
    names = {"t": lib, "F": lib.nn.functional, "nan": math.nan, "inf": math.inf}
    cases = json.loads(Path(cases_file).read_text())
    warnings.simplefilter("ignore")
    for i, (_, code) in enumerate(cases):
        os.write(protocol, f"S {i}\n".encode())
        try:
            result = {"kind": "value", "value": describe(eval(code, dict(names)))}  # noqa: S307 - our own cases
        except BaseException as error:  # noqa: BLE001 - every outcome is recorded
            result = {"kind": "raise", "type": type(error).__name__, "message": str(error)[:300]}
        os.write(protocol, f"R {i} {json.dumps(result)}\n".encode())


# ---- the parent: children, deadlines, restarts ----


def _start(library: str, cases: list[Case]) -> tuple[subprocess.Popen, Path, Any]:
    handle, name = tempfile.mkstemp(suffix=".json", prefix="hostile-")
    os.write(handle, json.dumps(cases).encode())
    os.close(handle)
    stderr = tempfile.TemporaryFile()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    proc = subprocess.Popen([sys.executable, str(Path(__file__).resolve()), "--child", library, name],
                            stdout=subprocess.PIPE, stderr=stderr, env=env, cwd=ROOT, start_new_session=True)
    return proc, Path(name), stderr


def _died(proc: subprocess.Popen, stderr: Any, since: int) -> dict:
    code = proc.wait()
    stderr.seek(0)
    tail = stderr.read().decode(errors="replace")[-600:]
    how = f"signal {-code}" if code < 0 else f"exit status {code}"
    return {"kind": "crash", "how": how, "stderr": tail, "since": since}  # ``since``: the child's first case


def run_cases(library: str, cases: list[Case], deadline: float = DEADLINE_S) -> list[dict]:
    """The outcome of each case under ``library``, each in a child, a fresh child after a crash or hang."""
    results: list[Optional[dict]] = [None] * len(cases)
    first = 0
    while first < len(cases):
        proc, cases_file, stderr = _start(library, cases[first:])
        current, buffer, started = None, b"", time.monotonic()
        try:
            while True:
                limit = deadline if current is not None else IMPORT_S  # the import comes first
                ready, _, _ = select.select([proc.stdout], [], [], max(0.0, started + limit - time.monotonic()))
                if not ready:
                    os.killpg(proc.pid, 9)
                    proc.wait()
                    at = first + (current or 0)
                    results[at] = {"kind": "hang", "how": f"no answer within {limit:.0f} s"}
                    first = at + 1
                    break
                chunk = os.read(proc.stdout.fileno(), 1 << 16)
                if not chunk:  # the child is gone: finished, or died in the middle of a case
                    if current is not None and results[first + current] is None:
                        results[first + current] = _died(proc, stderr, first)
                        first = first + current + 1
                    else:
                        proc.wait()
                        first = len(cases) if current is None or first + current + 1 >= len(cases) else first + current + 1
                    break
                buffer += chunk
                *lines, buffer = buffer.split(b"\n")
                for line in lines:
                    tag, index, *rest = line.decode().split(" ", 2)
                    if tag == "S":
                        current, started = int(index), time.monotonic()
                    else:
                        results[first + int(index)] = dict(json.loads(rest[0]), seconds=round(time.monotonic() - started, 2))
        finally:
            cases_file.unlink(missing_ok=True)
            stderr.close()
            if proc.poll() is None:
                os.killpg(proc.pid, 9)
                proc.wait()
    return [r if r is not None else {"kind": "crash", "how": "never run"} for r in results]


def shortest_crashing_run(library: str, cases: list[Case], at: int, since: int) -> list[Case]:
    """The shortest run ``cases[lo..at]`` (``lo >= since``, where the crashed child began) that
    still crashes at its last call, by bisection on ``lo``; empty when even the child's whole
    run no longer crashes (a crash that depends on timing, or one fixed since)."""
    if run_cases(library, [cases[at]])[0]["kind"] == "crash":
        return [cases[at]]
    if since == at or run_cases(library, cases[since:at + 1])[-1]["kind"] != "crash":
        return []
    lo, hi = since, at  # cases[lo..at] crashes, cases[hi..at] does not
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if run_cases(library, cases[mid:at + 1])[-1]["kind"] == "crash":
            lo = mid
        else:
            hi = mid
    return cases[lo:at + 1]


# ---- comparing with PyTorch ----


def classify(ours: dict, theirs: dict, generic: bool) -> str:
    """``crash``, ``hang``, ``silent``, ``differs`` or ``ok`` (see the module's docstring)."""
    if ours["kind"] in ("crash", "hang"):
        return ours["kind"]
    if ours["kind"] == "raise" or theirs["kind"] in ("crash", "hang"):
        return "ok"
    if theirs["kind"] == "raise":
        if generic and theirs["type"] in SIGNATURE_ERRORS:
            return "ok"  # the argument set does not fit PyTorch's signature: no verdict on ours
        return "silent"
    return "ok" if ours["value"] == theirs["value"] else "differs"


def hunt(cases: list[Case], generic_ids: frozenset[str] = frozenset(), deadline: float = DEADLINE_S) -> list[dict]:
    """Each case's outcomes under both libraries and its verdict."""
    with ThreadPoolExecutor(max_workers=2) as pool:  # the two children run side by side
        pending = [pool.submit(run_cases, library, cases, deadline) for library in ("minitorch", "torch")]
        ours, theirs = (future.result() for future in pending)
    rows = []
    for (name, code), mine, ref in zip(cases, ours, theirs):
        verdict = classify(mine, ref, name in generic_ids)
        row = {"id": name, "code": code, "verdict": verdict, "minitorch": mine, "torch": ref}
        if verdict == "crash":
            at = cases.index((name, code))
            row["repro"] = [c for _, c in shortest_crashing_run("minitorch", cases, at, mine.get("since", at))]
        rows.append(row)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--child", nargs=2, metavar=("LIBRARY", "CASES"), help=argparse.SUPPRESS)
    parser.add_argument("--generic", action="store_true", help="sweep every public callable instead of the hand-written cases")
    parser.add_argument("--only", default="", help="run only cases whose id starts with this")
    parser.add_argument("--deadline", type=float, default=DEADLINE_S, help="seconds one call may take")
    parser.add_argument("--report", help="write every outcome to this JSON file")
    args = parser.parse_args()
    if args.child:
        run_child(*args.child)
        return
    import minitorch

    cases = list(HAND_CASES)
    generic = list(generic_cases(minitorch)) if args.generic else []
    cases = [c for c in (generic if args.generic else cases) if c[0].startswith(args.only)]
    began = time.monotonic()
    rows = hunt(cases, frozenset(name for name, _ in generic), args.deadline)
    counts: dict[str, int] = {}
    for row in rows:
        counts[row["verdict"]] = counts.get(row["verdict"], 0) + 1
        if row["verdict"] in ("crash", "hang", "silent"):
            print(f"{row['verdict'].upper():7} {row['id']}: {row['code']}\n        minitorch: {row['minitorch']}\n"
                  f"        torch: {row['torch']}")
    print(f"{len(rows)} calls in {time.monotonic() - began:.0f} s: {counts}")
    if args.report:
        Path(args.report).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()

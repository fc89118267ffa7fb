"""Fuzzing every op that indexes memory, on every backend, against PyTorch.

Random cases (``indexing_fuzz_cases.py``: random ranks, shapes, dims, index dtypes and
values in and out of range, views, strides and paddings) run with minitorch in a child
process, one per backend, so that a kernel reading outside its tensor and crashing the
process fails this test instead of killing the test run. Each case must end as PyTorch's
does: the same exception class (or a subclass of it), or the same outputs and gradients.
Never a crash, never a value PyTorch would not give.

Not a graded test: it checks the reference implementation (a student copy fails it until
every task it touches is done).
"""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import CUDA_TEST_LAUNCH
from indexing_fuzz_cases import Library, make_cases, run_case

import minitorch

ROOT = Path(minitorch.__file__).resolve().parent.parent
CHILD = Path(__file__).with_name("indexing_fuzz_cases.py")
SEED = 15
#: cases per backend; the CUDA simulator runs every GPU thread as a Python thread, so fewer
CASE_COUNTS = {"simple": 600, "cpu": 600, "cuda": 120}
CHILD_TIMEOUT_S = 300


def _run_child(backend: str, cases: list[dict], tmp_path: Path) -> tuple[list[dict], str]:
    """minitorch's outcome of each case, from a child process, and how the child ended.

    Fewer outcomes than cases means the child died (or hung) in the first case without one.
    """
    cases_file = tmp_path / "cases.pkl"
    with open(cases_file, "wb") as f:
        pickle.dump({"cases": cases, "cuda_launch": CUDA_TEST_LAUNCH}, f)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
               NUMBA_ENABLE_CUDASIM="1")
    command = [sys.executable, str(CHILD), backend, str(cases_file)]
    try:
        done = subprocess.run(command, capture_output=True, env=env, timeout=CHILD_TIMEOUT_S)
        stdout, ending = done.stdout, f"return code {done.returncode}, stderr: {done.stderr.decode()[-2000:]}"
    except subprocess.TimeoutExpired as timeout:
        stdout, ending = timeout.stdout or b"", f"no answer after {CHILD_TIMEOUT_S} s"
    outcomes = [json.loads(line) for line in stdout.decode().splitlines() if line.startswith("{")]
    return outcomes, ending


def _mismatch(ours: dict, theirs: dict) -> str | None:
    """Why minitorch's outcome differs from PyTorch's, or None when it agrees."""
    if "error" in theirs:
        expected = theirs["error"][0]
        if "error" not in ours:
            return f"PyTorch raised {expected}: {theirs['message']!r}; minitorch returned {sorted(ours['ok'])}"
        if expected not in ours["error"]:
            return f"PyTorch raised {expected}: {theirs['message']!r}; minitorch raised {ours['error'][0]}: {ours['message']!r}"
        return None
    if "error" in ours:
        return f"PyTorch returned a result; minitorch raised {ours['error'][0]}: {ours['message']!r}"
    if sorted(ours["ok"]) != sorted(theirs["ok"]):
        return f"outputs {sorted(ours['ok'])} != PyTorch's {sorted(theirs['ok'])}"
    for name, (shape, values) in theirs["ok"].items():
        our_shape, our_values = ours["ok"][name]
        if our_shape != shape:
            return f"{name}: shape {our_shape} != PyTorch's {shape}"
        if not np.allclose(our_values, values, rtol=1e-6, atol=1e-9, equal_nan=True):
            return f"{name}: {our_values} != PyTorch's {values}"
    return None


def _describe(case: dict) -> str:
    def short(value: Any) -> Any:
        if isinstance(value, dict) and "array" in value:
            array = value["array"]
            extra = {k: value[k] for k in ("perm", "expand") if value.get(k)}
            return f"{array.dtype}{list(array.shape)}={array.tolist()}" + (f" {extra}" if extra else "")
        return value

    return ", ".join(f"{k}={short(v)}" for k, v in case.items())


@pytest.mark.parametrize("target", ["simple", "cpu", "cuda"])
def test_indexing_ops_never_crash_and_agree_with_torch(target: str, torch_ref, tmp_path: Path) -> None:
    if target == "cuda" and not minitorch.cuda.is_available():
        pytest.skip("no CUDA GPU, and NUMBA_ENABLE_CUDASIM is off")
    cases = make_cases(SEED, CASE_COUNTS[target])
    ours, ending = _run_child(target, cases, tmp_path)
    if len(ours) < len(cases):
        pytest.fail(f"the {target} child stopped in case {len(ours)} ({_describe(cases[len(ours)])}): {ending}")
    oracle = Library(torch_ref)
    failures = []
    for i, (case, outcome) in enumerate(zip(cases, ours)):
        why = _mismatch(outcome, run_case(oracle, case))
        if why:
            failures.append(f"case {i} ({_describe(case)}): {why}")
    assert not failures, f"{len(failures)} of {len(cases)} cases differ from PyTorch:\n" + "\n".join(failures[:15])

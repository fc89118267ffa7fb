"""The caching allocator of the cuda backend, and ``minitorch.cuda``'s memory functions.

The allocator's cases (``cuda_memory_cases.py``) run in a child pytest with Numba's simulator
off, against a fake driver: the simulator replaces the driver layer the allocator plugs into.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import minitorch

TESTS = Path(__file__).resolve().parent
CHILD_TIMEOUT_S = 300


def test_the_allocator_cases_pass_against_numbas_driver_layer() -> None:
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "0"}
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(TESTS / "cuda_memory_cases.py")],
        capture_output=True, text=True, env=env, cwd=TESTS.parent, timeout=CHILD_TIMEOUT_S,
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert " passed" in run.stdout and "skipped" not in run.stdout


def test_on_the_simulator_nothing_is_cached_and_the_counters_read_zero() -> None:
    """As PyTorch's before CUDA starts: the simulator has no device memory to count."""
    x = minitorch.ones(1000, device="cuda")
    assert minitorch.cuda.memory_allocated() == 0 and minitorch.cuda.memory_reserved() == 0
    minitorch.cuda.empty_cache()
    assert x.sum().item() == 1000

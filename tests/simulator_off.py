"""Run a file of test cases in a child pytest with Numba's CUDA simulator off.

For code that plugs into Numba's real CUDA driver layer (the caching allocator, the launch
plans), which the simulator replaces: the cases bring fakes for the driver calls, so no GPU is
needed.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent
CHILD_TIMEOUT_S = 300


def assert_cases_pass(cases_file: str) -> None:
    """Every case of ``tests/<cases_file>`` passes with the simulator off, and none is skipped."""
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "0"}
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(TESTS / cases_file)],
        capture_output=True, text=True, env=env, cwd=TESTS.parent, timeout=CHILD_TIMEOUT_S,
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert " passed" in run.stdout and "skipped" not in run.stdout

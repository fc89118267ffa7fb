"""The cuda backend's launch plans (``backends/cuda_launch.py``).

The plans' cases (``cuda_launch_cases.py``) run in a child pytest with Numba's simulator off, against
Numba's own argument handling and launch (the driver call recorded, not made): the simulator
replaces the launch path the plans stand in for. Here, on the simulator, launches keep Numba's path.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import minitorch
from minitorch.backends import cuda_launch

TESTS = Path(__file__).resolve().parent
CHILD_TIMEOUT_S = 300


def test_the_launch_cases_pass_against_numbas_launch() -> None:
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "0"}
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(TESTS / "cuda_launch_cases.py")],
        capture_output=True, text=True, env=env, cwd=TESTS.parent, timeout=CHILD_TIMEOUT_S,
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert " passed" in run.stdout and "skipped" not in run.stdout


@pytest.mark.usefixtures("small_cuda")
def test_on_the_simulator_launches_keep_numbas_path() -> None:
    cuda_launch.forget_plans()
    x = minitorch.arange(10, device="cuda").float()
    assert ((x + x) * 2).tolist() == [4.0 * i for i in range(10)]
    assert cuda_launch._plans == {}

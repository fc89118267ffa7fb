"""The cuda kernels compile for a real GPU, not only on the simulator the other tests use.

A child process (``cuda_lowering.py``) turns the simulator off and types and lowers every
kernel with the storage dtypes the backend launches it with; no GPU is needed. On an H200,
every elementwise kernel once failed this way (``np.fmod`` in the ``fmod`` op) while the
whole suite passed on the simulator.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from minitorch.backends import cuda_kernels, cuda_log_softmax, cuda_matmul_blocked, cuda_mul_add, cuda_optim

CHILD = Path(__file__).resolve().parent / "cuda_lowering.py"
#: the child lowers ~120 kernels at about half a second each
CHILD_TIMEOUT_S = 600


def child_rows(*arguments: str) -> list[dict]:
    """The JSON rows the child prints for ``arguments``."""
    env = {key: value for key, value in os.environ.items() if key != "NUMBA_ENABLE_CUDASIM"}
    run = subprocess.run(
        [sys.executable, str(CHILD), *arguments], capture_output=True, text=True, env=env, timeout=CHILD_TIMEOUT_S
    )
    assert run.returncode == 0, run.stderr[-3000:]
    return [json.loads(line) for line in run.stdout.splitlines() if line.startswith("{")]


def lowered(*names: str) -> dict[str, str | None]:
    """``{case: error or None}`` from the child for ``names`` (none: every case)."""
    return {row["case"]: row["error"] for row in child_rows(*names)}


@pytest.fixture(scope="module")
def every_case() -> dict[str, str | None]:
    return lowered()


def test_every_kernel_lowers_for_a_gpu(every_case: dict[str, str | None]) -> None:
    failed = {case: error for case, error in every_case.items() if error is not None}
    assert not failed, f"{len(failed)} of {len(every_case)} kernels do not compile for a GPU: {failed}"


def test_the_cases_cover_every_kernel(every_case: dict[str, str | None]) -> None:
    kernels = {
        name.removesuffix("_kernel") for module in (cuda_kernels, cuda_log_softmax, cuda_matmul_blocked, cuda_mul_add, cuda_optim) for name in vars(module) if name.endswith("_kernel")
    }
    covered = {case.split("[")[0] for case in every_case}
    assert kernels == covered, f"kernels without a case: {kernels - covered}; cases of no kernel: {covered - kernels}"
    assert len(every_case) > 100


def test_a_kernel_only_the_simulator_runs_is_caught() -> None:
    error = lowered("canary")["canary"]
    assert error is not None and "fmod" in error


def test_the_blocked_matmul_keeps_its_accumulators_in_registers() -> None:
    # per-thread arrays indexed only at positions known when compiling (unrolled loops) become
    # registers; one left in local memory would cost the kernel its point
    rows = child_rows("--ptx", "blocked_matmul[float32]", "blocked_matmul[float64]", "local_canary")
    local = {row["case"]: row["local_memory"] for row in rows}
    assert local == {"blocked_matmul[float32]": False, "blocked_matmul[float64]": False, "local_canary": True}

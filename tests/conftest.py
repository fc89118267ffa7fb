"""Shared test set-up: one backend fixture, so every tensor test runs on every backend."""

from __future__ import annotations

import os
from typing import Iterator

# Numba's CUDA simulator must be chosen before Numba is imported anywhere.
os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")

import pytest
from hypothesis import settings

import minitorch

settings.register_profile("ci", max_examples=25, deadline=None, derandomize=True)
settings.load_profile("ci")

BACKENDS = ["simple", "cpu"]


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> Iterator[str]:
    """Run the test with device 'cpu' computed by each backend in turn."""
    with minitorch.backends.use(request.param):
        yield request.param


#: launch sizes of the cuda backend while testing: on Numba's simulator (one Python thread
#: per GPU thread) tiny inputs must still span several blocks, reduction rounds and tiles.
#: Products take the students' tiled kernel (task 3.7), whatever their size; the
#: register-blocked kernel has its own tests (``test_cuda_matmul_blocked.py``).
CUDA_TEST_LAUNCH = {
    "THREADS_PER_BLOCK": 8, "REDUCE_THREADS": 4, "TILE": 4, "MAX_BLOCKS": 3, "MAX_BATCH_BLOCKS": 2,
    "use_blocked_matmul": False,
}


@pytest.fixture
def small_cuda(monkeypatch: pytest.MonkeyPatch) -> None:
    """Device 'cuda' with the launch sizes of :data:`CUDA_TEST_LAUNCH` (skips without GPU or simulator)."""
    if not minitorch.cuda.is_available():
        pytest.skip("no CUDA GPU, and NUMBA_ENABLE_CUDASIM is off")
    from minitorch.backends import cuda as cuda_backend

    for name, value in CUDA_TEST_LAUNCH.items():
        monkeypatch.setattr(cuda_backend, name, value)


@pytest.fixture(params=["cpu", "cuda"])
def device(request: pytest.FixtureRequest) -> str:
    """Run the test on each device; 'cuda' with the small launch sizes of ``small_cuda``."""
    if request.param == "cuda":
        request.getfixturevalue("small_cuda")
    return request.param


@pytest.fixture(autouse=True)
def _seed() -> None:
    minitorch.manual_seed(0)


@pytest.fixture(scope="session")
def torch_ref():
    """PyTorch, the oracle of the differential tests.

    ``make test`` installs it and sets ``MINITORCH_REQUIRE_TORCH=1``, so there a missing
    PyTorch is an error; a bare ``pytest`` in an environment without it skips these tests.
    """
    try:
        import torch
    except ImportError:
        if os.environ.get("MINITORCH_REQUIRE_TORCH") == "1":
            raise
        pytest.skip("PyTorch is not installed (make test installs it as the oracle)")
    torch.manual_seed(0)
    return torch

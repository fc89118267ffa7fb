"""The caching allocator of the cuda backend, and ``minitorch.cuda``'s memory functions.

The allocator's cases (``cuda_memory_cases.py``) run in a child pytest with Numba's simulator
off, against a fake driver: the simulator replaces the driver layer the allocator plugs into.
"""

from __future__ import annotations

import minitorch
from simulator_off import assert_cases_pass


def test_the_allocator_cases_pass_against_numbas_driver_layer() -> None:
    assert_cases_pass("cuda_memory_cases.py")


def test_on_the_simulator_nothing_is_cached_and_the_counters_read_zero() -> None:
    """As PyTorch's before CUDA starts: the simulator has no device memory to count."""
    x = minitorch.ones(1000, device="cuda")
    assert minitorch.cuda.memory_allocated() == 0 and minitorch.cuda.memory_reserved() == 0
    minitorch.cuda.empty_cache()
    assert x.sum().item() == 1000

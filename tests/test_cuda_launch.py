"""The cuda backend's launch plans (``backends/cuda_launch.py``).

The plans' cases (``cuda_launch_cases.py``) run in a child pytest with Numba's simulator off, against
Numba's own argument handling and launch (the driver call recorded, not made): the simulator
replaces the launch path the plans stand in for. Here, on the simulator, launches keep Numba's path.
"""

from __future__ import annotations

import pytest

import minitorch
from minitorch.backends import cuda_launch
from simulator_off import assert_cases_pass


def test_the_launch_cases_pass_against_numbas_launch() -> None:
    assert_cases_pass("cuda_launch_cases.py")


@pytest.mark.usefixtures("small_cuda")
def test_on_the_simulator_launches_keep_numbas_path() -> None:
    cuda_launch.forget_plans()
    x = minitorch.arange(10, device="cuda").float()
    assert ((x + x) * 2).tolist() == [4.0 * i for i in range(10)]
    assert cuda_launch._plans == {}

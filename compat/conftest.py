"""Set-up of the corpus tests (``pytest compat``).

They live outside ``tests/``: ``make test`` runs them in a pytest process of their own after the
suite, and a plain ``pytest`` (whose ``testpaths`` is ``tests``) leaves them out. Each test
needs PyTorch as the oracle, the same rule as ``tests/conftest.py``'s ``torch_ref``: without it
they skip, unless ``MINITORCH_REQUIRE_TORCH=1`` makes a missing PyTorch an error.
"""

from __future__ import annotations

import importlib.util
import os

import pytest


@pytest.fixture(scope="session", autouse=True)
def _pytorch_installed() -> None:
    if importlib.util.find_spec("torch") is None:
        if os.environ.get("MINITORCH_REQUIRE_TORCH") == "1":
            raise RuntimeError("PyTorch is not installed: the corpus compares minitorch with it")
        pytest.skip("PyTorch is not installed (make test installs it as the oracle)")

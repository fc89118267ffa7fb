"""PyTorch as a test oracle, imported where a fixture cannot reach (module level, helpers).

``make test`` installs PyTorch and sets ``MINITORCH_REQUIRE_TORCH=1``: there a missing PyTorch
fails the run instead of skipping the comparisons. A bare ``pytest`` without it skips them.
"""

from __future__ import annotations

import os
from types import ModuleType

import pytest


def import_torch() -> ModuleType:
    """PyTorch, or a skip (an ImportError under ``MINITORCH_REQUIRE_TORCH=1``)."""
    if os.environ.get("MINITORCH_REQUIRE_TORCH") == "1":
        import torch

        return torch
    return pytest.importorskip("torch")

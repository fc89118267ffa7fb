"""``minitorch.cuda``: GPU queries. This build has no CUDA backend yet, so no GPU is available."""

from __future__ import annotations


def is_available() -> bool:
    """Whether tensors can be placed on ``'cuda'`` (not in this build)."""
    return False


def device_count() -> int:
    return 0


def synchronize() -> None:
    """Wait for queued GPU work; nothing is ever queued without a GPU."""

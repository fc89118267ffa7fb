"""Apple's Metal (``mps``) as PyTorch code asks about it: minitorch has no Metal backend.

Scripts choose their device with ``torch.backends.mps.is_available()``; here the answer is
always no, so they fall back to the CPU (or CUDA) as they would on any machine without Metal.
"""

from __future__ import annotations


def is_available() -> bool:
    """Whether an ``mps`` device can be used: never, in minitorch."""
    return False


def is_built() -> bool:
    """Whether minitorch was built with Metal support: it never is."""
    return False

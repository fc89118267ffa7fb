"""NVIDIA's cuDNN (``torch.backends.cudnn``) as PyTorch scripts configure it.

minitorch never calls cuDNN (its CUDA kernels are its own Numba ones), so it answers as a
PyTorch build without cuDNN does: ``is_available()`` is False and ``version()`` None. The
switches scripts set for reproducibility or speed (``deterministic``, ``benchmark``,
``enabled``, ``allow_tf32``) are plain module attributes with PyTorch's defaults; setting
them changes nothing here, as on a CPU-only PyTorch.
"""

from __future__ import annotations

import contextlib
from typing import Any, Iterator, Optional

#: whether cuDNN may be used (PyTorch's default True; there is none to use)
enabled = True
#: ask cuDNN for deterministic convolution algorithms
deterministic = False
#: let cuDNN time several algorithms and keep the fastest
benchmark = False
#: how many algorithms ``benchmark`` tries (None, as a PyTorch build without cuDNN reports)
benchmark_limit: Optional[int] = None
#: allow TensorFloat-32 in cuDNN convolutions
allow_tf32 = True


def is_available() -> bool:
    """Whether cuDNN can be used: never, in minitorch."""
    return False


def version() -> Optional[int]:
    """cuDNN's version number, or None without cuDNN (always None here)."""
    return None


def is_acceptable(tensor: Any) -> bool:
    """Whether cuDNN would take ``tensor``: only CUDA tensors with cuDNN present, so never here."""
    return False


@contextlib.contextmanager
def flags(enabled: bool = False, benchmark: bool = False, benchmark_limit: int = 10,
          deterministic: bool = False, allow_tf32: bool = True) -> Iterator[None]:
    """Set the switches inside a ``with`` block and restore them after it (PyTorch's defaults)."""
    names = ("enabled", "benchmark", "benchmark_limit", "deterministic", "allow_tf32")
    module = globals()
    saved = {name: module[name] for name in names}
    module.update(zip(names, (enabled, benchmark, benchmark_limit, deterministic, allow_tf32)))
    try:
        yield
    finally:
        module.update(saved)

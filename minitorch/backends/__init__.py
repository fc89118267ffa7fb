"""Choosing the backend that computes for a device.

Device ``'cpu'`` runs the Numba backend by default. The pure-Python ``simple`` backend
(the teaching reference) is selected for a block of code with::

    with minitorch.backends.use("simple"):
        ...

or for the whole process with ``minitorch.backends.set_cpu_backend("simple")`` or the
environment variable ``MINITORCH_CPU_BACKEND=simple``. Storage is a NumPy array in both,
so tensors move freely between them.
"""

from __future__ import annotations

import contextlib
import os
from typing import Iterator

from .base import ARG_REDUCE_OPS, BINARY_OPS, REDUCE_OPS, UNARY_OPS, Backend

CPU_BACKENDS = ("cpu", "simple")
_loaded: dict[str, Backend] = {}
_cpu_choice = os.environ.get("MINITORCH_CPU_BACKEND", "cpu")


def _load(name: str) -> Backend:
    """Import a backend on first use, so ``import minitorch`` does not pay for Numba."""
    if name not in _loaded:
        if name == "simple":
            from .simple import SimpleBackend

            _loaded[name] = SimpleBackend()
        elif name == "cpu":
            from .cpu import CpuBackend

            _loaded[name] = CpuBackend()
        elif name == "cuda":
            # imported here, so ``import minitorch`` and the cpu path never load numba.cuda
            from .cuda import CudaBackend

            _loaded[name] = CudaBackend()
        else:
            raise ValueError(f"unknown backend {name!r}")
    return _loaded[name]


def set_cpu_backend(name: str) -> None:
    """Use ``name`` (``'cpu'`` for Numba, ``'simple'`` for pure Python) for device ``'cpu'``."""
    global _cpu_choice
    if name not in CPU_BACKENDS:
        raise ValueError(f"unknown cpu backend {name!r}; choose one of {CPU_BACKENDS}")
    _cpu_choice = name


def get_cpu_backend_name() -> str:
    return _cpu_choice


@contextlib.contextmanager
def use(name: str) -> Iterator[None]:
    """Run the block with device ``'cpu'`` computed by backend ``name``."""
    previous = _cpu_choice
    set_cpu_backend(name)
    try:
        yield
    finally:
        set_cpu_backend(previous)


def backend_for(device_type: str) -> Backend:
    """The backend that computes for tensors on ``device_type``."""
    return _load(_cpu_choice if device_type == "cpu" else device_type)


__all__ = [
    "ARG_REDUCE_OPS", "BINARY_OPS", "REDUCE_OPS", "UNARY_OPS", "Backend",
    "backend_for", "get_cpu_backend_name", "set_cpu_backend", "use",
]

"""``minitorch.multiprocessing``: Python's ``multiprocessing`` with tensors sent as shared memory.

Everything of the standard module is here under its name (``Process``, ``Queue``, ``Pool``,
``get_context``, ``set_start_method``, ``cpu_count`` ...), as in ``torch.multiprocessing``.
Importing it (``import minitorch`` does) registers :mod:`.reductions`: a tensor sent through a
queue, a pipe or a ``spawn``/``forkserver`` child's arguments travels as a descriptor of its
shared-memory segment, not as a copy (:mod:`minitorch.shared_memory` says how long a segment
lives and who can reach it). :func:`spawn` runs ``fn(i, *args)`` in ``nprocs`` processes.

Sharing strategies: PyTorch's names are accepted, ``file_descriptor`` (the default) and
``file_system``; minitorch hands every segment on as a descriptor whichever is set (no
named files to leak, so no manager process to clean them up).

Forking after parallel kernels: where Numba's threading layer is GNU OpenMP (``omp``), a child
forked by a process that has run a threaded kernel would end at its own first one ("Terminating:
fork() called from a process already using GNU OpenMP"). Such a child therefore runs every kernel
on one thread (:mod:`minitorch.backends.serial_twins`), as PyTorch's DataLoader workers do; a
child forked before the parent's first threaded kernel keeps its threads.
"""

from __future__ import annotations

import multiprocessing as _multiprocessing
import sys

from .reductions import init_reductions
from .spawn import (
    ProcessContext, ProcessException, ProcessExitedException, ProcessRaisedException, spawn, start_processes,
)

# the standard module's names (bound to its default context), as ``from multiprocessing import *`` gives them
globals().update({name: getattr(_multiprocessing, name) for name in _multiprocessing.__all__})

if sys.platform in ("darwin", "win32"):
    _all_sharing_strategies = {"file_system"}
else:
    _all_sharing_strategies = {"file_descriptor", "file_system"}
_sharing_strategy = "file_system" if sys.platform in ("darwin", "win32") else "file_descriptor"


def set_sharing_strategy(new_strategy: str) -> None:
    """Choose how CPU tensors are shared: one of :func:`get_all_sharing_strategies` (PyTorch's error otherwise)."""
    global _sharing_strategy
    if new_strategy not in _all_sharing_strategies:
        raise AssertionError(f"invalid sharing strategy {new_strategy!r}, expected one of {_all_sharing_strategies}")
    _sharing_strategy = new_strategy


def get_sharing_strategy() -> str:
    """The strategy set last (``file_descriptor`` by default on Linux)."""
    return _sharing_strategy


def get_all_sharing_strategies() -> set[str]:
    """The strategies this platform accepts."""
    return _all_sharing_strategies


init_reductions()

__all__ = [
    "set_sharing_strategy", "get_sharing_strategy", "get_all_sharing_strategies", "spawn", "start_processes",
    "ProcessContext", "ProcessException", "ProcessExitedException", "ProcessRaisedException",
    *_multiprocessing.__all__,
]

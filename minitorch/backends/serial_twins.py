"""Threaded kernels compiled again without threads: for small calls, and for forked children.

:func:`serial_twin` compiles a ``prange`` kernel's source as a function of its own without
``parallel``: the small calls of a kernel take it (threads cost more than they save there).

A forked child takes it for every call. Where Numba's threading layer is GNU OpenMP (``omp``,
the layer it picks on Linux), a process that has run a threaded kernel cannot run one in a
child it forks: the child ends at its first parallel region with "Terminating: fork() called
from a process already using GNU OpenMP, this is unsafe". A DataLoader worker that transforms
its samples with tensor ops after the main process has trained, or a Hogwild child, would die
so. So once threads have run (:func:`note_threads_started`), a forked child runs every kernel
on its own thread (:func:`serial_only`), as PyTorch's workers run with one thread. Twins that
did not exist yet are compiled in the child when first needed (then cached on disk).
"""

from __future__ import annotations

import os
import threading
from types import FunctionType
from typing import Any

from numba import njit
from numba.core.dispatcher import Dispatcher

#: the twin of each threaded kernel made so far
_TWINS: dict[Dispatcher, Dispatcher] = {}
_TWINS_LOCK = threading.Lock()


class _ForkState:
    """Whether this process has run threaded kernels, and whether it must not (a forked child of one that had)."""

    threads_started = False
    serial_only = False


_STATE = _ForkState()


def serial_twin(kernel: Dispatcher, **options: Any) -> Dispatcher:
    """``kernel``'s source compiled as a function of its own without ``parallel``.

    The twin has a name of its own (``<name>_serial``): Numba names a cache file after the
    function, and keys its entries on signature and bytecode alone, so under the same name
    the twin and the threaded kernel would load each other's machine code.
    """
    source = kernel.py_func
    twin = FunctionType(source.__code__, source.__globals__, f"{source.__name__}_serial",
                        source.__defaults__, source.__closure__)
    twin.__qualname__ = twin.__name__
    twin.__doc__ = f"{source.__name__} compiled without threads (see serial_twin)."
    compiled = njit(inline="always", **options)(twin)
    with _TWINS_LOCK:
        _TWINS.setdefault(kernel, compiled)
    return compiled


def serial_version(kernel: Any) -> Any:
    """The serial twin of a threaded Numba kernel (made now if it has none yet); anything else itself."""
    with _TWINS_LOCK:
        twin = _TWINS.get(kernel)
    if twin is not None:
        return twin
    options = getattr(kernel, "targetoptions", {})
    # a parallel kernel's option is a dict of features (which Numba empties once it has compiled)
    if options.get("parallel") in (None, False):
        return kernel
    kept = {name: value for name, value in options.items() if name not in ("parallel", "nopython")}
    return serial_twin(kernel, cache=True, **kept)


def note_threads_started() -> None:
    """Record that this process runs threaded kernels (its forked children then must not)."""
    _STATE.threads_started = True


def serial_only() -> bool:
    """Whether this process must run every kernel without threads (a fork of a process that had threads)."""
    return _STATE.serial_only


def _after_fork_in_child() -> None:
    _STATE.serial_only = _STATE.serial_only or _STATE.threads_started


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)

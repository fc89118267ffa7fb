"""Numba's threading layer, and a lock around the cpu kernels on the one layer that needs it.

Numba runs ``prange`` loops on a *threading layer* that it picks once per process, the
first time a parallel kernel runs or anything asks for it (``numba.get_num_threads()``):

* ``NUMBA_THREADING_LAYER`` (read into ``numba.config.THREADING_LAYER``) names a layer,
  ``'tbb'``, ``'omp'`` or ``'workqueue'``, or a property it must have: ``'threadsafe'``
  (tbb or omp), ``'safe'`` (tbb), ``'forksafe'``;
* left at ``'default'``, Numba takes the first layer that loads, in the order of
  ``NUMBA_THREADING_LAYER_PRIORITY`` (tbb, omp, workqueue): a machine with neither TBB nor
  OpenMP gets ``workqueue``;
* ``numba.threading_layer()`` names the layer picked.

With tbb or omp, several Python threads may launch parallel kernels at once. ``workqueue``
is not thread-safe: a launch while another thread's kernel runs aborts the process
("Concurrent access has been detected"). On it the cpu backend runs each primitive under
one lock, so threads' kernels take turns (each still spread over every core).
"""

from __future__ import annotations

import functools
import inspect
import threading
import warnings
from typing import Any, Callable

import numba

from .cpu import CpuBackend
from .cpu_thread_governor import GOVERNOR


def set_num_threads(count: int) -> None:
    """Run the cpu kernels of the calling thread on ``count`` threads (``torch.set_num_threads``).

    Numba starts its pool once, with ``NUMBA_NUM_THREADS`` threads (the core count by default),
    and can use fewer but not more: a larger ``count`` uses the whole pool, with a warning. The
    setting is the calling thread's, as Numba keeps it (PyTorch's is the process's)."""
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise RuntimeError(f"set_num_threads expects a positive integer, got {count!r}")
    pool = numba.config.NUMBA_NUM_THREADS
    if count > pool:
        warnings.warn(f"set_num_threads({count}): Numba's pool has {pool} threads (NUMBA_NUM_THREADS); using {pool}",
                      stacklevel=2)
        count = pool
    GOVERNOR.reset(count)


def get_num_threads() -> int:
    """How many threads the calling thread's cpu kernels run on: the count set last (while other
    programs hold the cores, the thread governor runs them on fewer for a while; see
    :mod:`.cpu_thread_governor`)."""
    return GOVERNOR.wanted()


#: the layers that several Python threads may enter at once
THREADSAFE_LAYERS = ("tbb", "omp")


def threading_layer() -> str:
    """The layer Numba runs ``prange`` loops on in this process (picked now if not yet)."""
    numba.get_num_threads()  # makes Numba pick its layer and start the layer's threads
    return numba.threading_layer()


#: the methods of :class:`CpuBackend` that run no kernel, so need no lock
LOCK_FREE = frozenset({"empty", "conv2d_pays"})


class SerialisedCpuBackend(CpuBackend):
    """:class:`CpuBackend` with each primitive run under one process-wide lock.

    Every public method of :class:`CpuBackend` but :data:`LOCK_FREE` is wrapped, by
    :func:`_serialise` below: a primitive added to the cpu backend is locked here without
    anyone having to remember it (twice a new one was missed while the wrappers were written
    out by hand).
    """

    # re-entrant: a float16 op calls the same primitive again in float32
    _launch_lock = threading.RLock()


def _locked(method: Callable[..., Any]) -> Callable[..., Any]:
    """``method`` run under :attr:`SerialisedCpuBackend._launch_lock`."""

    @functools.wraps(method)
    def run(self: SerialisedCpuBackend, *args: Any, **kwargs: Any) -> Any:
        with self._launch_lock:
            return method(self, *args, **kwargs)

    return run


def _serialise() -> None:
    for name, method in inspect.getmembers(CpuBackend, inspect.isfunction):
        if not name.startswith("_") and name not in LOCK_FREE:
            setattr(SerialisedCpuBackend, name, _locked(method))


_serialise()


def cpu_backend() -> CpuBackend:
    """The cpu backend for this process: serialised where Numba's layer is not thread-safe."""
    return CpuBackend() if threading_layer() in THREADSAFE_LAYERS else SerialisedCpuBackend()

"""Choosing the backend that computes for a device.

Device ``'cpu'`` runs the Numba backend by default. The pure-Python ``simple`` backend
(the teaching reference) is selected for a block of code with::

    with minitorch.backends.use("simple"):
        ...

or for the whole process with ``minitorch.backends.set_cpu_backend("simple")`` or the
environment variable ``MINITORCH_CPU_BACKEND=simple``. Storage is a NumPy array in both,
so tensors move freely between them.

A ``use`` block belongs to the thread that enters it: other threads keep computing on
their own choice. ``set_cpu_backend`` sets the process-wide default, which every thread
outside a ``use`` block follows (a new thread starts there too).
"""

from __future__ import annotations

import contextlib
import os
import threading
from typing import Iterator, Optional

from . import vector_width

# before any kernel is declared: Numba makes its target machine with the first one
vector_width.prefer_full_vector_width()

from . import cudnn, mps  # noqa: E402 - the vector width must be chosen first; torch.backends.cudnn, .mps
from .base import ARG_REDUCE_OPS, BINARY_OPS, REDUCE_OPS, UNARY_OPS, Backend  # noqa: E402

CPU_BACKENDS = ("cpu", "simple")
_loaded: dict[str, Backend] = {}
_load_lock = threading.RLock()
_default_cpu = os.environ.get("MINITORCH_CPU_BACKEND", "cpu")


class _ThreadChoice(threading.local):
    """The cpu backend a ``use`` block chose in this thread (None outside any: the default)."""

    cpu: Optional[str] = None


_thread_choice = _ThreadChoice()
#: ``use`` blocks open now, in all threads: while there are none (the usual case) an op
#: reads the default without looking up its thread
_open_use_blocks = 0
_use_count_lock = threading.Lock()


def _load(name: str) -> Backend:
    """Import a backend on first use, so ``import minitorch`` does not pay for Numba.

    Under a lock: two threads making their first op at once get one backend object.
    """
    with _load_lock:
        if name not in _loaded:
            if name == "simple":
                from .simple import SimpleBackend

                _loaded[name] = SimpleBackend()
            elif name == "cpu":
                from .cpu_threads import cpu_backend

                _loaded[name] = cpu_backend()
            elif name == "meta":
                from .meta import MetaBackend

                _loaded[name] = MetaBackend()
            elif name == "cuda":
                # imported here, so ``import minitorch`` and the cpu path never load numba.cuda
                from .cuda import CudaBackend

                _loaded[name] = CudaBackend()
            else:
                raise ValueError(f"unknown backend {name!r}")
        return _loaded[name]


def _check_cpu_name(name: str) -> None:
    if name not in CPU_BACKENDS:
        raise ValueError(f"unknown cpu backend {name!r}; choose one of {CPU_BACKENDS}")


def set_cpu_backend(name: str) -> None:
    """Use ``name`` (``'cpu'`` for Numba, ``'simple'`` for pure Python) for device ``'cpu'``.

    The process-wide default: every thread follows it except inside its own ``use`` blocks.
    """
    global _default_cpu
    _check_cpu_name(name)
    _default_cpu = name


def get_cpu_backend_name() -> str:
    """The cpu backend this thread computes with now."""
    return (_thread_choice.cpu or _default_cpu) if _open_use_blocks else _default_cpu


@contextlib.contextmanager
def use(name: str) -> Iterator[None]:
    """Run the block with device ``'cpu'`` computed by backend ``name``, in this thread only."""
    global _open_use_blocks
    _check_cpu_name(name)
    previous = _thread_choice.cpu
    with _use_count_lock:
        _open_use_blocks += 1  # counted before the choice is set, uncounted after it is reset
    _thread_choice.cpu = name
    try:
        yield
    finally:
        _thread_choice.cpu = previous
        with _use_count_lock:
            _open_use_blocks -= 1


def backend_for(device_type: str) -> Backend:
    """The backend that computes for tensors on ``device_type`` (in this thread)."""
    if device_type == "cpu":
        name = (_thread_choice.cpu or _default_cpu) if _open_use_blocks else _default_cpu
    else:
        name = device_type
    backend = _loaded.get(name)
    return backend if backend is not None else _load(name)


__all__ = [
    "ARG_REDUCE_OPS", "BINARY_OPS", "REDUCE_OPS", "UNARY_OPS", "Backend",
    "backend_for", "get_cpu_backend_name", "set_cpu_backend", "use",
]

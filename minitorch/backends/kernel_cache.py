"""Numba's on-disk cache for kernels that compile the op table of :mod:`.opcodes` in.

Numba keys a cached kernel on its own source file only: had ``opcodes.py`` changed (an
op added, a scalar body fixed), a kernel file that did not change would go on loading the
old machine code from the cache. So the kernel files register here, before their first
``@njit(cache=True)``, and their cache entries are stamped with their own source *and* a
digest of what every kernel file compiles in from elsewhere: the scalar bodies
(``opcodes.py`` and ``vector_math.py``) and the shared kernel helpers (``cpu_kernels.py``,
whose runs, index helpers and constants the matmul, convolution, pooling and optimizer
kernels inline, ``op_branches.py``, which builds the one-op branches, and
``fused_multiply_add.py``, the fused multiply-add of the optimizers and of ``mul_add``). A change to any
of them compiles them all afresh: an edit of a helper in ``cpu_kernels.py`` (a student's
fix in task 3.1) reaches the convolution kernels too.

It works through Numba's cache locators (``numba.core.caching``), the classes that decide
where a function's cache lives and which stamp makes it stale: ours come first in Numba's
list and take only the registered files.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

from numba.core import caching

from . import opcodes, vector_math

#: source files whose kernels compile the op table in (absolute paths)
_KERNEL_FILES: set[str] = set()


def source_digest(path: str | os.PathLike[str]) -> str:
    """SHA-256 of a source file's bytes."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


#: the digest of the op table the kernels compiled in this process depend on
OPCODES_DIGEST = source_digest(opcodes.__file__)
#: the digest of every file of scalar bodies the kernels compile in: the op table and the
#: vectorised float32 functions
SCALAR_BODIES_DIGEST = OPCODES_DIGEST + ":" + source_digest(vector_math.__file__)
#: the files of shared kernel helpers that kernels in other files compile in (read as files:
#: ``cpu_kernels`` imports this module); ``fused_multiply_add`` is the optimizers' and ``mul_add``'s FMA
SHARED_HELPER_FILES = ("cpu_kernels.py", "op_branches.py", "fused_multiply_add.py")


def dependencies_digest(folder: Path, scalar_bodies_digest: str) -> str:
    """The digest of all a kernel file compiles in besides itself: the scalar bodies' digest and
    the shared helper files in ``folder``."""
    return ":".join([scalar_bodies_digest, *(source_digest(folder / name) for name in SHARED_HELPER_FILES)])


#: the dependencies' digest of the kernels compiled in this process
DEPENDENCIES_DIGEST = dependencies_digest(Path(__file__).parent, SCALAR_BODIES_DIGEST)


def stamp(own_stamp: Any, digest: str = DEPENDENCIES_DIGEST) -> tuple[Any, str]:
    """The cache stamp of a kernel file: Numba's own stamp of it, and its dependencies' ``digest``."""
    return (own_stamp, digest)


class _StampedWithDependencies:
    """Mixin for a Numba cache locator: only for registered files, stamped with their dependencies."""

    @classmethod
    def from_function(cls, py_func: Any, py_file: str) -> Any:
        if os.path.abspath(py_file) not in _KERNEL_FILES:
            return None
        return super().from_function(py_func, py_file)  # type: ignore[misc]

    def get_source_stamp(self) -> tuple[Any, str]:
        return stamp(super().get_source_stamp())  # type: ignore[misc]


_LOCATORS = [
    type(f"DependenciesStamped{base.__name__}", (_StampedWithDependencies, base), {})
    for base in (caching.UserProvidedCacheLocator, caching.InTreeCacheLocator, caching.UserWideCacheLocator)
]
if not any(issubclass(cls, _StampedWithDependencies) for cls in caching.CacheImpl._locator_classes):
    caching.CacheImpl._locator_classes[:0] = _LOCATORS


def register(py_file: str) -> None:
    """Stamp the cached kernels of ``py_file`` with its dependencies (call before its first ``@njit``)."""
    _KERNEL_FILES.add(os.path.abspath(py_file))

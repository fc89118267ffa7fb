"""A private copy of the CPU kernels' Numba cache, for a child process that must not share one.

A child that runs with the shared ``NUMBA_CACHE_DIR`` can write into it while other test runs
(the compat corpus, the notebooks) do, and its cache hits depend on what they wrote; a copy
taken at one moment makes the child's cache its own.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path


def kernel_cache_copy(tmp_path: Path) -> Path:
    """A new ``NUMBA_CACHE_DIR`` holding a copy of this process's compiled cpu kernels.

    Fresh, so the child never writes into the shared cache; seeded, because compiling the
    kernels the child runs takes tens of seconds. The copy goes where Numba will look for
    the kernels under the new directory (its cache locator names that subdirectory).
    """
    from numba.core.caching import _CacheLocator

    from minitorch.backends import cpu_kernels

    cache = tmp_path / "numba-cache"
    subpath = _CacheLocator.get_suitable_cache_subpath(cpu_kernels.__file__)
    parent_cache = os.environ.get("NUMBA_CACHE_DIR")
    source = Path(parent_cache) / subpath if parent_cache else Path(cpu_kernels.__file__).parent / "__pycache__"
    target = cache / subpath
    target.mkdir(parents=True)
    if source.is_dir():
        for entry in source.iterdir():
            if entry.suffix in (".nbi", ".nbc"):
                shutil.copy2(entry, target / entry.name)
    return cache

"""A caching allocator for the cpu backend: the memory of large storages that Python frees is kept for reuse.

A fresh large NumPy array costs more than its ``malloc``: glibc serves big requests with
``mmap`` and hands big freed ones back to the system (``munmap``, or trimming the top of its
heap), so each page of the next array is a page fault, and a zeroed page from the kernel, the
first time a kernel writes it. A training step makes and drops the same temporaries every
step, so it pays that again and again: an LSTM over 50 steps of a (32, 128) state faulted
3,569 pages per forward and backward (14 MiB), and each step's gate kernel took 97 us instead
of the 43 us it takes on memory already mapped (2-core x86 server, float32).

This cache keeps the memory of a freed storage of at least :data:`MIN_BYTES` in a free list
of its size (rounded up to a page) and hands it out for the next storage of that size, as the
cuda backend's allocator (:mod:`.cuda_memory`) does for device blocks. A storage from the
cache is a NumPy array whose ``base`` is a :class:`_Lease` of the block: views and the arrays
that ``Tensor.numpy()`` returns keep it alive, and when the last of them goes, the lease's
``__del__`` puts the block back. Smaller storages come from ``np.empty``: ``malloc`` reuses
them without faults, and a storage through the cache costs 2.6 us of Python where ``np.empty``
takes 0.2 us, a few page faults' worth (a 256 KiB storage is 64 pages). The cache holds at most
:data:`LIMIT_BYTES` of free blocks; a block that would pass it empties the cache first (a
loop's sizes fill it again in one step, and sizes no longer used go). ``MINITORCH_NO_CPU_MEMORY_CACHING=1``
turns it off (every storage from ``np.empty``).
"""

from __future__ import annotations

import os
import threading
from typing import Optional

import numpy as np

#: storages of fewer bytes come from ``np.empty`` (glibc's default ``mmap`` threshold is 128 KiB)
MIN_BYTES = 1 << 18
#: block sizes are rounded up to a multiple of this (a page)
PAGE_BYTES = 4096
#: the most bytes of free blocks the cache keeps (256 MiB: a storage larger than that goes back to
#: the system when freed, as a user who deletes a big tensor expects)
LIMIT_BYTES = 1 << 28
#: set to 1 to take every storage from ``np.empty`` (no caching)
OPT_OUT_VARIABLE = "MINITORCH_NO_CPU_MEMORY_CACHING"


def block_size(nbytes: int) -> int:
    """``nbytes`` rounded up to a whole number of pages."""
    return -(-nbytes // PAGE_BYTES) * PAGE_BYTES


class _Lease:
    """The owner of one cached block while a storage uses it: the storage array's ``base``.
    NumPy reads :attr:`__array_interface__` once, when it makes the array over the block."""

    __slots__ = ("block", "address", "cache", "__array_interface__")

    def __init__(self, block: np.ndarray, address: int, cache: "BlockCache", size: int, dtype: np.dtype) -> None:
        self.block, self.address, self.cache = block, address, cache
        self.__array_interface__ = {"data": (address, False), "shape": (size,), "typestr": dtype.str, "version": 3}

    def __del__(self) -> None:
        self.cache.give_back(self.block, self.address)


class BlockCache:
    """Free blocks (uint8 arrays with their addresses) by size, at most ``limit`` bytes of them."""

    def __init__(self, limit: int = LIMIT_BYTES) -> None:
        self.limit = limit
        self._free: dict[int, list[tuple[np.ndarray, int]]] = {}
        self._free_bytes = 0
        # reentrant: a lease's ``__del__`` may run, by garbage collection, inside ``storage``
        self._lock = threading.RLock()
        #: storages served from a free block, and from new memory (for the tests and the curious)
        self.hits = self.misses = 0

    @property
    def free_bytes(self) -> int:
        """The bytes of the free blocks held now."""
        return self._free_bytes

    def storage(self, size: int, dtype: np.dtype) -> np.ndarray:
        """A 1-D array of ``size`` elements of ``dtype`` (uninitialised) over a free block of its size, or a new one."""
        nbytes = block_size(size * dtype.itemsize)
        with self._lock:
            blocks = self._free.get(nbytes)
            if blocks:
                block, address = blocks.pop()
                self._free_bytes -= nbytes
                self.hits += 1
            else:
                block, address = None, 0
                self.misses += 1
        if block is None:
            block = np.empty(nbytes, np.uint8)
            address = block.__array_interface__["data"][0]
        array = np.asarray(_Lease(block, address, self, size, dtype))
        # the interface's type string names bfloat16 only as two bytes ("<V2"): read them as it
        return array if array.dtype == dtype else array.view(dtype)

    def give_back(self, block: np.ndarray, address: int) -> None:
        """Keep ``block`` for the next storage of its size (emptying the cache first if it would pass the limit)."""
        nbytes = block.size
        if nbytes > self.limit:
            return
        with self._lock:
            if self._free_bytes + nbytes > self.limit:
                self.empty_cache()  # the lock is reentrant
            self._free.setdefault(nbytes, []).append((block, address))
            self._free_bytes += nbytes

    def empty_cache(self) -> None:
        """Drop every free block (their memory goes back to ``malloc``)."""
        with self._lock:
            self._free.clear()
            self._free_bytes = 0

    def after_fork(self) -> None:
        """In a forked child: a new lock (another thread may have held the parent's at the fork)."""
        self._lock = threading.RLock()


def _make_cache() -> Optional[BlockCache]:
    if os.environ.get(OPT_OUT_VARIABLE, "") == "1":
        return None
    cache = BlockCache()
    if hasattr(os, "register_at_fork"):
        os.register_at_fork(after_in_child=cache.after_fork)
    return cache


#: the process's cache (None when ``MINITORCH_NO_CPU_MEMORY_CACHING=1``)
CACHE = _make_cache()


def empty(size: int, dtype: np.dtype) -> np.ndarray:
    """Uninitialised 1-D storage of ``size`` elements of ``dtype``: from the cache when it is large enough."""
    if CACHE is None or size * dtype.itemsize < MIN_BYTES:
        return np.empty(size, dtype)
    return CACHE.storage(size, dtype)


def empty_cache() -> None:
    """Drop the free blocks the cache holds (nothing to do when it is off)."""
    if CACHE is not None:
        CACHE.empty_cache()

"""A caching allocator for the cuda backend: device blocks that Python frees are kept for reuse.

Numba's own memory manager asks the driver for every new array (``cuMemAlloc``) and hands
freed ones back in batches (``cuMemFree``, every ten frees), and ``cuMemFree`` waits for the
GPU to finish everything queued. A training step makes and drops hundreds of temporaries, so
the host stalls on the GPU again and again and pays the driver's allocation each time. (On an
H200, ``a + b`` of 2^22 float32 took 250 us where its 50 MB move in about 12 us.)

This manager keeps a freed block in a free list of its size, rounded up to
:data:`BLOCK_BYTES`, and hands it out again for the next array of that size, as PyTorch's
caching allocator does. Reuse is safe because minitorch launches every kernel and copy on one
stream, the default one: work queued after a block is handed out again runs after all the
work that used it before. When the driver runs out of memory, the cached blocks are given
back and the allocation is tried again.

:func:`install` makes Numba use it for the contexts it creates from then on (the backend
calls it before its first device array); ``MINITORCH_NO_CUDA_MEMORY_CACHING=1`` keeps Numba's
own manager (as ``PYTORCH_NO_CUDA_MEMORY_CACHING`` does PyTorch's). The simulator has no
memory manager: the backend does not load this module there.
"""

from __future__ import annotations

import functools
import os
import weakref
from typing import Any, Callable, Optional

from numba import cuda

#: sizes are rounded up to a multiple of this, so arrays of nearly equal size share blocks
BLOCK_BYTES = 512
#: set to 1 to keep Numba's own memory manager (no caching)
OPT_OUT_VARIABLE = "MINITORCH_NO_CUDA_MEMORY_CACHING"


def driver() -> Any:
    """Numba's CUDA driver (``cuMemAlloc``, ``cuMemFree``): the tests put a fake in its place."""
    from numba.cuda.cudadrv.driver import driver as numba_driver

    return numba_driver


def block_size(size: int) -> int:
    """``size`` in bytes rounded up to a whole number of :data:`BLOCK_BYTES` (at least one)."""
    return max(1, -(-size // BLOCK_BYTES)) * BLOCK_BYTES


@functools.cache
def manager_class() -> type:
    """:class:`CachingMemoryManager`, defined on first use: it derives from Numba's memory manager
    of the real driver, which Numba's simulator does not have (this module must import there too)."""
    from numba.cuda.cudadrv.driver import AutoFreePointer, NumbaCUDAMemoryManager

    class CachingMemoryManager(NumbaCUDAMemoryManager):
        """Numba's memory manager, with freed blocks kept in free lists by size for reuse."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            #: free blocks (driver pointers) by block size
            self.free_blocks: dict[int, list[Any]] = {}
            #: bytes in blocks that arrays hold now
            self.allocated_bytes = 0
            #: bytes in free blocks kept for reuse
            self.cached_bytes = 0
            #: bumped by :meth:`reset`: a block freed after it belongs to a context that is gone
            self._generation = 0

        def memalloc(self, size: int) -> Any:
            """A device block of at least ``size`` bytes: a cached one of that size, else a new one."""
            block = block_size(size)
            free = self.free_blocks.get(block)
            if free:
                pointer = free.pop()
                self.cached_bytes -= block
            else:
                pointer = self._new_block(block)
            self.allocated_bytes += block
            memory = AutoFreePointer(weakref.proxy(self.context), pointer, size, finalizer=self._keeper(pointer, block))
            self.allocations[pointer] = memory
            return memory.own()

        def _new_block(self, block: int) -> Any:
            """A block from the driver; on failure, once more after the cache is given back."""

            def allocate() -> Any:
                return driver().cuMemAlloc(block)

            try:
                return self._attempt_allocation(allocate)  # retries after Numba's pending frees
            except Exception:
                if not self.cached_bytes:
                    raise
                self.empty_cache()
                return self._attempt_allocation(allocate)

        def _keeper(self, pointer: Any, block: int) -> Callable[[], None]:
            """What runs when the last array on ``pointer`` is freed: the block goes to its free list."""
            generation = self._generation

            def keep() -> None:
                self.allocations.pop(pointer, None)
                if generation != self._generation:  # the context was reset: the block is gone with it
                    return
                self.allocated_bytes -= block
                self.free_blocks.setdefault(block, []).append(pointer)
                self.cached_bytes += block

            return keep

        def empty_cache(self) -> None:
            """Give every cached block back to the driver (after the GPU finishes what is queued)."""
            if not self.cached_bytes:
                return
            self.context.synchronize()
            for blocks in self.free_blocks.values():
                for pointer in blocks:
                    driver().cuMemFree(pointer)
            self.free_blocks.clear()
            self.cached_bytes = 0

        def reset(self) -> None:
            """The context is being reset: its blocks, cached or held, are gone."""
            self._generation += 1
            self.free_blocks.clear()
            self.cached_bytes = 0
            self.allocated_bytes = 0
            super().reset()

    return CachingMemoryManager


def install() -> bool:
    """Make Numba create its contexts with :class:`CachingMemoryManager`; False when it does not
    (with the opt-out variable set, or another manager chosen through ``NUMBA_CUDA_MEMORY_MANAGER``).
    A context that already exists keeps its manager."""
    from numba.cuda.core import config

    if os.environ.get(OPT_OUT_VARIABLE, "0") not in ("", "0"):
        return False
    if config.CUDA_MEMORY_MANAGER != "default":
        return False
    cuda.set_memory_manager(manager_class())
    return True


def current_manager() -> Optional[Any]:
    """The caching manager of the current context, or None where the context has another."""
    manager = cuda.current_context().memory_manager
    return manager if isinstance(manager, manager_class()) else None

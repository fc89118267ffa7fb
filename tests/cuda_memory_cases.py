"""Cases of the caching allocator, run by ``test_cuda_memory.py`` in a child pytest with Numba's
simulator off (the allocator plugs into Numba's real CUDA driver layer, which the simulator
replaces). The driver is a fake that hands out numbered blocks and counts calls: no GPU needed.
"""

from __future__ import annotations

import gc
from typing import Any, Iterator

import pytest
from numba.cuda.cudadrv import driver as numba_driver
from numba.cuda.cudadrv.driver import CudaAPIError, binding

from minitorch.backends import cuda_memory
from minitorch.backends.cuda_memory import BLOCK_BYTES, block_size

CachingMemoryManager = cuda_memory.manager_class()

OUT_OF_MEMORY = binding.CUresult.CUDA_ERROR_OUT_OF_MEMORY


class FakeDriver:
    """``cuMemAlloc``/``cuMemFree`` over ``capacity`` bytes; blocks are ints, never reused by it."""

    def __init__(self, capacity: int) -> None:
        self.capacity, self.used, self.next_pointer = capacity, 0, 1 << 20
        self.sizes: dict[int, int] = {}
        self.allocations = 0
        self.freed: list[int] = []
        self.events: list[str] = []

    def cuMemAlloc(self, size: int) -> int:  # noqa: N802 - the driver's name
        if self.used + size > self.capacity:
            raise CudaAPIError(OUT_OF_MEMORY, "out of memory")
        pointer, self.next_pointer = self.next_pointer, self.next_pointer + size
        self.sizes[pointer] = size
        self.used += size
        self.allocations += 1
        return pointer

    def cuMemFree(self, pointer: int) -> None:  # noqa: N802
        self.used -= self.sizes.pop(pointer)  # KeyError: a block freed twice, or never handed out
        self.freed.append(pointer)
        self.events.append("free")


class FakeContext:
    def __init__(self, fake: FakeDriver) -> None:
        self.fake = fake

    def synchronize(self) -> None:
        self.fake.events.append("synchronize")


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> FakeDriver:
    fake = FakeDriver(capacity=1 << 16)
    monkeypatch.setattr(cuda_memory, "driver", lambda: fake)
    return fake


@pytest.fixture
def manager(fake: FakeDriver) -> Iterator[Any]:
    context = FakeContext(fake)
    yield CachingMemoryManager(context=context)
    del context


def address(owned: Any) -> int:
    return int(owned.device_ctypes_pointer.value)


def test_block_sizes_round_up_to_whole_blocks() -> None:
    assert [block_size(n) for n in (0, 1, BLOCK_BYTES, BLOCK_BYTES + 1, 3 * BLOCK_BYTES)] == [
        BLOCK_BYTES, BLOCK_BYTES, BLOCK_BYTES, 2 * BLOCK_BYTES, 3 * BLOCK_BYTES,
    ]


def test_a_freed_block_is_handed_out_again_for_the_same_size(manager: Any, fake: FakeDriver) -> None:
    first = manager.memalloc(1000)
    where = address(first)
    assert (manager.allocated_bytes, manager.cached_bytes) == (1024, 0)
    del first
    gc.collect()
    assert (manager.allocated_bytes, manager.cached_bytes) == (0, 1024)
    again = manager.memalloc(600)  # rounds to the same 1024-byte block
    assert address(again) == where and fake.allocations == 1 and not fake.freed
    assert (manager.allocated_bytes, manager.cached_bytes) == (1024, 0)


def test_live_blocks_are_never_shared(manager: Any, fake: FakeDriver) -> None:
    held = [manager.memalloc(512) for _ in range(4)]
    assert len({address(h) for h in held}) == 4
    other = manager.memalloc(2048)
    assert address(other) not in {address(h) for h in held} and fake.allocations == 5
    assert manager.allocated_bytes == 4 * 512 + 2048


def test_a_view_keeps_its_block_from_reuse(manager: Any, fake: FakeDriver) -> None:
    owned = manager.memalloc(1024)
    view = owned.view(256)
    where = address(owned)
    del owned
    gc.collect()
    assert manager.cached_bytes == 0  # the view still reads the block
    other = manager.memalloc(1024)
    assert address(other) != where
    del view
    gc.collect()
    assert manager.cached_bytes == 1024
    assert address(manager.memalloc(1024)) == where
    del other


def test_empty_cache_waits_for_the_gpu_then_frees_only_the_cached_blocks(
    manager: Any, fake: FakeDriver
) -> None:
    kept = manager.memalloc(512)
    dropped = [manager.memalloc(n) for n in (512, 4096)]
    dropped_at = {address(d) for d in dropped}
    del dropped
    gc.collect()
    manager.empty_cache()
    assert fake.events == ["synchronize", "free", "free"]
    assert set(fake.freed) == dropped_at and address(kept) not in fake.freed
    assert (manager.allocated_bytes, manager.cached_bytes) == (512, 0)
    manager.empty_cache()  # nothing cached: no wait, no call
    assert fake.events == ["synchronize", "free", "free"]


def test_out_of_memory_gives_the_cache_back_and_tries_again(manager: Any, fake: FakeDriver) -> None:
    cached = [manager.memalloc(8192) for _ in range(6)]  # 48 KiB of the 64
    del cached
    gc.collect()
    big = manager.memalloc(40000)  # no room beside the cached 48 KiB: they are freed, then it fits
    assert len(fake.freed) == 6 and manager.cached_bytes == 0
    assert manager.allocated_bytes == block_size(40000)
    with pytest.raises(CudaAPIError) as error:
        manager.memalloc(40000)  # nothing cached to give back: the driver's error stands
    assert error.value.code == OUT_OF_MEMORY
    del big


def test_blocks_freed_after_a_reset_are_not_reused(manager: Any, fake: FakeDriver) -> None:
    old = manager.memalloc(512)
    manager.reset()
    del old
    gc.collect()
    assert manager.cached_bytes == 0 and manager.allocated_bytes == 0
    assert fake.allocations == 1
    manager.memalloc(512)
    assert fake.allocations == 2  # a new block, not the one of the context that was reset


@pytest.fixture
def numba_manager(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Numba's choice of manager, put back after the test."""
    monkeypatch.setattr(numba_driver, "_memory_manager", None)
    yield


@pytest.mark.usefixtures("numba_manager")
def test_install_makes_numba_use_it_unless_opted_out(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(cuda_memory.OPT_OUT_VARIABLE, "1")
    assert cuda_memory.install() is False and numba_driver._memory_manager is None
    monkeypatch.delenv(cuda_memory.OPT_OUT_VARIABLE)
    assert cuda_memory.install() is True and numba_driver._memory_manager is CachingMemoryManager


@pytest.mark.usefixtures("numba_manager")
def test_install_leaves_a_manager_the_user_chose(monkeypatch: pytest.MonkeyPatch) -> None:
    from numba.cuda.core import config

    monkeypatch.setattr(config, "CUDA_MEMORY_MANAGER", "rmm")
    assert cuda_memory.install() is False and numba_driver._memory_manager is None

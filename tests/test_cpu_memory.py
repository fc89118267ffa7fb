"""The cpu backend's caching allocator (:mod:`minitorch.backends.cpu_memory`): a freed large storage's
memory serves the next storage of its size, and never while anything still reads it.

The oracle is the memory itself: addresses (``__array_interface__``) tell reuse apart from new
memory, and values written through one array are read back through the arrays that must not
share it. Child processes check what one process cannot: the opt-out variable, a fork while
another thread holds the cache's lock, and a clean exit with storages alive.
"""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

import minitorch
from minitorch.backends import cpu_memory
from minitorch.backends.cpu_memory import MIN_BYTES, PAGE_BYTES, BlockCache, block_size

#: float32 elements that make a storage just large enough for the cache
LARGE = MIN_BYTES // 4


def address(array: np.ndarray) -> int:
    return array.__array_interface__["data"][0]


@pytest.fixture()
def cache() -> BlockCache:
    return BlockCache(limit=64 * MIN_BYTES)


def test_block_sizes_are_whole_pages() -> None:
    assert [block_size(n) for n in (1, PAGE_BYTES - 1, PAGE_BYTES, PAGE_BYTES + 1, 5 * PAGE_BYTES)] == [
        PAGE_BYTES, PAGE_BYTES, PAGE_BYTES, 2 * PAGE_BYTES, 5 * PAGE_BYTES]


def test_a_freed_storage_serves_the_next_of_its_size(cache: BlockCache) -> None:
    first = cache.storage(LARGE, np.dtype(np.float32))
    assert first.shape == (LARGE,) and first.dtype == np.float32 and first.flags.writeable and first.flags.c_contiguous
    where = address(first)
    del first
    assert cache.free_bytes == block_size(MIN_BYTES)
    again = cache.storage(LARGE, np.dtype(np.float32))
    assert address(again) == where
    assert (cache.hits, cache.misses, cache.free_bytes) == (1, 1, 0)


def test_sizes_within_one_page_share_blocks_and_dtypes_reinterpret_them(cache: BlockCache) -> None:
    first = cache.storage(LARGE + 3, np.dtype(np.float32))
    where = address(first)
    del first
    second = cache.storage((LARGE + 8) // 2, np.dtype(np.float64))  # the same page count, another dtype
    assert address(second) == where and second.dtype == np.float64 and second.shape == ((LARGE + 8) // 2,)
    second[:] = 1.5
    assert second.sum() == 1.5 * second.size


def test_another_size_gets_new_memory(cache: BlockCache) -> None:
    first = cache.storage(LARGE, np.dtype(np.float32))
    where = address(first)
    del first
    other = cache.storage(LARGE + PAGE_BYTES, np.dtype(np.float32))
    assert address(other) != where and cache.misses == 2 and cache.free_bytes == block_size(MIN_BYTES)


@pytest.mark.parametrize("keep", ["slice", "reshape", "view_dtype", "view_of_view"])
def test_a_view_keeps_the_block_from_the_next_storage(cache: BlockCache, keep: str) -> None:
    storage = cache.storage(LARGE, np.dtype(np.float32))
    storage[:] = np.arange(LARGE, dtype=np.float32)
    kept = {"slice": lambda s: s[7:],
            "reshape": lambda s: s.reshape(-1, 4),
            "view_dtype": lambda s: s.view(np.int32),
            "view_of_view": lambda s: s[1:][2:][::3]}[keep](storage)
    expected = kept.copy()
    del storage
    gc.collect()
    assert cache.free_bytes == 0  # still in use
    newcomer = cache.storage(LARGE, np.dtype(np.float32))
    newcomer[:] = -1.0
    np.testing.assert_array_equal(kept, expected)
    del kept
    gc.collect()
    assert cache.free_bytes == block_size(MIN_BYTES)


@pytest.fixture()
def process_cache(monkeypatch: pytest.MonkeyPatch) -> BlockCache:
    """A fresh cache as the process's, whatever ``MINITORCH_NO_CPU_MEMORY_CACHING`` says."""
    fresh = BlockCache()
    monkeypatch.setattr(cpu_memory, "CACHE", fresh)
    return fresh


def test_tensor_numpy_keeps_the_storage_alive(process_cache: BlockCache) -> None:
    """The array ``Tensor.numpy()`` returns outlives its tensor; a later op of the same size must not write into it."""
    a = minitorch.tensor(np.arange(LARGE, dtype=np.float32))
    result = a * 2
    array = result.numpy()
    del result
    gc.collect()
    for _ in range(3):
        other = a * 3  # the same size: it would take the block, were the block free
        assert address(other.numpy()) != address(array)
        del other
    np.testing.assert_array_equal(array, np.arange(LARGE, dtype=np.float32) * 2)


def test_ops_reuse_freed_memory_and_compute_the_same(process_cache: BlockCache) -> None:
    """A loop of large ops stops asking for new memory after its first pass, and its results stay NumPy's."""
    rng = np.random.default_rng(0)
    x_np, w_np = rng.standard_normal((256, 300)).astype(np.float32), rng.standard_normal((300, 300)).astype(np.float32)
    x, w = minitorch.tensor(x_np), minitorch.tensor(w_np, requires_grad=True)
    results = []
    for step in range(4):
        if step == 1:
            misses = process_cache.misses
        w.grad = None
        y = ((x @ w).tanh() * 2.0).sum()
        y.backward()
        results.append((y.item(), w.grad.numpy().copy()))
    assert process_cache.misses == misses  # steps 2 to 4 took only freed blocks
    expected_grad = x_np.T @ (2.0 * (1.0 - np.tanh(x_np @ w_np) ** 2))
    for value, grad in results:
        np.testing.assert_allclose(value, 2.0 * np.tanh(x_np.astype(np.float64) @ w_np).sum(), rtol=1e-4)
        np.testing.assert_allclose(grad, expected_grad, rtol=2e-3, atol=2e-3)


def test_small_storages_come_from_numpy(process_cache: BlockCache) -> None:
    small = cpu_memory.empty(LARGE - 1, np.dtype(np.float32))
    assert small.base is None and small.flags.owndata
    large = cpu_memory.empty(LARGE, np.dtype(np.float32))
    assert not large.flags.owndata and large.shape == (LARGE,) and process_cache.misses == 1


def test_the_limit_empties_the_cache_before_it_would_be_passed() -> None:
    cache = BlockCache(limit=3 * MIN_BYTES)
    small, medium, large = (cache.storage(LARGE + i * PAGE_BYTES // 4, np.dtype(np.float32)) for i in range(3))
    del small, medium  # MIN_BYTES and MIN_BYTES + a page: within the limit
    assert cache.free_bytes == 2 * MIN_BYTES + PAGE_BYTES
    del large  # MIN_BYTES + two pages would pass it: the cache is emptied first, then keeps this one
    assert cache.free_bytes == MIN_BYTES + 2 * PAGE_BYTES
    huge = cache.storage(4 * LARGE, np.dtype(np.float32))  # larger than the limit: never kept
    del huge
    assert cache.free_bytes == MIN_BYTES + 2 * PAGE_BYTES


def test_empty_cache_drops_the_free_blocks(cache: BlockCache) -> None:
    storage = cache.storage(LARGE, np.dtype(np.float32))
    del storage
    assert cache.free_bytes > 0
    cache.empty_cache()
    assert cache.free_bytes == 0
    assert cache.storage(LARGE, np.dtype(np.float32)).shape == (LARGE,) and cache.misses == 2


def test_threads_never_share_a_block(cache: BlockCache) -> None:
    """Threads that take and drop storages of one size at once: each fills its own and reads back only its value."""
    errors: list[str] = []

    def work(value: float) -> None:
        for _ in range(200):
            storage = cache.storage(LARGE, np.dtype(np.float32))
            storage[:] = value
            if not (storage == value).all():
                errors.append(f"thread {value}: another thread wrote into its storage")
            del storage

    threads = [threading.Thread(target=work, args=(float(i),)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert cache.free_bytes <= 4 * block_size(MIN_BYTES)


def run_child(code: str, env: dict[str, str] | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, **(env or {})})


def test_the_opt_out_variable_takes_every_storage_from_numpy() -> None:
    child = run_child(f"""
        import numpy as np
        from minitorch.backends import cpu_memory
        assert cpu_memory.CACHE is None
        storage = cpu_memory.empty({LARGE * 4}, np.dtype(np.float32))
        assert storage.flags.owndata
        print("ok")
    """, env={cpu_memory.OPT_OUT_VARIABLE: "1"})
    assert child.returncode == 0 and child.stdout.strip() == "ok", child.stderr


@pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork is POSIX only")
def test_a_fork_while_another_thread_holds_the_lock_leaves_the_child_a_working_cache() -> None:
    child = run_child(f"""
        import os, threading, time
        import numpy as np
        from minitorch.backends import cpu_memory
        held, release = threading.Event(), threading.Event()
        def hold():
            with cpu_memory.CACHE._lock:
                held.set()
                release.wait()
        thread = threading.Thread(target=hold)
        thread.start()
        held.wait()
        pid = os.fork()
        if pid == 0:
            storage = cpu_memory.empty({LARGE}, np.dtype(np.float32))
            storage[:] = 1
            os._exit(0 if storage.sum() == {LARGE} else 3)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            time.sleep(0.05)
        else:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
            status = -1
        release.set()
        thread.join()
        print("exit", status)
    """, env={cpu_memory.OPT_OUT_VARIABLE: "0"})
    assert child.returncode == 0 and child.stdout.strip() == "exit 0", (child.stdout, child.stderr)


def test_exit_with_large_storages_alive_is_silent() -> None:
    """Leases that die at interpreter shutdown give their blocks back without an error on stderr."""
    child = run_child(f"""
        import numpy as np
        import minitorch
        kept = [minitorch.tensor(np.ones({LARGE}, np.float32)) * i for i in range(5)]
        views = [t.numpy()[3:] for t in kept]
        cycle = [views]
        cycle.append(cycle)
        print(float(kept[4].sum()))
    """)
    assert child.returncode == 0 and child.stdout.strip() == str(4.0 * LARGE), child.stderr
    assert child.stderr == ""

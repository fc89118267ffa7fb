"""Task 9.5: the ring all-reduce's schedule, run on ranks simulated by threads in one process.

Each simulated rank is a thread that runs ``ring_all_reduce_chunks`` on its own tensor; its
``exchange`` puts a copy of the outgoing chunk in the right neighbour's mailbox and takes
the next message from its own. That is all MPI does for the real thing (the MPI version is
tested on real ranks in ``test_distributed_ranks.py``), so these tests need no MPI.
"""

from __future__ import annotations

import queue
import threading
from typing import Callable

import numpy as np
import pytest

import minitorch
from minitorch.distributed.ring import chunk_bounds, ring_all_reduce_chunks

pytestmark = pytest.mark.task("9.5")

#: seconds a simulated rank waits for its left neighbour before the test gives up
MAILBOX_WAIT = 20.0


class ThreadRing:
    """``ranks`` mailboxes and a log of every message sent, as (sender, number of elements)."""

    def __init__(self, ranks: int) -> None:
        self.ranks = ranks
        self.mailboxes: list[queue.Queue] = [queue.Queue() for _ in range(ranks)]
        self.sent: list[tuple[int, int]] = []
        self.lock = threading.Lock()

    def exchange_for(self, rank: int) -> Callable[[minitorch.Tensor, minitorch.Tensor], None]:
        def exchange(outgoing: minitorch.Tensor, incoming: minitorch.Tensor) -> None:
            with self.lock:
                self.sent.append((rank, outgoing.numel()))
            self.mailboxes[(rank + 1) % self.ranks].put(outgoing.numpy().copy())
            message = self.mailboxes[rank].get(timeout=MAILBOX_WAIT)
            assert message.size == incoming.numel(), (
                f"rank {rank} received {message.size} elements into a chunk of {incoming.numel()}")
            incoming.copy_(minitorch.tensor(message, dtype=incoming.dtype))

        return exchange


def run_ring(values: np.ndarray) -> tuple[list[np.ndarray], ThreadRing]:
    """Every row of ``values`` is one rank's tensor; the tensors after the all-reduce."""
    ranks = values.shape[0]
    ring = ThreadRing(ranks)
    tensors = [minitorch.tensor(row.copy(), dtype=minitorch.float64) for row in values]
    errors: list[BaseException] = []

    def rank_main(rank: int) -> None:
        try:
            ring_all_reduce_chunks(tensors[rank], rank, ranks, ring.exchange_for(rank))
        except BaseException as error:  # handed to the test's thread below
            errors.append(error)

    threads = [threading.Thread(target=rank_main, args=(rank,)) for rank in range(ranks)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]
    return [t.numpy() for t in tensors], ring


@pytest.mark.parametrize("ranks, numel", [(2, 8), (3, 7), (4, 10), (5, 23), (4, 3)])
def test_every_rank_ends_with_the_sum(ranks: int, numel: int) -> None:
    """Sizes that the ring does not divide, and fewer elements than ranks (empty chunks)."""
    values = np.random.default_rng(ranks * 100 + numel).normal(size=(ranks, numel))
    results, _ = run_ring(values)
    for rank, result in enumerate(results):
        np.testing.assert_allclose(result, values.sum(axis=0), rtol=1e-12, err_msg=f"rank {rank}")


@pytest.mark.parametrize("ranks", [2, 3, 5])
def test_each_rank_sends_2_p_minus_1_chunks(ranks: int) -> None:
    r"""The ring's cost: each rank sends $2(p-1)$ messages of about $n/p$ elements, not the
    whole tensor, so what a rank sends is $2\frac{p-1}{p}n$ elements in all."""
    numel = 6 * ranks + 1
    values = np.arange(ranks * numel, dtype=np.float64).reshape(ranks, numel)
    _, ring = run_ring(values)
    largest_chunk = max(end - start for start, end in chunk_bounds(numel, ranks))
    for rank in range(ranks):
        sizes = [size for sender, size in ring.sent if sender == rank]
        assert len(sizes) == 2 * (ranks - 1)
        assert max(sizes) == largest_chunk
        assert sum(sizes) <= 2 * (ranks - 1) * largest_chunk


def test_integer_sums_are_exact() -> None:
    """With small integers every order of additions gives the same sum: equal, not close."""
    values = np.arange(3 * 11, dtype=np.float64).reshape(3, 11) - 7
    results, _ = run_ring(values)
    for result in results:
        assert result.tolist() == values.sum(axis=0).tolist()

r"""Ring all-reduce on ``isend``/``irecv``: how a sum over ranks can cost each rank about twice
its data, whatever the number of ranks (minitorch's, for the course; not a PyTorch API).

The ``p`` ranks stand in a ring; each sends only to its right neighbour and receives only
from its left one. The tensor is cut into ``p`` chunks.

1. **Reduce-scatter**, ``p - 1`` steps: at step ``s`` rank ``r`` sends its chunk
   ``(r - s) mod p`` and adds the chunk ``(r - s - 1) mod p`` it receives into its own. After
   the last step rank ``r`` holds the whole sum of chunk ``(r + 1) mod p``.
2. **All-gather**, ``p - 1`` steps: the finished chunks travel once more round the ring,
   each rank now *copying* what it receives.

Each rank sends $2(p-1)$ messages of $n/p$ bytes, so with a latency $\alpha$ per message and
$\beta$ seconds per byte

$$T_\text{ring}(p, n) = 2(p-1)\,\alpha + 2\,\frac{p-1}{p}\,n\,\beta,$$

whose bandwidth term stays below $2n\beta$ as $p$ grows: the latency term is what grows.
"""

from __future__ import annotations

from typing import Callable, Optional

from ..creation import zeros
from ..tensor import Tensor
from .point_to_point import irecv, isend
from .process_group import ProcessGroup, default_group


def chunk_bounds(numel: int, parts: int) -> list[tuple[int, int]]:
    """``parts`` consecutive ``(start, end)`` ranges covering ``numel`` elements, sizes differing by at most 1."""
    base, extra = divmod(numel, parts)
    bounds, start = [], 0
    for part in range(parts):
        end = start + base + (1 if part < extra else 0)
        bounds.append((start, end))
        start = end
    return bounds


#: ``exchange(outgoing, incoming)``: send ``outgoing`` to the right neighbour and, at the same
#: time, receive the left neighbour's message into ``incoming`` (same number of elements)
Exchange = Callable[[Tensor, Tensor], None]


def ring_all_reduce(tensor: Tensor, group: Optional[ProcessGroup] = None) -> None:
    """Sum ``tensor`` over every rank, in place, by the ring algorithm (the same result as
    ``all_reduce(tensor)``, up to the order of the additions)."""
    pg = default_group(group)
    ranks, rank = pg.size(), pg.rank()
    if ranks == 1:
        return
    flat = tensor.detach().reshape(-1)  # a view when contiguous, else a copy written back at the end
    right, left = (rank + 1) % ranks, (rank - 1) % ranks
    ring_all_reduce_chunks(flat, rank, ranks, lambda outgoing, incoming: _exchange(outgoing, right, incoming, left, pg))
    if not tensor.is_contiguous():
        tensor.detach().copy_(flat.view(tuple(tensor.shape)))


def ring_all_reduce_chunks(flat: Tensor, rank: int, ranks: int, exchange: Exchange) -> None:
    r"""Rank ``rank``'s part of the ring all-reduce of the 1-D ``flat`` (in place), the transport
    left to ``exchange``: $p - 1$ reduce-scatter steps that add what arrives, then $p - 1$
    all-gather steps that copy it. Chunk ``c`` is ``flat[start:end]`` for
    ``chunk_bounds(flat.numel(), ranks)[c % ranks]``.
    """
    # BEGIN SOLUTION 9.5
    bounds = chunk_bounds(flat.numel(), ranks)

    def chunk(index: int) -> Tensor:
        start, end = bounds[index % ranks]
        return flat[start:end]

    for step in range(ranks - 1):  # reduce-scatter: add what arrives
        incoming = zeros(chunk(rank - step - 1).numel(), dtype=flat.dtype, device=flat.device)
        exchange(chunk(rank - step), incoming)
        chunk(rank - step - 1).add_(incoming)
    for step in range(ranks - 1):  # all-gather: copy what arrives
        incoming = zeros(chunk(rank - step).numel(), dtype=flat.dtype, device=flat.device)
        exchange(chunk(rank + 1 - step), incoming)
        chunk(rank - step).copy_(incoming)
    # END SOLUTION


def _exchange(outgoing: Tensor, right: int, incoming: Tensor, left: int, pg: ProcessGroup) -> None:
    """Send to the right and receive from the left at once (two blocking calls in a ring would deadlock)."""
    works = [isend(outgoing, dst=right, group=pg), irecv(incoming, src=left, group=pg)]
    for work in works:
        work.wait()


def ring_all_reduce_seconds(ranks: int, nbytes: float, alpha: float, beta: float) -> float:
    r"""The cost model: $2(p-1)\alpha + 2\frac{p-1}{p} n \beta$ seconds for ``ranks`` = $p$, ``nbytes`` = $n$."""
    if ranks < 1:
        raise ValueError(f"ranks must be at least 1, got {ranks}")
    return 2 * (ranks - 1) * alpha + 2 * (ranks - 1) / ranks * nbytes * beta

"""What the child processes of ``test_multiprocessing.py`` run: importable functions (a ``spawn``
child imports this module, so it stays light: no pytest)."""

from __future__ import annotations

import os
import signal
from typing import Any

import minitorch

#: seconds a child waits on a queue before it gives up
QUEUE_SECONDS = 30.0


def fill_row(rank: int, shared: minitorch.Tensor) -> None:
    """Write ``rank + 1`` into row ``rank`` of a shared tensor."""
    shared[rank].fill_(rank + 1)


def fill_row_as_process(shared: minitorch.Tensor, rank: int) -> None:
    """:func:`fill_row` with ``Process(target=..., args=(shared, rank))``'s order."""
    fill_row(rank, shared)


def answer_through_queues(inbox: Any, outbox: Any) -> None:
    """Add one to the tensor received, send a tensor of its own, and wait until the parent has it
    (a tensor sent through a queue is read from the sender's memory: the sender must live)."""
    received = inbox.get(timeout=QUEUE_SECONDS)
    received.add_(1)
    outbox.put((received.is_shared(), minitorch.arange(3.0) * 10))
    inbox.get(timeout=QUEUE_SECONDS)


def raise_value_error(rank: int, message: str) -> None:
    raise ValueError(f"{message} in rank {rank}")


def kill_self(rank: int) -> None:
    os.kill(os.getpid(), signal.SIGKILL)

"""``set_torch_threads``: minitorch's thread count set for a block and restored after it."""

from __future__ import annotations

import contextlib
from typing import Iterator

from ...backends.cpu_threads import get_num_threads, set_num_threads


@contextlib.contextmanager
def set_torch_threads(n: int) -> Iterator[None]:
    """Run the block with ``minitorch.set_num_threads(n)``; the count before it is restored on exit."""
    prior = get_num_threads()
    try:
        set_num_threads(n)
        yield
    finally:
        set_num_threads(prior)

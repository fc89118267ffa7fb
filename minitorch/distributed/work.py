"""``Work``: the handle of an operation started with ``async_op=True`` (or ``isend``/``irecv``).

MPI's non-blocking calls return requests; the operation's last step on our side (copying a
staged buffer back into its tensor, dividing for ``AVG``, spreading a gathered buffer over a
list) runs once, when :meth:`Work.wait` or a successful :meth:`Work.is_completed` sees the
requests done. MPICH advances non-blocking operations inside MPI calls, so asking
``is_completed()`` now and then also moves the transfer along.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any, Callable, Optional, Sequence

from ..tensor import Tensor
from .process_group import mpi


class Work:
    """A started operation: ``wait()`` blocks until it is done, ``is_completed()`` asks without blocking."""

    def __init__(self, requests: Sequence[Any], finish: Optional[Callable[[], None]] = None,
                 outputs: Sequence[Tensor] = (), keep: Sequence[Any] = ()) -> None:
        self._requests = list(requests)
        self._finish = finish
        self._outputs = list(outputs)
        self._keep = list(keep)  # host arrays MPI still reads or writes: alive until the requests complete
        self._status = mpi().Status()
        self._done = False

    def _complete(self) -> None:
        if self._finish is not None:
            self._finish()
        self._finish, self._keep, self._done = None, [], True

    def wait(self, timeout: Optional[timedelta] = None) -> bool:
        """Block until the operation has finished on this rank; True (PyTorch's return value)."""
        if not self._done:
            for request in self._requests:  # one by one: a failure then names its own cause (e.g. truncation)
                request.Wait(self._status)
            self._complete()
        return True

    def is_completed(self) -> bool:
        """Whether the operation has finished (it is finished off if so); never blocks."""
        if not self._done:
            statuses = [mpi().Status() for _ in self._requests]
            if mpi().Request.Testall(self._requests, statuses):
                if statuses:
                    self._status = statuses[-1]
                self._complete()
        return self._done

    def is_success(self) -> bool:
        """True once completed (a failed MPI operation raises instead)."""
        return self._done

    def exception(self) -> None:
        return None

    def source_rank(self) -> int:
        """The rank a completed ``irecv`` received from (useful with ``src=None``)."""
        if not self._done:
            raise RuntimeError("source_rank() is only available once the work has completed (call wait())")
        return int(self._status.Get_source())

    def result(self) -> list[Tensor]:
        """The tensors the operation wrote."""
        return list(self._outputs)

    def __repr__(self) -> str:
        return f"Work(completed={self._done}, requests={len(self._requests)})"


def issue(work: Work, async_op: bool) -> Optional[Work]:
    """The handle when ``async_op``, else wait for it here and return None (PyTorch's convention)."""
    if async_op:
        return work
    work.wait()
    return None

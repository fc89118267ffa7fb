"""Worker processes of a ``DataLoader`` (``num_workers > 0``): batches made in parallel.

Each worker is a process of its own holding the dataset. The loader sends it work, one batch
at a time (the batch's number and its indices), and it answers with the collated batch, which
travels back through a queue as a pickle between the loader's own processes. The loader keeps
``prefetch_factor`` batches per worker in flight, hands the batches out in the sampler's order
whatever order they finish in, and re-raises a worker's exception with the worker's traceback.

In a worker, :func:`get_worker_info` says which worker it is; each is seeded with
``base_seed + id`` (minitorch's generator and Python's ``random``), the seed drawn once per
epoch from the loader's generator, as PyTorch does. Workers are started with ``fork`` where
the platform has it (datasets defined in a notebook need no pickling, as with PyTorch on
Linux), else with ``spawn``.
"""

from __future__ import annotations

import builtins
import multiprocessing
import queue
import random
import traceback
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Optional

#: how often (seconds) a waiting loader checks that its workers are still alive
POLL_SECONDS = 0.2
#: how long (seconds) an idle worker is given to exit before it is terminated
SHUTDOWN_SECONDS = 1.0


@dataclass(frozen=True)
class WorkerInfo:
    """What a worker process knows about itself: ``id``, ``num_workers``, ``seed``, ``dataset``."""

    id: int  # noqa: A003 - PyTorch's name
    num_workers: int
    seed: int
    dataset: Any


_worker_info: Optional[WorkerInfo] = None


def get_worker_info() -> Optional[WorkerInfo]:
    """In a ``DataLoader`` worker process, its :class:`WorkerInfo`; ``None`` in the main process."""
    return _worker_info


@dataclass(frozen=True)
class _Failure:
    """An exception raised in a worker, carried back as text."""

    kind: str
    where: str
    text: str


class _StreamEnd:
    """Sent by a worker whose iterable dataset has no more samples."""


class _NewEpoch:
    """Sent to a persistent worker at the start of an epoch: its stream starts over."""


NEW_EPOCH = _NewEpoch()


def _seed_worker(seed: int) -> None:
    from ...random import manual_seed

    manual_seed(seed)
    random.seed(seed)


def worker_loop(dataset: Any, fetch: Callable[[Any], Any], tasks: Any, results: Any, worker_id: int,
                num_workers: int, base_seed: int, init_fn: Optional[Callable[[int], None]]) -> None:
    """A worker's life: set itself up, then answer ``(number, indices)`` tasks until told to stop."""
    global _worker_info
    seed = base_seed + worker_id
    _worker_info = WorkerInfo(worker_id, num_workers, seed, dataset)
    _seed_worker(seed)
    where = f"in DataLoader worker process {worker_id}"
    try:
        if init_fn is not None:
            init_fn(worker_id)
    except Exception as error:  # reported with the first task, as PyTorch reports it
        setup_failure: Optional[_Failure] = _Failure(type(error).__name__, where, traceback.format_exc())
    else:
        setup_failure = None
    stream: Optional[Iterator[Any]] = None
    while True:
        task = tasks.get()
        if task is None:
            return
        number, indices = task
        if isinstance(indices, _NewEpoch):
            stream = None
            continue
        if setup_failure is not None:
            results.put((number, setup_failure))
            continue
        try:
            if indices is None:  # an iterable dataset: the next batch of this worker's stream
                if stream is None:
                    stream = fetch(None)
                answer: Any = next(stream, _StreamEnd())
            else:
                answer = fetch(indices)
        except Exception as error:
            answer = _Failure(type(error).__name__, where, traceback.format_exc())
        results.put((number, answer))


def start_method() -> str:
    """``fork`` where the platform has it, else ``spawn``."""
    return "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"


class WorkerPool:
    """``num_workers`` processes answering batch tasks, started by a loader and stopped with it."""

    def __init__(self, dataset: Any, fetch: Callable[[Any], Any], num_workers: int, base_seed: int,
                 init_fn: Optional[Callable[[int], None]], context: Any = None) -> None:
        context = context or multiprocessing.get_context(start_method())
        self.num_workers = num_workers
        self.tasks = [context.Queue() for _ in range(num_workers)]
        self.results = context.Queue()
        self.processes = [
            context.Process(target=worker_loop, daemon=True, name=f"minitorch-data-worker-{i}",
                            args=(dataset, fetch, self.tasks[i], self.results, i, num_workers, base_seed, init_fn))
            for i in range(num_workers)
        ]
        for process in self.processes:
            process.start()

    def send(self, worker: int, number: Any, indices: Any) -> None:
        self.tasks[worker].put((number, indices))

    def new_epoch(self) -> None:
        """Start every worker's stream over (a persistent pool between epochs)."""
        for worker in range(self.num_workers):
            self.send(worker, None, NEW_EPOCH)

    def receive(self, timeout: float) -> tuple[Any, Any]:
        """The next finished ``(number, batch)``; a RuntimeError if ``timeout`` (0: none) passes or a worker dies."""
        waited = 0.0
        while True:
            try:
                return self.results.get(timeout=POLL_SECONDS)
            except queue.Empty:
                waited += POLL_SECONDS
            dead = [p for p in self.processes if not p.is_alive()]
            if dead:
                codes = ", ".join(f"pid {p.pid} exit code {p.exitcode}" for p in dead)
                self.close(wait=False)
                raise RuntimeError(f"DataLoader worker ({codes}) exited unexpectedly")
            if timeout and waited >= timeout:
                self.close(wait=False)
                raise RuntimeError(f"DataLoader timed out after {timeout:g} seconds")

    def close(self, wait: bool = True) -> None:
        """Tell every worker to stop, give idle ones a moment (``wait``), then end those still running."""
        for tasks in self.tasks:
            try:
                tasks.put(None)
            except (OSError, ValueError):
                pass
        for process in self.processes:
            if wait:
                process.join(SHUTDOWN_SECONDS)
            if process.is_alive():
                process.terminate()
                process.join(SHUTDOWN_SECONDS)
        for channel in self.tasks + [self.results]:
            channel.cancel_join_thread()
            channel.close()
        self.processes = []


def raise_failure(failure: _Failure) -> None:
    """Re-raise a worker's exception in the loader's process, the worker's traceback in its message."""
    message = f"Caught {failure.kind} {failure.where}.\nOriginal {failure.text}"
    kind = getattr(builtins, failure.kind, None)
    error: Exception = RuntimeError(message)
    if isinstance(kind, type) and issubclass(kind, Exception):
        try:
            error = kind(message)
        except TypeError:  # an exception class that does not take one message
            pass
    raise error


def is_failure(answer: Any) -> bool:
    return isinstance(answer, _Failure)


def is_stream_end(answer: Any) -> bool:
    return isinstance(answer, _StreamEnd)

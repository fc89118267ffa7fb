"""``DataLoader``: iterate a dataset in (shuffled) batches.

For a map-style dataset the loader asks its *batch sampler* for lists of indices, fetches
those samples and *collates* them into one batch::

    loader = DataLoader(TensorDataset(X, y), batch_size=64, shuffle=True)
    for xb, yb in loader:      # xb: (64, ...) stacked rows of X, yb: the matching labels
        ...

Shuffling draws each epoch's order from ``generator`` or, without one, from the global
generator, so ``minitorch.manual_seed(s)`` makes every run give the same batches. With
``num_workers > 0`` the batches are made in worker processes (:mod:`.worker`) and still come
out in the sampler's order.
"""

from __future__ import annotations

import itertools
import multiprocessing
import warnings
from typing import Any, Callable, Iterable, Iterator, Optional, Sequence

import numpy as np

from ... import accelerator
from ...creation import from_numpy
from ...ops.pinned import pin_batch
from ...tensor import Tensor
from .collate import default_collate, default_convert
from .dataset import Dataset, IterableDataset, TensorDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler, draw_seed
from .worker import WorkerPool, is_failure, is_stream_end, raise_failure

DEFAULT_BATCH_SIZE = 1
#: PyTorch's warning for ``pin_memory=True`` on a machine without an accelerator
PIN_WITHOUT_ACCELERATOR = ("'pin_memory' argument is set as true but no accelerator is found, then device pinned "
                           "memory won't be used.")
#: batches in flight per worker unless ``prefetch_factor`` says otherwise
DEFAULT_PREFETCH_FACTOR = 2


class DataLoader:
    """Batches of a dataset: ``batch_size``, ``shuffle``, ``drop_last``, ``sampler``/``batch_sampler``, ``collate_fn``."""

    def __init__(self, dataset: Dataset[Any], batch_size: Optional[int] = DEFAULT_BATCH_SIZE,
                 shuffle: Optional[bool] = None, sampler: Optional[Iterable[Any]] = None,
                 batch_sampler: Optional[Iterable[Sequence[Any]]] = None, num_workers: int = 0,
                 collate_fn: Optional[Callable[[list[Any]], Any]] = None, pin_memory: bool = False,
                 drop_last: bool = False, timeout: float = 0, worker_init_fn: Optional[Callable[[int], None]] = None,
                 multiprocessing_context: Any = None, generator: Optional[Any] = None, *,
                 prefetch_factor: Optional[int] = None, persistent_workers: bool = False, **options: Any) -> None:
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in multiprocessing."
                             "let num_workers > 0 to enable multiprocessing, otherwise set prefetch_factor to None.")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        if prefetch_factor is not None and prefetch_factor < 1:
            raise ValueError(f"prefetch_factor must be positive, got {prefetch_factor}")
        self.prefetch_factor = prefetch_factor if prefetch_factor is not None or num_workers == 0 else DEFAULT_PREFETCH_FACTOR
        self.persistent_workers = persistent_workers
        if isinstance(multiprocessing_context, str):
            multiprocessing_context = multiprocessing.get_context(multiprocessing_context)
        self.multiprocessing_context = multiprocessing_context
        self._pool: Optional[WorkerPool] = None
        self._epoch = 0
        self.dataset = dataset
        self.num_workers = num_workers
        self.pin_memory = pin_memory
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.generator = generator
        self._iterable = isinstance(dataset, IterableDataset)
        if self._iterable:
            for name, value in (("shuffle", shuffle), ("sampler", sampler), ("batch_sampler", batch_sampler)):
                if value not in (None, False):
                    raise ValueError(
                        f"DataLoader with IterableDataset: expected unspecified {name} option, but got {name}={value}"
                    )
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != DEFAULT_BATCH_SIZE or shuffle or sampler is not None or drop_last:
                raise ValueError(
                    "batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and drop_last"
                )
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError(
                "batch_size=None option disables auto-batching and is mutually exclusive with drop_last=True"
            )
        if sampler is None and not self._iterable:
            sized: Any = dataset
            sampler = RandomSampler(sized, generator=generator) if shuffle else SequentialSampler(sized)
        if batch_size is not None and batch_sampler is None and not self._iterable:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)  # type: ignore[arg-type]
        elif batch_size is not None and self._iterable:
            BatchSampler([], batch_size, drop_last)  # the same checks of batch_size and drop_last
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self._auto_collation = batch_sampler is not None or (self._iterable and batch_size is not None)
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn

    def __iter__(self) -> Iterator[Any]:
        # as PyTorch's, each new pass draws the workers' base seed first (with workers or not), so
        # the global stream advances alike in both libraries; persistent workers keep theirs
        base_seed = None if self._pool is not None else self._draw_base_seed()
        batches = self._batches(base_seed)
        if not self.pin_memory:
            return batches
        if not accelerator.is_available():  # PyTorch warns when each iteration starts, and goes on unpinned
            warnings.warn(PIN_WITHOUT_ACCELERATOR, stacklevel=2)
            return batches
        return (pin_batch(batch) for batch in batches)

    def _draw_base_seed(self) -> int:
        """One int64 from the loader's generator (or the global one): the seed workers derive theirs from."""
        return draw_seed(self.generator)

    def _batches(self, base_seed: Optional[int]) -> Iterator[Any]:
        if self.num_workers > 0:
            yield from self._iterate_with_workers(base_seed)
            return
        if self._iterable:
            yield from self._iterate_stream()
            return
        if not self._auto_collation:
            for index in self.sampler:  # type: ignore[union-attr]
                yield self.collate_fn(self.dataset[index])
            return
        for indices in self.batch_sampler:  # type: ignore[union-attr]
            yield self._fetch(list(indices))

    def _fetch(self, indices: list[Any]) -> Any:
        """One collated batch: a single gather per tensor for a ``TensorDataset``, else sample by sample."""
        if type(self.dataset) is TensorDataset and self.collate_fn is default_collate:
            rows = [_rows(t, np.asarray(indices, dtype=np.int64)) for t in self.dataset.tensors]
            if all(row is not None for row in rows):
                return rows
        return self.collate_fn([self.dataset[index] for index in indices])

    def _iterate_stream(self) -> Iterator[Any]:
        if self.batch_size is None:
            for sample in self.dataset:  # type: ignore[attr-defined]
                yield self.collate_fn(sample)
            return
        batch: list[Any] = []
        for sample in self.dataset:  # type: ignore[attr-defined]
            batch.append(sample)
            if len(batch) == self.batch_size:
                yield self.collate_fn(batch)
                batch = []
        if batch and not self.drop_last:
            yield self.collate_fn(batch)

    # ---- worker processes ----

    def _work(self, indices: Any) -> Any:
        """What a worker computes for one task: a collated batch, one sample, or (``None``) its stream."""
        if indices is None:
            return self._iterate_stream()
        if self._auto_collation:
            return self._fetch(list(indices))
        return self.collate_fn(self.dataset[indices])

    def _tasks(self, workers: int) -> Iterator[tuple[int, Any]]:
        """``(worker, indices)`` per batch: batches dealt round-robin, or each worker's next from its stream."""
        if self._iterable:
            return ((worker, None) for worker in itertools.cycle(range(workers)))
        source: Iterable[Any] = self.batch_sampler if self._auto_collation else self.sampler  # type: ignore[assignment]
        return ((number % workers, indices) for number, indices in enumerate(source))

    def _start_pool(self, base_seed: int) -> WorkerPool:
        return WorkerPool(self.dataset, self._work, self.num_workers, base_seed, self.worker_init_fn,
                          self.multiprocessing_context)

    def _iterate_with_workers(self, base_seed: Optional[int]) -> Iterator[Any]:
        """The batches, made by the workers ``prefetch_factor`` per worker ahead, in the sampler's order."""
        # the base seed was drawn when the pass began, before the sampler's order (as without workers)
        tasks = self._tasks(self.num_workers)
        first = next(tasks, None)
        tasks = itertools.chain([first] if first is not None else [], tasks)
        if self._pool is not None:
            pool = self._pool
            pool.new_epoch()
        else:
            pool = self._start_pool(base_seed if base_seed is not None else self._draw_base_seed())
        self._pool = pool if self.persistent_workers else None
        self._epoch += 1
        epoch = self._epoch  # answers of an epoch left unfinished (a ``break``) carry an older number
        sent, handed_out, finished_workers = 0, 0, set()
        worker_of: dict[int, int] = {}
        waiting: dict[int, Any] = {}

        def send_next() -> None:
            nonlocal sent
            for worker, indices in tasks:
                if worker in finished_workers:
                    if len(finished_workers) == pool.num_workers:
                        return
                    continue
                worker_of[sent] = worker
                pool.send(worker, (epoch, sent), indices)
                sent += 1
                return

        try:
            for _ in range(pool.num_workers * (self.prefetch_factor or DEFAULT_PREFETCH_FACTOR)):
                send_next()
            while handed_out < sent:
                while handed_out not in waiting:
                    (answer_epoch, number), answer = pool.receive(self.timeout)
                    if answer_epoch == epoch:
                        waiting[number] = answer
                answer = waiting.pop(handed_out)
                worker = worker_of.pop(handed_out)
                handed_out += 1
                if is_failure(answer):
                    raise_failure(answer)
                if is_stream_end(answer):
                    finished_workers.add(worker)
                else:
                    yield answer
                send_next()
        finally:
            if not self.persistent_workers:
                pool.close()

    def __del__(self) -> None:
        if getattr(self, "_pool", None) is not None:
            self._pool.close()

    def __len__(self) -> int:
        if self._iterable:
            count = len(self.dataset)  # type: ignore[arg-type]
            if self.batch_size is None:
                return count
            return count // self.batch_size if self.drop_last else -(-count // self.batch_size)
        if self.batch_sampler is not None:
            return len(self.batch_sampler)  # type: ignore[arg-type]
        return len(self.sampler)  # type: ignore[arg-type]


def _rows(tensor: Tensor, indices: np.ndarray) -> Optional[Tensor]:
    """``stack([tensor[i] for i in indices])`` as one gather; ``None`` where that shortcut does not apply."""
    if tensor.device.type != "cpu" or tensor.requires_grad or tensor.dim() == 0:
        return None
    return from_numpy(np.ascontiguousarray(tensor.numpy()[indices]))


__all__ = ["DataLoader"]

"""``DataLoader``: iterate a dataset in (shuffled) batches.

For a map-style dataset the loader asks its *batch sampler* for lists of indices, fetches
those samples and *collates* them into one batch::

    loader = DataLoader(TensorDataset(X, y), batch_size=64, shuffle=True)
    for xb, yb in loader:      # xb: (64, ...) stacked rows of X, yb: the matching labels
        ...

Shuffling draws each epoch's order from ``generator`` or, without one, from the global
generator, so ``minitorch.manual_seed(s)`` makes every run give the same batches.
Everything runs in the calling process (``num_workers`` is accepted and ignored).
"""

from __future__ import annotations

import warnings
from typing import Any, Callable, Iterable, Iterator, Optional, Sequence

import numpy as np

from ...creation import from_numpy
from ...tensor import Tensor
from .collate import default_collate, default_convert
from .dataset import Dataset, IterableDataset, TensorDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

DEFAULT_BATCH_SIZE = 1


class DataLoader:
    """Batches of a dataset: ``batch_size``, ``shuffle``, ``drop_last``, ``sampler``/``batch_sampler``, ``collate_fn``."""

    def __init__(self, dataset: Dataset[Any], batch_size: Optional[int] = DEFAULT_BATCH_SIZE,
                 shuffle: Optional[bool] = None, sampler: Optional[Iterable[Any]] = None,
                 batch_sampler: Optional[Iterable[Sequence[Any]]] = None, num_workers: int = 0,
                 collate_fn: Optional[Callable[[list[Any]], Any]] = None, pin_memory: bool = False,
                 drop_last: bool = False, timeout: float = 0, worker_init_fn: Optional[Callable[[int], None]] = None,
                 generator: Optional[Any] = None, **options: Any) -> None:
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers > 0:
            warnings.warn(f"minitorch loads data in the calling process: num_workers={num_workers} is ignored",
                          stacklevel=2)
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

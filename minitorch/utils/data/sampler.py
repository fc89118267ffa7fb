"""Samplers: the order in which a loader visits a dataset's indices, and how it groups them."""

from __future__ import annotations

from typing import Any, Iterable, Iterator, Optional, Sequence, Sized

import numpy as np

from ... import dtypes
from ...creation import as_tensor, empty, randint, randperm
from ...generator import Generator
from ...ops.sampling import multinomial

#: RandomSampler with replacement draws its indices this many at a time (as PyTorch's)
REPLACEMENT_CHUNK = 32


def permutation(n: int, generator: Optional[Generator] = None) -> np.ndarray:
    """A random order of ``0 .. n-1`` (int64), from ``generator`` or else the global generator."""
    return randperm(n, generator=generator).numpy()


def draw_seed(generator: Optional[Generator] = None) -> int:
    """One non-negative int64 from ``generator`` (or the global generator), drawn as PyTorch's data
    utilities draw their seeds: ``random_()`` of a 0-d int64 tensor."""
    return int(empty((), dtype=dtypes.int64).random_(generator=generator).item())


def fresh_generator() -> Generator:
    """A generator seeded with one int64 drawn from the global generator: without a generator of
    its own, a sampler shuffles from one of these, so :func:`minitorch.manual_seed` fixes every
    epoch's order, and two epochs differ."""
    return Generator().manual_seed(draw_seed())


class Sampler:
    """An iterable over dataset indices (subclasses write ``__iter__`` and usually ``__len__``)."""

    def __iter__(self) -> Iterator[Any]:
        raise NotImplementedError


class SequentialSampler(Sampler):
    """``0, 1, ..., len(data_source) - 1``."""

    def __init__(self, data_source: Sized) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler):
    """A random permutation of the indices each pass (or ``num_samples`` draws with ``replacement``)."""

    def __init__(self, data_source: Sized, replacement: bool = False, num_samples: Optional[int] = None,
                 generator: Optional[Any] = None) -> None:
        if not isinstance(replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got replacement={replacement}")
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={self.num_samples}")

    @property
    def num_samples(self) -> int:
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self) -> Iterator[int]:
        # BEGIN SOLUTION 9.3
        n = len(self.data_source)
        generator = self.generator if self.generator is not None else fresh_generator()
        if self.replacement:
            for _ in range(self.num_samples // REPLACEMENT_CHUNK):
                yield from randint(n, (REPLACEMENT_CHUNK,), generator=generator).tolist()
            yield from randint(n, (self.num_samples % REPLACEMENT_CHUNK,), generator=generator).tolist()
            return
        for _ in range(self.num_samples // n):
            yield from randperm(n, generator=generator).tolist()
        yield from randperm(n, generator=generator).tolist()[: self.num_samples % n]
        # END SOLUTION

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given indices, in a random order each pass."""

    def __init__(self, indices: Sequence[int], generator: Optional[Any] = None) -> None:
        self.indices = indices
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        for position in permutation(len(self.indices), self.generator).tolist():
            yield self.indices[position]

    def __len__(self) -> int:
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    r"""``num_samples`` indices drawn with probability proportional to ``weights``
    (:math:`P(i) = w_i / \sum_j w_j`), with or without ``replacement``."""

    def __init__(self, weights: Sequence[float], num_samples: int, replacement: bool = True,
                 generator: Optional[Any] = None) -> None:
        if isinstance(num_samples, bool) or not isinstance(num_samples, int) or num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError(f"replacement should be a boolean value, but got replacement={replacement}")
        weights_tensor = as_tensor(weights, dtype=dtypes.float64)
        if weights_tensor.dim() != 1:
            raise ValueError("weights should be a 1d sequence but given weights have shape "
                             f"{tuple(weights_tensor.shape)}")
        self.weights = weights_tensor
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        yield from multinomial(self.weights, self.num_samples, self.replacement, generator=self.generator).tolist()

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler):
    """Group another sampler's indices into lists of ``batch_size`` (the last one shorter unless ``drop_last``)."""

    def __init__(self, sampler: Iterable[int], batch_size: int, drop_last: bool) -> None:
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self) -> Iterator[list[int]]:
        # BEGIN SOLUTION 9.2
        batch: list[int] = []
        for index in self.sampler:
            batch.append(index)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch
        # END SOLUTION

    def __len__(self) -> int:
        count = len(self.sampler)  # type: ignore[arg-type]
        return count // self.batch_size if self.drop_last else -(-count // self.batch_size)


__all__ = [
    "BatchSampler", "RandomSampler", "Sampler", "SequentialSampler", "SubsetRandomSampler", "WeightedRandomSampler",
]

"""Datasets: indexable (``Dataset``) or streamed (``IterableDataset``) collections of samples."""

from __future__ import annotations

import bisect
import itertools
import math
import warnings
from typing import Any, Generic, Iterator, Optional, Sequence, TypeVar, Union

from ...tensor import Tensor
from .sampler import permutation

Sample = TypeVar("Sample")


class Dataset(Generic[Sample]):
    """A map-style dataset: ``dataset[i]`` is sample ``i``; subclasses write ``__getitem__`` and ``__len__``."""

    def __getitem__(self, index: int) -> Sample:
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other: "Dataset[Sample]") -> "ConcatDataset[Sample]":
        return ConcatDataset([self, other])


class IterableDataset(Dataset[Sample]):
    """A stream of samples: subclasses write ``__iter__`` (no indexing, no shuffling by the loader)."""

    def __iter__(self) -> Iterator[Sample]:
        raise NotImplementedError("Subclasses of IterableDataset should implement __iter__.")

    def __add__(self, other: Any) -> Any:
        raise TypeError("IterableDataset does not support concatenation with +")


class TensorDataset(Dataset[tuple[Tensor, ...]]):
    """Samples are rows: ``dataset[i] == (t[i] for t in tensors)``; all tensors share their first size."""

    def __init__(self, *tensors: Tensor) -> None:
        if not tensors:
            raise ValueError("TensorDataset needs at least one tensor")
        sizes = [t.size(0) for t in tensors]
        if any(size != sizes[0] for size in sizes):
            raise AssertionError(f"Size mismatch between tensors: first sizes {sizes}")
        self.tensors = tensors

    def __getitem__(self, index: int) -> tuple[Tensor, ...]:
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].size(0)


class Subset(Dataset[Sample]):
    """The samples of ``dataset`` at ``indices``, renumbered from 0."""

    def __init__(self, dataset: Dataset[Sample], indices: Sequence[int]) -> None:
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, index: int) -> Sample:
        return self.dataset[self.indices[index]]

    def __len__(self) -> int:
        return len(self.indices)


class ConcatDataset(Dataset[Sample]):
    """Several datasets one after the other."""

    def __init__(self, datasets: Sequence[Dataset[Sample]]) -> None:
        self.datasets = list(datasets)
        if not self.datasets:
            raise AssertionError("datasets should not be an empty iterable")
        for dataset in self.datasets:
            if isinstance(dataset, IterableDataset):
                raise AssertionError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = list(itertools.accumulate(len(d) for d in self.datasets))  # type: ignore[arg-type]

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, index: int) -> Sample:
        if index < 0:
            if -index > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            index += len(self)
        which = bisect.bisect_right(self.cumulative_sizes, index)
        start = self.cumulative_sizes[which - 1] if which > 0 else 0
        return self.datasets[which][index - start]


def _lengths_from_fractions(fractions: Sequence[float], total: int) -> list[int]:
    """Whole lengths for ``fractions`` of ``total``; the remainder goes one by one from the first."""
    for index, fraction in enumerate(fractions):
        if fraction < 0 or fraction > 1:
            raise ValueError(f"Fraction at index {index} is not between 0 and 1")
    lengths = [int(math.floor(total * fraction)) for fraction in fractions]
    for index in range(total - sum(lengths)):
        lengths[index % len(lengths)] += 1
    for index, length in enumerate(lengths):
        if length == 0:
            warnings.warn(f"Length of split at index {index} is 0. This might result in an empty dataset.", stacklevel=3)
    return lengths


def random_split(dataset: Dataset[Sample], lengths: Sequence[Union[int, float]],
                 generator: Optional[Any] = None) -> list[Subset[Sample]]:
    """Split ``dataset`` into non-overlapping random subsets of the given lengths (or fractions summing to 1).

    The permutation comes from ``generator`` (a :class:`minitorch.Generator`) or, without
    one, from the global generator (seeded by :func:`minitorch.manual_seed`).
    """
    total = len(dataset)  # type: ignore[arg-type]
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        lengths = _lengths_from_fractions(lengths, total)
    if sum(lengths) != total:
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    # BEGIN SOLUTION 9.3
    order = permutation(total, generator).tolist()
    ends = list(itertools.accumulate(lengths))
    return [Subset(dataset, order[end - length : end]) for length, end in zip(lengths, ends)]
    # END SOLUTION


__all__ = ["ConcatDataset", "Dataset", "IterableDataset", "Subset", "TensorDataset", "random_split"]

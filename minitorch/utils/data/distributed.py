"""``DistributedSampler``: each rank's share of a data set, the same order on every rank.

Every rank draws the same permutation (seeded by ``seed + epoch``), pads it by repeating its
first indices until it divides evenly (or, with ``drop_last``, cuts the tail), and keeps every
``num_replicas``-th index starting at its ``rank``: the shares never overlap (except the
padding) and together cover the data set. Call :meth:`set_epoch` at each epoch for a new order.
"""

from __future__ import annotations

import math
from typing import Iterator, Optional, Sized

from ... import distributed as dist
from ...creation import randperm
from ...generator import Generator
from .sampler import Sampler


class DistributedSampler(Sampler):
    """``DistributedSampler(dataset, num_replicas=None, rank=None, shuffle=True, seed=0, drop_last=False)``;
    ``num_replicas`` and ``rank`` default to the default process group's."""

    def __init__(self, dataset: Sized, num_replicas: Optional[int] = None, rank: Optional[int] = None,
                 shuffle: bool = True, seed: int = 0, drop_last: bool = False) -> None:
        if num_replicas is None:
            if not dist.is_available():
                raise RuntimeError("Requires distributed package to be available")
            num_replicas = dist.get_world_size()
        if rank is None:
            if not dist.is_available():
                raise RuntimeError("Requires distributed package to be available")
            rank = dist.get_rank()
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]")
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        size = len(dataset)
        if drop_last and size % num_replicas:
            self.num_samples = math.ceil((size - num_replicas) / num_replicas)  # whole rounds only
        else:
            self.num_samples = math.ceil(size / num_replicas)
        self.total_size = self.num_samples * num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self) -> Iterator[int]:
        size = len(self.dataset)
        if self.shuffle:
            indices = randperm(size, generator=Generator().manual_seed(self.seed + self.epoch)).tolist()
        else:
            indices = list(range(size))
        if self.drop_last:
            indices = indices[:self.total_size]
        elif indices:
            padding = self.total_size - len(indices)
            indices += (indices * math.ceil(padding / len(indices)))[:padding]  # the first ones again, cyclically
        return iter(indices[self.rank:self.total_size:self.num_replicas])

    def __len__(self) -> int:
        return self.num_samples

    def set_epoch(self, epoch: int) -> None:
        """The epoch seeds the order (with ``seed``): call it at each epoch, on every rank, with the same number."""
        self.epoch = epoch

"""``utils.data``: datasets, samplers, collation and the ``DataLoader`` (course step 9)."""

from __future__ import annotations

from .collate import default_collate, default_convert
from .dataloader import DataLoader
from .dataset import ConcatDataset, Dataset, IterableDataset, Subset, TensorDataset, random_split
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler, SubsetRandomSampler
from .sampler import WeightedRandomSampler  # issue 19
from .worker import WorkerInfo, get_worker_info

__all__ = [
    "BatchSampler", "ConcatDataset", "DataLoader", "Dataset", "IterableDataset", "RandomSampler", "Sampler",
    "SequentialSampler", "Subset", "SubsetRandomSampler", "TensorDataset", "default_collate", "default_convert",
    "random_split",
]
__all__ += ["WeightedRandomSampler"]
__all__ += ["WorkerInfo", "get_worker_info"]

# ---- DistributedSampler: each rank's share of the data (issue 20) ----
from .distributed import DistributedSampler  # noqa: E402

__all__ += ["DistributedSampler"]

"""Collation: turn a list of samples into one batch (stack tensors, keep the structure)."""

from __future__ import annotations

import collections.abc
from typing import Any, Sequence

import numpy as np

from ... import dtypes
from ...creation import as_tensor, stack, tensor
from ...tensor import Tensor

COLLATE_ERROR = "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"


def _is_namedtuple(value: Any) -> bool:
    return isinstance(value, tuple) and hasattr(value, "_fields")


def default_collate(batch: Sequence[Any]) -> Any:
    """One batch from ``batch``, a list of samples of the same structure.

    Tensors (and NumPy arrays) are stacked along a new first dimension; Python floats
    become a float64 tensor, ints an int64 tensor; strings are left as they come. Dicts, tuples and
    lists are collated field by field, keeping their keys; a tuple becomes a *list* of
    batches, as in PyTorch (so ``x, y = batch`` works).
    """
    # BEGIN SOLUTION 9.2
    elem = batch[0]
    if isinstance(elem, Tensor):
        return stack(list(batch), 0)
    if isinstance(elem, np.ndarray) and elem.dtype.kind not in "OSUV":
        return default_collate([as_tensor(sample) for sample in batch])
    if isinstance(elem, np.generic) and elem.dtype.kind not in "OSUV":
        return as_tensor(np.array(batch))
    if isinstance(elem, bool):
        return tensor(list(batch), dtype=dtypes.bool_)
    if isinstance(elem, float):
        return tensor(list(batch), dtype=dtypes.float64)
    if isinstance(elem, int):
        return tensor(list(batch), dtype=dtypes.int64)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        collated = {key: default_collate([sample[key] for sample in batch]) for key in elem}
        try:
            return type(elem)(collated)
        except TypeError:
            return collated
    if _is_namedtuple(elem):
        return type(elem)(*(default_collate(field) for field in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        if any(len(sample) != len(elem) for sample in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        fields = [default_collate(field) for field in zip(*batch)]
        if isinstance(elem, tuple):
            return fields
        try:
            return type(elem)(fields)
        except TypeError:
            return fields
    raise TypeError(COLLATE_ERROR.format(type(elem)))
    # END SOLUTION


def default_convert(data: Any) -> Any:
    """Without batching: NumPy arrays become tensors, containers are converted element by element."""
    if isinstance(data, np.ndarray) and data.dtype.kind not in "OSUV":
        return as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return type(data)({key: default_convert(value) for key, value in data.items()})
    if _is_namedtuple(data):
        return type(data)(*(default_convert(value) for value in data))
    if isinstance(data, tuple):
        return [default_convert(value) for value in data]
    if isinstance(data, list):
        return [default_convert(value) for value in data]
    return data


__all__ = ["default_collate", "default_convert"]

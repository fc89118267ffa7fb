"""Page-locked ("pinned") host memory: ``Tensor.pin_memory()`` and ``Tensor.is_pinned()``.

The GPU's copy engine reads pinned host memory directly; ordinary (pageable) memory is first
staged into a pinned buffer by the driver. Pinning needs an accelerator, as in PyTorch: on a
machine without one, ``pin_memory()`` raises and the DataLoader's ``pin_memory=True`` warns
and does nothing. Pinned tensors are plain CPU tensors in every other respect.
"""

from __future__ import annotations

import weakref
from typing import Any, Optional

import numpy as np

from .. import accelerator
from ..tensor import Tensor, add_tensor_methods

NO_ACCELERATOR = "Cannot access accelerator device when none is available."
#: the storages allocated pinned, by id (a view of a pinned tensor is pinned too)
_PINNED_STORAGES: "weakref.WeakValueDictionary[int, np.ndarray]" = weakref.WeakValueDictionary()


def is_pinned(self: Tensor, device: Any = None) -> bool:
    """Whether this tensor's memory is page-locked host memory."""
    storage = self._data.storage
    return not self.is_cuda and _PINNED_STORAGES.get(id(storage)) is storage


def pin_memory(self: Tensor, device: Any = None) -> Tensor:
    """A copy of this CPU tensor in pinned memory (this tensor itself if it already is)."""
    if self.is_cuda:
        raise RuntimeError(f"cannot pin '{self.type()}' only dense CPU tensors can be pinned")
    if not accelerator.is_available():
        raise RuntimeError(NO_ACCELERATOR)
    if is_pinned(self):
        return self
    from numba import cuda

    host = cuda.pinned_array(tuple(self.shape), dtype=self.dtype.numpy)
    host[...] = self.detach()._host_numpy()
    pinned = Tensor._from_numpy_array(host)
    _PINNED_STORAGES[id(pinned._data.storage)] = pinned._data.storage
    return pinned.requires_grad_(self.requires_grad) if self.requires_grad else pinned


def pin_batch(batch: Any, device: Optional[Any] = None) -> Any:
    """``batch`` with every tensor in it pinned (lists, tuples, dicts and named tuples kept)."""
    if isinstance(batch, Tensor):
        return pin_memory(batch)
    if isinstance(batch, dict):
        return type(batch)({key: pin_batch(value) for key, value in batch.items()})
    if isinstance(batch, tuple) and hasattr(batch, "_fields"):
        return type(batch)(*(pin_batch(value) for value in batch))
    if isinstance(batch, (list, tuple)):
        return type(batch)(pin_batch(value) for value in batch)
    return batch


add_tensor_methods({"pin_memory": pin_memory, "is_pinned": is_pinned})

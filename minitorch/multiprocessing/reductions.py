"""How tensors travel between processes through ``minitorch.multiprocessing``: as shared memory.

:func:`init_reductions` registers :func:`reduce_tensor` with multiprocessing's
``ForkingPickler``, what queues, pipes and the ``spawn`` and ``forkserver`` start methods
pickle with. A CPU tensor sent that way is first moved into shared memory in the sender
(``share_memory_``, as PyTorch does) and pickles as its segment's descriptor plus its view
(shape, strides, offset); the receiver maps the same memory, so a write on either side shows on
the other. Ordinary ``pickle`` and ``minitorch.save`` are untouched: they write the values.
"""

from __future__ import annotations

import weakref
from multiprocessing.reduction import DupFd, ForkingPickler
from typing import Any, Callable

import numpy as np

from .. import shared_memory
from ..nn.parameter import Parameter
from ..ops.shared_memory import share_memory_
from ..tensor import Tensor
from ..tensor_data import TensorData

#: PyTorch's refusal to send a tensor that autograd would have to follow into another process
NON_LEAF_ERROR = (
    "Cowardly refusing to serialize non-leaf tensor which requires_grad, since autograd does not support "
    "crossing process boundaries.  If you just want to transfer the data, call detach() on the tensor before "
    "serializing (e.g., putting it on the queue)."
)
CUDA_ERROR = ("minitorch cannot send a CUDA tensor to another process (PyTorch shares it through CUDA IPC): "
              "send tensor.cpu(), which travels as shared memory")

#: storages this process rebuilt, by segment, byte offset, dtype, length and stride: one array per storage,
#: so tensors received over one storage stay views of one another
_STORAGES: "weakref.WeakValueDictionary[tuple[Any, ...], np.ndarray]" = weakref.WeakValueDictionary()


def _rebuilt(cls: type, data: TensorData, requires_grad: bool) -> Tensor:
    tensor = Tensor._make(data)
    if issubclass(cls, Parameter):
        return cls(tensor, requires_grad=requires_grad)
    return tensor.requires_grad_(requires_grad) if requires_grad else tensor


def rebuild_tensor(cls: type, handle: Any, nbytes: int, offset: int, dtype: np.dtype, count: int, stride: int,
                   shape: tuple[int, ...], strides: tuple[int, ...], storage_offset: int, requires_grad: bool) -> Tensor:
    """The receiving side of :func:`reduce_tensor`: the sender's segment mapped here, the same view over it."""
    mapping = shared_memory.attach(handle.detach(), nbytes)
    key = (shared_memory.mapped_segment(mapping).key, offset, np.dtype(dtype).str, count, stride)
    storage = _STORAGES.get(key)
    if storage is None:
        storage = np.ndarray((count,), dtype, buffer=mapping, offset=offset, strides=(stride,))
        _STORAGES[key] = storage
    return _rebuilt(cls, TensorData(storage, shape, strides, storage_offset), requires_grad)


def rebuild_meta_tensor(cls: type, shape: tuple[int, ...], dtype: Any, requires_grad: bool) -> Tensor:
    """A meta tensor carries no values: the receiver makes one of the same shape and dtype."""
    from ..creation import empty

    made = empty(shape, dtype=dtype, device="meta")
    return cls(made, requires_grad=requires_grad) if issubclass(cls, Parameter) else made.requires_grad_(requires_grad)


def reduce_tensor(tensor: Tensor) -> tuple[Callable[..., Tensor], tuple[Any, ...]]:
    """A tensor as its shared segment's descriptor and its view (moved into shared memory first)."""
    if tensor.requires_grad and not tensor.is_leaf:
        raise RuntimeError(NON_LEAF_ERROR)
    if tensor.is_cuda:
        raise RuntimeError(CUDA_ERROR)
    if tensor.is_meta:
        return rebuild_meta_tensor, (type(tensor), tuple(tensor.shape), tensor.dtype, tensor.requires_grad)
    share_memory_(tensor)
    data = tensor._data
    storage = data.storage
    segment = shared_memory.segment_of(storage)
    if segment is None:  # share_memory_ just put it in one
        raise RuntimeError(f"tensor of shape {list(data.shape)} is not in shared memory after share_memory_()")
    return rebuild_tensor, (type(tensor), DupFd(segment.fd), segment.nbytes, shared_memory.byte_offset(storage, segment),
                            storage.dtype, storage.size, storage.strides[0], data.shape, data.strides, data.offset,
                            tensor.requires_grad)


def init_reductions() -> None:
    """Send tensors and parameters through multiprocessing as shared memory (PyTorch's classes)."""
    ForkingPickler.register(Tensor, reduce_tensor)
    ForkingPickler.register(Parameter, reduce_tensor)

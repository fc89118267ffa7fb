"""``Tensor.share_memory_()`` and ``Tensor.is_shared()``: a storage moved into shared memory.

:mod:`minitorch.shared_memory` says how a storage is moved (its views follow it) and how long
a segment lives; ``minitorch.multiprocessing`` hands shared tensors to other processes.
"""

from __future__ import annotations

from typing import Iterable

from .. import shared_memory
from ..tensor import Tensor, add_tensor_methods

#: PyTorch's error for a tensor without host memory to share
META_ERROR = "_share_fd_: only available on CPU"


def share_tensors(tensors: Iterable[Tensor]) -> None:
    """Move the storage of each of ``tensors`` into shared memory, in place (one search for
    the views of all of them); CUDA tensors are left as they are, as PyTorch leaves them."""
    datas = []
    for tensor in tensors:
        if tensor.is_meta:
            raise RuntimeError(META_ERROR)
        if not tensor.is_cuda:
            datas.append(tensor._data)
    shared_memory.share_storages(datas)


def share_memory_(self: Tensor) -> Tensor:
    """Move this tensor's storage into shared memory, in place, and return this tensor.

    Values, dtype, shape and strides are kept and every view of the storage follows it. A no-op
    when the storage already is shared, and for CUDA tensors."""
    share_tensors([self])
    return self


def is_shared(self: Tensor) -> bool:
    """Whether this tensor's storage is in shared memory (always true of CUDA tensors, as PyTorch's)."""
    if self.is_cuda:
        return True
    if self.is_meta:
        return False
    return shared_memory.is_shared(self._data.storage)


add_tensor_methods({"share_memory_": share_memory_, "is_shared": is_shared})

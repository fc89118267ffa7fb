"""The ``meta`` device: tensors with a shape, a dtype and strides but no values.

A meta tensor's storage records how many elements it would hold and allocates nothing, and
this backend's kernels do nothing: an op on meta tensors still computes its result's shape
(the dispatch layer does that before it calls a kernel), so ``nn.Linear(4096, 4096,
device='meta')`` costs no memory and a model can be described, moved to ``'meta'`` and
later given real storage by ``Module.to_empty(device='cpu')``. Reading values (``item``,
``numpy``, ``tolist``, a copy to another device) raises, as PyTorch's "no data" error.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from .. import dtypes
from ..tensor_data import TensorData

NO_DATA = "Cannot copy out of meta tensor; no data!"


class MetaStorage:
    """A length and a dtype standing in for a 1-D array; it holds no elements."""

    __slots__ = ("dtype", "_length")

    def __init__(self, length: int, dtype: np.dtype) -> None:
        self.dtype = np.dtype(dtype)
        self._length = int(length)

    def __len__(self) -> int:
        return self._length

    @property
    def itemsize(self) -> int:
        return self.dtype.itemsize

    @property
    def nbytes(self) -> int:
        return self._length * self.dtype.itemsize

    def __getitem__(self, key: Any) -> Any:
        raise NotImplementedError(NO_DATA)

    def __array__(self, dtype: Any = None, copy: Optional[bool] = None) -> np.ndarray:
        raise NotImplementedError(NO_DATA)


class MetaBackend:
    """Storage without memory and kernels without work (see the module's docstring)."""

    name = "meta"

    # ---- storage and transfers ----

    def empty(self, size: int, dtype: dtypes.dtype) -> MetaStorage:
        return MetaStorage(size, dtype.numpy)

    def upload(self, array: np.ndarray) -> MetaStorage:
        """From the host: only the array's size and dtype arrive."""
        return MetaStorage(np.size(array), np.asarray(array).dtype)

    def download(self, td: TensorData) -> np.ndarray:
        raise NotImplementedError(NO_DATA)

    # ---- the kernels: the caller has made ``out`` of the right shape; there is nothing to fill ----

    def map(self, op: str, a: TensorData, out: TensorData) -> None:
        """Nothing to compute."""

    def zip(self, op: str, a: TensorData, b: TensorData, out: TensorData) -> None:
        """Nothing to compute."""

    def reduce(self, op: str, a: TensorData, dim: int, out: TensorData) -> None:
        """Nothing to compute."""

    def arg_reduce(self, op: str, a: TensorData, dim: int, out: TensorData) -> None:
        """Nothing to compute."""

    def matmul(self, a: TensorData, b: TensorData, out: TensorData) -> None:
        """Nothing to compute."""

    def accumulate(self, src: TensorData, out: TensorData) -> None:
        """Nothing to compute."""

    def gather(self, a: TensorData, dim: int, index: TensorData, out: TensorData) -> None:
        """Nothing to compute."""

    def scatter_add(self, src: TensorData, dim: int, index: TensorData, out: TensorData) -> None:
        """Nothing to compute."""

    def log_softmax(self, a: TensorData, out: TensorData) -> None:
        """Nothing to compute."""

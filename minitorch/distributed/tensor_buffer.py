"""The memory MPI reads and writes for a tensor.

A contiguous CPU tensor is handed to MPI as a NumPy view of its own storage: no copy. A
non-contiguous or CUDA tensor is staged through a contiguous host array, copied back into
the tensor (and onto its device) when the operation completes.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from ..creation import from_numpy
from ..tensor import Tensor


class HostBuffer:
    """``array``: what MPI sees of ``tensor``; :meth:`commit` makes what MPI wrote into it the tensor's values."""

    def __init__(self, tensor: Tensor) -> None:
        self.tensor = tensor
        self.staged = tensor.is_cuda or not tensor.is_contiguous()
        view = tensor.detach()._host_numpy()
        self.array: np.ndarray = np.ascontiguousarray(view) if self.staged else view

    def commit(self) -> None:
        """After MPI wrote into :attr:`array`: copy it into a staged tensor; count the write in its version."""
        if self.staged:
            self.tensor._write(from_numpy(self.array))
        self.tensor._bump_version()


def check_single_tensor(value: object, name: str) -> Tensor:
    """PyTorch's check that the argument ``name`` is one tensor."""
    if not isinstance(value, Tensor):
        raise TypeError(f"Invalid function argument. Expected parameter `{name}` of type torch.Tensor but got "
                        f"{type(value)} instead.")
    return value


def check_tensor_list(value: object, name: str) -> list[Tensor]:
    """PyTorch's check that the argument ``name`` is a list of tensors."""
    if not isinstance(value, list) or not all(isinstance(item, Tensor) for item in value):
        raise TypeError(f"Invalid function argument. Expected parameter `{name}` of type List[torch.Tensor] but got "
                        f"{type(value)} instead.")
    return value


def check_same_dtype(tensors: Sequence[Tensor]) -> None:
    """PyTorch's refusal of a collective over tensors of different dtypes."""
    for tensor in tensors[1:]:
        if tensor.dtype != tensors[0].dtype:
            raise ValueError(f"Invalid usage of tensors with different dtypes. Found {tensors[0].dtype} and "
                             f"{tensor.dtype}")


def check_same_numel(outputs: Sequence[Tensor], tensor: Tensor, outputs_name: str, world_size: int) -> None:
    """A list of ``world_size`` tensors, each with ``tensor``'s number of elements (one per rank)."""
    if len(outputs) != world_size:
        raise ValueError(f"{outputs_name} must hold one tensor per rank: {world_size} tensors, got {len(outputs)}")
    sizes = [item.numel() for item in outputs]
    if any(size != tensor.numel() for size in sizes):
        raise ValueError(f"every tensor in {outputs_name} must have {tensor.numel()} elements (tensor's shape "
                         f"{list(tensor.shape)}), got {sizes}")


def gathered(tensors: Sequence[Tensor]) -> np.ndarray:
    """The tensors' values one after the other in one contiguous host array (what MPI sends from a list)."""
    return np.concatenate([np.ascontiguousarray(item.detach()._host_numpy()).reshape(-1) for item in tensors])


def spread(array: np.ndarray, tensors: Sequence[Tensor]) -> None:
    """Copy consecutive pieces of ``array`` into ``tensors`` (each gets as many values as it has)."""
    start = 0
    for item in tensors:
        piece = array[start:start + item.numel()].reshape(tuple(item.shape))
        item._write(from_numpy(piece))
        item._bump_version()
        start += item.numel()

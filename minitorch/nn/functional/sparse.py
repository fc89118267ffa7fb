r"""Lookups by integer index: embedding rows and one-hot vectors.

An embedding is a table :math:`W` of shape ``(num_embeddings, embedding_dim)``; looking up
index :math:`i` returns row :math:`W_i`. It is a gather along dimension 0, so its backward
adds each output row's gradient into the row it came from (rows used twice get both).
"""

from __future__ import annotations

from typing import Optional

from ... import dtypes
from ...creation import arange
from ...functions.indexing import Gather
from ...tensor import Tensor, where


def embedding(
    input: Tensor,  # noqa: A002 - PyTorch's name
    weight: Tensor,
    padding_idx: Optional[int] = None,
    max_norm: Optional[float] = None,
    norm_type: float = 2.0,
    scale_grad_by_freq: bool = False,
    sparse: bool = False,
) -> Tensor:
    """Rows of ``weight`` at the indices in ``input`` (any shape): ``input.shape + (embedding_dim,)``.

    The row at ``padding_idx`` gets no gradient.
    """
    if input.dtype not in (dtypes.int64, dtypes.int32):
        raise RuntimeError(
            "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; "
            f"but got {input.type_name()} instead (while checking arguments for embedding)"
        )
    if max_norm is not None or scale_grad_by_freq or sparse:
        raise NotImplementedError("embedding: max_norm, scale_grad_by_freq and sparse are not supported in minitorch")
    num, dim = weight.shape
    if padding_idx is not None and padding_idx < 0:
        padding_idx += num
    # BEGIN SOLUTION 5.7
    flat = input.reshape(-1).long()
    if flat.numel() and (int(flat.min().item()) < 0 or int(flat.max().item()) >= num):
        raise IndexError("index out of range in self")
    rows = Gather.apply(weight, 0, flat.view(-1, 1).expand(flat.numel(), dim))
    if padding_idx is not None:
        keep = (flat != padding_idx).view(-1, 1)
        rows = where(keep, rows, rows.detach())
    return rows.view(*input.shape, dim)
    # END SOLUTION


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """int64 tensor of ``tensor.shape + (num_classes,)``: 1 at each value's position, else 0."""
    if tensor.dtype is not dtypes.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if tensor.numel() and int(tensor.min().item()) < 0:
        raise RuntimeError("Class values must be non-negative.")
    if num_classes == -1:
        if tensor.numel() == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(tensor.max().item()) + 1
    elif tensor.numel() and int(tensor.max().item()) >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    classes = arange(num_classes, device=tensor.device)
    return (tensor.unsqueeze(-1) == classes).long()

r"""Lookups by integer index: embedding rows and one-hot vectors.

An embedding is a table :math:`W` of shape ``(num_embeddings, embedding_dim)``; looking up
index :math:`i` returns row :math:`W_i`. It is a gather along dimension 0, so its backward
adds each output row's gradient into the row it came from (rows used twice get both).
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from ... import dtypes
from ...autograd.grad_mode import no_grad
from ... import creation
from ...autograd.function import Context, Function
from ...creation import arange, zeros_like
from ...dispatch import gather_op
from ...ops.indexing import scatter_into_zeros
from ...index_checks import INDEX_DTYPES, first_out_of_range
from ...tensor import Tensor, where

#: added to a row's norm before ``max_norm`` is divided by it, as PyTorch does
RENORM_EPS = 1e-7


def padding_index(padding_idx: Optional[int], num_embeddings: int) -> Optional[int]:
    """``padding_idx`` as a row of a table of ``num_embeddings`` rows (negative counts from the end).

    Raises AssertionError, as PyTorch, for a row outside ``[-num_embeddings, num_embeddings)``.
    """
    if padding_idx is None:
        return None
    if not -num_embeddings <= padding_idx < num_embeddings:
        raise AssertionError("Padding_idx must be within num_embeddings")
    return padding_idx % num_embeddings


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

    The row at ``padding_idx`` gets no gradient. With ``max_norm`` the looked-up rows are first
    renormalised in place (see :func:`embedding_renorm_`).
    """
    if padding_idx is not None and weight.dim() > 0:
        padding_idx = padding_index(padding_idx, weight.shape[0])
    if weight.dim() != 2:
        raise RuntimeError("'weight' must be 2-D")
    if input.dtype not in INDEX_DTYPES:
        raise RuntimeError(
            "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; "
            f"but got minitorch.{input.type_name()} instead (while checking arguments for embedding)"
        )
    if scale_grad_by_freq or sparse:
        raise NotImplementedError("embedding: scale_grad_by_freq and sparse are not supported in minitorch")
    num = weight.shape[0]
    # BEGIN SOLUTION 5.7
    if first_out_of_range(input, num) is not None:
        raise IndexError("index out of range in self")
    if max_norm is not None:
        embedding_renorm_(weight, input, max_norm, norm_type)
    return Embedding.apply(weight, input, padding_idx)
    # END SOLUTION


class Embedding(Function):
    """Rows of the table at the indices, as one node (PyTorch's ``EmbeddingBackward0``): the
    gradient of each looked-up row is added back into its row, except into ``padding_idx``'s."""

    grad_fn_name = "EmbeddingBackward0"

    @staticmethod
    def forward(ctx: Context, weight: Tensor, indices: Tensor, padding_idx: Optional[int]) -> Tensor:
        # BEGIN SOLUTION 5.7
        flat = indices.reshape(-1)
        ctx.save_for_backward(flat)  # PyTorch's node keeps the indices only
        ctx.weight_shape, ctx.padding_idx = weight.shape, padding_idx
        rows = gather_op(weight, 0, flat.view(-1, 1).expand(flat.numel(), weight.shape[1]))
        return rows.view(*indices.shape, weight.shape[1])
        # END SOLUTION

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Tensor, None, None]:
        # BEGIN SOLUTION 5.7
        (flat,) = ctx.saved_tensors
        dim = ctx.weight_shape[1]
        rows = grad.reshape(flat.numel(), dim)
        if ctx.padding_idx is not None:
            rows = where((flat != ctx.padding_idx).view(-1, 1), rows, zeros_like(rows))
        index = flat.view(-1, 1).expand(flat.numel(), dim)
        grad_weight = scatter_into_zeros(ctx.weight_shape, 0, index, rows)
        # END SOLUTION
        if grad_weight.grad_fn is not None:  # create_graph: PyTorch's node for the gradient's own graph
            grad_weight.grad_fn.rename("EmbeddingDenseBackwardBackward0")
        return grad_weight, None, None


def embedding_renorm_(weight: Tensor, input: Tensor, max_norm: float, norm_type: float = 2.0) -> Tensor:  # noqa: A002
    r"""Shrink, in place and unrecorded, each row of ``weight`` that ``input`` looks up and whose
    ``norm_type``-norm :math:`n` exceeds ``max_norm``: the row is scaled by :math:`m / (n + 10^{-7})`."""
    rows = np.unique(np.asarray(input.detach().to("cpu").numpy()))
    if rows.size == 0:
        return weight
    index = creation.tensor(rows.astype(np.int64), device=weight.device)
    with no_grad():
        picked = weight[index]
        norms = picked.norm(norm_type, 1, keepdim=True)
        weight[index] = where(norms > max_norm, picked * (max_norm / (norms + RENORM_EPS)), picked)
    return weight


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """int64 tensor of ``tensor.shape + (num_classes,)``: 1 at each value's position, else 0.

    The values are read on the host once (the checks need them); on the cpu the result is
    written there too, where comparing with every class would be four ops."""
    if tensor.dtype is not dtypes.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    values = tensor.detach().numpy(force=True)
    if values.size and values.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    if values.size == 0 and num_classes <= 0:
        raise RuntimeError("Can not infer total number of classes from empty tensor.")
    if num_classes == -1:
        num_classes = int(values.max()) + 1
    elif values.size and values.max() >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    if tensor.device.type != "cpu":  # on the device: only the class numbers cross
        classes = arange(num_classes, device=tensor.device)
        return (tensor.unsqueeze(-1) == classes).long()
    hot = np.zeros(values.shape + (num_classes,), np.int64)
    np.put_along_axis(hot, values[..., np.newaxis], 1, axis=-1)
    return creation.from_numpy(hot)
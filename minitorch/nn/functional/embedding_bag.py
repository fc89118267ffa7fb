r"""``embedding_bag``: the sum, mean or max of each bag of embedding rows, without the rows in between.

A bag is a run of indices: a row of a 2-D ``input``, or for a 1-D ``input`` the stretch from
one of ``offsets`` to the next. With bag :math:`B` and weights :math:`s_i` (1 unless
``per_sample_weights``, allowed for ``'sum'`` only):

.. math:: \mathrm{sum} = \sum_{i \in B} s_i W_{x_i}, \qquad
   \mathrm{mean} = \frac{1}{|B|} \sum_{i \in B} W_{x_i}, \qquad
   \mathrm{max} = \max_{i \in B} W_{x_i} \text{ (per column)}

Indices equal to ``padding_idx`` are left out of their bag (and of its count); an empty bag
gives zeros. Here the bags are laid out as a padded ``(bags, longest, dim)`` lookup with a
mask, so the sum, mean and max are ordinary differentiable reductions.
"""

from __future__ import annotations

from functools import partial
from typing import Optional

import numpy as np

from ...autograd.composite import composite
from ...creation import tensor, zeros
from ...index_checks import INDEX_DTYPES
from ...tensor import Tensor, where
from .sparse import embedding, embedding_renorm_

MODES = ("sum", "mean", "max")


def _host_indices(values: Tensor) -> np.ndarray:
    return np.asarray(values.detach().to("cpu").numpy(), dtype=np.int64).reshape(-1)


def _check_index_dtype(values: Tensor, argument: str) -> None:
    if values.dtype not in INDEX_DTYPES:
        raise RuntimeError(
            f"Expected tensor for argument {argument} to have one of the following scalar types: Long, Int; "
            f"but got minitorch.{values.type_name()} instead (while checking arguments for embedding_bag)"
        )


def _bag_bounds(offsets: np.ndarray, count: int, include_last_offset: bool) -> tuple[np.ndarray, np.ndarray]:
    """Each bag's ``[start, end)`` in the flat input, after PyTorch's checks of ``offsets``."""
    if offsets.size and offsets[0] != 0:
        raise RuntimeError("offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from "
                           f"position 0. However, got {offsets[0]}")
    if offsets.size and offsets[-1] > count:
        raise RuntimeError(f"offsets[-1] can not be greater than input's length {count} but got offsets[-1] of "
                           f"{offsets[-1]}")
    if np.any(np.diff(offsets) < 0):
        raise RuntimeError(f"offsets must be non-decreasing, but got {offsets.tolist()}")
    if include_last_offset:
        return offsets[:-1], offsets[1:]
    return offsets, np.append(offsets[1:], count).astype(np.int64)


def embedding_bag(
    input: Tensor,  # noqa: A002 - PyTorch's name
    weight: Tensor,
    offsets: Optional[Tensor] = None,
    max_norm: Optional[float] = None,
    norm_type: float = 2,
    scale_grad_by_freq: bool = False,
    mode: str = "mean",
    sparse: bool = False,
    per_sample_weights: Optional[Tensor] = None,
    include_last_offset: bool = False,
    padding_idx: Optional[int] = None,
) -> Tensor:
    """The ``mode`` reduction of each bag of rows of ``weight``: a ``(bags, embedding_dim)`` tensor."""
    if weight.dim() != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.dim()}")
    if per_sample_weights is not None and input.size() != per_sample_weights.size():
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is not None, then it "
                         f"must have the same shape as the input ({input.shape})")
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                             f"fixed length sequences. However, found offsets of type {type(offsets)}")
        starts = np.arange(0, input.numel(), max(input.shape[1], 1), dtype=np.int64)[: input.shape[0]]
        ends = starts + input.shape[1]
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
        _check_index_dtype(offsets, "#2 'offsets'")
        starts, ends = _bag_bounds(_host_indices(offsets), input.numel(), include_last_offset)
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}")
    if mode not in MODES:
        raise ValueError("mode has to be one of sum, mean or max")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(
            "embedding_bag: per_sample_weights was not None. per_sample_weights is only supported for mode='sum' "
            f"(got mode='{mode}'). Please open a feature request on GitHub.")
    if per_sample_weights is not None and per_sample_weights.dtype is not weight.dtype:
        raise RuntimeError(
            "Expected tensor for argument #1 'weight' to have the same type as tensor for argument #1 "
            f"'per_sample_weights'; but type minitorch.{weight.type_name()} does not equal "
            f"minitorch.{per_sample_weights.type_name()} (while checking arguments for embedding_bag)")
    if scale_grad_by_freq or sparse:
        raise NotImplementedError("embedding_bag: scale_grad_by_freq and sparse are not supported in minitorch")
    _check_index_dtype(input, "#1 'indices'")
    num, dim = weight.shape
    if padding_idx is not None:
        if not -num <= padding_idx < num:
            raise RuntimeError(f"padding_idx must be within the number of embeddings, -{num} through {num - 1}, "
                               f"but got {padding_idx}")
        padding_idx %= num
    indices = _host_indices(input)
    outside = np.flatnonzero((indices < 0) | (indices >= num))
    if outside.size:
        k = int(outside[0])
        raise RuntimeError(f"Index {k} of input takes value {indices[k]} which is not in the valid range [0, {num})")
    if max_norm is not None:
        embedding_renorm_(weight, input, max_norm, norm_type)
    # PyTorch's node keeps the (flat) indices, and each of weight and per_sample_weights for the other's gradient
    weighted = per_sample_weights is not None and per_sample_weights.requires_grad
    saves = (input.reshape(-1), offsets, weight if weighted else None, per_sample_weights if weight.requires_grad else None)
    return composite("EmbeddingBagBackward0", partial(_reduce_bags, indices=indices, starts=starts, ends=ends,
                                                      mode=mode, padding_idx=padding_idx), weight, per_sample_weights,
                     saves=saves)


def _reduce_bags(weight: Tensor, per_sample_weights: Optional[Tensor], indices: np.ndarray, starts: np.ndarray,
                 ends: np.ndarray, mode: str, padding_idx: Optional[int]) -> Tensor:
    bags, dim = len(starts), weight.shape[1]
    sizes = ends - starts
    longest = int(sizes.max()) if bags else 0
    if longest == 0:
        return zeros((bags, dim), dtype=weight.dtype, device=weight.device)
    slot = np.arange(longest, dtype=np.int64)
    inside = slot[None, :] < sizes[:, None]
    position = np.where(inside, starts[:, None] + slot[None, :], 0)
    kept = inside & (indices[position] != (-1 if padding_idx is None else padding_idx))
    device = weight.device
    lookup = tensor(np.where(kept, indices[position], 0), device=device)
    mask = tensor(kept, device=device).unsqueeze(-1)
    rows = embedding(lookup, weight)  # (bags, longest, dim)
    if mode == "max":
        top = where(mask, rows, float("-inf")).amax(1)
        return where(tensor(kept.any(1), device=device).unsqueeze(-1), top, 0.0)
    if per_sample_weights is not None:
        scale = per_sample_weights.reshape(-1)[tensor(position.reshape(-1), device=device)].view(bags, longest, 1)
        rows = rows * scale
    total = where(mask, rows, 0.0).sum(1)
    if mode == "sum":
        return total
    counts = np.maximum(kept.sum(1), 1).astype(np.float64)
    return total / tensor(counts, dtype=weight.dtype, device=device).unsqueeze(-1)


__all__ = ["embedding_bag"]

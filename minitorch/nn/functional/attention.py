r"""Scaled dot-product attention and the multi-head attention built on it.

.. math:: \mathrm{Attention}(Q, K, V) = \mathrm{softmax}\Big(\frac{Q K^\top}{\sqrt{d}} + M\Big) V

Each query's row of scores is turned into weights over the keys by a softmax; the mask
:math:`M` is :math:`-\infty` where a query may not look (the future, for a causal mask;
padding keys) and 0 elsewhere, or any float bias.
"""

from __future__ import annotations

import math
from typing import Optional

from ... import creation, dtypes
from ...tensor import Tensor, where
from ._utils import shape_list
from .activation import softmax
from .dropout import dropout
from .linear import linear


def causal_mask(queries: int, keys: int, like: Tensor) -> Tensor:
    """Boolean ``(queries, keys)``: True where key ``j`` is not after query ``i`` (``j <= i``)."""
    rows = creation.arange(queries, device=like.device).view(-1, 1)
    cols = creation.arange(keys, device=like.device).view(1, -1)
    return cols <= rows


def _as_bias(mask: Tensor, like: Tensor, allowed_when_true: bool) -> Tensor:
    """A float mask as an additive bias: boolean masks become 0 / -inf."""
    if mask.dtype is dtypes.bool_:
        keep = mask if allowed_when_true else mask.logical_not()
        return where(keep, 0.0, -math.inf).to(like.dtype)
    return mask.to(like.dtype)


def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor, attn_mask: Optional[Tensor] = None,
                                 dropout_p: float = 0.0, is_causal: bool = False, scale: Optional[float] = None,
                                 enable_gqa: bool = False) -> Tensor:
    r"""Attention of ``query`` ``(..., L, E)`` over ``key`` ``(..., S, E)`` and ``value`` ``(..., S, Ev)``.

    A boolean ``attn_mask`` is True where attention is *allowed*; a float one is added to
    the scores. ``is_causal`` applies the lower-triangular mask. Dropout is applied to the
    weights when ``dropout_p > 0``.
    """
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True")
    if query.shape[-1] != key.shape[-1]:
        raise RuntimeError(
            f"Expected query and key to have the same embedding size, got query {shape_list(query.shape)} and key {shape_list(key.shape)}"
        )
    # BEGIN SOLUTION 5.9
    factor = 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale
    scores = (query @ key.transpose(-2, -1)) * factor
    if is_causal:
        scores = scores + _as_bias(causal_mask(query.shape[-2], key.shape[-2], query), scores, True)
    elif attn_mask is not None:
        scores = scores + _as_bias(attn_mask, scores, True)
    weights = softmax(scores, -1)
    if dropout_p > 0.0:
        weights = dropout(weights, dropout_p, True)
    return weights @ value
    # END SOLUTION


def multi_head_attention(
    query: Tensor, key: Tensor, value: Tensor, num_heads: int,
    q_weight: Tensor, k_weight: Tensor, v_weight: Tensor,
    q_bias: Optional[Tensor], k_bias: Optional[Tensor], v_bias: Optional[Tensor],
    out_weight: Tensor, out_bias: Optional[Tensor],
    key_padding_mask: Optional[Tensor] = None, need_weights: bool = True, attn_mask: Optional[Tensor] = None,
    average_attn_weights: bool = True, dropout_p: float = 0.0, training: bool = True,
) -> tuple[Tensor, Optional[Tensor]]:
    r"""Multi-head attention on batch-first ``(N, L, E)`` query and ``(N, S, E_k)``/``(N, S, E_v)`` key/value.

    Project, split ``E`` into ``num_heads`` heads of ``E / num_heads``, attend per head, join
    the heads and project again. Masks follow ``nn.MultiheadAttention``: boolean True means
    *masked out*; ``attn_mask`` is ``(L, S)`` or ``(N * num_heads, L, S)``, ``key_padding_mask``
    is ``(N, S)``. Returns the output and (if ``need_weights``) the attention weights,
    ``(N, L, S)`` averaged over heads or ``(N, num_heads, L, S)``.
    """
    batch, length, embed = query.shape
    source = key.shape[1]
    head_dim = embed // num_heads
    # BEGIN SOLUTION 5.9
    q = linear(query, q_weight, q_bias).view(batch, length, num_heads, head_dim).transpose(1, 2)
    k = linear(key, k_weight, k_bias).view(batch, source, num_heads, head_dim).transpose(1, 2)
    v = linear(value, v_weight, v_bias).view(batch, source, num_heads, head_dim).transpose(1, 2)
    scores = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(head_dim))  # (N, H, L, S)
    if attn_mask is not None:
        if attn_mask.dim() == 2:
            if tuple(attn_mask.shape) != (length, source):
                raise RuntimeError(
                    f"The shape of the 2D attn_mask is {attn_mask.shape}, but should be {(length, source)}."
                )
            bias = _as_bias(attn_mask, scores, False)
        else:
            if tuple(attn_mask.shape) != (batch * num_heads, length, source):
                raise RuntimeError(
                    f"The shape of the 3D attn_mask is {attn_mask.shape}, but should be {(batch * num_heads, length, source)}."
                )
            bias = _as_bias(attn_mask, scores, False).view(batch, num_heads, length, source)
        scores = scores + bias
    if key_padding_mask is not None:
        if tuple(key_padding_mask.shape) != (batch, source):
            raise AssertionError(
                f"expecting key_padding_mask shape of {(batch, source)}, but got {tuple(key_padding_mask.shape)}"
            )
        scores = scores + _as_bias(key_padding_mask, scores, False).view(batch, 1, 1, source)
    weights = softmax(scores, -1)
    attended = dropout(weights, dropout_p, training) if dropout_p > 0.0 else weights
    heads = (attended @ v).transpose(1, 2).reshape(batch, length, embed)
    out = linear(heads, out_weight, out_bias)
    # END SOLUTION
    if not need_weights:
        return out, None
    return out, weights.mean(1) if average_attn_weights else weights

r"""Scaled dot-product attention and the multi-head attention built on it.

.. math:: \mathrm{Attention}(Q, K, V) = \mathrm{softmax}\Big(\frac{Q K^\top}{\sqrt{d}} + M\Big) V

Each query's row of scores is turned into weights over the keys by a softmax; the mask
:math:`M` is :math:`-\infty` where a query may not look (the future, for a causal mask;
padding keys) and 0 elsewhere, or any float bias.
"""

from __future__ import annotations

import math
import warnings
from typing import Any, Optional

from ... import creation, dtypes
from ...tensor import Tensor, where
from ._utils import shape_list
from .activation import softmax
from .dropout import dropout
from .linear import linear
from .padding import pad


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


def canonical_mask(mask: Optional[Tensor], mask_name: str, target_type: Any, other: Optional[Tensor] = None,
                   other_name: str = "") -> Optional[Tensor]:
    """``mask`` as an additive float mask of ``target_type`` (boolean True, *masked out*, becomes -inf).

    Only boolean and floating masks are accepted; a mask whose dtype differs from the ``other``
    mask given with it works but warns, as PyTorch does.
    """
    if mask is None:
        return None
    if mask.dtype is not dtypes.bool_ and not mask.dtype.is_floating_point:
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if other is not None and other.dtype != mask.dtype:
        warnings.warn(f"Support for mismatched {mask_name} and {other_name} is deprecated. Use same type for both instead.",
                      stacklevel=2)
    return where(mask, -math.inf, 0.0).to(target_type) if mask.dtype is dtypes.bool_ else mask


def _grouped_query_heads(query: Tensor, key: Tensor, value: Tensor) -> tuple[Tensor, Tensor]:
    """Key and value with their heads (dim -3) repeated to the query's, for ``enable_gqa``.

    Each of ``key``'s and ``value``'s head counts must divide the query's; head ``h`` of the
    query then attends with key/value head ``h // (query heads / their heads)``.
    """
    heads = query.size(-3)
    key_heads, value_heads = key.size(-3), value.size(-3)
    if heads % key_heads or heads % value_heads:
        raise RuntimeError("Number of heads in key and value must divide the number of heads in ")
    if key_heads != heads:
        key = key.repeat_interleave(heads // key_heads, -3)
    if value_heads != heads:
        value = value.repeat_interleave(heads // value_heads, -3)
    return key, value


def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor, attn_mask: Optional[Tensor] = None,
                                 dropout_p: float = 0.0, is_causal: bool = False, scale: Optional[float] = None,
                                 enable_gqa: bool = False) -> Tensor:
    r"""Attention of ``query`` ``(..., L, E)`` over ``key`` ``(..., S, E)`` and ``value`` ``(..., S, Ev)``.

    A boolean ``attn_mask`` is True where attention is *allowed*; a float one is added to
    the scores. ``is_causal`` applies the lower-triangular mask. Dropout is applied to the
    weights when ``dropout_p > 0``. With ``enable_gqa`` (grouped-query attention) ``key`` and
    ``value`` may have fewer heads (dim -3) than ``query``, each group of query heads sharing one.
    """
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True")
    if query.shape[-1] != key.shape[-1]:
        raise RuntimeError(
            f"Expected query and key to have the same embedding size, got query {shape_list(query.shape)} and key {shape_list(key.shape)}"
        )
    if enable_gqa:
        key, value = _grouped_query_heads(query, key, value)
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


def _extra_keys(k: Tensor, v: Tensor, bias_k: Optional[Tensor], bias_v: Optional[Tensor],
                add_zero_attn: bool) -> tuple[Tensor, Tensor]:
    """Per-head keys and values ``(N, H, S, D)`` with the learned bias position, then the zero one, appended."""
    batch, heads, _, head_dim = k.shape
    if bias_k is not None and bias_v is not None:
        per_head = (1, heads, 1, head_dim)
        k = creation.cat([k, bias_k.reshape(per_head).expand(batch, -1, -1, -1)], dim=2)
        v = creation.cat([v, bias_v.reshape(per_head).expand(batch, -1, -1, -1)], dim=2)
    if add_zero_attn:
        zeros = creation.zeros((batch, heads, 1, head_dim), dtype=k.dtype, device=k.device)
        k = creation.cat([k, zeros], dim=2)
        v = creation.cat([v, zeros], dim=2)
    return k, v


def multi_head_attention(
    query: Tensor, key: Tensor, value: Tensor, num_heads: int,
    q_weight: Tensor, k_weight: Tensor, v_weight: Tensor,
    q_bias: Optional[Tensor], k_bias: Optional[Tensor], v_bias: Optional[Tensor],
    out_weight: Tensor, out_bias: Optional[Tensor],
    key_padding_mask: Optional[Tensor] = None, need_weights: bool = True, attn_mask: Optional[Tensor] = None,
    average_attn_weights: bool = True, dropout_p: float = 0.0, training: bool = True,
    bias_k: Optional[Tensor] = None, bias_v: Optional[Tensor] = None, add_zero_attn: bool = False,
) -> tuple[Tensor, Optional[Tensor]]:
    r"""Multi-head attention on batch-first ``(N, L, E)`` query and ``(N, S, E_k)``/``(N, S, E_v)`` key/value.

    Project, split ``E`` into ``num_heads`` heads of ``E / num_heads``, attend per head, join
    the heads and project again. Masks follow ``nn.MultiheadAttention``: boolean True means
    *masked out*; ``attn_mask`` is ``(L, S)`` or ``(N * num_heads, L, S)``, ``key_padding_mask``
    is ``(N, S)``. Returns the output and (if ``need_weights``) the attention weights,
    ``(N, L, S)`` averaged over heads or ``(N, num_heads, L, S)``.

    ``bias_k``/``bias_v`` ``(1, 1, E)`` append one learned key and value to every sequence
    after the projection; ``add_zero_attn`` appends a key and value of zeros to every head.
    Both lengthen the source by one position that no mask hides, so a query whose keys are
    all masked still has somewhere to attend (``S`` grows to ``S + 1`` or ``S + 2``).
    """
    if (bias_k is None) != (bias_v is None):
        raise AssertionError("bias_k is set but bias_v is None" if bias_v is None else "bias_v is set but bias_k is None")
    batch, length, embed = query.shape
    source = key.shape[1]
    head_dim = embed // num_heads
    # BEGIN SOLUTION 5.9
    q = linear(query, q_weight, q_bias).view(batch, length, num_heads, head_dim).transpose(1, 2)
    k = linear(key, k_weight, k_bias).view(batch, source, num_heads, head_dim).transpose(1, 2)
    v = linear(value, v_weight, v_bias).view(batch, source, num_heads, head_dim).transpose(1, 2)
    k, v = _extra_keys(k, v, bias_k, bias_v, add_zero_attn)
    extra = k.shape[2] - source  # the appended positions, unmasked: masks get zero columns for them
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
        scores = scores + (pad(bias, (0, extra)) if extra else bias)
    if key_padding_mask is not None:
        if tuple(key_padding_mask.shape) != (batch, source):
            raise AssertionError(
                f"expecting key_padding_mask shape of {(batch, source)}, but got {tuple(key_padding_mask.shape)}"
            )
        bias = _as_bias(key_padding_mask, scores, False).view(batch, 1, 1, source)
        scores = scores + (pad(bias, (0, extra)) if extra else bias)
    weights = softmax(scores, -1)
    attended = dropout(weights, dropout_p, training) if dropout_p > 0.0 else weights
    heads = (attended @ v).transpose(1, 2).reshape(batch, length, embed)
    out = linear(heads, out_weight, out_bias)
    # END SOLUTION
    if not need_weights:
        return out, None
    return out, weights.mean(1) if average_attn_weights else weights

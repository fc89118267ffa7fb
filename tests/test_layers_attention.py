"""MultiheadAttention (5.9) against PyTorch with the same weights: batch_first and sequence-first,
unbatched input, boolean and float attn_mask, key_padding_mask, need_weights and
average_attn_weights, separate kdim/vdim projections; outputs and gradients."""

from __future__ import annotations

import numpy as np
import pytest
from layer_helpers import assert_close, assert_same_error

import minitorch
import minitorch.nn as nn

task = pytest.mark.task("5.9")
EMBED, HEADS = 8, 2


def pair(torch, **kwargs):
    torch.manual_seed(0)
    ref = torch.nn.MultiheadAttention(EMBED, HEADS, **kwargs).double()
    mine = nn.MultiheadAttention(EMBED, HEADS, **kwargs).double()
    mine.load_state_dict({k: minitorch.tensor(v.detach().numpy()) for k, v in ref.state_dict().items()})
    return mine, ref


CASES = {
    "batch_first": ({"batch_first": True}, {}),
    "seq_first": ({}, {}),
    "causal_bool_mask": ({"batch_first": True}, {"attn_mask": "causal"}),
    "float_mask_3d": ({"batch_first": True}, {"attn_mask": "float3d"}),
    "key_padding": ({"batch_first": True}, {"key_padding_mask": True}),
    "per_head_weights": ({"batch_first": True}, {"average_attn_weights": False}),
    "no_weights_no_bias": ({"batch_first": True, "bias": False}, {"need_weights": False}),
    "kdim_vdim": ({"batch_first": True, "kdim": 3, "vdim": 5}, {}),
}


@task
@pytest.mark.parametrize("case", sorted(CASES))
def test_multihead_attention_matches_torch(backend: str, torch_ref, case: str) -> None:
    init_kwargs, call = CASES[case]
    mine, ref = pair(torch_ref, **init_kwargs)
    rng = np.random.default_rng(1)
    n, lq, lk = 2, 3, 4
    first = (n, lq) if init_kwargs.get("batch_first") else (lq, n)
    key_first = (n, lk) if init_kwargs.get("batch_first") else (lk, n)
    q = rng.standard_normal(first + (EMBED,))
    k = rng.standard_normal(key_first + (init_kwargs.get("kdim", EMBED),))
    v = rng.standard_normal(key_first + (init_kwargs.get("vdim", EMBED),))
    extra_mine, extra_ref = {}, {}
    for key, value in call.items():
        if key == "attn_mask" and value == "causal":
            mask = np.triu(np.ones((lq, lk), dtype=bool), k=1)  # True: masked out
            extra_mine[key], extra_ref[key] = minitorch.tensor(mask), torch_ref.tensor(mask)
        elif key == "attn_mask":
            mask = rng.standard_normal((n * HEADS, lq, lk))
            extra_mine[key], extra_ref[key] = minitorch.tensor(mask), torch_ref.tensor(mask)
        elif key == "key_padding_mask":
            mask = np.array([[False, False, True, False], [False, True, True, False]])
            extra_mine[key], extra_ref[key] = minitorch.tensor(mask), torch_ref.tensor(mask)
        else:
            extra_mine[key] = extra_ref[key] = value
    leaves = [minitorch.tensor(a, requires_grad=True) for a in (q, k, v)]
    torch_leaves = [torch_ref.tensor(a, requires_grad=True) for a in (q, k, v)]
    out, weights = mine(*leaves, **extra_mine)
    expected, expected_weights = ref(*torch_leaves, **extra_ref)
    assert_close(out, expected)
    if expected_weights is None:
        assert weights is None
    else:
        assert_close(weights, expected_weights, what="attention weights")
    g = rng.standard_normal(tuple(expected.shape))
    (out * minitorch.tensor(g)).sum().backward()
    (expected * torch_ref.tensor(g)).sum().backward()
    for mine_leaf, ref_leaf, name in zip(leaves, torch_leaves, "qkv"):
        assert_close(mine_leaf.grad, ref_leaf.grad, what=f"gradient of {name}")
    for (key, p), (_, t) in zip(mine.named_parameters(), ref.named_parameters()):
        assert_close(p.grad, t.grad, what=f"gradient of {key}")


@task
def test_multihead_attention_unbatched_and_repr(torch_ref) -> None:
    mine, ref = pair(torch_ref)
    x = np.random.default_rng(2).standard_normal((3, EMBED))
    out, w = mine(*(minitorch.tensor(x),) * 3)
    expected, expected_w = ref(*(torch_ref.tensor(x),) * 3)
    assert_close(out, expected)
    assert_close(w, expected_w)
    assert repr(mine) == repr(ref)
    assert list(mine.state_dict()) == list(ref.state_dict())


@task
def test_multihead_attention_errors_match_torch(torch_ref) -> None:
    mine, ref = pair(torch_ref, batch_first=True)
    x, tx = minitorch.zeros(2, 3, EMBED), torch_ref.zeros(2, 3, EMBED, dtype=torch_ref.float64)
    assert_same_error(lambda: mine(x, x, x, is_causal=True), lambda: ref(tx, tx, tx, is_causal=True))

"""Embedding, one_hot and index lookups (5.7), padding (5.3) and scaled dot-product attention (5.9)
against PyTorch, with gradient checks."""

from __future__ import annotations

import numpy as np
import pytest
from gradcheck import gradcheck
from layer_helpers import assert_same_error, compare_with_torch, ours, values

import minitorch
import minitorch.nn.functional as F

lookups = pytest.mark.task("5.7")
padding = pytest.mark.task("5.3")
attention = pytest.mark.task("5.9")


@lookups
@pytest.mark.parametrize("padding_idx", [None, 2, -1])
def test_embedding_matches_torch(backend: str, torch_ref, padding_idx) -> None:
    weight = np.random.default_rng(0).standard_normal((5, 3))
    index = np.array([[0, 2, 4], [2, 2, 1]])
    compare_with_torch(
        torch_ref, lambda i, w: F.embedding(i, w, padding_idx), lambda i, w: torch_ref.nn.functional.embedding(i, w, padding_idx),
        [index, weight], grad=[1],
    )


@lookups
def test_embedding_gradcheck_and_errors(backend: str, torch_ref) -> None:
    w = ours(np.random.default_rng(1).standard_normal((4, 2)), grad=True)
    index = minitorch.tensor([3, 0, 3])
    gradcheck(lambda t: F.embedding(index, t), w)
    assert_same_error(
        lambda: F.embedding(minitorch.tensor([5]), minitorch.zeros(3, 4)),
        lambda: torch_ref.nn.functional.embedding(torch_ref.tensor([5]), torch_ref.zeros(3, 4)),
    )


@lookups
@pytest.mark.parametrize("num_classes", [-1, 6])
def test_one_hot_matches_torch(backend: str, torch_ref, num_classes: int) -> None:
    labels = np.array([[0, 3], [4, 1]])
    mine = F.one_hot(ours(labels), num_classes)
    ref = torch_ref.nn.functional.one_hot(torch_ref.tensor(labels), num_classes)
    assert mine.dtype is minitorch.int64
    np.testing.assert_array_equal(values(mine), ref.numpy())


@lookups
def test_one_hot_error_matches_torch(torch_ref) -> None:
    assert_same_error(
        lambda: F.one_hot(minitorch.tensor([1, 5]), 3), lambda: torch_ref.nn.functional.one_hot(torch_ref.tensor([1, 5]), 3)
    )


PAD_CASES = [
    ((1, 2), "constant", 0.0),
    ((1, 2, 0, 3), "constant", 1.5),
    ((2, 1, 1, 0), "reflect", None),
    ((2, 1, 1, 2), "replicate", None),
    ((1, 2, 2, 1), "circular", None),
    ((-1, 2), "constant", 0.0),
]


@padding
@pytest.mark.parametrize("pads,mode,value", PAD_CASES, ids=[f"{m}{p}" for p, m, _ in PAD_CASES])
def test_pad_matches_torch(backend: str, torch_ref, pads, mode, value) -> None:
    x = np.random.default_rng(2).standard_normal((1, 2, 3, 4))
    kwargs = {"mode": mode} if value is None else {"mode": mode, "value": value}
    compare_with_torch(
        torch_ref, lambda t: F.pad(t, pads, **kwargs), lambda t: torch_ref.nn.functional.pad(t, pads, **kwargs), [x], grad=[0]
    )


@padding
def test_pad_gradcheck_and_error(backend: str, torch_ref) -> None:
    x = ours(np.random.default_rng(3).standard_normal((2, 3)), grad=True)
    gradcheck(lambda t: F.pad(t, (2, 1), mode="reflect"), x)
    assert_same_error(lambda: F.pad(minitorch.zeros(2, 3), (1, 2, 3)), lambda: torch_ref.nn.functional.pad(torch_ref.zeros(2, 3), (1, 2, 3)))


# ---- attention ----


def _qkv(seed: int = 0, batch=(2,), lq: int = 3, lk: int = 4, e: int = 5, ev: int = 2):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(batch + (lq, e)), rng.standard_normal(batch + (lk, e)), rng.standard_normal(batch + (lk, ev))


@attention
@pytest.mark.parametrize("variant", ["plain", "causal", "bool_mask", "float_mask", "scale", "heads"])
def test_sdpa_matches_torch(backend: str, torch_ref, variant: str) -> None:
    q, k, v = _qkv(batch=(2, 3) if variant == "heads" else (2,))
    mask = np.array([[True, False, True, True], [True, True, False, False], [False, True, True, True]])
    kwargs: dict = {}
    arrays = [q, k, v]
    if variant == "causal":
        kwargs = {"is_causal": True}
    elif variant == "scale":
        kwargs = {"scale": 0.3}
    if variant in ("bool_mask", "float_mask"):
        arrays.append(mask if variant == "bool_mask" else np.random.default_rng(5).standard_normal((3, 4)))
        compare_with_torch(
            torch_ref, lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v, attn_mask=m),
            lambda q, k, v, m: torch_ref.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=m), arrays, grad=[0, 1, 2],
        )
        return
    compare_with_torch(
        torch_ref, lambda q, k, v: F.scaled_dot_product_attention(q, k, v, **kwargs),
        lambda q, k, v: torch_ref.nn.functional.scaled_dot_product_attention(q, k, v, **kwargs), arrays, grad=[0, 1, 2],
    )


@attention
def test_sdpa_gradcheck(backend: str) -> None:
    q, k, v = (ours(a, grad=True) for a in _qkv(seed=1, batch=(1,), lq=2, lk=3, e=2, ev=2))
    gradcheck(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True), q, k, v)


@attention
def test_sdpa_causal_ignores_the_future(backend: str) -> None:
    q, k, v = (ours(a) for a in _qkv(seed=2))
    out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    changed = v.clone()
    changed[:, 2:] = 100.0  # keys after position 1 are invisible to queries 0 and 1
    again = F.scaled_dot_product_attention(q, k, changed, is_causal=True)
    np.testing.assert_allclose(values(out)[:, :2], values(again)[:, :2])


@attention
def test_sdpa_is_stable_for_large_scores(backend: str, torch_ref) -> None:
    q, k, v = _qkv(seed=3)
    compare_with_torch(
        torch_ref, lambda q, k, v: F.scaled_dot_product_attention(q * 1e3, k * 10, v),
        lambda q, k, v: torch_ref.nn.functional.scaled_dot_product_attention(q * 1e3, k * 10, v), [q, k, v], grad=[2],
    )

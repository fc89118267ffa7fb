"""Advanced indexing (index tensors, masks, sequences; get and set) against PyTorch, with gradients."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest
from gradcheck import gradcheck
from layer_helpers import assert_close, assert_same_error, compare_with_torch, ours, theirs

import minitorch

SHAPE = (3, 4, 5)


def _key(lib: Any, spec: tuple) -> tuple:
    """The index ``spec`` with NumPy arrays turned into tensors of ``lib`` (torch or minitorch)."""
    out = []
    for item in spec:
        if isinstance(item, np.ndarray):
            out.append(theirs(lib, item) if lib is not minitorch else ours(item))
        else:
            out.append(item)
    return tuple(out)


MASK = np.random.default_rng(5).random(SHAPE) > 0.5
KEYS = [
    (np.array([2, 0, 2]),),
    (slice(None), np.array([-1, 1])),
    (np.array([0, 2]), slice(None), np.array([1, 4])),  # separated by a slice: broadcast dims go first
    (slice(None), np.array([[0], [3]]), np.array([1, 2, 4])),  # adjacent, broadcast to (2, 3)
    (1, slice(None), np.array([0, 0, 3])),  # an int is basic: the index stays in place
    (Ellipsis, np.array([4, 0])),
    (None, np.array([1, 0])),
    (np.array([0, 1, 2]), np.array([3, 2, 1]), np.array([0, 4, 2])),
    (MASK,),
    (MASK[:, :, 0],),
    (slice(None), MASK[0, :, 0]),
    (MASK[:, 0, 0], slice(1, 3), np.array([2])),
    (np.zeros((0,), dtype=np.int64),),
    (np.zeros(SHAPE[:1], dtype=bool),),
    ([0, 2, 2],),
    (range(3), [1, 1, 0]),
    # a Python bool or 0-d bool tensor adds a dimension: of size 1 for True, 0 for False
    (True,),
    (False,),
    (0, True),
    (Ellipsis, False),
    (slice(1, None), True, None),
    (True, np.array([0, 2])),
    (np.array([2, 0]), Ellipsis, True),
    (np.array(True),),
    (1, np.array(False)),
]


@pytest.mark.parametrize("spec", KEYS, ids=lambda s: str(len(s)))
def test_getitem_matches_torch_with_gradient(backend: str, torch_ref, spec: tuple) -> None:
    a = np.random.default_rng(0).standard_normal(SHAPE)
    compare_with_torch(torch_ref, lambda x: x[_key(minitorch, spec)], lambda x: x[_key(torch_ref, spec)], [a], grad=[0])


def test_getitem_gradcheck_with_repeated_indices(backend: str) -> None:
    x = ours(np.random.default_rng(1).standard_normal((4, 3)), grad=True)
    gradcheck(lambda t: t[ours(np.array([[3, 3], [0, 3]])), 1:], x)
    gradcheck(lambda t: t[t.detach() > 0] * 2, x)


def test_cross_entropy_idiom_range_and_labels(backend: str, torch_ref) -> None:
    logits = np.random.default_rng(2).standard_normal((6, 4))
    labels = np.array([3, 0, 0, 1, 2, 3])
    compare_with_torch(
        torch_ref,
        lambda x, y: -(x.exp() / x.exp().sum(1, keepdim=True)).log()[range(6), y].mean(),
        lambda x, y: -(x.exp() / x.exp().sum(1, keepdim=True)).log()[range(6), y].mean(),
        [logits, labels],
        grad=[0],
    )


@pytest.mark.parametrize(
    "spec",
    [
        (np.array([5]),),
        (slice(None), np.array([-6])),
        (np.array([0]), slice(None), np.array([9])),
        (np.ones(2, dtype=bool),),
        (slice(None), np.ones(3, dtype=bool)),
        (np.array([0, 1]), np.array([0, 1, 2])),
        (np.array([0.5]),),
        (0, 0, 0, np.array([0])),
    ],
)
def test_getitem_errors_match_torch(torch_ref, spec: tuple) -> None:
    a = np.zeros(SHAPE)
    assert_same_error(lambda: ours(a)[_key(minitorch, spec)], lambda: theirs(torch_ref, a)[_key(torch_ref, spec)])


def _both_set(torch_ref, spec: tuple, value: Callable[[Any], Any]) -> None:
    a = np.random.default_rng(3).standard_normal(SHAPE)
    mine, ref = ours(a), theirs(torch_ref, a)
    mine[_key(minitorch, spec)] = value(minitorch)
    ref[_key(torch_ref, spec)] = value(torch_ref)
    assert_close(mine, ref)


@pytest.mark.parametrize("spec", [k for k in KEYS if not isinstance(k[0], range)], ids=lambda s: str(len(s)))
def test_setitem_scalar_matches_torch(backend: str, torch_ref, spec: tuple) -> None:
    _both_set(torch_ref, spec, lambda lib: 7.5)


def test_setitem_broadcast_tensor_and_mask(backend: str, torch_ref) -> None:
    _both_set(torch_ref, (slice(None), np.array([0, 3])), lambda lib: lib.arange(5, dtype=lib.float64))
    _both_set(torch_ref, (MASK[:, :, 0],), lambda lib: lib.ones(1, 5, dtype=lib.float64) * -1)


def test_augmented_assignment_with_repeated_index_adds_once(backend: str, torch_ref) -> None:
    mine, ref = minitorch.zeros(5), torch_ref.zeros(5)
    mine[ours(np.array([1, 1, 3]))] += 1
    ref[theirs(torch_ref, np.array([1, 1, 3]))] += 1
    assert_close(mine, ref)


def test_setitem_on_a_graph_tensor_records_gradient(backend: str, torch_ref) -> None:
    a = np.array([1.0, -2.0, 3.0, -4.0])
    results = []
    for lib, make in ((minitorch, ours), (torch_ref, lambda v, grad=False: theirs(torch_ref, v, grad))):
        x, v = make(a, grad=True), make(np.array([10.0, 20.0]), grad=True)
        y = x * 3
        y[y < 0] = v
        y[0] = v[1] * 2  # a basic key on a graph tensor is recorded too
        (y * make(np.arange(1.0, 5.0))).sum().backward()
        results.append((y, x.grad, v.grad))
    for mine, ref in zip(*results):
        assert_close(mine, ref)


def test_setitem_into_a_leaf_requiring_grad_raises_like_torch(torch_ref) -> None:
    assert_same_error(
        lambda: minitorch.zeros(3, requires_grad=True).__setitem__(ours(np.array([0])), 1.0),
        lambda: torch_ref.zeros(3, requires_grad=True).__setitem__(torch_ref.tensor([0]), 1.0),
    )


def test_setitem_gradcheck(backend: str) -> None:
    rng = np.random.default_rng(4)
    x, v = ours(rng.standard_normal((4, 3)), grad=True), ours(rng.standard_normal((2, 3)), grad=True)

    def write(base: minitorch.Tensor, value: minitorch.Tensor) -> minitorch.Tensor:
        out = base * 1
        out[ours(np.array([2, 0]))] = value
        return out

    gradcheck(write, x, v)

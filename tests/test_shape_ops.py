"""Shape and selection ops (split, flip, roll, repeat, tril, masks, nonzero, unique ...) against PyTorch."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest
from gradcheck import gradcheck
from layer_helpers import assert_close, assert_same_error, compare_with_torch, ours, theirs

import minitorch

A = np.random.default_rng(0).standard_normal((3, 4, 5))


def _cat(out: Any, lib: Any) -> Any:
    """A tuple of tensors flattened and joined (to compare a tuple result and its gradient)."""
    if isinstance(out, tuple):
        return lib.cat([o.reshape(-1) for o in out]) if out else lib.zeros(0)
    return out


DIFFERENTIABLE: dict[str, Callable[[Any, Any], Any]] = {
    "split_int": lambda x, lib: lib.split(x, 2, 1),
    "split_list": lambda x, lib: x.split([1, 0, 4], -1),
    "chunk": lambda x, lib: lib.chunk(x, 3, 1),
    "chunk_more_than_size": lambda x, lib: x.chunk(7, 0),
    "unbind": lambda x, lib: lib.unbind(x, 1),
    "flip": lambda x, lib: lib.flip(x, (0, 2)),
    "flip_method": lambda x, lib: x.flip(-1),
    "roll": lambda x, lib: lib.roll(x, (1, -7), (0, 2)),
    "roll_flat": lambda x, lib: x.roll(5),
    "movedim": lambda x, lib: lib.movedim(x, (0, 1), (2, 0)),
    "moveaxis": lambda x, lib: x.moveaxis(-1, 0),
    "repeat": lambda x, lib: x.repeat(2, 1, 1, 2),
    "tile": lambda x, lib: lib.tile(x, (2, 1)),
    "repeat_interleave": lambda x, lib: x.repeat_interleave(2, dim=1),
    "repeat_interleave_flat": lambda x, lib: lib.repeat_interleave(x, 2),
    "repeat_interleave_tensor": lambda x, lib: x.repeat_interleave(lib.tensor([0, 2, 1]), dim=0),
    "tril": lambda x, lib: lib.tril(x, -1),
    "triu": lambda x, lib: x.triu(diagonal=2),
    "outer": lambda x, lib: lib.outer(x[0, 0], x[1, :, 0]),
    "masked_fill": lambda x, lib: x.masked_fill(x > 0.3, -2.0),
    "masked_fill_broadcast": lambda x, lib: lib.masked_fill(x, lib.tensor([True, False, False, True, True]), 0.5),
    "masked_select": lambda x, lib: lib.masked_select(x, x < 0),
    "take_along_dim": lambda x, lib: lib.take_along_dim(x, x.argmax(dim=1, keepdim=True), dim=1),
    "take_along_dim_flat": lambda x, lib: x.take_along_dim(lib.tensor([0, 59, 3])),
    "index_add": lambda x, lib: x.index_add(1, lib.tensor([0, 3, 0]), x[:, :3] * 2, alpha=-1.5),
    "gather_method": lambda x, lib: x.gather(2, lib.tensor([[[4, 0]]])),
    "index_select_method": lambda x, lib: lib.index_select(x, 2, lib.tensor([1, 1])),
}


@pytest.mark.parametrize("name", sorted(DIFFERENTIABLE))
def test_differentiable_op_matches_torch(backend: str, torch_ref, name: str) -> None:
    op = DIFFERENTIABLE[name]
    compare_with_torch(torch_ref, lambda x: _cat(op(x, minitorch), minitorch), lambda x: _cat(op(x, torch_ref), torch_ref), [A], grad=[0])


@pytest.mark.parametrize("name", ["roll", "repeat", "tril", "index_add", "take_along_dim", "masked_fill"])
def test_gradcheck(name: str) -> None:
    op = DIFFERENTIABLE[name]
    gradcheck(lambda x: _cat(op(x, minitorch), minitorch), ours(A[:2, :4, :4].copy(), grad=True))


@pytest.mark.parametrize(
    "array",
    [A > 0, np.array([0, 3, 0, -1]), np.zeros((2, 0)), np.array(5.0), np.array([[1, 1], [0, 2], [1, 1]])],
    ids=["mask", "ints", "empty", "scalar", "rows"],
)
def test_value_positions_match_torch(torch_ref, array: np.ndarray) -> None:
    mine, ref = ours(array), theirs(torch_ref, array)
    assert_close(mine.nonzero(), ref.nonzero())
    for m, r in zip(minitorch.nonzero(mine, as_tuple=True), torch_ref.nonzero(ref, as_tuple=True)):
        assert_close(m, r)
    if array.ndim:
        for m, r in zip(minitorch.where(mine), torch_ref.where(ref)):
            assert_close(m, r)
    for m, r in zip(mine.unique(return_inverse=True, return_counts=True), ref.unique(return_inverse=True, return_counts=True)):
        assert_close(m, r)
    if array.ndim == 2 and array.size:
        for m, r in zip(minitorch.unique(mine, dim=0, return_inverse=True), torch_ref.unique(ref, dim=0, return_inverse=True)):
            assert_close(m, r)


def test_empty_inputs_match_torch(torch_ref) -> None:
    empty = np.zeros((0, 3, 2))
    for op in ("split_int", "flip", "roll", "repeat", "tril", "masked_fill", "repeat_interleave"):
        if op == "split_int":
            mine, ref = minitorch.split(ours(empty), 2, 0), torch_ref.split(theirs(torch_ref, empty), 2, 0)
            assert len(mine) == len(ref)
            continue
        fn = DIFFERENTIABLE[op] if op != "roll" else (lambda x, lib: lib.roll(x, 1, 0))
        assert_close(fn(ours(empty), minitorch), fn(theirs(torch_ref, empty), torch_ref), what=op)


ERRORS: dict[str, Callable[[Any, Any], Any]] = {
    "split_sizes": lambda x, lib: x.split([1, 1], 0),
    "chunk_zero": lambda x, lib: x.chunk(0),
    "repeat_too_few": lambda x, lib: x.repeat(2, 2),
    "outer_2d": lambda x, lib: lib.outer(x[0], x[0, 0]),
    "roll_misaligned": lambda x, lib: x.roll((1, 2), 0),
    "masked_fill_int_mask": lambda x, lib: x.masked_fill(lib.tensor([1, 0, 0, 0, 0]), 1.0),
    "masked_fill_value_dims": lambda x, lib: x.masked_fill(x > 0, lib.ones(2)),
    "tril_1d": lambda x, lib: lib.tril(x[0, 0]),
    "index_add_out_of_range": lambda x, lib: x.index_add(0, lib.tensor([3]), x[:1]),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_match_torch(torch_ref, name: str) -> None:
    op = ERRORS[name]
    assert_same_error(lambda: op(ours(A), minitorch), lambda: op(theirs(torch_ref, A), torch_ref))

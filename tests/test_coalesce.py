"""Merging and reordering the dimensions an elementwise or reduction kernel walks.

The oracle is the walk itself, spelled out in Python: every index of the original shape in
row-major order, and the position it reaches in each operand. A coalesced layout must reach
the same positions in the same order; a reordered one the same tuples of positions (an
elementwise op does not care about the order); a reduction's layout the same positions for
each output cell, in the same order along the reduced dimension.
"""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import minitorch
from minitorch.backends import cpu
from minitorch.backends.coalesce import coalesce, coalesce_around, longest_innermost


def _walk(shape: list[int], strides: list[list[int]]) -> list[tuple[int, ...]]:
    """For each index of ``shape`` in row-major order, the position in each operand."""
    return [tuple(sum(i * s for i, s in zip(index, operand)) for operand in strides)
            for index in itertools.product(*(range(n) for n in shape))]


@st.composite
def layouts(draw: st.DrawFn, operands: int = 2) -> tuple[list[int], list[list[int]]]:
    """A shape and, per operand, strides that are contiguous, broadcast, sliced or permuted."""
    shape = draw(st.lists(st.integers(1, 4), min_size=1, max_size=5))
    strides = []
    for _ in range(operands):
        kind = draw(st.sampled_from(["contiguous", "broadcast", "sliced", "permuted"]))
        contiguous = [int(np.prod(shape[d + 1:])) for d in range(len(shape))]
        if kind == "contiguous":
            strides.append(contiguous)
        elif kind == "broadcast":
            strides.append([0 if draw(st.booleans()) else s for s in contiguous])
        elif kind == "sliced":
            strides.append([s * draw(st.integers(1, 3)) for s in contiguous])
        else:
            order = draw(st.permutations(range(len(shape))))
            permuted = [int(np.prod([shape[o] for o in order[k + 1:]])) for k in range(len(shape))]
            strides.append([permuted[order.index(d)] for d in range(len(shape))])
    return shape, strides


@settings(max_examples=300, deadline=None)
@given(layouts(operands=3))
def test_coalesced_layout_walks_the_same_positions_in_the_same_order(layout) -> None:
    shape, strides = layout
    merged_shape, merged_strides = coalesce(shape, strides)
    assert _walk(merged_shape, merged_strides) == _walk(shape, strides)
    assert len(merged_shape) <= len(shape)
    assert all(n > 1 for n in merged_shape) or merged_shape == [1]


def test_contiguous_and_broadcast_examples_merge_to_few_dimensions() -> None:
    assert coalesce([2, 3, 4], [[12, 4, 1]]) == ([24], [[1]])
    # the backward of a 2 x 2 max-pooling: a value per window, broadcast over its 4 positions
    shape = [64, 6, 14, 14, 4]
    assert coalesce(shape, [[4704, 784, 56, 4, 1], [1176, 196, 14, 1, 0], [0, 0, 0, 0, 1]]) == (
        [75264, 4], [[4, 1], [1, 0], [0, 1]])
    assert coalesce([1, 1], [[1, 1]]) == ([1], [[1]])


@settings(max_examples=300, deadline=None)
@given(layouts(operands=3), st.integers(2, 40))
def test_longest_innermost_pairs_the_same_positions(layout, short: int) -> None:
    shape, strides = coalesce(*layout)
    new_shape, new_strides = longest_innermost(shape, strides, short)
    assert sorted(_walk(new_shape, new_strides)) == sorted(_walk(shape, strides))
    if shape[-1] < short:
        assert new_shape[-1] == max(shape)


@settings(max_examples=300, deadline=None)
@given(layouts(operands=2), st.data())
def test_reduction_layout_keeps_each_cell_and_its_order_along_dim(layout, data) -> None:
    shape, (a_strides, out_strides) = layout
    dim = data.draw(st.integers(0, len(shape) - 1))
    out_strides = [0 if d == dim else s for d, s in enumerate(out_strides)]
    new_shape, (new_a, new_out), new_dim = coalesce_around(shape, [a_strides, out_strides], dim)
    assert new_shape[new_dim] == shape[dim] and new_a[new_dim] == a_strides[dim]

    def cells(shape_: list[int], a_: list[int], out_: list[int], dim_: int) -> list[tuple[int, tuple[int, ...]]]:
        others = [range(n) for d, n in enumerate(shape_) if d != dim_]
        found = []
        for index in itertools.product(*others):
            full = list(index[:dim_]) + [0] + list(index[dim_:])
            base_a = sum(i * s for i, s in zip(full, a_))
            base_out = sum(i * s for i, s in zip(full, out_))
            found.append((base_out, tuple(base_a + r * a_[dim_] for r in range(shape_[dim_]))))
        return found

    assert cells(new_shape, new_a, new_out, new_dim) == cells(shape, a_strides, out_strides, dim)


def test_pooling_shaped_ops_through_the_backend_match_numpy() -> None:
    """End to end on the layouts that motivated it: broadcasts over a short last dimension,
    reductions and argmax along it, and copies of views read in short runs."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 6, 14, 14, 4)).astype(np.float32)
    w = rng.standard_normal((1, 1, 1, 1, 4)).astype(np.float32)
    m = rng.standard_normal((64, 6, 14, 14, 1)).astype(np.float32)
    tx, tw, tm = minitorch.tensor(x), minitorch.tensor(w), minitorch.tensor(m)
    np.testing.assert_array_equal((tm * tw).numpy(), m * w)
    np.testing.assert_array_equal((tm == tw).numpy(), m == w)
    values, indices = tx.max(-1)
    np.testing.assert_array_equal(values.numpy(), x.max(-1))
    np.testing.assert_array_equal(indices.numpy(), x.argmax(-1))
    np.testing.assert_allclose(tx.sum(-1).numpy(), x.astype(np.float64).sum(-1), rtol=1e-6, atol=1e-6)
    permuted = tx.permute(0, 2, 1, 3, 4)
    np.testing.assert_array_equal(permuted.contiguous().numpy(), np.ascontiguousarray(x.transpose(0, 2, 1, 3, 4)))
    transposed = tx.reshape(64 * 6, 14 * 14 * 4).t()
    np.testing.assert_array_equal(transposed.contiguous().numpy(), x.reshape(64 * 6, -1).T)

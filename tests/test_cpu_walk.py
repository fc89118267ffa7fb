"""The row walks of the cpu backend (:mod:`minitorch.backends.cpu_walk`): strided copies and
accumulations, each row's start counted on from the one before.

Oracles: NumPy's own strided copy (``as_strided`` views of the same buffers) and ``np.add.at``
on the positions each index reaches, computed in Python; the walk orders and disjoint
dimensions are derived by hand.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minitorch
from minitorch.backends import cpu_index_kernels, cpu_walk
from minitorch.backends.cpu_kernels import PARALLEL_MIN_WORK
from minitorch.tensor_data import TensorData

DTYPES = (np.float32, np.float64, np.int64, np.int8, np.bool_)


@st.composite
def view_strides(draw: st.DrawFn, shape: tuple[int, ...]) -> tuple[tuple[int, ...], int]:
    """``(strides, storage size)`` of a ``shape`` view of a contiguous parent: sliced with steps,
    permuted, some dimensions broadcast (stride 0)."""
    steps = [draw(st.integers(1, 3)) for _ in shape]
    order = draw(st.permutations(range(len(shape))))
    parent = [shape[d] * steps[d] for d in order]  # the parent's dimensions in the permuted order
    parent_strides = [int(np.prod(parent[i + 1:])) for i in range(len(parent))]
    strides = [0] * len(shape)
    for i, d in enumerate(order):
        strides[d] = 0 if draw(st.integers(0, 4)) == 0 else parent_strides[i] * steps[d]
    return tuple(strides), int(np.prod(parent))


shapes = st.lists(st.integers(1, 5), min_size=1, max_size=5).map(tuple)


def _positions(shape: tuple[int, ...], strides: tuple[int, ...]) -> list[int]:
    """Every index's position, in row-major order: the walk spelled out."""
    return [sum(i * s for i, s in zip(index, strides)) for index in itertools.product(*(range(n) for n in shape))]


def _values(size: int, dtype: type, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return (rng.integers(0, 2, size) if dtype is np.bool_ else rng.integers(-50, 50, size)).astype(dtype)


@settings(max_examples=150, deadline=None)
@given(data=st.data(), shape=shapes, dtype=st.sampled_from(DTYPES), threaded=st.booleans(), seed=st.integers(0, 2**16))
def test_copy_of_any_view_into_any_view_matches_numpy(data, shape, dtype, threaded, seed) -> None:
    """``out[...] = src`` for ``src`` and ``out`` both strided views (``out`` never broadcast):
    the elements NumPy's copy of the same views writes, and nothing else."""
    src_strides, src_size = data.draw(view_strides(shape))
    order = data.draw(st.permutations(range(len(shape))))
    out_strides = [0] * len(shape)
    for i, d in enumerate(order):  # ``out`` a permuted contiguous block, with a margin after it
        out_strides[d] = int(np.prod([shape[e] for e in order[i + 1:]]))
    src_buffer = _values(src_size, dtype, seed)
    out_buffer = _values(int(np.prod(shape)) + 3, dtype, seed + 1)
    expected = out_buffer.copy()
    itemsize = src_buffer.itemsize
    np.lib.stride_tricks.as_strided(expected, shape, [s * itemsize for s in out_strides])[...] = (
        np.lib.stride_tricks.as_strided(src_buffer, shape, [s * itemsize for s in src_strides]))
    src, out = TensorData(src_buffer, shape, src_strides), TensorData(out_buffer, shape, tuple(out_strides))
    as_bytes = (lambda a: a.view(np.uint8)) if dtype is np.bool_ else (lambda a: a)
    cpu_walk.copy(as_bytes(src.buffer), as_bytes(out.buffer), cpu_walk.walk_layout(src, out), threaded)
    np.testing.assert_array_equal(out_buffer, expected)


@settings(max_examples=150, deadline=None)
@given(data=st.data(), shape=shapes, parts=st.integers(1, 6), dtype=st.sampled_from((np.float64, np.int64, np.int32)),
       seed=st.integers(0, 2**16))
def test_accumulate_into_overlapping_views_matches_add_at(data, shape, parts, dtype, seed) -> None:
    """``out[i] += src[i]`` where ``out``'s elements may repeat (broadcast dimensions, windows):
    every contribution lands, as ``np.add.at`` on the positions adds them; with threads only
    where the layout allows it."""
    out_strides, out_size = data.draw(view_strides(shape))
    if data.draw(st.booleans()):  # windows sliding by one along the last dimension
        out_strides = out_strides[:-1] + (1,) if len(shape) > 1 else out_strides
        out_size += shape[-1]
    src_strides, src_size = data.draw(view_strides(shape))
    src_buffer = _values(src_size, dtype, seed)
    out_buffer = _values(out_size, dtype, seed + 1)
    expected = out_buffer.copy()
    np.add.at(expected, _positions(shape, out_strides), src_buffer[_positions(shape, src_strides)])
    src, out = TensorData(src_buffer, shape, src_strides), TensorData(out_buffer, shape, out_strides)
    walk_shape, walk_out, walk_src, split = cpu_walk.walk_layout(src, out, split_disjoint=True)
    if split and parts > 1:
        cpu_index_kernels.accumulate_kernel(out_buffer, walk_shape, walk_out, src_buffer, walk_src,
                                            min(parts, int(walk_shape[0])))
    else:
        cpu_index_kernels.accumulate_kernel_serial(out_buffer, walk_shape, walk_out, src_buffer, walk_src, 1)
    np.testing.assert_array_equal(out_buffer, expected)


def test_the_fold_of_a_strided_transposed_convolution_walks_its_columns_in_order() -> None:
    """The fold of ``conv_transpose2d`` (16 x 64 x 8 x 8 input, 32 filters 4 x 4, stride 2), as
    the cpu backend sees it: windows ``(N, G, O, h, w, kh, kw)`` of the full output, the columns
    ``(G, O, kh, kw, N, h, w)`` contiguous. The images are disjoint (one image's plane,
    32 x 18 x 18, spans 10 367 elements, the next starts 10 368 on), so threads share them; the
    rest is walked in the columns' order, the 8 elements along ``w`` innermost (read in a row,
    written every second element), and the one-group dimension dropped."""
    shape = (16, 1, 32, 8, 8, 4, 4)
    out_strides = (10368, 10368, 324, 36, 2, 18, 1)
    src_strides = (64, 524288, 16384, 8, 1, 4096, 1024)
    assert cpu_walk.disjoint_dim(shape, out_strides) == 0
    walk = cpu_walk.walk_order(shape, out_strides, src_strides, 0)
    assert walk == ([16, 32, 4, 4, 8, 8], [10368, 324, 18, 1, 36, 2], [64, 16384, 4096, 1024, 8, 1])


def test_walk_order_merges_what_stays_in_step_and_keeps_two_dimensions() -> None:
    # a contiguous 3-d copy: one row of 24 behind a dimension of size 1
    assert cpu_walk.walk_order((2, 3, 4), (12, 4, 1), (12, 4, 1)) == ([1, 24], [0, 1], [0, 1])
    # a transpose: the dimension that moves least through both operands innermost (ties keep order)
    assert cpu_walk.walk_order((3, 5), (5, 1), (1, 3)) == ([3, 5], [5, 1], [1, 3])
    # a row broadcast over a matrix: the row innermost, read again for every row of out
    assert cpu_walk.walk_order((4, 6), (6, 1), (0, 1)) == ([4, 6], [6, 1], [0, 1])
    # the outermost dimension asked for comes first and is never merged with the next one
    assert cpu_walk.walk_order((2, 3, 4), (12, 4, 1), (12, 4, 1), 0) == ([2, 12], [12, 1], [12, 1])


@pytest.mark.parametrize("shape, strides, expected", [
    ((4, 3), (3, 1), 0),  # rows of a matrix: each row's 3 elements before the next row's
    ((3, 4), (1, 3), 1),  # a transposed matrix: its columns
    ((5, 3), (1, 1), -1),  # windows of 3 sliding by 1: every window shares elements with the next
    ((4, 3), (0, 1), 1),  # a broadcast row: its columns are apart, its rows all the same elements
    ((2, 5, 3), (100, 1, 1), 0),  # two images of overlapping windows: the images are apart
    ((1, 7), (7, 1), 1),  # one row: its elements, not the one slice of dimension 0
    ((3, 3), (0, 0), -1),  # one element everywhere
    ((2, 2), (1, 1), -1),  # two windows of 2 sliding by 1: they share their middle element
])
def test_disjoint_dim(shape, strides, expected) -> None:
    assert cpu_walk.disjoint_dim(shape, strides) == expected


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "bool"])
def test_contiguous_of_large_views_through_the_backend(dtype) -> None:
    """Above the threads' threshold, ``contiguous()`` of a permute, a transpose, a strided slice
    and a convolution's windows (short runs, every second element): NumPy's copies."""
    rng = np.random.default_rng(3)
    x = rng.integers(-9, 9, (16, 33, 33, 8)).astype(dtype)
    assert x.size >= PARALLEL_MIN_WORK
    t = minitorch.tensor(x)
    views = [
        (t.permute(0, 3, 1, 2), x.transpose(0, 3, 1, 2)),
        (t.reshape(16 * 33, 33 * 8).t(), x.reshape(16 * 33, 33 * 8).T),
        (t[:, ::2, 1::2], x[:, ::2, 1::2]),
        (t.unfold(1, 3, 2).unfold(2, 3, 2), np.lib.stride_tricks.sliding_window_view(x, (3, 3), (1, 2))[:, ::2, ::2]),
    ]
    for view, expected in views:
        assert not view.is_contiguous()
        np.testing.assert_array_equal(view.contiguous().numpy(), expected)


def test_the_windows_gradient_of_a_strided_convolution_matches_numpy() -> None:
    """``conv2d`` at stride 2 (a matrix product over window columns) and ``conv_transpose2d``:
    their backward folds columns back (accumulate) and copies windows (walk). Against the same
    sums in float64 NumPy, written as loops over the kernel's taps."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 3, 11, 11))
    w = rng.standard_normal((5, 3, 3, 3))
    tx, tw = minitorch.tensor(x, requires_grad=True), minitorch.tensor(w, requires_grad=True)
    out = minitorch.nn.functional.conv2d(tx, tw, stride=2)
    g = rng.standard_normal(out.shape)
    (out * minitorch.tensor(g)).sum().backward()
    expected_out = np.zeros((4, 5, 5, 5))
    grad_x = np.zeros_like(x)
    for u, v in itertools.product(range(3), range(3)):
        patch = x[:, :, u:u + 9:2, v:v + 9:2]  # (4, 3, 5, 5)
        expected_out += np.einsum("nchw,oc->nohw", patch, w[:, :, u, v])
        grad_x[:, :, u:u + 9:2, v:v + 9:2] += np.einsum("nohw,oc->nchw", g, w[:, :, u, v])
    np.testing.assert_allclose(out.detach().numpy(), expected_out, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(tx.grad.numpy(), grad_x, rtol=1e-10, atol=1e-10)

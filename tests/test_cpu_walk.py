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
from minitorch.backends import cpu_index_kernels, cpu_walk, opcodes
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


def _permuted_block(shape: tuple[int, ...], order: list[int]) -> tuple[int, ...]:
    """The strides of a contiguous block holding ``shape`` with its dimensions in ``order``."""
    strides = [0] * len(shape)
    for i, d in enumerate(order):
        strides[d] = int(np.prod([shape[e] for e in order[i + 1:]]))
    return tuple(strides)


def _view(buffer: np.ndarray, shape: tuple[int, ...], strides: tuple[int, ...]) -> np.ndarray:
    return np.lib.stride_tricks.as_strided(buffer, shape, [s * buffer.itemsize for s in strides])


def _bytes(a: np.ndarray) -> np.ndarray:
    """A bool buffer as the cpu backend hands it to a kernel (``_operand``): its bytes."""
    return a.view(np.uint8) if a.dtype == np.bool_ else a


@settings(max_examples=150, deadline=None)
@given(data=st.data(), shape=shapes, dtype=st.sampled_from(DTYPES), parts=st.integers(1, 9), seed=st.integers(0, 2**16))
def test_copy_of_any_view_into_any_view_matches_numpy(data, shape, dtype, parts, seed) -> None:
    """``out[...] = src`` (the map ``copy``) for ``src`` a strided view and ``out`` a permuted
    block: the elements NumPy's copy of the same views writes, and nothing else."""
    src_strides, src_size = data.draw(view_strides(shape))
    out_strides = _permuted_block(shape, data.draw(st.permutations(range(len(shape)))))
    src_buffer = _values(src_size, dtype, seed)
    out_buffer = _values(int(np.prod(shape)) + 3, dtype, seed + 1)  # a margin that must stay as it is
    expected = out_buffer.copy()
    _view(expected, shape, out_strides)[...] = _view(src_buffer, shape, src_strides)
    src, out = TensorData(src_buffer, shape, src_strides), TensorData(out_buffer, shape, out_strides)
    walk_shape, strides, _ = cpu_walk.walk_layout(out, src)
    parts = min(parts, int(np.prod(walk_shape[:-1])))
    cpu_walk.map_entry(opcodes.COPY)(out_buffer, _bytes(src_buffer), walk_shape, strides, parts)
    np.testing.assert_array_equal(out_buffer, expected)


@settings(max_examples=150, deadline=None)
@given(data=st.data(), shape=shapes, op=st.sampled_from(["add", "mul", "lt"]), dtype=st.sampled_from(DTYPES[:3]),
       parts=st.integers(1, 9), seed=st.integers(0, 2**16))
def test_binary_op_of_any_views_matches_numpy(data, shape, op, dtype, parts, seed) -> None:
    """``out = a op b`` for ``a`` and ``b`` strided or broadcast views, ``out`` a permuted block
    (bool for a comparison): NumPy's result on the same views."""
    (a_strides, a_size), (b_strides, b_size) = data.draw(view_strides(shape)), data.draw(view_strides(shape))
    out_strides = _permuted_block(shape, data.draw(st.permutations(range(len(shape)))))
    a_buffer, b_buffer = _values(a_size, dtype, seed), _values(b_size, dtype, seed + 1)
    numpy_op = {"add": np.add, "mul": np.multiply, "lt": np.less}[op]
    out_buffer = np.zeros(int(np.prod(shape)) + 3, np.bool_ if op == "lt" else dtype)
    expected = out_buffer.copy()
    _view(expected, shape, out_strides)[...] = numpy_op(_view(a_buffer, shape, a_strides), _view(b_buffer, shape, b_strides))
    a, b = TensorData(a_buffer, shape, a_strides), TensorData(b_buffer, shape, b_strides)
    walk_shape, strides, _ = cpu_walk.walk_layout(TensorData(out_buffer, shape, out_strides), a, b)
    parts = min(parts, int(np.prod(walk_shape[:-1])))
    cpu_walk.zip_entry(opcodes.code_of(opcodes.BINARY_CODES, op))(out_buffer, a_buffer, b_buffer, walk_shape, strides, parts)
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
    walk_shape, (walk_out, walk_src), split = cpu_walk.walk_layout(out, src, split_disjoint=True)
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
    walk = cpu_walk.walk_order(shape, [out_strides, src_strides], 0)
    assert walk == ([16, 32, 4, 4, 8, 8], [[10368, 324, 18, 1, 36, 2], [64, 16384, 4096, 1024, 8, 1]])


def test_walk_order_merges_what_stays_in_step_and_keeps_two_dimensions() -> None:
    # a contiguous 3-d copy: one row of 24 behind a dimension of size 1
    assert cpu_walk.walk_order((2, 3, 4), [(12, 4, 1), (12, 4, 1)]) == ([1, 24], [[0, 1], [0, 1]])
    # a transpose: the dimension that moves least through both operands innermost (ties keep order)
    assert cpu_walk.walk_order((3, 5), [(5, 1), (1, 3)]) == ([3, 5], [[5, 1], [1, 3]])
    # a row broadcast over a matrix: the row innermost, read again for every row of out
    assert cpu_walk.walk_order((4, 6), [(6, 1), (0, 1)]) == ([4, 6], [[6, 1], [0, 1]])
    # three operands: a permuted image batch plus another, the sum of all three strides decides
    assert cpu_walk.walk_order((2, 3, 4), [(12, 4, 1), (12, 1, 3), (12, 1, 3)]) == ([2, 4, 3], [[12, 1, 4], [12, 3, 1], [12, 3, 1]])
    # the outermost dimension asked for comes first and is never merged with the next one
    assert cpu_walk.walk_order((2, 3, 4), [(12, 4, 1), (12, 4, 1)], 0) == ([2, 12], [[12, 1], [12, 1]])


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


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_elementwise_ops_on_large_views_through_the_backend(dtype, monkeypatch) -> None:
    """Above the threads' threshold, ops on views walked by rows: a channels-last batch seen
    channels-first added to a row-major one (rows of 36), a bias added to a crop (rows of 32), a
    negation of every second column of a crop (rows of 16) and ``exp`` of the crop;
    not walked: a sum of two channels-last batches (dense alike: one run, a channels-last result
    as PyTorch's) and a comparison of a transposed view (rows of 1156) with a broadcast row (bool
    out), which goes to the students' kernel: NumPy's results."""
    walked = []
    for name in ("map_entry", "zip_entry"):
        entry = getattr(cpu_walk, name)
        monkeypatch.setattr(cpu_walk, name, lambda op, entry=entry: walked.append(op) or entry(op))
    rng = np.random.default_rng(5)
    x = rng.integers(-9, 9, (16, 8, 34, 34)).astype(dtype)
    bias = rng.integers(-9, 9, (8,)).astype(dtype)
    images = rng.integers(-9, 9, (2, 128, 6, 6, 16)).astype(dtype)
    tx, tb, ti = minitorch.tensor(x), minitorch.tensor(bias), minitorch.tensor(images)
    assert x[:, :, :, 1:33:2].size >= PARALLEL_MIN_WORK and images[0].size >= PARALLEL_MIN_WORK
    channels_first = images.transpose(0, 1, 4, 2, 3)
    row_major = minitorch.tensor(np.ascontiguousarray(channels_first[1]))
    both_channels_last = ti[0].permute(0, 3, 1, 2) + ti[1].permute(0, 3, 1, 2)
    assert walked == [] and both_channels_last.is_contiguous(memory_format=minitorch.channels_last)
    np.testing.assert_array_equal(both_channels_last.numpy(), channels_first[0] + channels_first[1])
    checks = [
        (row_major + ti[0].permute(0, 3, 1, 2), channels_first[1] + channels_first[0]),
        (tx[:, :, 1:33, 1:33] + tb.view(8, 1, 1), x[:, :, 1:33, 1:33] + bias.reshape(8, 1, 1)),
        (-tx[:, :, :, 1:33:2], -x[:, :, :, 1:33:2]),
    ]
    expected_ops = [opcodes.ADD, opcodes.ADD, opcodes.NEG]
    if dtype != "int64":
        checks.append((tx[:, :, 1:33, 1:33].exp(), np.exp(x[:, :, 1:33, 1:33])))
        expected_ops.append(opcodes.EXP)
    assert walked == expected_ops
    row = minitorch.tensor(x[0, 0, 0, :32]).repeat(4).reshape(1, 128)
    checks.append((tx.reshape(128, 1156).t() < row, x.reshape(128, -1).T < np.tile(x[0, 0, 0, :32], 4).reshape(1, 128)))
    assert walked == expected_ops  # rows of 1156: the students' kernel
    for got, expected in checks:
        assert got.is_contiguous()
        if got.dtype.is_floating_point:
            np.testing.assert_allclose(got.numpy(), expected, rtol=2e-7 if dtype == "float32" else 1e-15)
        else:
            np.testing.assert_array_equal(got.numpy(), expected)

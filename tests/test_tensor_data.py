"""``minitorch.tensor_data``: indexing into strided storage (task 2.1) and broadcasting
(task 2.2), checked against NumPy's own strided arrays and broadcasting rules.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes, broadcastable_shapes, mutually_broadcastable_shapes

from minitorch.tensor_data import (
    IndexingError,
    TensorData,
    broadcast_index,
    expand_strides,
    index_to_position,
    shape_broadcast,
    strides_from_shape,
    to_index,
    view_strides,
)

indexing = pytest.mark.task("2.1")
broadcasting = pytest.mark.task("2.2")

shapes = array_shapes(min_dims=0, max_dims=4, min_side=1, max_side=4)


def numpy_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    """Row-major strides in elements, as NumPy lays out a fresh array."""
    array = np.empty(shape, dtype=np.int64)
    return tuple(s // array.itemsize for s in array.strides)


def as_numpy(data: TensorData) -> np.ndarray:
    """The elements ``data`` describes, read by NumPy from the same storage (independent of the code under test)."""
    item = data.storage.itemsize
    return np.lib.stride_tricks.as_strided(
        data.storage[data.offset :], shape=data.shape, strides=[s * item for s in data.strides]
    ).copy()


@st.composite
def layouts(draw: st.DrawFn) -> tuple[np.ndarray, TensorData]:
    """A NumPy view (transposed, step-sliced, offset) and the TensorData of the same layout."""
    shape = draw(array_shapes(min_dims=1, max_dims=4, min_side=1, max_side=4))
    steps = draw(st.lists(st.integers(1, 2), min_size=len(shape), max_size=len(shape)))
    starts = draw(st.lists(st.integers(0, 1), min_size=len(shape), max_size=len(shape)))
    full_shape = tuple(n * step + start for n, step, start in zip(shape, steps, starts))
    storage = np.arange(int(np.prod(full_shape)), dtype=np.float64)
    view = storage.reshape(full_shape)[tuple(slice(start, None, step) for start, step in zip(starts, steps))]
    view = view[tuple(slice(0, n) for n in shape)]
    order = draw(st.permutations(range(len(shape))))
    view = view.transpose(order)
    item = storage.itemsize
    offset = (view.__array_interface__["data"][0] - storage.__array_interface__["data"][0]) // item
    data = TensorData(storage, view.shape, [s // item for s in view.strides], offset)
    return view, data


# ---------------------------------------------------------------- positions and indices


@indexing
@given(shapes, st.data())
def test_index_to_position_matches_numpy_layout(shape: tuple[int, ...], data: st.DataObject) -> None:
    strides = numpy_strides(shape)
    flat = np.arange(int(np.prod(shape)))
    array = flat.reshape(shape)
    for index in np.ndindex(*shape):
        assert flat[index_to_position(index, strides)] == array[index]
    # arbitrary (non-contiguous) strides: the position is what NumPy's stride arithmetic gives
    custom = data.draw(st.lists(st.integers(0, 7), min_size=len(shape), max_size=len(shape)), label="strides")
    storage = np.arange(1 + sum((n - 1) * s for n, s in zip(shape, custom)))
    strided = np.lib.stride_tricks.as_strided(storage, shape=shape, strides=[s * storage.itemsize for s in custom])
    for index in np.ndindex(*shape):
        assert storage[index_to_position(np.array(index, dtype=np.int64), custom)] == strided[index]


@indexing
def test_index_to_position_by_hand() -> None:
    assert index_to_position((1, 2), (3, 1)) == 5
    assert index_to_position((1, 2), (1, 2)) == 5
    assert index_to_position((0, 0, 0), (12, 4, 1)) == 0
    assert index_to_position((1, 1, 3), (12, 4, 1)) == 19
    assert index_to_position((), ()) == 0


@indexing
@given(shapes)
def test_to_index_round_trip(shape: tuple[int, ...]) -> None:
    size = int(np.prod(shape))
    out = np.zeros(len(shape), dtype=np.int64)
    strides = numpy_strides(shape)
    for ordinal in range(size):
        to_index(ordinal, shape, out)
        assert tuple(out) == tuple(int(i) for i in np.unravel_index(ordinal, shape))
        assert index_to_position(out, strides) == ordinal


@indexing
@given(layouts())
def test_tensor_data_reads_like_numpy(layout: tuple[np.ndarray, TensorData]) -> None:
    view, data = layout
    assert data.shape == view.shape and data.size == view.size and data.dims == view.ndim
    for index in np.ndindex(*view.shape):
        assert data.storage[data.index(index)] == view[index]
    np.testing.assert_array_equal(data.numpy_view(), view)
    assert data.is_contiguous() == view.flags.c_contiguous


@indexing
def test_tensor_data_index_errors() -> None:
    data = TensorData(np.zeros(6), (2, 3))
    with pytest.raises(IndexingError):
        data.index((2, 0))
    with pytest.raises(IndexingError):
        data.index((0, -1))
    with pytest.raises(IndexingError):
        data.index((0,))
    with pytest.raises(IndexingError):
        TensorData(np.zeros(6), (2, 3), (1,))


@indexing
@given(shapes)
def test_strides_from_shape_matches_numpy(shape: tuple[int, ...]) -> None:
    assert strides_from_shape(shape) == numpy_strides(shape)
    data = TensorData(np.zeros(int(np.prod(shape))), shape)
    assert data.strides == numpy_strides(shape) and data.is_contiguous()


@indexing
def test_strides_from_shape_by_hand() -> None:
    assert strides_from_shape((2, 3, 4)) == (12, 4, 1)
    assert strides_from_shape((5,)) == (1,)
    assert strides_from_shape(()) == ()
    assert strides_from_shape((2, 0, 3)) == (3, 3, 1)  # a zero-size dimension still counts as 1


@indexing
@given(layouts(), st.data())
def test_permute_matches_numpy_transpose(layout: tuple[np.ndarray, TensorData], data: st.DataObject) -> None:
    view, tensor_data = layout
    order = data.draw(st.permutations(range(view.ndim)), label="order")
    permuted = tensor_data.permute(*order)
    np.testing.assert_array_equal(as_numpy(permuted), view.transpose(order))
    assert permuted.storage is tensor_data.storage


@indexing
def test_permute_rejects_non_permutations() -> None:
    data = TensorData(np.zeros(6), (2, 3))
    for order in ((0,), (0, 0), (1, 2), (0, 1, 2)):
        with pytest.raises(IndexingError):
            data.permute(*order)


@indexing
@given(layouts(), st.data())
def test_view_strides_match_numpy_reshape(layout: tuple[np.ndarray, TensorData], data: st.DataObject) -> None:
    """When a view is possible its elements are NumPy's row-major reshape; NumPy views exactly then too."""
    view, tensor_data = layout
    factors = [p for n in view.shape for p in _prime_factors(n)]
    factors = data.draw(st.permutations(factors), label="factors")
    cuts = sorted(data.draw(st.sets(st.integers(0, len(factors)), max_size=4), label="cuts"))
    new_shape, start = [], 0
    for cut in cuts + [len(factors)]:
        new_shape.append(int(np.prod(factors[start:cut])))
        start = cut
    if data.draw(st.booleans(), label="extra ones"):
        new_shape.insert(data.draw(st.integers(0, len(new_shape)), label="where"), 1)
    new_shape_t = tuple(new_shape)
    strides = view_strides(tensor_data.shape, tensor_data.strides, new_shape_t)
    expected = view.reshape(new_shape_t)  # NumPy copies only when no view is possible
    numpy_made_view = np.shares_memory(expected, view)
    assert (strides is not None) == numpy_made_view, (view.shape, view.strides, new_shape_t, strides)
    if strides is not None:
        reshaped = TensorData(tensor_data.storage, new_shape_t, strides, tensor_data.offset)
        np.testing.assert_array_equal(as_numpy(reshaped), expected)


def _prime_factors(n: int) -> list[int]:
    out, p = [], 2
    while n > 1:
        while n % p == 0:
            out.append(p)
            n //= p
        p += 1
    return out


@indexing
def test_view_strides_by_hand() -> None:
    assert view_strides((2, 3), (3, 1), (3, 2)) == (2, 1)
    assert view_strides((2, 3), (3, 1), (6,)) == (1,)
    assert view_strides((3, 2), (1, 3), (6,)) is None  # a transpose can't be flattened
    assert view_strides((3, 2), (1, 3), (3, 2, 1)) is not None
    assert view_strides((2, 3), (6, 2), (6,)) == (2,)  # every other element: one uniform stride
    assert view_strides((2, 3), (4, 1), (6,)) is None  # rows of a (2, 4) cut to 3 columns
    assert view_strides((2, 3), (4, 1), (2, 3, 1)) is not None


# ---------------------------------------------------------------- broadcasting


@broadcasting
@given(mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=4, max_side=4))
def test_shape_broadcast_matches_numpy(shapes_: object) -> None:
    a, b = shapes_.input_shapes  # type: ignore[attr-defined]
    assert shape_broadcast(a, b) == np.broadcast_shapes(a, b)
    assert shape_broadcast(b, a) == np.broadcast_shapes(a, b)


@broadcasting
@given(shapes, shapes)
def test_shape_broadcast_errors_when_numpy_does(a: tuple[int, ...], b: tuple[int, ...]) -> None:
    try:
        expected = np.broadcast_shapes(a, b)
    except ValueError:
        with pytest.raises(IndexingError, match="must match the size") as error:
            shape_broadcast(a, b)
        assert str(list(a)) in str(error.value) and str(list(b)) in str(error.value)
        assert isinstance(error.value, RuntimeError)  # PyTorch raises RuntimeError
    else:
        assert shape_broadcast(a, b) == expected


@broadcasting
def test_shape_broadcast_by_hand() -> None:
    assert shape_broadcast((2, 1), (3,)) == (2, 3)
    assert shape_broadcast((), (4, 5)) == (4, 5)
    assert shape_broadcast((5, 1, 4), (3, 1)) == (5, 3, 4)
    assert shape_broadcast((1,), (0,)) == (0,)
    with pytest.raises(IndexingError):
        shape_broadcast((2, 3), (3, 2))


@broadcasting
@given(st.data())
def test_broadcast_index_matches_numpy(data: st.DataObject) -> None:
    small = data.draw(array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=3), label="small")
    big = data.draw(broadcastable_shapes(small, min_dims=len(small), max_dims=4, min_side=1, max_side=3), label="big")
    big = np.broadcast_shapes(small, big)
    source = np.arange(int(np.prod(small))).reshape(small)
    broadcast = np.broadcast_to(source, big)
    out = np.zeros(len(small), dtype=np.int64)
    for big_index in np.ndindex(*big):
        broadcast_index(np.array(big_index, dtype=np.int64), big, small, out)
        assert all(0 <= i < n for i, n in zip(out, small))
        assert source[tuple(out)] == broadcast[big_index]


@broadcasting
def test_broadcast_index_by_hand() -> None:
    out = np.zeros(2, dtype=np.int64)
    broadcast_index(np.array([1, 2, 3]), (2, 3, 4), (3, 1), out)
    assert out.tolist() == [2, 0]
    out1 = np.zeros(1, dtype=np.int64)
    broadcast_index(np.array([1, 2]), (2, 3), (3,), out1)
    assert out1.tolist() == [2]


@broadcasting
@given(st.data())
def test_expand_strides_match_numpy_broadcast_to(data: st.DataObject) -> None:
    view, tensor_data = data.draw(layouts(), label="layout")
    assume(view.ndim <= 3)
    ones = data.draw(st.lists(st.booleans(), min_size=view.ndim, max_size=view.ndim), label="squash")
    source = view[tuple(slice(0, 1) if squash else slice(None) for squash in ones)]
    source_data = TensorData(
        tensor_data.storage, source.shape, [s // source.itemsize for s in source.strides], tensor_data.offset
    )
    target = data.draw(broadcastable_shapes(source.shape, min_dims=source.ndim, max_dims=4, min_side=1, max_side=3), label="target")
    target = np.broadcast_shapes(source.shape, target)
    strides = expand_strides(source_data.shape, source_data.strides, target)
    expanded = TensorData(source_data.storage, target, strides, source_data.offset)
    np.testing.assert_array_equal(as_numpy(expanded), np.broadcast_to(source, target))


@broadcasting
def test_expand_strides_errors() -> None:
    with pytest.raises(IndexingError):
        expand_strides((2, 3), (3, 1), (2, 4))
    with pytest.raises(IndexingError):
        expand_strides((2, 3), (3, 1), (3,))
    assert expand_strides((3, 1), (1, 1), (2, 3, 4)) == (0, 1, 0)

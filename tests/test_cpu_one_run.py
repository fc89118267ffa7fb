"""The CPU backend's one-run layout for elementwise ops (``cpu._flat_steps``), and its
two-dimensional one (``cpu._rows_steps``).

Where the output is row-major and each operand is laid out as the output or is a single
element (``x * 2``), a map or zip skips the general layout and runs as one run of ``size``
elements (each operand stepping by 1, or by 0 for a single element): serially through the
flat entry points, threaded through the general kernel with :func:`cpu._flat_layout`'s arrays.
Where the layout merges into two dimensions instead (a row or a column broadcast, a transpose),
a small op runs row by row through the rows entry points, each operand's two steps as integers.
These tests check which operands take each path and that every one of them, and every one
that does not, computes what NumPy computes.
"""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
from minitorch.backends import cpu
from minitorch.backends.cpu_kernels import PARALLEL_MIN_WORK
from minitorch.tensor_data import TensorData

CPU = cpu.CpuBackend()


def data(array: np.ndarray) -> TensorData:
    """A row-major TensorData holding a copy of ``array``."""
    return minitorch.tensor(array)._data


def strides_of(layout: tuple[np.ndarray, ...]) -> list[list[int]]:
    return [s.tolist() for s in layout]


def flat_layout(out: TensorData, *operands: TensorData) -> list[list[int]]:
    """The threaded kernels' arrays for a one-run op (its steps must exist)."""
    steps = cpu._flat_steps(out, *operands)
    assert steps is not None
    return strides_of(cpu._flat_layout(out, steps))


def test_same_layout_operands_run_as_one_run() -> None:
    rng = np.random.default_rng(0)
    a, b = data(rng.standard_normal((3, 4, 5))), data(rng.standard_normal((3, 4, 5)))
    out = data(np.zeros((3, 4, 5)))
    assert cpu._flat_steps(out, a, b) == (1, 1)
    assert flat_layout(out, a, b) == [[60], [1], [1], [1]]


@pytest.mark.parametrize("single_shape", [(), (1,), (1, 1)])
def test_a_single_element_is_read_at_every_position(single_shape: tuple[int, ...]) -> None:
    a = data(np.ones((4, 6)))
    single = data(np.full(single_shape, 2.0))
    out = data(np.zeros((4, 6)))
    assert cpu._flat_steps(out, a, single) == (1, 0)
    assert cpu._flat_steps(out, single, a) == (0, 1)
    assert flat_layout(out, a, single) == [[24], [1], [1], [0]]
    assert flat_layout(out, single, a) == [[24], [1], [0], [1]]


def test_other_layouts_take_the_general_path() -> None:
    rng = np.random.default_rng(1)
    square = rng.standard_normal((5, 5))
    out = data(np.zeros((5, 5)))
    a = data(square)
    transposed = minitorch.tensor(square).t()._data
    row = data(square[0])
    assert cpu._flat_steps(out, a, transposed) is None  # same shape, other strides
    assert cpu._flat_steps(transposed, a, a) is None  # the output is not row-major
    assert cpu._flat_steps(out, a, row) is None  # a broadcast row: more than one element
    assert cpu._flat_steps(out, a, data(square.astype(np.float32))) is None  # another dtype
    half = data(square.astype(np.float16))
    assert cpu._flat_steps(half, half, half) is None  # half goes through float32
    flags = data(square > 0)
    assert cpu._flat_steps(flags, flags, flags) is None  # bool is read as bytes


def numpy_view(td: TensorData) -> np.ndarray:
    itemsize = td.storage.itemsize
    return np.lib.stride_tricks.as_strided(
        td.storage[td.offset :], td.shape, [s * itemsize for s in td.strides])


CASES = {
    "same layout": lambda x, y: (x, y),
    "a number on the right": lambda x, y: (x, y[:1, :1].reshape(())),
    "a number on the left": lambda x, y: (x[:1, :1].reshape((1, 1)), y),
    "an offset view": lambda x, y: (x[1:], y[1:]),
    "transposed": lambda x, y: (x.t(), y.t().contiguous()),
    "a broadcast row": lambda x, y: (x, y[2]),
}


@pytest.mark.parametrize("rows", [6, PARALLEL_MIN_WORK // 8 + 5])
@pytest.mark.parametrize("case", list(CASES))
def test_zip_and_map_match_numpy(case: str, rows: int) -> None:
    rng = np.random.default_rng(2)
    x_np = rng.standard_normal((rows, rows if rows < 8 else 8)).astype(np.float32)
    y_np = rng.standard_normal(x_np.shape).astype(np.float32)
    a, b = CASES[case](minitorch.tensor(x_np), minitorch.tensor(y_np))
    a_np, b_np = numpy_view(a._data), numpy_view(b._data)
    np.testing.assert_allclose((a - b).numpy(), a_np - b_np, rtol=1e-6)
    np.testing.assert_allclose((b * a).numpy(), b_np * a_np, rtol=1e-6)
    np.testing.assert_allclose(a.exp().numpy(), np.exp(a_np), rtol=1e-6)
    target = minitorch.tensor(np.broadcast_to(a_np - b_np, np.broadcast_shapes(a_np.shape, b_np.shape)).copy())
    target.sub_(b)  # in place: the output is also an operand
    np.testing.assert_allclose(target.numpy(), a_np - 2 * b_np, rtol=1e-5, atol=1e-6)


def test_the_output_is_written_where_its_view_starts() -> None:
    storage = minitorch.zeros(20)
    window = storage[5:15]  # row-major, at an offset into its storage
    CPU.zip("add", data(np.arange(10.0, dtype=np.float32)), data(np.full(10, 1.0, np.float32)), window._data)
    expected = np.zeros(20, np.float32)
    expected[5:15] = np.arange(10.0) + 1
    np.testing.assert_array_equal(storage.numpy(), expected)


@pytest.mark.parametrize("channels", [3, PARALLEL_MIN_WORK // 32 + 1])
def test_operands_dense_in_another_order_run_as_one_run(channels: int) -> None:
    """Channels-last tensors (row-major with the dimensions reordered) and a transposed matrix
    fill a block of storage exactly once: alike-laid-out operands run as one run, and compute
    what NumPy computes, out of place, in place and with a number."""
    rng = np.random.default_rng(4)
    x_np, y_np = rng.standard_normal((2, 2, channels, 4, 4)).astype(np.float32)
    x = minitorch.tensor(x_np).contiguous(memory_format=minitorch.channels_last)
    y = minitorch.tensor(y_np).contiguous(memory_format=minitorch.channels_last)
    out = minitorch.empty_like(x, memory_format=minitorch.channels_last)
    assert x._data.strides != cpu.contiguous_strides(x._data.shape)
    assert cpu._flat_steps(out._data, x._data, y._data) == (1, 1)
    assert cpu._flat_steps(out._data, x._data, data(np.float32(2.0))) == (1, 0)
    assert cpu._flat_steps(out._data, x._data, y.contiguous()._data) is None  # another order
    matrix = minitorch.tensor(x_np[0, 0]).t()
    assert cpu._flat_steps(matrix._data, matrix._data) == (1,)
    np.testing.assert_allclose((x - y).numpy(), x_np - y_np, rtol=1e-6)
    np.testing.assert_allclose((x * 2).numpy(), x_np * 2, rtol=1e-6)
    np.testing.assert_allclose(x.exp().numpy(), np.exp(x_np), rtol=1e-6)
    x.sub_(y)
    np.testing.assert_allclose(x.numpy(), x_np - y_np, rtol=1e-6)
    np.testing.assert_allclose((matrix + matrix).numpy(), 2 * x_np[0, 0].T, rtol=1e-6)


def test_operands_laid_out_alike_with_gaps_take_the_general_path() -> None:
    rng = np.random.default_rng(3)
    base, other = rng.standard_normal((6, 8)), rng.standard_normal((6, 8))
    target, source = minitorch.tensor(base), minitorch.tensor(other)
    every_other, source_every_other = target[:, ::2], source[:, ::2]  # strides (8, 2): gaps between elements
    assert every_other._data.strides == source_every_other._data.strides
    assert cpu._flat_steps(every_other._data, source_every_other._data) is None
    every_other.add_(source_every_other)
    expected = base.copy()
    expected[:, ::2] += other[:, ::2]
    np.testing.assert_allclose(target.numpy(), expected.astype(np.float32), rtol=1e-6)


def test_broadcasts_and_transposes_run_row_by_row() -> None:
    """``(rows, cols, a_row, a_col, b_row, b_col)``, derived by hand for each layout."""
    rng = np.random.default_rng(4)
    matrix = rng.standard_normal((4, 6))
    out, a = data(np.zeros((4, 6))), data(matrix)
    column, row = data(matrix[:, :1]), data(matrix[0])
    transposed = minitorch.tensor(matrix.T.copy()).t()._data  # strides (1, 4)
    assert cpu._rows_steps(out, a, column) == (4, 6, 6, 1, 1, 0)
    assert cpu._rows_steps(out, row, a) == (4, 6, 0, 1, 6, 1)
    assert cpu._rows_steps(out, transposed, a) == (4, 6, 1, 4, 6, 1)
    cube = data(np.zeros((2, 3, 6)))  # (2, 3, 6) plus a row of 6: the first two dimensions merge
    assert cpu._rows_steps(cube, data(np.zeros((2, 3, 6))), data(np.zeros(6))) == (6, 6, 6, 1, 0, 1)
    strided = minitorch.tensor(np.zeros(12)).view(12)[::2]._data  # one run with step 2: one row
    assert cpu._rows_steps(data(np.zeros(6)), strided) == (1, 6, 0, 2)


def test_layouts_of_more_than_two_dimensions_and_other_dtypes_are_not_rows() -> None:
    out = data(np.zeros((2, 4, 3)))
    permuted = minitorch.tensor(np.zeros((4, 2, 3))).permute(1, 0, 2)._data  # strides (3, 6, 1): three dims
    assert cpu._rows_steps(out, permuted) is None
    assert cpu._rows_steps(out, data(np.zeros((2, 4, 3), np.float32))) is None  # another dtype
    cube = data(np.zeros((2, 3, 6)))  # a (3, 1) column repeats along the first dimension: three dims
    assert cpu._rows_steps(cube, cube, data(np.zeros((3, 1)))) is None
    flags = data(np.zeros((2, 3), bool))
    assert cpu._rows_steps(flags, flags) is None
    assert cpu._rows_steps(minitorch.tensor(np.zeros((3, 2))).t()._data, data(np.zeros((2, 3)))) is None  # out not row-major


ROW_CASES = {
    "a column": lambda x: x[:, :1],
    "a row": lambda x: x[1],
    "a transpose": lambda x: x.t().contiguous().t(),
    "every other column": lambda x: x.repeat(1, 2)[:, ::2],
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
@pytest.mark.parametrize("case", list(ROW_CASES))
def test_row_by_row_ops_match_numpy(case: str, dtype: type) -> None:
    rng = np.random.default_rng(5)
    x = minitorch.tensor((rng.standard_normal((5, 7)) * 4).astype(dtype))
    y = ROW_CASES[case](minitorch.tensor((rng.standard_normal((5, 7)) * 4).astype(dtype)))
    assert cpu._rows_steps(data(np.zeros((5, 7), dtype)), x._data, y._data) is not None
    x_np, y_np = x.numpy(), numpy_view(y._data)
    np.testing.assert_array_equal((x - y).numpy(), x_np - y_np)
    np.testing.assert_array_equal((y * x).numpy(), y_np * x_np)
    np.testing.assert_array_equal(y.abs().numpy(), np.abs(y_np))

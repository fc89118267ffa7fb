"""In-place elementwise ops read their operand through the output's own memory
(:mod:`minitorch.backends.cpu_in_place`), so that LLVM vectorises the loop without an
overlap test. The values must be those of the out-of-place op, for every layout the segment loops
take: unit steps, a broadcast number, strided runs, small (serial) and large (threaded) tensors."""

from __future__ import annotations

import numpy as np
import pytest
import minitorch
from minitorch.backends import cpu_in_place, opcodes
from minitorch.backends.cpu_kernels import PARALLEL_MIN_WORK
from minitorch.tensor import IN_PLACE_KERNELS
from minitorch.tensor_data import TensorData

#: a size the serial loop takes and one the threaded kernel takes
SIZES = (37, PARALLEL_MIN_WORK + 13)
FLOATS = (np.float32, np.float64)


def test_only_the_output_itself_is_written_in_place() -> None:
    x = np.arange(10.0, dtype=np.float32)
    whole, row = TensorData(x, (10,)), TensorData(x, (2, 5))
    assert cpu_in_place.writes_its_operand(whole, whole)
    assert cpu_in_place.writes_its_operand(whole, TensorData(x, (10,)))  # another view of the same run
    assert not cpu_in_place.writes_its_operand(whole, TensorData(x.copy(), (10,)))
    assert not cpu_in_place.writes_its_operand(row.selected(0, 1), row.selected(0, 0))  # the same storage, shifted


@pytest.mark.parametrize("parallel", [False, True])
def test_in_place_calls_take_the_in_place_loops(parallel: bool) -> None:
    """``x += y`` and ``x.exp_()`` enter the loops that read through the output (compiled on first use)."""
    size = SIZES[parallel]
    t, y = minitorch.ones(size), minitorch.ones(size)
    t += y
    t.exp_()
    add, exp = opcodes.BINARY_CODES["add"], opcodes.UNARY_CODES["exp"]
    assert cpu_in_place.zip_in_place_entry(add, parallel).signatures
    assert cpu_in_place.map_in_place_entry(exp, parallel).signatures
    np.testing.assert_allclose(t.numpy(), np.full(size, np.exp(2.0), np.float32), rtol=1e-6)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("dtype", FLOATS + (np.int32, np.int64))
@pytest.mark.parametrize("op", ["add_", "sub_", "mul_"])
def test_in_place_with_a_tensor_equals_the_out_of_place_op(op: str, dtype: type, size: int) -> None:
    rng = np.random.default_rng(size)
    x, y = (rng.integers(-50, 50, size) if dtype in (np.int32, np.int64) else rng.standard_normal(size),
            rng.integers(-50, 50, size) if dtype in (np.int32, np.int64) else rng.standard_normal(size))
    x, y = x.astype(dtype), y.astype(dtype)
    expected = {"add_": np.add, "sub_": np.subtract, "mul_": np.multiply}[op](x, y)
    t = minitorch.tensor(x)
    getattr(t, op)(minitorch.tensor(y))
    np.testing.assert_array_equal(t.numpy(), expected)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("dtype", FLOATS)
def test_in_place_with_a_number(dtype: type, size: int) -> None:
    x = np.random.default_rng(1).standard_normal(size).astype(dtype)
    t = minitorch.tensor(x)
    t.mul_(0.5)
    t += 3.0
    np.testing.assert_array_equal(t.numpy(), (x * dtype(0.5)) + dtype(3.0))


@pytest.mark.parametrize("size", SIZES)
def test_in_place_into_a_view_leaves_the_rest(size: int) -> None:
    """A slice of a row-major matrix and a transposed matrix: runs at offsets, and strided runs."""
    rng = np.random.default_rng(2)
    base = rng.standard_normal((4, size)).astype(np.float32)
    other = rng.standard_normal(size).astype(np.float32)
    t = minitorch.tensor(base)
    t[1].add_(minitorch.tensor(other))
    expected = base.copy()
    expected[1] += other
    np.testing.assert_array_equal(t.numpy(), expected)
    square = rng.standard_normal((64, 64)).astype(np.float32)
    s = minitorch.tensor(square)
    s.t().mul_(minitorch.tensor(square.T.copy()))
    np.testing.assert_array_equal(s.numpy(), square * square)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("dtype", FLOATS)
def test_backend_map_into_its_own_operand(dtype: type, size: int) -> None:
    """``out = op(a)`` with ``out`` the operand itself (the unary segment loop's in-place branch)."""
    backend = minitorch.backends.backend_for("cpu")
    x = np.random.default_rng(3).uniform(0.1, 4.0, size).astype(dtype)
    for op in ("exp", "log", "sqrt", "neg"):
        data = TensorData(x.copy(), (size,))
        backend.map(op, data, data)
        expected = getattr(minitorch, op)(minitorch.tensor(x))  # out of place
        np.testing.assert_array_equal(data.storage, expected.numpy(), err_msg=op)


def test_an_output_of_another_dtype_takes_the_plain_loop() -> None:
    """``out`` float64 and the operands float32: never the same run, the sums converted on the store."""
    backend = minitorch.backends.backend_for("cpu")
    a = TensorData(np.float32([1.5, -2.5, 3.25]), (3,))
    b = TensorData(np.float32([1.0, 1.0, 1.0]), (3,))
    out = TensorData(np.zeros(3, np.float64), (3,))
    backend.zip("add", a, b, out)
    np.testing.assert_array_equal(out.storage, [2.5, -1.5, 4.25])


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("dtype", [minitorch.float32, minitorch.float64, minitorch.float16, minitorch.bfloat16])
@pytest.mark.parametrize("name", IN_PLACE_KERNELS)
def test_unary_in_place_equals_the_out_of_place_op(name: str, dtype: minitorch.dtype, size: int) -> None:
    """``x.exp_()`` (its kernel run in x's memory) against ``x.exp()`` (a new tensor), on a
    row-major tensor and on a transposed view, whose run is dense in another order."""
    values = np.random.default_rng(4).uniform(0.1, 3.0, (2, size)) * np.where(np.arange(size) % 3, 1, -1)
    if name in ("log", "sqrt", "rsqrt"):
        values = np.abs(values)
    for layout in (lambda t: t, lambda t: t.t().contiguous().t()):
        source = layout(minitorch.tensor(values, dtype=dtype))
        expected = getattr(source, name)()
        written = layout(minitorch.tensor(values, dtype=dtype))
        version = written._version
        assert getattr(written, name + "_")() is written
        assert written._version == version + 1
        assert written.stride() == source.stride()
        np.testing.assert_array_equal(written.float().numpy(), expected.float().numpy(), err_msg=name)


def test_unary_in_place_under_no_grad_of_a_leaf_requiring_grad() -> None:
    w = minitorch.tensor([-1.0, 2.0, -3.0], requires_grad=True)
    with minitorch.no_grad():
        w.relu_()
    assert w.requires_grad and w.grad_fn is None
    np.testing.assert_array_equal(w.detach().numpy(), [0.0, 2.0, 0.0])

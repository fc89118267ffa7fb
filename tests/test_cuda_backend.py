"""The cuda backend's kernels against NumPy (an independent oracle), on the simulator in CI.

Operands are device views in every layout a kernel must handle: contiguous, permuted,
sliced with a step (an offset and gaps) and broadcast (stride 0); a sliced ``out`` checks
that the gaps stay untouched. The ``small_cuda`` fixture shrinks the launch sizes (8
threads per block, 3 blocks at most, reduction blocks of at most 4 threads, 4 x 4 matmul
tiles) so that these tiny inputs still take grid-stride loops, several reduction rounds,
ragged tiles and batch loops.
"""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
from math_oracles import MATH_BINARY_NUMPY, MATH_NUMPY
from minitorch.backends.base import ARG_REDUCE_OPS, BINARY_OPS, REDUCE_OPS, UNARY_OPS
from minitorch.tensor_data import TensorData, strides_from_shape

pytestmark = pytest.mark.usefixtures("small_cuda")

F16, F32, F64 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)
I32, I64, U8, BOOL = np.dtype(np.int32), np.dtype(np.int64), np.dtype(np.uint8), np.dtype(np.bool_)
TOLERANCE = {F16: (2e-3, 1e-3), F32: (1e-5, 1e-6), F64: (1e-12, 1e-12)}
LAYOUTS = ("contiguous", "permuted", "sliced")
#: what fills the gaps of a sliced view: a write there is a bug
SENTINEL = 7


@pytest.fixture
def gpu():
    from minitorch.backends import backend_for

    return backend_for("cuda")


def host_view(values: np.ndarray, layout: str) -> TensorData:
    """A host TensorData holding ``values`` in the named layout."""
    if layout == "contiguous":
        return TensorData(values.reshape(-1).copy(), values.shape)
    if layout == "permuted":  # stored transposed, viewed back through permute
        order = tuple(reversed(range(values.ndim)))
        stored = values.transpose(order).copy(order="C")
        return TensorData(stored.reshape(-1), stored.shape).permute(*order)
    # every other element of a larger array, from index 1 on
    big = np.full(tuple(2 * n + 1 for n in values.shape), SENTINEL, dtype=values.dtype)
    big[tuple(slice(1, None, 2) for _ in values.shape)] = values
    big_strides = strides_from_shape(big.shape)
    return TensorData(big.reshape(-1), values.shape, [2 * s for s in big_strides], sum(big_strides))


def device_view(gpu, values: np.ndarray, layout: str = "contiguous") -> TensorData:
    """The same layout on the device: the whole host storage uploaded, shape/strides/offset kept."""
    host = host_view(values, layout)
    return TensorData(gpu.upload(host.storage), host.shape, host.strides, host.offset)


def device_out(gpu, shape: tuple[int, ...], dtype: np.dtype, layout: str = "contiguous") -> TensorData:
    return device_view(gpu, np.full(shape, SENTINEL, dtype=dtype), layout)


def gaps_untouched(gpu, out: TensorData) -> bool:
    """Every storage element outside the view ``out`` still holds :data:`SENTINEL`."""
    storage = out.storage.copy_to_host()
    inside = np.zeros(storage.size, bool)
    for index in np.ndindex(*out.shape):
        inside[out.offset + sum(i * s for i, s in zip(index, out.strides))] = True
    return bool(np.all(storage[~inside] == np.array(SENTINEL).astype(storage.dtype)))


def assert_close(actual: np.ndarray, expected: np.ndarray) -> None:
    assert actual.shape == expected.shape and actual.dtype == expected.dtype
    if actual.dtype.kind == "f":
        rtol, atol = TOLERANCE[actual.dtype]
        np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol, equal_nan=True)
    else:
        np.testing.assert_array_equal(actual, expected)


# ---- oracles: each op in NumPy ----


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-x))


UNARY_NUMPY = {
    "copy": lambda x: x, "neg": np.negative, "exp": np.exp, "log": np.log, "sqrt": np.sqrt,
    "abs": np.abs, "sigmoid": _sigmoid, "tanh": np.tanh, "relu": lambda x: np.maximum(x, 0),
    "sign": lambda x: np.where(np.isnan(x), 0, np.sign(x)),  # PyTorch: the sign of NaN is 0
    "logical_not": np.logical_not, "sin": np.sin, "cos": np.cos, **MATH_NUMPY,
}
BINARY_NUMPY = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide, "pow": np.power,
    "maximum": np.maximum, "minimum": np.minimum, "lt": np.less, "le": np.less_equal,
    "gt": np.greater, "ge": np.greater_equal, "eq": np.equal, "ne": np.not_equal,
    "masked": lambda x, keep: np.where(keep != 0, x, 0), **MATH_BINARY_NUMPY,
}
REDUCE_NUMPY = {"sum": np.sum, "prod": np.prod, "max": np.max, "min": np.min}
ARG_REDUCE_NUMPY = {"argmax": np.argmax, "argmin": np.argmin}
COMPARISONS = {"lt", "le", "gt", "ge", "eq", "ne", "logical_not"}


@pytest.mark.task("3.4")
def test_op_tables_cover_the_interface() -> None:
    assert set(UNARY_NUMPY) == set(UNARY_OPS)
    assert set(BINARY_NUMPY) == set(BINARY_OPS)
    assert set(REDUCE_NUMPY) == set(REDUCE_OPS)
    assert set(ARG_REDUCE_NUMPY) == set(ARG_REDUCE_OPS)


# ---- map and zip (task 3.4) ----


@pytest.mark.task("3.4")
@pytest.mark.parametrize("layouts", [("contiguous", "contiguous"), ("permuted", "sliced"), ("sliced", "permuted")], ids=str)
@pytest.mark.parametrize("op", UNARY_OPS)
def test_map(gpu, op: str, layouts: tuple[str, str]) -> None:
    rng = np.random.default_rng(1)
    values = rng.uniform(0.2, 2.0, size=(2, 3, 4)) * rng.choice([-1, 1], size=(2, 3, 4))
    if op in ("log", "sqrt"):
        values = np.abs(values)
    out_dtype = BOOL if op in COMPARISONS else F64
    a = device_view(gpu, values, layouts[0])
    out = device_out(gpu, values.shape, out_dtype, layouts[1])
    gpu.map(op, a, out)
    assert_close(gpu.download(out), UNARY_NUMPY[op](values).astype(out_dtype))
    assert gaps_untouched(gpu, out)


@pytest.mark.task("3.4")
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("op", BINARY_OPS)
def test_zip_broadcast(gpu, op: str, layout: str) -> None:
    """``a`` (2, 1, 3) and ``b`` (4, 3) broadcast to (2, 4, 3): 24 cells, three blocks of 8."""
    rng = np.random.default_rng(2)
    x = rng.integers(-3, 4, size=(2, 1, 3)).astype(np.float64)
    y = rng.integers(1, 4, size=(4, 3)).astype(np.float64) * rng.choice([-1, 1], size=(4, 3))
    if op == "masked":
        y = (y > 0).astype(np.float64)
    out_dtype = BOOL if op in COMPARISONS else F64
    out = device_out(gpu, (2, 4, 3), out_dtype, layout)
    gpu.zip(op, device_view(gpu, x, layout), device_view(gpu, y, "permuted"), out)
    assert_close(gpu.download(out), BINARY_NUMPY[op](x, y).astype(out_dtype))
    assert gaps_untouched(gpu, out)


@pytest.mark.task("3.4")
def test_grid_stride_covers_more_elements_than_threads(gpu) -> None:
    """61 elements, 3 blocks of 8 threads: each thread takes several elements."""
    values = np.arange(61.0)
    out = device_out(gpu, (61,), F64)
    gpu.map("neg", device_view(gpu, values), out)
    assert_close(gpu.download(out), -values)
    expanded = TensorData(gpu.upload(np.array([5.0])), (61,), (0,))  # one number read 61 times
    gpu.zip("add", device_view(gpu, values), expanded, out)
    assert_close(gpu.download(out), values + 5)


@pytest.mark.task("3.4")
@pytest.mark.parametrize("dtype", [F32, I32, I64, U8, BOOL, F16])
def test_other_dtypes_and_casts(gpu, dtype: np.dtype) -> None:
    values = np.array([[0, 1, 2], [3, 0, 5]]).astype(dtype)
    other = np.array([[1, 1, 3], [2, 2, 1]]).astype(dtype)
    for op in ("add", "mul", "maximum", "lt"):
        out_dtype = BOOL if op in COMPARISONS else dtype
        out = device_out(gpu, values.shape, out_dtype)
        gpu.zip(op, device_view(gpu, values), device_view(gpu, other, "permuted"), out)
        with np.errstate(over="ignore"):
            assert_close(gpu.download(out), BINARY_NUMPY[op](values, other).astype(out_dtype))
    for target in (F64, F32, F16, I64, BOOL):  # copy into another dtype: NumPy's cast
        out = device_out(gpu, values.shape, target, "sliced")
        gpu.map("copy", device_view(gpu, values, "permuted"), out)
        assert_close(gpu.download(out), values.astype(target))


@pytest.mark.task("3.4")
@pytest.mark.filterwarnings("ignore:.*encountered in scalar:RuntimeWarning")  # the simulator's NumPy scalars
def test_special_values(gpu) -> None:
    """IEEE results where a function leaves its domain, as NumPy (and a GPU) give them."""
    values = np.array([-1.0, 0.0, 1000.0, -1000.0, np.inf, np.nan])
    with np.errstate(all="ignore"):
        for op in ("exp", "log", "sqrt", "sigmoid", "tanh", "relu", "sign"):
            out = device_out(gpu, values.shape, F64)
            gpu.map(op, device_view(gpu, values), out)
            assert_close(gpu.download(out), UNARY_NUMPY[op](values))
        zeros = np.zeros_like(values)
        for op in ("div", "maximum", "minimum", "masked"):
            out = device_out(gpu, values.shape, F64)
            gpu.zip(op, device_view(gpu, values), device_view(gpu, zeros), out)
            assert_close(gpu.download(out), BINARY_NUMPY[op](values, zeros))


@pytest.mark.task("3.4")
def test_unknown_op_and_empty(gpu) -> None:
    a = device_view(gpu, np.ones(3))
    with pytest.raises(ValueError, match="unknown op 'cube'"):
        gpu.map("cube", a, device_out(gpu, (3,), F64))
    empty = TensorData(gpu.empty(0, minitorch.float64), (0, 3))
    gpu.map("exp", empty, empty)  # nothing to do, nothing launched
    assert gpu.download(empty).shape == (0, 3)


# ---- reductions (task 3.5) ----


def reduce_case(gpu, op: str, values: np.ndarray, dim: int, layout: str, out_dtype: np.dtype) -> None:
    shape = list(values.shape)
    shape[dim] = 1
    out = device_out(gpu, tuple(shape), out_dtype, layout)
    gpu.reduce(op, device_view(gpu, values, layout), dim, out)
    expected = REDUCE_NUMPY[op](values.astype(np.float64 if out_dtype.kind == "f" else np.int64), axis=dim, keepdims=True)
    assert_close(gpu.download(out), expected.astype(out_dtype))
    assert gaps_untouched(gpu, out)


@pytest.mark.task("3.5")
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dim", [0, 1, 2])
@pytest.mark.parametrize("op", REDUCE_OPS)
def test_reduce_each_dim(gpu, op: str, dim: int, layout: str) -> None:
    """Shape (3, 9, 2): dimension 1 (length 9) is longer than a block of 4 threads."""
    rng = np.random.default_rng(3)
    values = rng.uniform(0.5, 1.5, size=(3, 9, 2)) * rng.choice([-1, 1], size=(3, 9, 2))
    reduce_case(gpu, op, values, dim, layout, F64)


@pytest.mark.task("3.5")
@pytest.mark.parametrize("length", [1, 3, 4, 5, 8, 17, 33])
@pytest.mark.parametrize("op", ["sum", "max", "min"])
def test_reduce_any_length(gpu, op: str, length: int) -> None:
    """Every length around the block size (4): one round, exact fit, several rounds, a remainder."""
    values = np.random.default_rng(length).permutation(np.arange(2 * length, dtype=np.float64)).reshape(2, length)
    reduce_case(gpu, op, values, 1, "contiguous", F64)


@pytest.mark.task("3.5")
@pytest.mark.parametrize("dtype", [I32, I64, BOOL, F32, F16])
def test_reduce_dtypes(gpu, dtype: np.dtype) -> None:
    values = np.array([[1, 0, 3, 2, 0, 1], [2, 2, 0, 1, 1, 1]]).astype(dtype)
    for op in ("sum", "max"):
        out_dtype = I64 if dtype == BOOL and op == "sum" else dtype
        reduce_case(gpu, op, values, 1, "permuted", out_dtype)


@pytest.mark.task("3.5")
def test_reduce_nan_and_empty(gpu) -> None:
    values = np.array([[1.0, np.nan, 3.0, 0.5, 2.0, 7.0], [1.0, 2.0, 3.0, 4.0, 5.0, np.nan]])
    for op in REDUCE_OPS:
        reduce_case(gpu, op, values, 1, "contiguous", F64)
    for op, identity in (("sum", 0.0), ("prod", 1.0)):  # an empty dimension: the identity
        out = device_out(gpu, (2, 1), F64)
        gpu.reduce(op, TensorData(gpu.empty(0, minitorch.float64), (2, 0)), 1, out)
        assert_close(gpu.download(out), np.full((2, 1), identity))


@pytest.mark.task("3.5")
def test_sum_accumulates_in_float64(gpu) -> None:
    """2**24 + eight ones: a float32 accumulator would lose every one of them."""
    values = np.array([2.0**24] + [1.0] * 8, dtype=np.float32)
    out = device_out(gpu, (1,), F32)
    gpu.reduce("sum", device_view(gpu, values), 0, out)
    assert gpu.download(out)[0] == np.float32(2**24 + 8)


@pytest.mark.task("3.5")
def test_reduce_wrong_out_shape(gpu) -> None:
    with pytest.raises(ValueError, match="needs out shape"):
        gpu.reduce("sum", device_view(gpu, np.ones((2, 3))), 1, device_out(gpu, (2, 3), F64))


# ---- arg reductions (task 3.6) ----


@pytest.mark.task("3.6")
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dim", [0, 1])
@pytest.mark.parametrize("op", ARG_REDUCE_OPS)
def test_arg_reduce(gpu, op: str, dim: int, layout: str) -> None:
    values = np.random.default_rng(4).permutation(np.arange(22.0)).reshape(2, 11)
    shape = (1, 11) if dim == 0 else (2, 1)
    out = device_out(gpu, shape, I64, layout)
    gpu.arg_reduce(op, device_view(gpu, values, layout), dim, out)
    assert_close(gpu.download(out), ARG_REDUCE_NUMPY[op](values, axis=dim).reshape(shape))


@pytest.mark.task("3.6")
@pytest.mark.parametrize("op", ARG_REDUCE_OPS)
def test_arg_reduce_ties_nan_and_dtypes(gpu, op: str) -> None:
    """The first of equal extremes wins, wherever the threads' strides put them; NaN wins."""
    rows = np.array([
        [0, 3, 1, 3, 3, 0, 3, 1, 0, 3, 0, 0, 3],   # max ties at 1, 3, 4, 6, 9, 12; min ties at 0, 5, ...
        [2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2],
        [1, 5, 9, 2, 2, 7, 1, 1, 0, 9, 0, 8, 3],
    ])
    for dtype in (F64, I32, BOOL, F16):
        values = (rows > 1) if dtype == BOOL else rows.astype(dtype)
        out = device_out(gpu, (3, 1), I64)
        gpu.arg_reduce(op, device_view(gpu, values, "sliced"), 1, out)
        assert_close(gpu.download(out), ARG_REDUCE_NUMPY[op](values, axis=1).reshape(3, 1))
    with_nan = rows.astype(F64)
    with_nan[0, 7] = with_nan[0, 10] = np.nan
    out = device_out(gpu, (3, 1), I64)
    gpu.arg_reduce(op, device_view(gpu, with_nan), 1, out)
    assert gpu.download(out)[0, 0] == 7


# ---- matmul (task 3.7) ----


def matmul_case(gpu, a: np.ndarray, b: np.ndarray, layouts: tuple[str, str, str] = ("contiguous",) * 3) -> None:
    expected = np.matmul(a, b)
    rank = max(a.ndim, b.ndim)
    a = a.reshape((1,) * (rank - a.ndim) + a.shape)
    b = b.reshape((1,) * (rank - b.ndim) + b.shape)
    out = device_out(gpu, expected.shape, expected.dtype, layouts[2])
    gpu.matmul(device_view(gpu, a, layouts[0]), device_view(gpu, b, layouts[1]), out)
    assert_close(gpu.download(out), expected)
    assert gaps_untouched(gpu, out)


@pytest.mark.task("3.7")
@pytest.mark.parametrize("n,k,m", [(1, 1, 1), (5, 7, 6), (9, 4, 3), (4, 8, 4), (2, 13, 1), (3, 0, 2)])
def test_matmul_ragged_tiles(gpu, n: int, k: int, m: int) -> None:
    """Sizes around the 4 x 4 tile: partial tiles on every edge, k = 0 gives zeros."""
    rng = np.random.default_rng(n * 100 + k * 10 + m)
    matmul_case(gpu, rng.uniform(-1, 1, (n, k)), rng.uniform(-1, 1, (k, m)))


@pytest.mark.task("3.7")
def test_matmul_batch_broadcast(gpu) -> None:
    """(2, 1, 5, 6) @ (3, 6, 5): batches broadcast to (2, 3), more than the 2 batch blocks."""
    rng = np.random.default_rng(5)
    matmul_case(gpu, rng.uniform(-1, 1, (2, 1, 5, 6)), rng.uniform(-1, 1, (3, 6, 5)))


@pytest.mark.task("3.7")
@pytest.mark.parametrize("layouts", [("permuted", "sliced", "contiguous"), ("sliced", "permuted", "sliced")], ids=str)
def test_matmul_non_contiguous(gpu, layouts: tuple[str, str, str]) -> None:
    rng = np.random.default_rng(6)
    matmul_case(gpu, rng.uniform(-1, 1, (2, 5, 6)), rng.uniform(-1, 1, (2, 6, 7)), layouts)


@pytest.mark.task("3.7")
@pytest.mark.parametrize("dtype", [F32, I64, F16])
def test_matmul_dtypes(gpu, dtype: np.dtype) -> None:
    rng = np.random.default_rng(7)
    a, b = rng.integers(-3, 4, (5, 6)).astype(dtype), rng.integers(-3, 4, (6, 3)).astype(dtype)
    matmul_case(gpu, a, b)


# ---- transfers ----


@pytest.mark.task("3.4")
@pytest.mark.parametrize("layout", LAYOUTS)
def test_download_gives_the_view_values(gpu, layout: str) -> None:
    values = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    assert_close(gpu.download(device_view(gpu, values, layout)), values)


# ---- indexing primitives: accumulate, gather, scatter_add (on the 3.4 index helpers) ----


def storage_positions(td: TensorData) -> np.ndarray:
    """The storage position of every index of ``td`` (an independent walk of its strides)."""
    positions = np.full(td.shape, td.offset, np.int64)
    for d, (size, stride) in enumerate(zip(td.shape, td.strides)):
        positions += (np.arange(size) * stride).reshape([-1 if e == d else 1 for e in range(td.dims)])
    return positions


@pytest.mark.task("3.4")
@pytest.mark.parametrize("dtype", [F64, F32, I64, I32, F16, U8, BOOL])
def test_accumulate_into_overlapping_windows(gpu, dtype: np.dtype) -> None:
    """Windows of 3 sliding by 1 over 7 elements: the middle ones receive three adds each."""
    start = np.arange(1, 8).astype(dtype) if dtype != BOOL else np.array([0, 1, 0, 0, 1, 0, 0], bool)
    src = (np.arange(15).reshape(5, 3) % 4 == 1) if dtype == BOOL else (np.arange(15).reshape(5, 3) % 5).astype(dtype)
    out = TensorData(gpu.upload(start), (5, 3), (1, 1))
    gpu.accumulate(device_view(gpu, src, "permuted"), out)
    expected = start.copy()
    np.add.at(expected, storage_positions(out), src)
    assert_close(out.storage.copy_to_host(), expected)


@pytest.mark.task("3.4")
def test_accumulate_broadcast_source(gpu) -> None:
    out = device_view(gpu, np.zeros((3, 4)), "sliced")
    gpu.accumulate(device_view(gpu, np.array([1.0, 2.0, 3.0, 4.0])), out)
    assert_close(gpu.download(out), np.tile([1.0, 2.0, 3.0, 4.0], (3, 1)))
    assert gaps_untouched(gpu, out)


@pytest.mark.task("3.4")
@pytest.mark.parametrize("dtype", [F64, I64, F16, BOOL])
@pytest.mark.parametrize("dim", [0, 1])
def test_gather(gpu, dim: int, dtype: np.dtype) -> None:
    rng = np.random.default_rng(8)
    a = rng.integers(0, 9, (4, 5)).astype(dtype)
    index = rng.integers(0, a.shape[dim], (3, 4))  # smaller than a in the other dimension
    out = device_out(gpu, index.shape, dtype, "sliced")
    gpu.gather(device_view(gpu, a, "permuted"), dim, device_view(gpu, index, "sliced"), out)
    cut = tuple(slice(None) if d == dim else slice(0, n) for d, n in enumerate(index.shape))
    assert_close(gpu.download(out), np.take_along_axis(a[cut], index, dim))
    assert gaps_untouched(gpu, out)


@pytest.mark.task("3.4")
@pytest.mark.parametrize("dtype", [F64, F32, I64, F16, U8])
@pytest.mark.parametrize("dim", [0, 1])
def test_scatter_add_with_repeated_targets(gpu, dim: int, dtype: np.dtype) -> None:
    rng = np.random.default_rng(9)
    index = rng.integers(0, 2, (5, 3))  # only 2 targets along dim: many collisions
    src = rng.integers(1, 5, (5, 3)).astype(dtype)
    start = np.ones((2, 3) if dim == 0 else (5, 2), dtype)
    out = device_view(gpu, start, "sliced")
    gpu.scatter_add(device_view(gpu, src, "permuted"), dim, device_view(gpu, index), out)
    expected = start.copy()
    for i in np.ndindex(*index.shape):
        target = list(i)
        target[dim] = index[i]
        expected[tuple(target)] += src[i]
    assert_close(gpu.download(out), expected)
    assert gaps_untouched(gpu, out)

"""The Numba CPU backend against NumPy (an independent oracle) and the simple backend.

Operands are built directly as :class:`TensorData` views of NumPy arrays, in every layout a
kernel must handle: contiguous, permuted, sliced with a step (so with an offset), and
broadcast (stride 0); ``out`` is sometimes a strided view whose gaps must stay untouched.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from minitorch.backends import cpu_kernels
from minitorch.backends.base import ARG_REDUCE_OPS, BINARY_OPS, REDUCE_OPS, UNARY_OPS
from minitorch.backends.cpu import CpuBackend, numba_matmul
from minitorch.backends.cpu_kernels import PARALLEL_MIN_WORK
from minitorch.backends.simple import SimpleBackend
from minitorch.tensor_data import TensorData, expand_strides, strides_from_shape

CPU = CpuBackend()
SIMPLE = SimpleBackend()
FEW = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])

F16, F32, F64 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)
I32, I64, U8, BOOL = np.dtype(np.int32), np.dtype(np.int64), np.dtype(np.uint8), np.dtype(np.bool_)
FLOATS = (F32, F64, F16)
SIGNED = (I32, I64)
INTS = (I32, I64, U8)
ALL = FLOATS + INTS + (BOOL,)
#: relative/absolute tolerance per dtype (libm functions differ in the last bits)
TOLERANCE = {F16: (2e-3, 1e-3), F32: (1e-5, 1e-6), F64: (1e-12, 1e-12)}
#: a float32 matmul adds k rounded products in a different order than NumPy's BLAS
MATMUL_TOLERANCE = {F16: (2e-2, 2e-2), F32: (1e-4, 1e-4), F64: (1e-10, 1e-10)}

#: layouts a view may have (``sliced`` reads every other element from index 1 on: offset != 0)
LAYOUTS = ("contiguous", "permuted", "sliced")
#: what fills the gaps of a sliced ``out``: any write there is a bug
SENTINEL = 7


# ---- building views ----


def make_view(values: np.ndarray, layout: str = "contiguous") -> TensorData:
    """A TensorData holding ``values`` in the named layout."""
    if layout == "contiguous":
        return TensorData(values.reshape(-1).copy(), values.shape)
    if layout == "permuted":  # stored transposed, viewed back through permute
        order = tuple(reversed(range(values.ndim)))
        stored = values.transpose(order).copy(order="C")
        return TensorData(stored.reshape(-1), stored.shape).permute(*order)
    if layout == "sliced":  # every other element of a larger array, starting at index 1
        big = np.full(tuple(2 * n + 1 for n in values.shape), SENTINEL, dtype=values.dtype)
        big[tuple(slice(1, None, 2) for _ in values.shape)] = values
        big_strides = strides_from_shape(big.shape)
        return TensorData(big.reshape(-1), values.shape, [2 * s for s in big_strides], sum(big_strides))
    raise ValueError(layout)


def expanded_view(small: np.ndarray, shape: tuple[int, ...]) -> TensorData:
    """``small`` broadcast to ``shape`` with stride-0 dimensions, sharing one small storage."""
    td = make_view(small)
    return TensorData(td.storage, shape, expand_strides(td.shape, td.strides, shape))


def make_out(shape: tuple[int, ...], dtype: np.dtype, layout: str = "contiguous") -> TensorData:
    return make_view(np.zeros(shape, dtype), layout)


def values_of(td: TensorData) -> np.ndarray:
    return td.numpy_view().copy()


def assert_gaps_untouched(out: TensorData) -> None:
    """Every storage element outside the view ``out`` still holds what it was filled with."""
    storage = out.storage.copy()
    TensorData(storage, out.shape, out.strides, out.offset).numpy_view()[...] = SENTINEL
    assert (storage == np.asarray(SENTINEL).astype(storage.dtype)).all(), "a kernel wrote outside its out view"


def sample(rng: np.random.Generator, shape: tuple[int, ...], dtype: np.dtype, specials: bool = True) -> np.ndarray:
    """Random values of ``dtype``; floats include 0, ±1, ±inf and NaN now and then."""
    if dtype == BOOL:
        return np.asarray(rng.random(shape) < 0.5)
    if dtype == U8:
        return np.asarray(rng.integers(0, 7, shape), dtype)
    if dtype.kind == "i":
        return np.asarray(rng.integers(-20, 21, shape), dtype)
    values = np.asarray(rng.standard_normal(shape) * 2)
    if specials:
        pick = rng.random(shape) < 0.15
        values[pick] = rng.choice([0.0, 1.0, -1.0, 0.5, -2.5, np.inf, -np.inf, np.nan], size=int(pick.sum()))
    return values.astype(dtype)


def assert_close(actual: np.ndarray, expected: np.ndarray, tolerance: dict = TOLERANCE) -> None:
    assert actual.shape == expected.shape and actual.dtype == expected.dtype
    if actual.dtype.kind == "f":
        rtol, atol = tolerance[actual.dtype]
        np.testing.assert_allclose(actual.astype(F64), expected.astype(F64), rtol=rtol, atol=atol, equal_nan=True)
    else:
        np.testing.assert_array_equal(actual, expected)


# ---- NumPy oracles, with the project's conventions spelled out ----


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-x.astype(F64)))


from math_oracles import MATH_BINARY_NUMPY, MATH_NUMPY  # noqa: E402 - the oracles of issue 17's ops

UNARY_NUMPY: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "copy": lambda x: x,
    "neg": np.negative,
    "exp": np.exp,
    "log": np.log,
    "sqrt": np.sqrt,
    "abs": np.abs,
    "sigmoid": _sigmoid,
    "tanh": np.tanh,
    "relu": lambda x: np.where((x > 0) | (x != x), x, 0),
    "sign": lambda x: np.where(x != x, 0, np.sign(x)),  # sign(NaN) is 0, as operators.sign
    "logical_not": np.logical_not,
    "sin": np.sin,
    "cos": np.cos,
    **MATH_NUMPY,
}
BINARY_NUMPY: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "add": np.add,
    "sub": np.subtract,
    "mul": np.multiply,
    "div": np.divide,
    "pow": np.power,
    "maximum": np.maximum,
    "minimum": np.minimum,
    "lt": np.less,
    "le": np.less_equal,
    "gt": np.greater,
    "ge": np.greater_equal,
    "eq": np.equal,
    "ne": np.not_equal,
    "masked": lambda x, keep: np.where(keep != 0, x, 0),
    **MATH_BINARY_NUMPY,
}
#: the dtypes each op is computed in (the caller casts first, e.g. ints to float for exp)
UNARY_DTYPES: dict[str, tuple[np.dtype, ...]] = {
    "copy": ALL,
    "neg": FLOATS + SIGNED,
    "exp": FLOATS,
    "log": FLOATS,
    "sqrt": FLOATS,
    "abs": FLOATS + INTS,
    "sigmoid": FLOATS,
    "tanh": FLOATS,
    "relu": FLOATS + INTS,
    "sign": FLOATS + SIGNED,
    "logical_not": ALL,
    "sin": FLOATS,
    "cos": FLOATS,
    **{op: FLOATS for op in MATH_NUMPY},
}
BINARY_DTYPES: dict[str, tuple[np.dtype, ...]] = {
    **{op: FLOATS + INTS + (BOOL,) for op in ("add", "mul", "maximum", "minimum")},
    **{op: ALL for op in ("lt", "le", "gt", "ge", "eq", "ne")},
    "masked": FLOATS + (I64,),  # with a bool mask: each (value, mask) dtype pair is compiled apart
    "sub": FLOATS + SIGNED,
    "div": FLOATS,
    "pow": FLOATS + INTS,
    **{op: FLOATS for op in ("atan2", "hypot", "fmod", "remainder")},
    **{op: SIGNED for op in ("int_fmod", "int_remainder")},
}
BOOL_RESULT = {"logical_not", "lt", "le", "gt", "ge", "eq", "ne"}


def test_op_tables_cover_the_interface() -> None:
    assert set(UNARY_NUMPY) == set(UNARY_OPS) == set(UNARY_DTYPES)
    assert set(BINARY_NUMPY) == set(BINARY_OPS) == set(BINARY_DTYPES)
    assert set(REDUCE_OPS) == {"sum", "prod", "max", "min"}
    assert set(ARG_REDUCE_OPS) == {"argmax", "argmin"}


# ---- hypothesis: shapes, broadcasting and layouts ----


@st.composite
def broadcast_cases(draw: st.DrawFn, operands: int) -> tuple:
    """``(out_shape, operand_shapes, operand_layouts, out_layout, seed)``."""
    out_shape = tuple(draw(st.lists(st.integers(1, 5), max_size=3)))
    shapes = []
    for _ in range(operands):
        drop = draw(st.integers(0, len(out_shape)))  # broadcasting adds missing leading dims
        shape = [1 if draw(st.integers(0, 3)) == 0 else n for n in out_shape[drop:]]
        shapes.append(tuple(shape))
    layouts = [draw(st.sampled_from(LAYOUTS)) for _ in range(operands)]
    return out_shape, shapes, layouts, draw(st.sampled_from(LAYOUTS)), draw(st.integers(0, 2**32 - 1))


def run_map(
    backend: object, op: str, a: TensorData, out_shape: tuple, out_dtype: np.dtype, layout: str = "contiguous"
) -> TensorData:
    out = make_out(out_shape, out_dtype, layout)
    backend.map(op, a, out)
    return out


def run_zip(
    backend: object, op: str, a: TensorData, b: TensorData, out_shape: tuple, out_dtype: np.dtype,
    layout: str = "contiguous",
) -> TensorData:
    out = make_out(out_shape, out_dtype, layout)
    backend.zip(op, a, b, out)
    return out


def cpu_map(op: str, x: np.ndarray, out_dtype: np.dtype) -> np.ndarray:
    """The CPU backend's ``op`` of contiguous ``x``, as an array."""
    return values_of(run_map(CPU, op, make_view(x), x.shape, out_dtype))


def cpu_zip(op: str, x: np.ndarray, y: np.ndarray, out_dtype: np.dtype) -> np.ndarray:
    """The CPU backend's ``op`` of contiguous ``x`` and ``y``, as an array."""
    return values_of(run_zip(CPU, op, make_view(x), make_view(y), np.broadcast_shapes(x.shape, y.shape), out_dtype))


@pytest.mark.task("3.1")
@pytest.mark.parametrize("op", UNARY_OPS)
@FEW
@given(case=broadcast_cases(1), dtype_index=st.integers(0, len(ALL) - 1))
def test_map(op: str, case: tuple, dtype_index: int) -> None:
    out_shape, (shape,), (layout,), out_layout, seed = case
    dtypes = UNARY_DTYPES[op]
    dtype = dtypes[dtype_index % len(dtypes)]
    out_dtype = BOOL if op in BOOL_RESULT else dtype
    x = sample(np.random.default_rng(seed), shape, dtype)
    with np.errstate(all="ignore"):
        expected = np.broadcast_to(UNARY_NUMPY[op](x), out_shape).astype(out_dtype)
    out = run_map(CPU, op, make_view(x, layout), out_shape, out_dtype, out_layout)
    assert_close(values_of(out), expected)
    assert_close(values_of(out), values_of(run_map(SIMPLE, op, make_view(x, layout), out_shape, out_dtype)))
    if out_layout == "sliced":
        assert_gaps_untouched(out)


@pytest.mark.task("3.1")
@pytest.mark.parametrize("op", BINARY_OPS)
@FEW
@given(case=broadcast_cases(2), dtype_index=st.integers(0, len(ALL) - 1))
def test_zip(op: str, case: tuple, dtype_index: int) -> None:
    out_shape, (a_shape, b_shape), (a_layout, b_layout), out_layout, seed = case
    dtypes = BINARY_DTYPES[op]
    dtype = dtypes[dtype_index % len(dtypes)]
    out_dtype = BOOL if op in BOOL_RESULT else dtype
    rng = np.random.default_rng(seed)
    x = sample(rng, a_shape, dtype)
    y = sample(rng, b_shape, dtype)
    if op == "pow" and dtype.kind in "iu":
        y = rng.integers(0, 4, b_shape).astype(dtype)  # integer powers: no negative exponents
    if op == "masked":
        y = sample(rng, b_shape, BOOL)
    with np.errstate(all="ignore"):
        expected = np.broadcast_to(BINARY_NUMPY[op](x, y), out_shape).astype(out_dtype)
    out = run_zip(CPU, op, make_view(x, a_layout), make_view(y, b_layout), out_shape, out_dtype, out_layout)
    assert_close(values_of(out), expected)
    reference = run_zip(SIMPLE, op, make_view(x, a_layout), make_view(y, b_layout), out_shape, out_dtype)
    assert_close(values_of(out), values_of(reference))
    if out_layout == "sliced":
        assert_gaps_untouched(out)


@pytest.mark.task("3.1")
@pytest.mark.parametrize("source", ALL, ids=str)
def test_copy_casts_like_numpy(source: np.dtype) -> None:
    """``copy`` into another dtype is a cast, as ``.to(dtype)``: floats truncate towards 0,
    anything nonzero (NaN included) is True."""
    values = np.array([0, 1, 2.75, -1.5, 3, 0.25, -2.0, 5, np.nan, np.inf])
    values = values.astype(source) if source.kind == "f" else values[:8].astype(source)
    for target in ALL:
        if source.kind == "f" and target.kind != "f":
            x = values[:8] if target == BOOL else np.abs(values[:8])  # NaN/inf/negative into an int: undefined
        else:
            x = values if source.kind == "f" or target != U8 else np.abs(values)
        out = run_map(CPU, "copy", make_view(x, "sliced"), x.shape, target, "sliced")
        with np.errstate(all="ignore"):
            np.testing.assert_array_equal(values_of(out), x.astype(target))
        assert_gaps_untouched(out)


@pytest.mark.task("3.1")
def test_float_results_into_bool_and_int_out() -> None:
    x = np.array([1.0, 2.0, np.nan, -3.0], F32)
    y = np.array([1.0, 5.0, np.nan, -3.0], F32)
    np.testing.assert_array_equal(cpu_zip("eq", x, y, BOOL), [True, False, False, True])
    np.testing.assert_array_equal(cpu_zip("eq", x, y, F32), [1, 0, 0, 1])
    np.testing.assert_array_equal(cpu_map("logical_not", x, BOOL), [False, False, False, False])
    np.testing.assert_array_equal(cpu_zip("mul", x[:2], y[:2], I64), [1, 10])


@pytest.mark.task("3.1")
def test_special_values() -> None:
    """IEEE results instead of errors, and the NaN conventions of ``operators``."""
    x = np.array([0.0, -1.0, 0.0, -8.0, 2.0, np.nan, np.nan, 1.0], F64)
    y = np.array([0.0, 0.0, -1.0, 1 / 3, np.inf, 1.0, np.nan, np.nan], F64)
    out = cpu_zip("div", x, y, F64)
    np.testing.assert_array_equal(out[:3], [np.nan, -np.inf, -0.0])
    out = cpu_zip("pow", x, y, F64)
    assert out[2] == np.inf and np.isnan(out[3]) and out[4] == np.inf
    for op in ("maximum", "minimum"):
        out = cpu_zip(op, x, y, F64)
        assert np.isnan(out[5:]).all()
    signs = cpu_map("sign", np.array([-2.0, 0.0, 3.0, np.nan]), F64)
    np.testing.assert_array_equal(signs, [-1, 0, 1, 0])
    relu = cpu_map("relu", np.array([-np.inf, np.nan, 2.0]), F64)
    np.testing.assert_array_equal(relu, [0, np.nan, 2])
    # masked selects: an inf or NaN where the mask is 0 does not leak into the result
    kept = cpu_zip("masked", np.array([np.inf, np.nan, 2.0]), np.array([False, False, True]), F64)
    np.testing.assert_array_equal(kept, [0, 0, 2])


@pytest.mark.task("3.1")
def test_in_place_and_expanded_operands() -> None:
    """``out`` may be an operand itself, and operands may be stride-0 expansions."""
    rng = np.random.default_rng(1)
    x = rng.standard_normal((4, 5)).astype(F32)
    bias = rng.standard_normal((1, 5)).astype(F32)
    a = make_view(x, "permuted")
    CPU.zip("add", a, expanded_view(bias, (4, 5)), a)
    np.testing.assert_allclose(values_of(a), x + bias, rtol=1e-6)
    CPU.map("neg", a, a)
    np.testing.assert_allclose(values_of(a), -(x + bias), rtol=1e-6)
    # a 0-d operand broadcast on either side, and a 0-d out
    two = make_view(np.array(2.0, F32))
    out = run_zip(CPU, "sub", two, make_view(x, "sliced"), (4, 5), F32)
    np.testing.assert_allclose(values_of(out), 2 - x, rtol=1e-6)
    out = run_zip(CPU, "mul", two, two, (), F32)
    assert values_of(out) == 4


@pytest.mark.task("3.1")
@pytest.mark.parametrize("out_layout", LAYOUTS)
def test_large_operands_take_the_parallel_path(out_layout: str) -> None:
    rng = np.random.default_rng(2)
    shape = (300, 257)
    assert np.prod(shape) >= PARALLEL_MIN_WORK
    x = sample(rng, shape, F32)
    y = sample(rng, shape, F32)
    row = sample(rng, (257,), F32)
    column = sample(rng, (300, 1), F32)
    three = make_view(np.array(3.0, F32))
    with np.errstate(all="ignore"):
        for a, b, expected in (
            (make_view(x), make_view(y), x / y),  # one contiguous segment
            (make_view(x), three, x / 3),  # a number on the right
            (three, make_view(y), 3 / y),  # a number on the left
            (three, make_view(y, "sliced"), 3 / y),  # ... and a strided operand
            (make_view(x, "permuted"), make_view(row), x / row),  # a broadcast row, transposed
            (make_view(x), make_view(column), x / column),  # a broadcast column
        ):
            out = run_zip(CPU, "div", a, b, shape, F32, out_layout)
            assert_close(values_of(out), expected.astype(F32))
        out = run_map(CPU, "exp", make_view(x, "permuted"), shape, F32, out_layout)
        assert_close(values_of(out), np.exp(x))
        out = run_zip(CPU, "lt", make_view(x), make_view(y, "sliced"), shape, BOOL, out_layout)
        np.testing.assert_array_equal(values_of(out), x < y)


@pytest.mark.task("3.1")
def test_empty_and_float16_views() -> None:
    out = make_out((0, 3), F32)
    CPU.zip("add", make_view(np.zeros((0, 3), F32)), make_view(np.zeros((3,), F32)), out)
    # float16 runs through float32 copies; out stays a float16 view with untouched gaps
    x = np.array([[1.5, -2.25], [65504, np.nan]], F16)
    out = make_out((2, 2), F16, "sliced")
    CPU.zip("mul", make_view(x, "permuted"), make_view(np.array(2.0, F16)), out)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(values_of(out), x * np.float16(2))
    assert_gaps_untouched(out)
    out = run_map(CPU, "copy", make_view(x, "sliced"), (2, 2), F32)
    np.testing.assert_array_equal(values_of(out), x.astype(F32))


@pytest.mark.task("3.1")
def test_unknown_op() -> None:
    with pytest.raises(ValueError, match="unknown op"):
        CPU.map("cube", make_view(np.zeros(2)), make_out((2,), F64))


@pytest.mark.task("3.1")
def test_empty_storage() -> None:
    from minitorch import dtypes

    storage = CPU.empty(5, dtypes.int32)
    assert storage.shape == (5,) and storage.dtype == I32


# ---- reductions ----

#: the dtype a reduction of each input dtype writes (as PyTorch: integer sums are int64)
REDUCE_OUT = {F16: F16, F32: F32, F64: F64, I32: I64, I64: I64, U8: I64, BOOL: I64}


def reduce_numpy(op: str, x: np.ndarray, dim: int) -> np.ndarray:
    """NumPy's reduction, accumulating in float64/int64 like the backend."""
    wide = x.astype(F64 if x.dtype.kind == "f" else I64)
    fn = {"sum": np.sum, "prod": np.prod, "max": np.max, "min": np.min}[op]
    return fn(wide, axis=dim, keepdims=True)


@st.composite
def reduce_cases(draw: st.DrawFn) -> tuple:
    """``(shape, dim, layout, out_layout, seed)``, sizes 0 included."""
    shape = tuple(draw(st.lists(st.integers(0, 5), min_size=1, max_size=3)))
    dim = draw(st.integers(0, len(shape) - 1))
    return shape, dim, draw(st.sampled_from(LAYOUTS)), draw(st.sampled_from(LAYOUTS)), draw(st.integers(0, 2**32 - 1))


@pytest.mark.task("3.2")
@pytest.mark.parametrize("op", REDUCE_OPS)
@pytest.mark.parametrize("dtype", (F32, F64, F16, I32, I64, BOOL), ids=str)
@FEW
@given(case=reduce_cases())
def test_reduce(op: str, dtype: np.dtype, case: tuple) -> None:
    shape, dim, layout, out_layout, seed = case
    if op in ("max", "min") and shape[dim] == 0:
        return  # the caller rejects max/min over an empty dimension
    out_dtype = REDUCE_OUT[dtype] if op in ("sum", "prod") else dtype
    x = sample(np.random.default_rng(seed), shape, dtype, specials=op in ("max", "min"))
    out_shape = shape[:dim] + (1,) + shape[dim + 1 :]
    out = make_out(out_shape, out_dtype, out_layout)
    CPU.reduce(op, make_view(x, layout), dim, out)
    assert_close(values_of(out), reduce_numpy(op, x, dim).astype(out_dtype))
    reference = make_out(out_shape, out_dtype)
    SIMPLE.reduce(op, make_view(x, layout), dim, reference)
    assert_close(values_of(out), values_of(reference))
    if out_layout == "sliced":
        assert_gaps_untouched(out)


@pytest.mark.task("3.2")
@pytest.mark.parametrize("layout", LAYOUTS + ("expanded",))
@pytest.mark.parametrize("dim", (0, 1, 2))
def test_reduce_large_each_dim(layout: str, dim: int) -> None:
    """Both loop orders (reduced dim innermost or not), threaded, on each kind of view."""
    rng = np.random.default_rng(dim)
    shape = (40, 33, 70)
    if layout == "expanded":
        small = sample(rng, (40, 1, 70), F32, specials=False)
        x, a = np.broadcast_to(small, shape), expanded_view(small, shape)
    else:
        x = sample(rng, shape, F32, specials=False)
        x[3, 4, 5] = np.nan  # max/min propagate it, in either loop order
        a = make_view(x, layout)
    out_shape = shape[:dim] + (1,) + shape[dim + 1 :]
    for op in REDUCE_OPS:
        out = make_out(out_shape, F32, "sliced")
        CPU.reduce(op, a, dim, out)
        expected = reduce_numpy(op, x, dim).astype(F32)
        with np.errstate(all="ignore"):
            assert_close(values_of(out), expected)
        assert_gaps_untouched(out)


@pytest.mark.task("3.2")
def test_reduce_nan_and_empty() -> None:
    x = np.array([[np.nan, 1.0, 2.0], [3.0, np.nan, 0.5], [1.0, 2.0, 3.0]], F32)
    for dim in (0, 1):
        for op in ("max", "min"):
            out = make_out((1, 3) if dim == 0 else (3, 1), F32)
            CPU.reduce(op, make_view(x, "permuted"), dim, out)
            np.testing.assert_array_equal(np.isnan(values_of(out)).ravel(), [True, True, False])
    for op, identity in (("sum", 0), ("prod", 1)):
        for shape, dim in (((0, 4), 0), ((4, 0), 1), ((0,), 0), ((3, 0, 2), 1)):
            out_shape = shape[:dim] + (1,) + shape[dim + 1 :]
            out = make_out(out_shape, F32)
            out.storage[:] = 42
            CPU.reduce(op, make_view(np.zeros(shape, F32)), dim, out)
            assert (values_of(out) == identity).all()


@pytest.mark.task("3.2")
def test_sum_accumulates_in_float64() -> None:
    x = np.full(10**6 + 1, 0.1, F32)
    x[0] = 1e4
    out = make_out((1,), F32)
    CPU.reduce("sum", make_view(x), 0, out)
    assert values_of(out)[0] == np.float32(np.sum(x.astype(F64)))


@pytest.mark.task("3.2")
@pytest.mark.parametrize("op", ARG_REDUCE_OPS)
@pytest.mark.parametrize("dtype", (F32, F64, F16, I32, I64, U8, BOOL), ids=str)
@FEW
@given(case=reduce_cases())
def test_arg_reduce(op: str, dtype: np.dtype, case: tuple) -> None:
    shape, dim, layout, out_layout, seed = case
    if shape[dim] == 0:
        return
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 3, shape).astype(dtype)  # few distinct values: ties everywhere
    if dtype.kind == "f":
        x[rng.random(shape) < 0.1] = np.nan
    out_shape = shape[:dim] + (1,) + shape[dim + 1 :]
    out = make_out(out_shape, I64, out_layout)
    CPU.arg_reduce(op, make_view(x, layout), dim, out)
    numpy_fn = np.argmax if op == "argmax" else np.argmin  # first index on ties, NaN wins
    np.testing.assert_array_equal(values_of(out), numpy_fn(x, axis=dim, keepdims=True))
    reference = make_out(out_shape, I64)
    SIMPLE.arg_reduce(op, make_view(x, layout), dim, reference)
    np.testing.assert_array_equal(values_of(out), values_of(reference))


@pytest.mark.task("3.2")
def test_arg_reduce_ties_nan_and_large() -> None:
    x = np.array([[1.0, 3.0, 3.0, 2.0], [np.nan, 5.0, np.nan, 9.0], [0.0, -1.0, -1.0, 0.0]], F32)
    out = make_out((3, 1), I64)
    CPU.arg_reduce("argmax", make_view(x, "sliced"), 1, out)
    np.testing.assert_array_equal(values_of(out).ravel(), [1, 0, 0])
    CPU.arg_reduce("argmin", make_view(x, "permuted"), 1, out)
    np.testing.assert_array_equal(values_of(out).ravel(), [0, 0, 1])
    big = np.random.default_rng(3).standard_normal((300, 301)).astype(F32)
    for dim in (0, 1):
        out = make_out((1, 301) if dim == 0 else (300, 1), I64)
        CPU.arg_reduce("argmax", make_view(big, "permuted"), dim, out)
        np.testing.assert_array_equal(values_of(out), np.argmax(big, axis=dim, keepdims=True))


# ---- matmul ----


def check_matmul(
    a_values: np.ndarray, b_values: np.ndarray, a_layout: str = "contiguous", b_layout: str = "contiguous",
    out_layout: str = "contiguous",
) -> None:
    """The Numba kernel of task 3.3 (``numba_matmul``), then the backend's default path."""
    expected = np.matmul(a_values.astype(F64), b_values.astype(F64)).astype(a_values.dtype)
    for matmul in (numba_matmul, CPU.matmul):
        out = make_out(expected.shape, a_values.dtype, out_layout)
        matmul(make_view(a_values, a_layout), make_view(b_values, b_layout), out)
        assert_close(values_of(out), expected, MATMUL_TOLERANCE)
        if out_layout == "sliced":
            assert_gaps_untouched(out)


@pytest.mark.task("3.3")
@pytest.mark.parametrize("n, k, m", [(1, 7, 33), (7, 1, 5), (33, 65, 1), (2, 0, 3), (33, 129, 513)])
@pytest.mark.parametrize("dtype", (F32, F64), ids=str)
def test_matmul_ragged_sizes(n: int, k: int, m: int, dtype: np.dtype) -> None:
    """Sizes that are not multiples of the tile sizes (the last one spans several tiles)."""
    rng = np.random.default_rng(n * k + m)
    check_matmul(sample(rng, (n, k), dtype, False), sample(rng, (k, m), dtype, False))


@pytest.mark.task("3.3")
def test_matmul_batch_broadcast() -> None:
    rng = np.random.default_rng(4)
    check_matmul(sample(rng, (2, 1, 3, 4), F32, False), sample(rng, (1, 5, 4, 2), F32, False))
    a, b = sample(rng, (3, 40, 70), F32, False), sample(rng, (1, 70, 50), F32, False)
    check_matmul(a, b, "sliced", "permuted", "sliced")


@pytest.mark.task("3.3")
@FEW
@given(
    batch=st.lists(st.integers(1, 3), max_size=2),
    nkm=st.tuples(st.integers(1, 9), st.integers(1, 9), st.integers(1, 9)),
    layouts=st.tuples(*[st.sampled_from(LAYOUTS)] * 3),
    broadcast=st.tuples(st.booleans(), st.booleans()),
)
def test_matmul_layouts(batch: list[int], nkm: tuple, layouts: tuple, broadcast: tuple) -> None:
    n, k, m = nkm
    a_batch = [1 if broadcast[0] else s for s in batch]
    b_batch = [1 if broadcast[1] else s for s in batch]
    rng = np.random.default_rng(sum(batch) + n * k * m)
    a = sample(rng, (*a_batch, n, k), F64, False)
    b = sample(rng, (*b_batch, k, m), F64, False)
    check_matmul(a, b, *layouts)
    out = make_out(np.broadcast_shapes(a.shape[:-2], b.shape[:-2]) + (n, m), F64)
    SIMPLE.matmul(make_view(a, layouts[0]), make_view(b, layouts[1]), out)
    assert_close(values_of(out), np.matmul(a, b))


@pytest.mark.task("3.3")
@pytest.mark.parametrize("dtype", (F16, I64, I32), ids=str)
def test_matmul_other_dtypes(dtype: np.dtype) -> None:
    rng = np.random.default_rng(5)
    a, b = sample(rng, (2, 5, 6), dtype, False), sample(rng, (1, 6, 3), dtype, False)
    check_matmul(a, b, "permuted", "sliced", "sliced")

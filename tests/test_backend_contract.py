"""The backend contract (:class:`minitorch.backends.base.Backend`), on every backend.

Each test runs on ``simple``, ``cpu`` and ``cuda`` (Numba's simulator in CI) through a
:class:`~backend_views.Kit`, with NumPy (and :mod:`math_oracles`) as the oracle; the fast
backends are also checked against ``simple``, the reference. Operands come in every layout
a kernel must handle (:mod:`backend_views`). Shapes stay small: on the simulator every GPU
thread is a Python thread. The ``small_cuda`` launch sizes (8 threads per block, 3 blocks
at most, reduction blocks of at most 4 threads, 4 x 4 matmul tiles) make these small inputs
still take grid-stride loops, several reduction rounds, ragged tiles and batch loops.

A test carries the course task of the kernel it checks on that backend (:data:`TASKS`).
What only one backend has (threads, launch sizes, kernel caching, large inputs that take
the parallel paths) is tested in ``test_cpu_backend.py`` and ``test_cuda_backend.py``.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from backend_views import (
    ALL, BOOL, F16, F32, F64, FLOATS, I32, I64, INTS, LAYOUTS, MATMUL_TOLERANCE, SIGNED, TOLERANCE, U8,
    Kit, assert_close, cuda_kit, host_kit, log_softmax_oracle, sample, storage_positions,
)
from math_oracles import MATH_BINARY_NUMPY, MATH_NUMPY
from minitorch import dtypes
from minitorch.backends.base import ARG_REDUCE_OPS, BINARY_OPS, REDUCE_OPS, UNARY_OPS
from minitorch.backends.simple import SimpleBackend
from minitorch.tensor_data import TensorData

SIMPLE = SimpleBackend()
#: the reference the fast backends must agree with
REFERENCE = host_kit("simple", SIMPLE)
FEW = settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)

#: the course task whose kernel a group of tests checks, per backend (``simple`` has none)
TASKS: dict[str, dict[str, str]] = {
    "elementwise": {"cpu": "3.1", "cuda": "3.4"},
    "reduce": {"cpu": "3.2", "cuda": "3.5"},
    "arg_reduce": {"cpu": "3.2", "cuda": "3.6"},
    "matmul": {"cpu": "3.3", "cuda": "3.7"},
    "indexing": {"cuda": "3.4"},
    "fused": {},
}
BACKEND_NAMES = ("simple", "cpu", "cuda")
#: the cuda simulator computes on NumPy scalars, which warn where a GPU quietly gives inf or NaN
SIMULATOR_WARNINGS = pytest.mark.filterwarnings("ignore:.*encountered in (scalar|cast):RuntimeWarning")


def on_every_backend(kernels: str) -> pytest.MarkDecorator:
    """Parametrize the ``kit`` fixture over every backend, each marked with its task."""
    params = []
    for name in BACKEND_NAMES:
        task = TASKS[kernels].get(name)
        params.append(pytest.param(name, marks=[pytest.mark.task(task)] if task else [], id=name))
    return pytest.mark.parametrize("kit", params, indirect=True)


@pytest.fixture
def kit(request: pytest.FixtureRequest) -> Kit:
    """The backend named by the parameter, wrapped in a :class:`Kit`."""
    name = request.param
    if name == "simple":
        return host_kit(name, SIMPLE)
    if name == "cpu":
        from minitorch.backends.cpu import CpuBackend, numba_matmul

        backend = CpuBackend()
        return host_kit(name, backend, matmuls=(numba_matmul, backend.matmul))
    request.getfixturevalue("small_cuda")  # skips without a GPU or the simulator
    from minitorch.backends import backend_for

    return cuda_kit(backend_for("cuda"))


# ---- NumPy oracles, with the project's conventions spelled out ----


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-x.astype(F64)))


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
    "sign": lambda x: np.where(x != x, 0, np.sign(x)),  # sign(NaN) is 0, as operators.sign and PyTorch
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
    "where_part": lambda x, keep: np.where(keep != 0, x, -0.0),
    **MATH_BINARY_NUMPY,
}


def _shift_left(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``x << y`` computed in int64 (then cast to x's dtype): 0 for a shift outside [0, 64)."""
    inside = (y >= 0) & (y < 64)
    return np.where(inside, np.left_shift(x.astype(I64), np.clip(y, 0, 63).astype(I64)), 0)


def _shift_right(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``x >> y`` computed in int64: a shift outside [0, 64) leaves the sign (-1 or 0), as shifting by 63."""
    amount = np.where((y < 0) | (y >= 64), 63, y).astype(I64)
    return np.right_shift(x.astype(I64), amount)


BINARY_NUMPY.update({
    "bitwise_and": np.bitwise_and, "bitwise_or": np.bitwise_or, "bitwise_xor": np.bitwise_xor,
    "left_shift": _shift_left, "right_shift": _shift_right,
})
UNARY_NUMPY["bitwise_not"] = np.invert
#: ops of integers (and bools) only: the layout tests run them on int64 values
INTEGER_ONLY = {"bitwise_not", "bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift"}
REDUCE_NUMPY = {"sum": np.sum, "prod": np.prod, "max": np.max, "min": np.min}
ARG_REDUCE_NUMPY = {"argmax": np.argmax, "argmin": np.argmin}  # first index on ties, NaN wins
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
    "bitwise_not": INTS,
}
#: the selections, whose second operand is a mask
MASKS = ("masked", "where_part")
BINARY_DTYPES: dict[str, tuple[np.dtype, ...]] = {
    **{op: FLOATS + INTS + (BOOL,) for op in ("add", "mul", "maximum", "minimum")},
    **{op: ALL for op in ("lt", "le", "gt", "ge", "eq", "ne")},
    **{op: FLOATS + (I64,) for op in MASKS},  # with a bool mask: each (value, mask) dtype pair is compiled apart
    "sub": FLOATS + SIGNED,
    "div": FLOATS,
    "pow": FLOATS + INTS,
    **{op: FLOATS for op in ("atan2", "hypot", "fmod", "remainder", "polygamma")},
    **{op: SIGNED for op in ("int_fmod", "int_remainder")},
    "floor_divide": FLOATS,
    **{op: INTS for op in ("int_floor_divide", "int_trunc_divide")},
    **{op: INTS + (BOOL,) for op in ("bitwise_and", "bitwise_or", "bitwise_xor")},
    **{op: INTS for op in ("left_shift", "right_shift")},
}
BOOL_RESULT = {"logical_not", "lt", "le", "gt", "ge", "eq", "ne"}


def test_op_tables_cover_the_interface() -> None:
    assert set(UNARY_NUMPY) == set(UNARY_OPS) == set(UNARY_DTYPES)
    assert set(BINARY_NUMPY) == set(BINARY_OPS) == set(BINARY_DTYPES)
    assert set(REDUCE_OPS) == set(REDUCE_NUMPY) == {"sum", "prod", "max", "min"}
    assert set(ARG_REDUCE_OPS) == set(ARG_REDUCE_NUMPY) == {"argmax", "argmin"}


# ---- helpers: run an op, check it against NumPy and the simple backend ----


def run_map(kit: Kit, op: str, a: TensorData, out_shape: tuple, out_dtype: np.dtype, layout: str = "contiguous") -> TensorData:
    out = kit.out(out_shape, out_dtype, layout)
    kit.backend.map(op, a, out)
    return out


def run_zip(
    kit: Kit, op: str, a: TensorData, b: TensorData, out_shape: tuple, out_dtype: np.dtype, layout: str = "contiguous",
) -> TensorData:
    out = kit.out(out_shape, out_dtype, layout)
    kit.backend.zip(op, a, b, out)
    return out


def map_values(kit: Kit, op: str, x: np.ndarray, out_dtype: np.dtype) -> np.ndarray:
    """The backend's ``op`` of contiguous ``x``, as a host array."""
    return kit.values(run_map(kit, op, kit.view(x), x.shape, out_dtype))


def zip_values(kit: Kit, op: str, x: np.ndarray, y: np.ndarray, out_dtype: np.dtype) -> np.ndarray:
    """The backend's ``op`` of contiguous ``x`` and ``y``, as a host array."""
    out_shape = np.broadcast_shapes(x.shape, y.shape)
    return kit.values(run_zip(kit, op, kit.view(x), kit.view(y), out_shape, out_dtype))


def reduced_shape(shape: tuple[int, ...], dim: int) -> tuple[int, ...]:
    return shape[:dim] + (1,) + shape[dim + 1 :]


def reduce_numpy(op: str, x: np.ndarray, dim: int) -> np.ndarray:
    """NumPy's reduction, accumulating in float64/int64 like the backends."""
    wide = x.astype(F64 if x.dtype.kind == "f" else I64)
    return REDUCE_NUMPY[op](wide, axis=dim, keepdims=True)


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


# ---- map and zip ----


@on_every_backend("elementwise")
@pytest.mark.parametrize("op", UNARY_OPS)
@SIMULATOR_WARNINGS
@FEW
@given(case=broadcast_cases(1), dtype_index=st.integers(0, len(ALL) - 1))
def test_map(kit: Kit, op: str, case: tuple, dtype_index: int) -> None:
    out_shape, (shape,), (layout,), out_layout, seed = case
    dtypes_of_op = UNARY_DTYPES[op]
    dtype = dtypes_of_op[dtype_index % len(dtypes_of_op)]
    out_dtype = BOOL if op in BOOL_RESULT else dtype
    x = sample(np.random.default_rng(seed), shape, dtype)
    with np.errstate(all="ignore"):
        expected = np.broadcast_to(UNARY_NUMPY[op](x), out_shape).astype(out_dtype)
    out = run_map(kit, op, kit.view(x, layout), out_shape, out_dtype, out_layout)
    assert_close(kit.values(out), expected)
    if kit.name != "simple":
        reference = run_map(REFERENCE, op, REFERENCE.view(x, layout), out_shape, out_dtype)
        assert_close(kit.values(out), REFERENCE.values(reference))
    kit.assert_gaps_untouched(out)


@on_every_backend("elementwise")
@pytest.mark.parametrize("op", BINARY_OPS)
@SIMULATOR_WARNINGS
@FEW
@given(case=broadcast_cases(2), dtype_index=st.integers(0, len(ALL) - 1))
def test_zip(kit: Kit, op: str, case: tuple, dtype_index: int) -> None:
    out_shape, (a_shape, b_shape), (a_layout, b_layout), out_layout, seed = case
    dtypes_of_op = BINARY_DTYPES[op]
    dtype = dtypes_of_op[dtype_index % len(dtypes_of_op)]
    out_dtype = BOOL if op in BOOL_RESULT else dtype
    rng = np.random.default_rng(seed)
    x = sample(rng, a_shape, dtype)
    y = sample(rng, b_shape, dtype)
    if op == "pow" and dtype.kind in "iu":
        y = rng.integers(0, 4, b_shape).astype(dtype)  # integer powers: no negative exponents
    if op in MASKS:
        y = sample(rng, b_shape, BOOL)
    with np.errstate(all="ignore"):
        expected = np.broadcast_to(BINARY_NUMPY[op](x, y), out_shape).astype(out_dtype)
    out = run_zip(kit, op, kit.view(x, a_layout), kit.view(y, b_layout), out_shape, out_dtype, out_layout)
    assert_close(kit.values(out), expected)
    if kit.name != "simple":
        reference = run_zip(REFERENCE, op, REFERENCE.view(x, a_layout), REFERENCE.view(y, b_layout), out_shape, out_dtype)
        assert_close(kit.values(out), REFERENCE.values(reference))
    kit.assert_gaps_untouched(out)


@on_every_backend("elementwise")
@pytest.mark.parametrize("layouts", [("contiguous", "contiguous"), ("permuted", "sliced"), ("sliced", "permuted")], ids=str)
@pytest.mark.parametrize("op", UNARY_OPS)
def test_map_each_layout(kit: Kit, op: str, layouts: tuple[str, str]) -> None:
    """Shape (2, 3, 4), float64 away from 0: 24 cells, three blocks of 8 on the small cuda grid."""
    rng = np.random.default_rng(1)
    values = rng.uniform(0.2, 2.0, size=(2, 3, 4)) * rng.choice([-1, 1], size=(2, 3, 4))
    if op in ("log", "sqrt"):
        values = np.abs(values)
    if op in INTEGER_ONLY:
        values = np.round(values * 10).astype(I64)
    out_dtype = BOOL if op in BOOL_RESULT else I64 if op in INTEGER_ONLY else F64
    out = kit.out(values.shape, out_dtype, layouts[1])
    kit.backend.map(op, kit.view(values, layouts[0]), out)
    with np.errstate(all="ignore"):
        expected = UNARY_NUMPY[op](values).astype(out_dtype)
    assert_close(kit.values(out), expected)
    kit.assert_gaps_untouched(out)


@on_every_backend("elementwise")
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("op", BINARY_OPS)
def test_zip_broadcast(kit: Kit, op: str, layout: str) -> None:
    """``a`` (2, 1, 3) and ``b`` (4, 3) broadcast to (2, 4, 3): 24 cells, three blocks of 8."""
    rng = np.random.default_rng(2)
    x = rng.integers(-3, 4, size=(2, 1, 3)).astype(np.float64)
    y = rng.integers(1, 4, size=(4, 3)).astype(np.float64) * rng.choice([-1, 1], size=(4, 3))
    if op in MASKS:
        y = (y > 0).astype(np.float64)
    if op in INTEGER_ONLY:
        x, y = x.astype(I64), y.astype(I64)
    out_dtype = BOOL if op in BOOL_RESULT else I64 if op in INTEGER_ONLY else F64
    out = kit.out((2, 4, 3), out_dtype, layout)
    kit.backend.zip(op, kit.view(x, layout), kit.view(y, "permuted"), out)
    with np.errstate(all="ignore"):
        expected = BINARY_NUMPY[op](x, y).astype(out_dtype)
    assert_close(kit.values(out), expected)
    kit.assert_gaps_untouched(out)


@on_every_backend("elementwise")
@pytest.mark.parametrize("source", ALL, ids=str)
def test_copy_casts_like_numpy(kit: Kit, source: np.dtype) -> None:
    """``copy`` into another dtype is a cast, as ``.to(dtype)``: floats truncate towards 0,
    anything nonzero (NaN included) is True."""
    values = np.array([0, 1, 2.75, -1.5, 3, 0.25, -2.0, 5, np.nan, np.inf])
    values = values.astype(source) if source.kind == "f" else values[:8].astype(source)
    for target in ALL:
        if source.kind == "f" and target.kind != "f":
            x = values[:8] if target == BOOL else np.abs(values[:8])  # NaN/inf/negative into an int: undefined
        else:
            x = values if source.kind == "f" or target != U8 else np.abs(values)
        out = run_map(kit, "copy", kit.view(x, "sliced"), x.shape, target, "sliced")
        with np.errstate(all="ignore"):
            np.testing.assert_array_equal(kit.values(out), x.astype(target))
        kit.assert_gaps_untouched(out)


@on_every_backend("elementwise")
@pytest.mark.parametrize("dtype", [F32, I32, I64, U8, BOOL, F16], ids=str)
def test_other_dtypes_and_casts(kit: Kit, dtype: np.dtype) -> None:
    values = np.array([[0, 1, 2], [3, 0, 5]]).astype(dtype)
    other = np.array([[1, 1, 3], [2, 2, 1]]).astype(dtype)
    for op in ("add", "mul", "maximum", "lt"):
        out_dtype = BOOL if op in BOOL_RESULT else dtype
        out = kit.out(values.shape, out_dtype)
        kit.backend.zip(op, kit.view(values), kit.view(other, "permuted"), out)
        with np.errstate(over="ignore"):
            assert_close(kit.values(out), BINARY_NUMPY[op](values, other).astype(out_dtype))
    for target in (F64, F32, F16, I64, BOOL):  # copy into another dtype: NumPy's cast
        out = kit.out(values.shape, target, "sliced")
        kit.backend.map("copy", kit.view(values, "permuted"), out)
        assert_close(kit.values(out), values.astype(target))


@on_every_backend("elementwise")
def test_float_results_into_bool_and_int_out(kit: Kit) -> None:
    x = np.array([1.0, 2.0, np.nan, -3.0], F32)
    y = np.array([1.0, 5.0, np.nan, -3.0], F32)
    np.testing.assert_array_equal(zip_values(kit, "eq", x, y, BOOL), [True, False, False, True])
    np.testing.assert_array_equal(zip_values(kit, "eq", x, y, F32), [1, 0, 0, 1])
    np.testing.assert_array_equal(map_values(kit, "logical_not", x, BOOL), [False, False, False, False])
    np.testing.assert_array_equal(zip_values(kit, "mul", x[:2], y[:2], I64), [1, 10])


@on_every_backend("elementwise")
@SIMULATOR_WARNINGS
def test_special_values(kit: Kit) -> None:
    """IEEE results instead of errors, and the NaN conventions of ``operators``."""
    x = np.array([0.0, -1.0, 0.0, -8.0, 2.0, np.nan, np.nan, 1.0], F64)
    y = np.array([0.0, 0.0, -1.0, 1 / 3, np.inf, 1.0, np.nan, np.nan], F64)
    out = zip_values(kit, "div", x, y, F64)
    np.testing.assert_array_equal(out[:3], [np.nan, -np.inf, -0.0])
    out = zip_values(kit, "pow", x, y, F64)
    assert out[2] == np.inf and np.isnan(out[3]) and out[4] == np.inf
    for op in ("maximum", "minimum"):
        out = zip_values(kit, op, x, y, F64)
        assert np.isnan(out[5:]).all()
    signs = map_values(kit, "sign", np.array([-2.0, 0.0, 3.0, np.nan]), F64)
    np.testing.assert_array_equal(signs, [-1, 0, 1, 0])
    relu = map_values(kit, "relu", np.array([-np.inf, np.nan, 2.0]), F64)
    np.testing.assert_array_equal(relu, [0, np.nan, 2])
    # masked selects: an inf or NaN where the mask is 0 does not leak into the result
    kept = zip_values(kit, "masked", np.array([np.inf, np.nan, 2.0]), np.array([False, False, True]), F64)
    np.testing.assert_array_equal(kept, [0, 0, 2])


@on_every_backend("elementwise")
def test_where_parts_add_up_to_the_chosen_values_signed_zeros_included(kit: Kit) -> None:
    """``where_part`` writes -0.0 where its mask is 0: added to the other side's part, every
    chosen value comes back bit for bit (``masked``'s +0.0 would turn a chosen -0.0 into +0.0)."""
    chosen = np.array([-0.0, 0.0, -0.0, np.inf, np.nan, -3.5])
    other = np.array([np.nan, -0.0, np.inf, 0.0, 1.0, -0.0])
    mask = np.array([True, False, True, True, False, False])
    for dtype in FLOATS:
        first = zip_values(kit, "where_part", chosen.astype(dtype), mask, dtype)
        assert np.signbit(first).tolist() == [True, True, True, False, True, True]  # -0.0 where not chosen
        assert not np.isnan(first).any()  # the NaN was not chosen
        second = zip_values(kit, "where_part", other.astype(dtype), ~mask, dtype)
        total = zip_values(kit, "add", first, second, dtype)
        expected = np.where(mask, chosen, other).astype(dtype)
        np.testing.assert_array_equal(total, expected)
        assert np.signbit(total).tolist() == np.signbit(expected).tolist()


@on_every_backend("elementwise")
@SIMULATOR_WARNINGS
def test_values_outside_the_domain(kit: Kit) -> None:
    """IEEE results where a function leaves its domain, as NumPy (and a GPU) give them."""
    values = np.array([-1.0, 0.0, 1000.0, -1000.0, np.inf, np.nan])
    with np.errstate(all="ignore"):
        for op in ("exp", "log", "sqrt", "sigmoid", "tanh", "relu", "sign"):
            assert_close(map_values(kit, op, values, F64), UNARY_NUMPY[op](values))
        zeros = np.zeros_like(values)
        for op in ("div", "maximum", "minimum", *MASKS):
            assert_close(zip_values(kit, op, values, zeros, F64), BINARY_NUMPY[op](values, zeros))


@on_every_backend("elementwise")
def test_in_place_and_expanded_operands(kit: Kit) -> None:
    """``out`` may be an operand itself, and operands may be stride-0 expansions."""
    rng = np.random.default_rng(1)
    x = rng.standard_normal((4, 5)).astype(F32)
    bias = rng.standard_normal((1, 5)).astype(F32)
    a = kit.view(x, "permuted")
    kit.backend.zip("add", a, kit.expanded(bias, (4, 5)), a)
    np.testing.assert_allclose(kit.values(a), x + bias, rtol=1e-6)
    kit.backend.map("neg", a, a)
    np.testing.assert_allclose(kit.values(a), -(x + bias), rtol=1e-6)
    # a 0-d operand broadcast on either side, and a 0-d out
    two = kit.view(np.array(2.0, F32))
    out = run_zip(kit, "sub", two, kit.view(x, "sliced"), (4, 5), F32)
    np.testing.assert_allclose(kit.values(out), 2 - x, rtol=1e-6)
    out = run_zip(kit, "mul", two, two, (), F32)
    assert kit.values(out) == 4


@on_every_backend("elementwise")
@SIMULATOR_WARNINGS
def test_empty_and_float16_views(kit: Kit) -> None:
    out = kit.out((0, 3), F32)
    kit.backend.zip("add", kit.view(np.zeros((0, 3), F32)), kit.view(np.zeros((3,), F32)), out)
    # float16 runs through float32 copies; out stays a float16 view with untouched gaps
    x = np.array([[1.5, -2.25], [65504, np.nan]], F16)
    out = kit.out((2, 2), F16, "sliced")
    kit.backend.zip("mul", kit.view(x, "permuted"), kit.view(np.array(2.0, F16)), out)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(kit.values(out), x * np.float16(2))
    kit.assert_gaps_untouched(out)
    out = run_map(kit, "copy", kit.view(x, "sliced"), (2, 2), F32)
    np.testing.assert_array_equal(kit.values(out), x.astype(F32))


@on_every_backend("elementwise")
def test_unknown_op_and_empty(kit: Kit) -> None:
    with pytest.raises(ValueError, match="unknown op 'cube'"):
        kit.backend.map("cube", kit.view(np.zeros(2)), kit.out((2,), F64))
    empty = TensorData(kit.backend.empty(0, dtypes.float64), (0, 3))
    kit.backend.map("exp", empty, empty)  # nothing to do, nothing launched
    assert kit.values(empty).shape == (0, 3)


@on_every_backend("elementwise")
def test_empty_storage(kit: Kit) -> None:
    storage = kit.backend.empty(5, dtypes.int32)
    assert storage.shape == (5,) and storage.dtype == I32


# ---- reductions ----

#: the dtype a reduction of each input dtype writes (as PyTorch: integer sums are int64)
REDUCE_OUT = {F16: F16, F32: F32, F64: F64, I32: I64, I64: I64, U8: I64, BOOL: I64}


@st.composite
def reduce_cases(draw: st.DrawFn) -> tuple:
    """``(shape, dim, layout, out_layout, seed)``, sizes 0 included."""
    shape = tuple(draw(st.lists(st.integers(0, 5), min_size=1, max_size=3)))
    dim = draw(st.integers(0, len(shape) - 1))
    return shape, dim, draw(st.sampled_from(LAYOUTS)), draw(st.sampled_from(LAYOUTS)), draw(st.integers(0, 2**32 - 1))


@on_every_backend("reduce")
@pytest.mark.parametrize("op", REDUCE_OPS)
@pytest.mark.parametrize("dtype", (F32, F64, F16, I32, I64, BOOL), ids=str)
@FEW
@given(case=reduce_cases())
def test_reduce(kit: Kit, op: str, dtype: np.dtype, case: tuple) -> None:
    shape, dim, layout, out_layout, seed = case
    if op in ("max", "min") and shape[dim] == 0:
        return  # the caller rejects max/min over an empty dimension
    out_dtype = REDUCE_OUT[dtype] if op in ("sum", "prod") else dtype
    x = sample(np.random.default_rng(seed), shape, dtype, specials=op in ("max", "min"))
    out = kit.out(reduced_shape(shape, dim), out_dtype, out_layout)
    kit.backend.reduce(op, kit.view(x, layout), dim, out)
    assert_close(kit.values(out), reduce_numpy(op, x, dim).astype(out_dtype))
    if kit.name != "simple":
        reference = REFERENCE.out(reduced_shape(shape, dim), out_dtype)
        SIMPLE.reduce(op, REFERENCE.view(x, layout), dim, reference)
        assert_close(kit.values(out), REFERENCE.values(reference))
    kit.assert_gaps_untouched(out)


def check_reduce(kit: Kit, op: str, values: np.ndarray, dim: int, layout: str, out_dtype: np.dtype) -> None:
    """``op`` of ``values`` along ``dim``, operand and ``out`` in ``layout``, against NumPy."""
    out = kit.out(reduced_shape(values.shape, dim), out_dtype, layout)
    kit.backend.reduce(op, kit.view(values, layout), dim, out)
    assert_close(kit.values(out), reduce_numpy(op, values, dim).astype(out_dtype))
    kit.assert_gaps_untouched(out)


@on_every_backend("reduce")
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dim", [0, 1, 2])
@pytest.mark.parametrize("op", REDUCE_OPS)
def test_reduce_each_dim(kit: Kit, op: str, dim: int, layout: str) -> None:
    """Shape (3, 9, 2): dimension 1 (length 9) is longer than a cuda block of 4 threads."""
    rng = np.random.default_rng(3)
    values = rng.uniform(0.5, 1.5, size=(3, 9, 2)) * rng.choice([-1, 1], size=(3, 9, 2))
    check_reduce(kit, op, values, dim, layout, F64)


@on_every_backend("reduce")
@pytest.mark.parametrize("length", [1, 3, 4, 5, 8, 17, 33])
@pytest.mark.parametrize("op", ["sum", "max", "min"])
def test_reduce_any_length(kit: Kit, op: str, length: int) -> None:
    """Every length around the cuda block size (4): one round, exact fit, several rounds, a remainder."""
    values = np.random.default_rng(length).permutation(np.arange(2 * length, dtype=np.float64)).reshape(2, length)
    check_reduce(kit, op, values, 1, "contiguous", F64)


@on_every_backend("reduce")
@pytest.mark.parametrize("dtype", [I32, I64, BOOL, F32, F16], ids=str)
def test_reduce_dtypes(kit: Kit, dtype: np.dtype) -> None:
    values = np.array([[1, 0, 3, 2, 0, 1], [2, 2, 0, 1, 1, 1]]).astype(dtype)
    for op in ("sum", "max"):
        out_dtype = I64 if dtype == BOOL and op == "sum" else dtype
        check_reduce(kit, op, values, 1, "permuted", out_dtype)


@on_every_backend("reduce")
def test_reduce_nan_and_empty(kit: Kit) -> None:
    x = np.array([[np.nan, 1.0, 2.0], [3.0, np.nan, 0.5], [1.0, 2.0, 3.0]], F32)
    for dim in (0, 1):
        for op in ("max", "min"):
            out = kit.out(reduced_shape(x.shape, dim), F32)
            kit.backend.reduce(op, kit.view(x, "permuted"), dim, out)
            np.testing.assert_array_equal(np.isnan(kit.values(out)).ravel(), [True, True, False])
    values = np.array([[1.0, np.nan, 3.0, 0.5, 2.0, 7.0], [1.0, 2.0, 3.0, 4.0, 5.0, np.nan]])
    for op in REDUCE_OPS:
        check_reduce(kit, op, values, 1, "contiguous", F64)
    # an empty dimension gives the identity (out starts at SENTINEL, so it must be written)
    for op, identity in (("sum", 0), ("prod", 1)):
        for shape, dim in (((0, 4), 0), ((4, 0), 1), ((0,), 0), ((3, 0, 2), 1), ((2, 0), 1)):
            out = kit.out(reduced_shape(shape, dim), F32)
            kit.backend.reduce(op, kit.view(np.zeros(shape, F32)), dim, out)
            assert (kit.values(out) == identity).all()
        out = kit.out((2, 1), F64)
        kit.backend.reduce(op, TensorData(kit.backend.empty(0, dtypes.float64), (2, 0)), 1, out)
        assert_close(kit.values(out), np.full((2, 1), float(identity)))


@on_every_backend("reduce")
def test_sum_accumulates_in_float64(kit: Kit) -> None:
    """2**24 + eight ones: a float32 accumulator would lose every one of them."""
    values = np.array([2.0**24] + [1.0] * 8, dtype=F32)
    out = kit.out((1,), F32)
    kit.backend.reduce("sum", kit.view(values), 0, out)
    assert kit.values(out)[0] == np.float32(2**24 + 8)


@on_every_backend("reduce")
def test_reduce_wrong_out_shape(kit: Kit) -> None:
    with pytest.raises(ValueError, match="needs out shape"):
        kit.backend.reduce("sum", kit.view(np.ones((2, 3))), 1, kit.out((2, 3), F64))


# ---- arg reductions ----


@on_every_backend("arg_reduce")
@pytest.mark.parametrize("op", ARG_REDUCE_OPS)
@pytest.mark.parametrize("dtype", (F32, F64, F16, I32, I64, U8, BOOL), ids=str)
@FEW
@given(case=reduce_cases())
def test_arg_reduce(kit: Kit, op: str, dtype: np.dtype, case: tuple) -> None:
    shape, dim, layout, out_layout, seed = case
    if shape[dim] == 0:
        return
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 3, shape).astype(dtype)  # few distinct values: ties everywhere
    if dtype.kind == "f":
        x[rng.random(shape) < 0.1] = np.nan
    out = kit.out(reduced_shape(shape, dim), I64, out_layout)
    kit.backend.arg_reduce(op, kit.view(x, layout), dim, out)
    np.testing.assert_array_equal(kit.values(out), ARG_REDUCE_NUMPY[op](x, axis=dim, keepdims=True))
    if kit.name != "simple":
        reference = REFERENCE.out(reduced_shape(shape, dim), I64)
        SIMPLE.arg_reduce(op, REFERENCE.view(x, layout), dim, reference)
        np.testing.assert_array_equal(kit.values(out), REFERENCE.values(reference))
    kit.assert_gaps_untouched(out)


@on_every_backend("arg_reduce")
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dim", [0, 1])
@pytest.mark.parametrize("op", ARG_REDUCE_OPS)
def test_arg_reduce_each_dim(kit: Kit, op: str, dim: int, layout: str) -> None:
    values = np.random.default_rng(4).permutation(np.arange(22.0)).reshape(2, 11)
    shape = reduced_shape(values.shape, dim)
    out = kit.out(shape, I64, layout)
    kit.backend.arg_reduce(op, kit.view(values, layout), dim, out)
    assert_close(kit.values(out), ARG_REDUCE_NUMPY[op](values, axis=dim).reshape(shape))
    kit.assert_gaps_untouched(out)


@on_every_backend("arg_reduce")
@pytest.mark.parametrize("op", ARG_REDUCE_OPS)
def test_arg_reduce_ties_nan_and_dtypes(kit: Kit, op: str) -> None:
    """The first of equal extremes wins, wherever the threads' strides put them; NaN wins."""
    rows = np.array([
        [0, 3, 1, 3, 3, 0, 3, 1, 0, 3, 0, 0, 3],   # max ties at 1, 3, 4, 6, 9, 12; min ties at 0, 5, ...
        [2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2],
        [1, 5, 9, 2, 2, 7, 1, 1, 0, 9, 0, 8, 3],
    ])
    for dtype in (F64, I32, BOOL, F16):
        values = (rows > 1) if dtype == BOOL else rows.astype(dtype)
        out = kit.out((3, 1), I64)
        kit.backend.arg_reduce(op, kit.view(values, "sliced"), 1, out)
        assert_close(kit.values(out), ARG_REDUCE_NUMPY[op](values, axis=1).reshape(3, 1))
    with_nan = rows.astype(F64)
    with_nan[0, 7] = with_nan[0, 10] = np.nan
    out = kit.out((3, 1), I64)
    kit.backend.arg_reduce(op, kit.view(with_nan), 1, out)
    assert kit.values(out)[0, 0] == 7


@on_every_backend("arg_reduce")
def test_arg_reduce_ties_and_nan_in_any_layout(kit: Kit) -> None:
    x = np.array([[1.0, 3.0, 3.0, 2.0], [np.nan, 5.0, np.nan, 9.0], [0.0, -1.0, -1.0, 0.0]], F32)
    out = kit.out((3, 1), I64)
    kit.backend.arg_reduce("argmax", kit.view(x, "sliced"), 1, out)
    np.testing.assert_array_equal(kit.values(out).ravel(), [1, 0, 0])
    kit.backend.arg_reduce("argmin", kit.view(x, "permuted"), 1, out)
    np.testing.assert_array_equal(kit.values(out).ravel(), [0, 0, 1])


# ---- matmul ----


def check_matmul(
    kit: Kit, a_values: np.ndarray, b_values: np.ndarray, layouts: tuple[str, str, str] = ("contiguous",) * 3,
    tolerance: dict = TOLERANCE,
) -> None:
    """Every matmul path of the backend against NumPy's product (floats in float64, rounded once)."""
    wide = F64 if a_values.dtype.kind == "f" else a_values.dtype
    expected = np.matmul(a_values.astype(wide), b_values.astype(wide)).astype(a_values.dtype)
    rank = max(a_values.ndim, b_values.ndim)  # the backend takes operands of out's rank
    a_values = a_values.reshape((1,) * (rank - a_values.ndim) + a_values.shape)
    b_values = b_values.reshape((1,) * (rank - b_values.ndim) + b_values.shape)
    for matmul in kit.matmuls:
        out = kit.out(expected.shape, a_values.dtype, layouts[2])
        matmul(kit.view(a_values, layouts[0]), kit.view(b_values, layouts[1]), out)
        assert_close(kit.values(out), expected, tolerance)
        kit.assert_gaps_untouched(out)


@on_every_backend("matmul")
@pytest.mark.parametrize("n, k, m", [(1, 7, 33), (7, 1, 5), (33, 65, 1), (2, 0, 3)])
@pytest.mark.parametrize("dtype", (F32, F64), ids=str)
def test_matmul_ragged_sizes(kit: Kit, n: int, k: int, m: int, dtype: np.dtype) -> None:
    """Sizes that are not multiples of the cpu kernel's tile sizes."""
    rng = np.random.default_rng(n * k + m)
    check_matmul(kit, sample(rng, (n, k), dtype, False), sample(rng, (k, m), dtype, False), tolerance=MATMUL_TOLERANCE)


@on_every_backend("matmul")
@pytest.mark.parametrize("n,k,m", [(1, 1, 1), (5, 7, 6), (9, 4, 3), (4, 8, 4), (2, 13, 1), (3, 0, 2)])
def test_matmul_ragged_tiles(kit: Kit, n: int, k: int, m: int) -> None:
    """Sizes around the 4 x 4 cuda tile: partial tiles on every edge, k = 0 gives zeros."""
    rng = np.random.default_rng(n * 100 + k * 10 + m)
    check_matmul(kit, rng.uniform(-1, 1, (n, k)), rng.uniform(-1, 1, (k, m)))


@on_every_backend("matmul")
def test_matmul_batch_broadcast(kit: Kit) -> None:
    """Batches broadcast, to more batches than the 2 cuda batch blocks; an operand of lower rank."""
    rng = np.random.default_rng(4)
    a, b = sample(rng, (2, 1, 3, 4), F32, False), sample(rng, (1, 5, 4, 2), F32, False)
    check_matmul(kit, a, b, tolerance=MATMUL_TOLERANCE)
    rng = np.random.default_rng(5)
    check_matmul(kit, rng.uniform(-1, 1, (2, 1, 5, 6)), rng.uniform(-1, 1, (3, 6, 5)))


@on_every_backend("matmul")
@pytest.mark.parametrize("layouts", [("permuted", "sliced", "contiguous"), ("sliced", "permuted", "sliced")], ids=str)
def test_matmul_non_contiguous(kit: Kit, layouts: tuple[str, str, str]) -> None:
    rng = np.random.default_rng(6)
    check_matmul(kit, rng.uniform(-1, 1, (2, 5, 6)), rng.uniform(-1, 1, (2, 6, 7)), layouts)


@on_every_backend("matmul")
@FEW
@given(
    batch=st.lists(st.integers(1, 3), max_size=2),
    nkm=st.tuples(st.integers(1, 9), st.integers(1, 9), st.integers(1, 9)),
    layouts=st.tuples(*[st.sampled_from(LAYOUTS)] * 3),
    broadcast=st.tuples(st.booleans(), st.booleans()),
)
def test_matmul_layouts(kit: Kit, batch: list[int], nkm: tuple, layouts: tuple, broadcast: tuple) -> None:
    n, k, m = nkm
    a_batch = [1 if broadcast[0] else s for s in batch]
    b_batch = [1 if broadcast[1] else s for s in batch]
    rng = np.random.default_rng(sum(batch) + n * k * m)
    a = sample(rng, (*a_batch, n, k), F64, False)
    b = sample(rng, (*b_batch, k, m), F64, False)
    # simple adds the products in order, as NumPy: it must agree to the last bits
    check_matmul(kit, a, b, layouts, TOLERANCE if kit.name == "simple" else MATMUL_TOLERANCE)


@on_every_backend("matmul")
@pytest.mark.parametrize("dtype", (F16, I64, I32, F32), ids=str)
def test_matmul_other_dtypes(kit: Kit, dtype: np.dtype) -> None:
    rng = np.random.default_rng(5)
    a, b = sample(rng, (2, 5, 6), dtype, False), sample(rng, (1, 6, 3), dtype, False)
    check_matmul(kit, a, b, ("permuted", "sliced", "sliced"), MATMUL_TOLERANCE)
    rng = np.random.default_rng(7)  # small integers: every product and sum exact
    a, b = rng.integers(-3, 4, (5, 6)).astype(dtype), rng.integers(-3, 4, (6, 3)).astype(dtype)
    check_matmul(kit, a, b)


# ---- indexing primitives: accumulate, gather, scatter_add ----


@on_every_backend("indexing")
@pytest.mark.parametrize("dtype", [F64, F32, I64, I32, F16, U8, BOOL], ids=str)
def test_accumulate_into_overlapping_windows(kit: Kit, dtype: np.dtype) -> None:
    """Windows of 3 sliding by 1 over 7 elements: the middle ones receive three adds each."""
    start = np.arange(1, 8).astype(dtype) if dtype != BOOL else np.array([0, 1, 0, 0, 1, 0, 0], bool)
    src = (np.arange(15).reshape(5, 3) % 4 == 1) if dtype == BOOL else (np.arange(15).reshape(5, 3) % 5).astype(dtype)
    out = TensorData(kit.upload(start), (5, 3), (1, 1))
    kit.backend.accumulate(kit.view(src, "permuted"), out)
    expected = start.copy()
    np.add.at(expected, storage_positions(out), src)
    assert_close(kit.storage(out), expected)


@on_every_backend("indexing")
def test_accumulate_broadcast_source(kit: Kit) -> None:
    out = kit.view(np.zeros((3, 4)), "sliced")
    kit.backend.accumulate(kit.view(np.array([1.0, 2.0, 3.0, 4.0])), out)
    assert_close(kit.values(out), np.tile([1.0, 2.0, 3.0, 4.0], (3, 1)))
    kit.assert_gaps_untouched(out)


@on_every_backend("indexing")
@pytest.mark.parametrize("dtype", [F64, I64, F16, BOOL], ids=str)
@pytest.mark.parametrize("dim", [0, 1])
def test_gather(kit: Kit, dim: int, dtype: np.dtype) -> None:
    rng = np.random.default_rng(8)
    a = rng.integers(0, 9, (4, 5)).astype(dtype)
    index = rng.integers(0, a.shape[dim], (3, 4))  # smaller than a in the other dimension
    out = kit.out(index.shape, dtype, "sliced")
    kit.backend.gather(kit.view(a, "permuted"), dim, kit.view(index, "sliced"), out)
    cut = tuple(slice(None) if d == dim else slice(0, n) for d, n in enumerate(index.shape))
    assert_close(kit.values(out), np.take_along_axis(a[cut], index, dim))
    kit.assert_gaps_untouched(out)


@on_every_backend("indexing")
@pytest.mark.parametrize("dtype", [F64, F32, I64, F16, U8], ids=str)
@pytest.mark.parametrize("dim", [0, 1])
def test_scatter_add_with_repeated_targets(kit: Kit, dim: int, dtype: np.dtype) -> None:
    rng = np.random.default_rng(9)
    index = rng.integers(0, 2, (5, 3))  # only 2 targets along dim: many collisions
    src = rng.integers(1, 5, (5, 3)).astype(dtype)
    start = np.ones((2, 3) if dim == 0 else (5, 2), dtype)
    out = kit.view(start, "sliced")
    kit.backend.scatter_add(kit.view(src, "permuted"), dim, kit.view(index), out)
    expected = start.copy()
    for i in np.ndindex(*index.shape):
        target = list(i)
        target[dim] = index[i]
        expected[tuple(target)] += src[i]
    assert_close(kit.values(out), expected)
    kit.assert_gaps_untouched(out)


# ---- fused ops ----


@on_every_backend("fused")
@pytest.mark.parametrize("dtype", [F64, F32, F16], ids=str)
@pytest.mark.parametrize("layouts", [("contiguous", "contiguous"), ("permuted", "sliced"), ("sliced", "permuted")])
@pytest.mark.parametrize("shape", [(1, 1), (3, 9), (2, 33)])
def test_log_softmax(kit: Kit, shape: tuple[int, int], layouts: tuple[str, str], dtype: np.dtype) -> None:
    """Any layout of ``a`` and ``out``; a row far above exp's range (a float32 exp overflows past 88)."""
    rng = np.random.default_rng(shape[1])
    values = rng.uniform(-8, 8, shape)
    values[0] += 500
    values = values.astype(dtype)
    out = kit.out(shape, dtype, layouts[1])
    kit.backend.log_softmax(kit.view(values, layouts[0]), out)
    assert_close(kit.values(out), log_softmax_oracle(values))
    kit.assert_gaps_untouched(out)


@on_every_backend("fused")
@SIMULATOR_WARNINGS
def test_log_softmax_special_values(kit: Kit) -> None:
    """Hand-derived rows: a -inf takes no share; NaN, +inf or -inf alone make the whole row NaN."""
    values = np.array([
        [-np.inf, 0.0, 0.0],
        [np.nan, 1.0, 2.0],
        [np.inf, 0.0, 1.0],
        [-np.inf, -np.inf, -np.inf],
        [3.0, 3.0, 3.0],
    ], F32)
    out = kit.out(values.shape, F32)
    kit.backend.log_softmax(kit.view(values), out)
    got = kit.values(out)
    half = -np.log(2.0)
    assert got[0, 0] == -np.inf
    np.testing.assert_allclose(got[0, 1:], [half, half], rtol=1e-6)
    assert np.isnan(got[1:4]).all()
    np.testing.assert_allclose(got[4], np.full(3, -np.log(3.0)), rtol=1e-6)

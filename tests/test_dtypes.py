"""``minitorch.dtypes``: names, conversions and PyTorch's promotion rules (task 2.6).

The expected promotions are PyTorch's ``torch.promote_types`` / ``torch.result_type``
results, written out by hand below.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import minitorch
from minitorch import dtypes

pytestmark = pytest.mark.task("2.6")

b, u8, i8, i16, i32, i64 = dtypes.bool_, dtypes.uint8, dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64
f16, f32, f64 = dtypes.float16, dtypes.float32, dtypes.float64
ORDER = [b, u8, i8, i16, i32, i64, f16, f32, f64]

#: torch.promote_types(row, column), rows and columns in ORDER
PROMOTE_TABLE = [
    # b    u8   i8   i16  i32  i64  f16  f32  f64
    [b, u8, i8, i16, i32, i64, f16, f32, f64],  # bool
    [u8, u8, i16, i16, i32, i64, f16, f32, f64],  # uint8
    [i8, i16, i8, i16, i32, i64, f16, f32, f64],  # int8
    [i16, i16, i16, i16, i32, i64, f16, f32, f64],  # int16
    [i32, i32, i32, i32, i32, i64, f16, f32, f64],  # int32
    [i64, i64, i64, i64, i64, i64, f16, f32, f64],  # int64
    [f16, f16, f16, f16, f16, f16, f16, f32, f64],  # float16
    [f32, f32, f32, f32, f32, f32, f32, f32, f64],  # float32
    [f64, f64, f64, f64, f64, f64, f64, f64, f64],  # float64
]
PAIRS = list(itertools.product(range(len(ORDER)), repeat=2))


@pytest.mark.parametrize("i,j", PAIRS, ids=lambda v: str(v))
def test_promote_types_table(i: int, j: int) -> None:
    assert dtypes.promote_types(ORDER[i], ORDER[j]) is PROMOTE_TABLE[i][j]


def test_promote_table_is_torchs(torch_ref) -> None:
    """The hand-written table against PyTorch itself."""
    for i, j in PAIRS:
        expected = torch_ref.promote_types(getattr(torch_ref, ORDER[i].name), getattr(torch_ref, ORDER[j].name))
        assert PROMOTE_TABLE[i][j].name == str(expected).removeprefix("torch."), (ORDER[i], ORDER[j])


def test_promote_table_is_symmetric_and_safe() -> None:
    """Sanity of the hand-written table itself against NumPy where NumPy agrees with PyTorch."""
    for i, j in PAIRS:
        assert PROMOTE_TABLE[i][j] is PROMOTE_TABLE[j][i]
        result = PROMOTE_TABLE[i][j]
        if ORDER[i].category == ORDER[j].category:  # within a category NumPy's rule is PyTorch's
            assert result.numpy == np.promote_types(ORDER[i].numpy, ORDER[j].numpy)


@pytest.mark.parametrize(
    "dimensioned,zero_dim,scalars,expected",
    [
        ([i64], [], [2.5], f32),
        ([f16], [], [2.5], f16),
        ([f16], [], [3], f16),
        ([i32], [], [7], i32),
        ([b], [], [7], i64),
        ([b], [], [True], b),
        ([u8], [], [300], u8),
        ([i32, i64], [], [], i64),
        ([f32], [f64], [], f32),
        ([i64], [f64], [], f64),
        ([i32], [i64], [], i32),
        ([b], [i32], [], i32),
        ([i32], [f16], [2.5], f16),
        ([], [i64], [1.5], f32),
        ([], [f64, f32], [], f64),
        ([], [], [1, 2.5], f32),
        ([], [], [True], b),
        ([], [], [3], i64),
        ([u8], [], [np.float64(1.5)], f32),
    ],
)
def test_result_type(dimensioned: list, zero_dim: list, scalars: list, expected: dtypes.dtype) -> None:
    assert dtypes.result_type(dimensioned, zero_dim, scalars) is expected


def test_result_type_follows_default_dtype() -> None:
    minitorch.set_default_dtype(f64)
    try:
        assert dtypes.result_type([i64], [], [2.5]) is f64
        assert dtypes.result_type([f32], [], [2.5]) is f32
        assert dtypes.scalar_dtype(1.0) is f64
    finally:
        minitorch.set_default_dtype(f32)
    with pytest.raises(ValueError):
        dtypes.result_type([], [], [])


def test_scalar_dtype() -> None:
    assert dtypes.scalar_dtype(True) is b
    assert dtypes.scalar_dtype(3) is i64
    assert dtypes.scalar_dtype(np.int32(3)) is i64
    assert dtypes.scalar_dtype(2.5) is f32
    with pytest.raises(TypeError):
        dtypes.scalar_dtype("3")


@pytest.mark.parametrize("d", ORDER, ids=repr)
def test_dtype_properties_match_numpy(d: dtypes.dtype) -> None:
    assert d.itemsize == np.dtype(d.numpy).itemsize
    assert d.is_floating_point == (np.dtype(d.numpy).kind == "f")
    assert d.is_signed == (np.dtype(d.numpy).kind in "if")
    assert repr(d) == f"minitorch.{d.name}"
    assert dtypes.from_numpy_dtype(d.numpy) is d
    assert dtypes.as_dtype(d.name) is d and dtypes.as_dtype(f"torch.{d.name}") is d
    assert minitorch.zeros(1, dtype=d).dtype is d


def test_public_names_and_aliases() -> None:
    assert minitorch.float32 is f32 and minitorch.float is f32
    assert minitorch.float64 is f64 and minitorch.double is f64
    assert minitorch.float16 is f16 and minitorch.half is f16
    assert minitorch.int64 is i64 and minitorch.long is i64
    assert minitorch.int32 is i32 and minitorch.int is i32
    assert minitorch.bool is b and minitorch.uint8 is u8
    assert isinstance(minitorch.float32, minitorch.dtype)


def test_as_dtype_conversions() -> None:
    assert dtypes.as_dtype(float) is f32
    assert dtypes.as_dtype(int) is i64
    assert dtypes.as_dtype(bool) is b
    assert dtypes.as_dtype(np.float64) is f64
    assert dtypes.as_dtype(np.dtype("int32")) is i32
    assert dtypes.as_dtype("double") is f64 and dtypes.as_dtype("long") is i64 and dtypes.as_dtype("half") is f16
    assert dtypes.as_dtype("minitorch.int32") is i32
    with pytest.raises(TypeError):
        dtypes.as_dtype("complex64")
    with pytest.raises(TypeError):
        dtypes.from_numpy_dtype(np.complex64)
    with pytest.raises(TypeError):
        dtypes.from_numpy_dtype(np.uint16)


def test_default_dtype_round_trip() -> None:
    assert dtypes.get_default_dtype() is f32
    dtypes.set_default_dtype(f64)
    try:
        assert minitorch.get_default_dtype() is f64
    finally:
        dtypes.set_default_dtype(f32)
    assert dtypes.get_default_dtype() is f32
    for bad in (i64, b, u8):
        with pytest.raises(TypeError):
            dtypes.set_default_dtype(bad)


@pytest.mark.parametrize("name", ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"])
def test_pickle_gives_the_same_dtype_object(name: str) -> None:
    """Code compares dtypes with ``is``: a pickled tensor (a worker process's batch, a deep copy
    through pickle) must come back with the very dtype object, or ops between the copy and the
    original would refuse their "different" dtypes."""
    import pickle

    kind = getattr(minitorch, name)
    assert pickle.loads(pickle.dumps(kind)) is kind
    original = minitorch.ones(3, dtype=kind)
    copy = pickle.loads(pickle.dumps(original))
    assert copy.dtype is kind and (copy == original).all()

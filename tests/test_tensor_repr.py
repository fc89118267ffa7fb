"""``str(tensor)`` character for character as PyTorch prints it (PyTorch is the oracle)."""

from __future__ import annotations

import math
import re
from typing import Any, Callable, Iterator

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minitorch
from minitorch.tensor_repr import get_printoptions

DTYPES = ["float32", "float64", "int64", "int32", "uint8", "bool"]
SHAPES = [(), (1,), (5,), (8,), (9,), (17,), (3, 4), (2, 3, 4), (2, 1, 2, 2), (7, 7), (1001,), (40, 30), (3, 500), (11, 11, 11)]


def _values(kind: str, shape: tuple[int, ...]) -> np.ndarray:
    """Deterministic values of one of several magnitude patterns."""
    size = int(np.prod(shape))
    rng = np.random.default_rng(size)
    base = rng.standard_normal(size)
    patterns: dict[str, Callable[[], np.ndarray]] = {
        "normal": lambda: base,
        "integral": lambda: np.round(base * 10),
        "small": lambda: base * 1e-5,
        "large": lambda: base * 1e9,
        "spread": lambda: base * np.logspace(-3, 3, size),
        "ramp": lambda: np.arange(size, dtype=np.float64) / 7,
        "zeros": lambda: np.zeros(size),
        "hundreds": lambda: base * 300,
    }
    return patterns[kind]().reshape(shape)


@pytest.fixture(autouse=True)
def _restore_printoptions(torch_ref: Any) -> Iterator[None]:
    yield
    minitorch.set_printoptions(profile="default")
    torch_ref.set_printoptions(profile="default")


def _canonical(text: str) -> str:
    """Our text in torch's names; a ``dtype=`` suffix joined to its line.

    ``dtype=minitorch.float64`` is four characters longer than ``dtype=torch.float64``, so near
    the line width the two libraries may (rightly) break before the suffix at different points.
    """
    text = text.replace("minitorch.", "torch.")
    return re.sub(r",\n +dtype=", ", dtype=", text) if "dtype=" in text else text


def _same(torch_ref: Any, array: np.ndarray, dtype: str, **kwargs: Any) -> None:
    ours = minitorch.tensor(array.tolist(), dtype=getattr(minitorch, dtype), **kwargs)
    theirs = torch_ref.tensor(array.tolist(), dtype=getattr(torch_ref, dtype), **kwargs)
    assert _canonical(str(ours)) == _canonical(str(theirs))
    assert _canonical(repr(ours)) == _canonical(repr(theirs))


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("kind", ["normal", "integral", "small", "large", "spread", "ramp", "zeros", "hundreds"])
def test_float_grid_matches_torch(torch_ref: Any, shape: tuple[int, ...], kind: str) -> None:
    for dtype in ("float32", "float64"):
        _same(torch_ref, _values(kind, shape), dtype)


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", DTYPES[2:])
def test_integer_and_bool_grid_matches_torch(torch_ref: Any, shape: tuple[int, ...], dtype: str) -> None:
    values = _values("integral", shape)
    if dtype == "uint8":
        values = np.abs(values)
    elif dtype == "bool":
        values = values > 0
    _same(torch_ref, values, dtype)


def test_summary_is_formatted_from_shown_elements(torch_ref: Any) -> None:
    """A hidden huge value must not switch the shown ones to scientific notation."""
    values = np.linspace(0.1, 0.9, 2000)
    values[1000] = 1e12
    _same(torch_ref, values, "float32")
    _same(torch_ref, values.reshape(40, 50), "float32")


@pytest.mark.parametrize(
    "values",
    [
        [0.0, -0.0],
        [-0.0],
        [1.0, -math.inf, math.nan],
        [math.nan],
        [math.inf, -math.inf],
        [1.5, math.nan, -2.25, math.inf],
        [1e-5, math.nan],
        [1e10, 1.0],
        [-0.0, 0.5],
        [123456.5, 0.5],
        [0.00011, 0.5],
        [1e8, 1.0],
        [1e9, 2e9],
    ],
    ids=str,
)
def test_special_values_match_torch(torch_ref: Any, values: list[float]) -> None:
    for dtype in ("float32", "float64"):
        _same(torch_ref, np.array(values), dtype)
        _same(torch_ref, np.array(values[0]), dtype)


def test_eight_four_decimal_values_fit_one_line(torch_ref: Any) -> None:
    values = np.linspace(-0.9, 0.9, 24).reshape(3, 8)
    _same(torch_ref, values, "float32")
    assert str(minitorch.tensor(values.tolist())).splitlines()[0].count(".") == 8


@pytest.mark.parametrize("shape", [(0,), (2, 0), (0, 3, 1)], ids=str)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool"])
def test_empty_tensors_match_torch(torch_ref: Any, shape: tuple[int, ...], dtype: str) -> None:
    ours = minitorch.zeros(*shape, dtype=getattr(minitorch, dtype))
    theirs = torch_ref.zeros(*shape, dtype=getattr(torch_ref, dtype))
    assert repr(ours) == repr(theirs).replace("torch.", "minitorch.")


def test_autograd_suffixes_match_torch(torch_ref: Any) -> None:
    for lib in (minitorch, torch_ref):
        leaf = lib.tensor([[1.5, -2.0], [0.25, 4.0]], requires_grad=True)
        wide = lib.tensor(np.linspace(-3, 3, 30).tolist(), dtype=lib.float64, requires_grad=True)
        outputs = [leaf, leaf * 2, wide, wide + 1, lib.tensor(3.0, requires_grad=True) * 2]
        if lib is minitorch:
            ours = [_canonical(repr(o)) for o in outputs]
        else:
            theirs = [_canonical(repr(o)) for o in outputs]
    assert ours == theirs


def test_suffix_moves_to_its_own_line_like_torch(torch_ref: Any) -> None:
    for count in (7, 8, 15, 16, 23, 24):
        values = np.linspace(0.1, 0.9, count).tolist()
        ours = minitorch.tensor(values, requires_grad=True)
        theirs = torch_ref.tensor(values, requires_grad=True)
        assert repr(ours) == repr(theirs)
        assert repr(ours * 2) == repr(theirs * 2)


def test_parameter_matches_torch(torch_ref: Any) -> None:
    values = np.linspace(-1, 1, 12).reshape(3, 4).tolist()
    ours = minitorch.nn.Parameter(minitorch.tensor(values))
    theirs = torch_ref.nn.Parameter(torch_ref.tensor(values))
    assert repr(ours) == repr(theirs)


def test_default_float64_prints_without_dtype(torch_ref: Any) -> None:
    minitorch.set_default_dtype(minitorch.float64)
    torch_ref.set_default_dtype(torch_ref.float64)
    try:
        _same(torch_ref, np.array([1.25, 2.0]), "float64")
        _same(torch_ref, np.array([1.25, 2.0]), "float32")
        assert repr(minitorch.zeros(0, 2)) == repr(torch_ref.zeros(0, 2))
    finally:
        minitorch.set_default_dtype(minitorch.float32)
        torch_ref.set_default_dtype(torch_ref.float32)


OPTION_SETS: list[dict[str, Any]] = [
    {"precision": 2},
    {"precision": 7},
    {"threshold": 5},
    {"threshold": 5, "edgeitems": 1},
    {"edgeitems": 5},
    {"linewidth": 40},
    {"linewidth": 200},
    {"profile": "short"},
    {"profile": "full"},
    {"sci_mode": True},
    {"sci_mode": False},
    {"profile": "short", "precision": 6},
    {"threshold": 10, "edgeitems": 0},
]


@pytest.mark.parametrize("options", OPTION_SETS, ids=str)
def test_printoptions_match_torch(torch_ref: Any, options: dict[str, Any]) -> None:
    minitorch.set_printoptions(**options)
    torch_ref.set_printoptions(**options)
    assert get_printoptions() == torch_ref._tensor_str.get_printoptions()
    for shape in [(), (10,), (30,), (6, 7), (2, 12, 3), (2000,)]:
        for kind in ("normal", "integral", "small", "spread"):
            _same(torch_ref, _values(kind, shape), "float32")
        _same(torch_ref, _values("integral", shape), "int64")


def test_unknown_profile_is_refused() -> None:
    with pytest.raises(ValueError, match="'huge'"):
        minitorch.set_printoptions(profile="huge")


finite_or_special = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True, width=32),
    st.floats(min_value=-1e3, max_value=1e3, width=32),
    st.integers(-50, 50).map(float),
)


@settings(max_examples=150, deadline=None)
@given(
    values=st.lists(finite_or_special, min_size=1, max_size=40),
    rows=st.sampled_from([1, 2]),
    dtype=st.sampled_from(["float32", "float64"]),
)
def test_hypothesis_floats_match_torch(torch_ref: Any, values: list[float], rows: int, dtype: str) -> None:
    array = np.array(values[: len(values) // rows * rows]).reshape(rows, -1)
    _same(torch_ref, array, dtype)


def test_a_users_function_prints_its_grad_fn_like_torch(torch_ref: Any) -> None:
    """A Function defined outside the library is ``<name>Backward`` (no number), as in PyTorch."""
    reprs = []
    for lib in (minitorch, torch_ref):
        class Cube(lib.autograd.Function):
            @staticmethod
            def forward(ctx: Any, x: Any) -> Any:
                ctx.save_for_backward(x)
                return x * x * x

            @staticmethod
            def backward(ctx: Any, grad: Any) -> Any:
                (x,) = ctx.saved_tensors
                return 3 * x * x * grad

        x = lib.tensor([0.5, -1.0], dtype=lib.float64, requires_grad=True)
        reprs.append(_canonical(repr(Cube.apply(x))))
        reprs.append(_canonical(repr(Cube.apply(x) * 2)))
    assert reprs[:2] == reprs[2:]
    assert "grad_fn=<CubeBackward>" in reprs[0]

"""``torch.add``/``sub``/``div`` (with ``alpha`` and ``rounding_mode``) and friends as PyTorch's."""

from __future__ import annotations

from types import ModuleType
from typing import Any, Callable

import numpy as np
import pytest

import minitorch

CALLS: dict[str, Callable[[ModuleType, Any, Any], Any]] = {
    "add": lambda lib, a, b: lib.add(a, b),
    "add_alpha": lambda lib, a, b: lib.add(a, b, alpha=2),
    "add_number": lambda lib, a, b: lib.add(a, 3),
    "sub_alpha": lambda lib, a, b: lib.sub(a, b, alpha=3),
    "subtract": lambda lib, a, b: lib.subtract(a, b),
    "rsub": lambda lib, a, b: lib.rsub(a, b, alpha=3),
    "div": lambda lib, a, b: lib.div(a, b),
    "divide_trunc": lambda lib, a, b: lib.divide(a, b, rounding_mode="trunc"),
    "div_floor": lambda lib, a, b: lib.div(a, b, rounding_mode="floor"),
    "true_divide": lambda lib, a, b: lib.true_divide(a, b),
    "floor_divide": lambda lib, a, b: lib.floor_divide(a, b),
    "ravel": lambda lib, a, b: lib.ravel(a.t()),
}

FLOATS = ([[7.0, -7.0, 2.5], [-1.5, 9.0, 0.25]], [[2.0, 2.0, -1.0], [4.0, -2.0, 0.5]])
INTS = ([[7, -7, 3], [-9, 8, 5]], [[2, 2, -2], [4, -3, 5]])


@pytest.mark.parametrize("name", list(CALLS))
@pytest.mark.parametrize("data", [FLOATS, INTS], ids=["float64", "int64"])
def test_arithmetic_matches_torch(name: str, data: tuple, torch_ref: ModuleType) -> None:
    results = []
    for lib in (minitorch, torch_ref):
        dtype = lib.float64 if isinstance(data[0][0][0], float) else lib.int64
        out = CALLS[name](lib, lib.tensor(data[0], dtype=dtype), lib.tensor(data[1], dtype=dtype))
        results.append((str(out.dtype).split(".")[-1], tuple(out.shape), np.asarray(out.tolist())))
    assert results[0][:2] == results[1][:2]
    np.testing.assert_allclose(results[0][2], results[1][2], rtol=1e-12)


def test_gradients_of_add_alpha_and_div_match_torch(torch_ref: ModuleType) -> None:
    grads = []
    for lib in (minitorch, torch_ref):
        a = lib.tensor(FLOATS[0], dtype=lib.float64, requires_grad=True)
        b = lib.tensor(FLOATS[1], dtype=lib.float64, requires_grad=True)
        (lib.add(a, b, alpha=2) * lib.div(a, b)).sum().backward()
        grads.append((np.asarray(a.grad.tolist()), np.asarray(b.grad.tolist())))
    for mine, theirs in zip(*grads):
        np.testing.assert_allclose(mine, theirs, rtol=1e-12)


def test_a_bad_rounding_mode_is_refused_as_torch(torch_ref: ModuleType) -> None:
    messages = []
    for lib in (minitorch, torch_ref):
        with pytest.raises(RuntimeError) as caught:
            lib.div(lib.ones(2), 2, rounding_mode="round")
        messages.append(str(caught.value))
    assert messages[0] == messages[1]


def test_is_floating_point_matches_torch(torch_ref: ModuleType) -> None:
    for lib in (minitorch, torch_ref):
        assert lib.is_floating_point(lib.ones(1)) and not lib.is_floating_point(lib.ones(1, dtype=lib.int64))


@pytest.mark.parametrize("data", [FLOATS, INTS], ids=["float64", "int64"])
def test_floor_division_operator_matches_torch(data: tuple, torch_ref: ModuleType) -> None:
    results = []
    for lib in (minitorch, torch_ref):
        dtype = lib.float64 if isinstance(data[0][0][0], float) else lib.int64
        a, b = lib.tensor(data[0], dtype=dtype), lib.tensor(data[1], dtype=dtype)
        outs = (a // b, a // 2, 7 // b, a.floor_divide(b))
        results.append([(str(o.dtype).split(".")[-1], o.tolist()) for o in outs])
    assert results[0] == results[1]

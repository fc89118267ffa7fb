"""``torch.linalg.norm`` chooses a vector or matrix norm as PyTorch does; ``torch.softmax``."""

from __future__ import annotations

import math
from types import ModuleType
from typing import Any

import numpy as np
import pytest

import minitorch

MATRIX = [[1.0, -2.0, 3.0], [4.0, 5.0, -6.0]]
CASES: list[dict[str, Any]] = [
    {}, {"ord": 1}, {"ord": -1}, {"ord": "fro"}, {"ord": math.inf}, {"ord": -math.inf}, {"dim": 1}, {"dim": (0,)},
    {"dim": (0, 1)}, {"dim": (1, 0), "ord": 1}, {"ord": 3, "dim": 0}, {"dim": 1, "keepdim": True},
    {"dim": (0, 1), "keepdim": True},
]


@pytest.mark.parametrize("kwargs", CASES, ids=[str(c) for c in CASES])
def test_norm_of_a_matrix_matches_torch(kwargs: dict[str, Any], torch_ref: ModuleType) -> None:
    values = []
    for lib in (minitorch, torch_ref):
        a = lib.tensor(MATRIX, dtype=lib.float64, requires_grad=True)
        out = lib.linalg.norm(a, **kwargs)
        out.sum().backward()
        values.append((tuple(out.shape), np.asarray(out.tolist()), np.asarray(a.grad.tolist())))
    assert values[0][0] == values[1][0]
    np.testing.assert_allclose(values[0][1], values[1][1], rtol=1e-12)
    np.testing.assert_allclose(values[0][2], values[1][2], rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("order", [None, 1, 3, math.inf, 0])
def test_norm_of_a_vector_matches_torch(order: Any, torch_ref: ModuleType) -> None:
    outs = [lib.linalg.norm(lib.tensor([3.0, -4.0, 0.0, 1.0], dtype=lib.float64), order).item()
            for lib in (minitorch, torch_ref)]
    assert outs[0] == pytest.approx(outs[1], rel=1e-12)


@pytest.mark.parametrize("kwargs", [{"ord": 2}, {"dim": (0, 1, 2)}])
def test_norm_errors_match_torch(kwargs: dict[str, Any], torch_ref: ModuleType) -> None:
    messages = []
    for lib in (minitorch, torch_ref):
        with pytest.raises(RuntimeError) as caught:
            lib.linalg.norm(lib.ones(2, 2, 2), **kwargs)
        messages.append(str(caught.value))
    assert messages[0] == messages[1]


def test_top_level_softmax_and_log_softmax_match_torch(torch_ref: ModuleType) -> None:
    data = [[1.0, 2.0, 0.5], [-1.0, 0.0, 3.0]]
    for name in ("softmax", "log_softmax"):
        mine = getattr(minitorch, name)(minitorch.tensor(data, dtype=minitorch.float64), 1)
        theirs = getattr(torch_ref, name)(torch_ref.tensor(data, dtype=torch_ref.float64), 1)
        np.testing.assert_allclose(mine.tolist(), theirs.tolist(), rtol=1e-12)


@pytest.mark.parametrize("rows,cols", [(3, 3), (2, 4), (4, 2)])
def test_trace_matches_torch(rows: int, cols: int, torch_ref: ModuleType) -> None:
    results = []
    for lib in (minitorch, torch_ref):
        a = lib.arange(rows * cols, dtype=lib.float64).view(rows, cols).requires_grad_()
        out = lib.trace(a)
        out.backward()
        results.append((out.item(), a.grad.tolist(), type(out.grad_fn).__name__, a.trace().item()))
    assert results[0] == results[1]


def test_trace_of_integers_and_its_error_match_torch(torch_ref: ModuleType) -> None:
    outs = [lib.arange(4).view(2, 2).trace() for lib in (minitorch, torch_ref)]
    assert (outs[0].item(), str(outs[0].dtype).split(".")[-1]) == (outs[1].item(), str(outs[1].dtype).split(".")[-1])
    messages = []
    for lib in (minitorch, torch_ref):
        with pytest.raises(RuntimeError) as caught:
            lib.trace(lib.ones(2, 2, 2))
        messages.append(str(caught.value))
    assert messages[0] == messages[1]


def test_module_constants_are_torchs(torch_ref: ModuleType) -> None:
    for name in ("pi", "e", "inf"):
        assert getattr(minitorch, name) == getattr(torch_ref, name)
    assert math.isnan(minitorch.nan)

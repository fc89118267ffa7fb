"""The CPU backend's kernel for reducing a whole large tensor to one value (``backends/cpu_reduce_long.py``).

Oracle: NumPy in float64 (the kernel accumulates floats in float64 too), and NumPy's NaN rules
for ``max``/``min``. Lengths cover a run cut into equal parts, a last part shorter than the
others, and runs so short that trailing parts are empty (the kernel called directly).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import minitorch
from minitorch.backends import cpu, cpu_reduce_long, opcodes
from minitorch.backends.cpu_kernels import PARALLEL_MIN_WORK

LENGTHS = [PARALLEL_MIN_WORK, PARALLEL_MIN_WORK + 17, 10**6 + 3]
REDUCERS = {"sum": np.sum, "prod": np.prod, "max": np.max, "min": np.min}


def values(length: int, dtype: Any, op: str, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if op == "prod":  # near 1, so a million factors stay finite
        return (1 + rng.uniform(-1e-4, 1e-4, length)).astype(dtype)
    if np.dtype(dtype).kind == "f":
        x = rng.standard_normal(length)
    else:
        x = rng.integers(-1000, 1000, length)
    # max over values all below 0 and min over values all above: a stray 0 (a sum's start) would win
    if op == "max":
        x = -1 - np.abs(x)
    elif op == "min":
        x = 1 + np.abs(x)
    return x.astype(dtype)


def spy_on_long_runs(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Record the length of every run the backend sends to the long-run kernel."""
    lengths: list[int] = []
    kernel = cpu_reduce_long.reduce_long_run

    def spy(op: int, out: np.ndarray, a: np.ndarray, length: int, start: Any) -> None:
        lengths.append(length)
        kernel(op, out, a, length, start)

    monkeypatch.setattr(cpu.cpu_reduce_long, "reduce_long_run", spy)
    return lengths


#: every op and dtype but integer products (a million factors overflow; test_cpu_backend has them)
OPS_AND_DTYPES = [(op, dtype) for op in REDUCERS for dtype in (np.float32, np.float64, np.int64, np.int32)
                  if not (op == "prod" and np.dtype(dtype).kind == "i")]


@pytest.mark.parametrize("length", LENGTHS)
@pytest.mark.parametrize("op, dtype", OPS_AND_DTYPES, ids=str)
def test_whole_tensor_reductions_match_numpy(length: int, op: str, dtype: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    x = values(length, dtype, op)
    lengths = spy_on_long_runs(monkeypatch)
    out = minitorch.zeros(1, dtype=minitorch.tensor(x[:1]).dtype)
    cpu.CpuBackend().reduce(op, minitorch.tensor(x)._data, 0, out._data)
    assert lengths == [length]
    expected = REDUCERS[op](x.astype(np.float64 if np.dtype(dtype).kind == "f" else np.int64))
    if np.dtype(dtype).kind == "f":
        tolerance = 1e-6 if dtype == np.float32 else 1e-12
        np.testing.assert_allclose(out.numpy()[0], expected, rtol=tolerance, atol=tolerance * np.sqrt(length))
    else:
        assert out.numpy()[0] == expected.astype(dtype)


def test_public_ops_take_it_and_views_read_from_their_offset(monkeypatch: pytest.MonkeyPatch) -> None:
    x = values(PARALLEL_MIN_WORK * 3, np.float32, "sum", seed=1)
    lengths = spy_on_long_runs(monkeypatch)
    tail = minitorch.tensor(x)[7:]  # a view at an offset into its storage
    np.testing.assert_allclose(tail.sum().item(), x[7:].astype(np.float64).sum(), rtol=1e-6)
    np.testing.assert_allclose(tail.mean().item(), x[7:].astype(np.float64).mean(), rtol=1e-6)
    square = minitorch.tensor(x[: 512 * 384].reshape(512, 384))
    assert square.max().item() == x[: 512 * 384].max()
    assert lengths == [x.size - 7, x.size - 7, 512 * 384]


def test_other_reductions_keep_their_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    lengths = spy_on_long_runs(monkeypatch)
    with monkeypatch.context() as switched:
        switched.setattr(cpu, "use_long_run_kernel", False)
        x = values(PARALLEL_MIN_WORK, np.float32, "sum")
        np.testing.assert_allclose(minitorch.tensor(x).sum().item(), x.astype(np.float64).sum(), rtol=1e-6)
    x = values(PARALLEL_MIN_WORK * 2, np.float32, "sum").reshape(2, -1)
    np.testing.assert_allclose(minitorch.tensor(x).sum(1).numpy(), x.astype(np.float64).sum(1), rtol=1e-6)  # two values
    small = values(PARALLEL_MIN_WORK - 1, np.float32, "sum")
    np.testing.assert_allclose(minitorch.tensor(small).sum().item(), small.astype(np.float64).sum(), rtol=1e-6)
    assert lengths == []


@pytest.mark.parametrize("op", ["max", "min", "sum"])
@pytest.mark.parametrize("where", [0, PARALLEL_MIN_WORK // cpu_reduce_long.PARTS, PARALLEL_MIN_WORK - 1])
def test_a_nan_anywhere_wins(op: str, where: int) -> None:
    x = values(PARALLEL_MIN_WORK, np.float32, op)
    x[where] = np.nan  # the first element, the first of a later part, the last
    assert np.isnan(getattr(minitorch.tensor(x), op)().item())


def test_infinities_keep_their_sign() -> None:
    x = values(PARALLEL_MIN_WORK, np.float64, "max")
    x[123], x[40000] = np.inf, -np.inf
    assert minitorch.tensor(x).max().item() == np.inf
    assert minitorch.tensor(x).min().item() == -np.inf
    assert np.isnan(minitorch.tensor(x).sum().item())  # inf + -inf


@pytest.mark.parametrize("length", [cpu_reduce_long.PARTS, cpu_reduce_long.PARTS + 1, 100])
@pytest.mark.parametrize("op", list(REDUCERS))
def test_short_runs_leave_trailing_parts_empty(length: int, op: str) -> None:
    """Called directly (the backend sends only long runs): with ``ceil(length / PARTS)`` elements a
    part, the last parts of a short run start past its end and must not count."""
    x = values(length, np.float64, op, seed=length)
    x[length // 2] = {"min": 0.5, "max": -0.5}.get(op, 5.0)  # the extreme value, in the middle
    out = np.zeros(1)
    start = 1.0 if op == "prod" else 0.0
    cpu_reduce_long.reduce_long_run(opcodes.REDUCE_CODES[op], out, np.concatenate([x, [1e9, -1e9]]), length, start)
    np.testing.assert_allclose(out[0], REDUCERS[op](x), rtol=1e-12)


@pytest.mark.parametrize("op", ["max", "min"])
def test_max_and_min_folded_in_eight_chains_match_numpy(op: str) -> None:
    """``cpu_kernels.extreme_run`` folds runs of 16 or more in eight chains, the rest one by one:
    every length up to 41 along the reduced (last) dimension, and a NaN at each position of some."""
    rng = np.random.default_rng(5)
    for length in range(1, 42):
        x = rng.standard_normal((3, length)).astype(np.float32)
        np.testing.assert_array_equal(getattr(minitorch.tensor(x), op)(1)[0].numpy(), getattr(x, op)(1))
    for length in (16, 17, 24, 31):
        for where in range(length):
            x = rng.standard_normal((1, length))
            x[0, where] = np.nan
            assert np.isnan(getattr(minitorch.tensor(x), op)(1)[0].item()), (length, where)
    x = rng.standard_normal((2, 40))
    x[0, 3], x[1, 37] = np.inf, -np.inf  # in a chain, in the tail
    np.testing.assert_array_equal(getattr(minitorch.tensor(x), op)(1)[0].numpy(), getattr(x, op)(1))

"""quantile, nanquantile, kthvalue, nanmedian, msort, cummax and cummin against PyTorch:
values, indices, NaN handling, errors and gradients."""

from __future__ import annotations

from types import ModuleType
from typing import Any, Callable

import numpy as np
import pytest

import minitorch

RNG = np.random.default_rng(7)
#: distinct values (so every order statistic has one index), one row and one column with NaNs
DISTINCT = RNG.permutation(np.arange(35, dtype=np.float64)).reshape(5, 7) / 7.0
WITH_NAN = DISTINCT.copy()
WITH_NAN[1, [0, 4]] = np.nan
WITH_NAN[:, 5] = np.nan
WITH_NAN[3, :] = np.nan
#: ties, for the running extremes
TIES = np.array([[3, 1, 3, 2, 5, 5, 0], [2, 2, 1, 2, 7, np.nan, 9], [-1, -1, -3, -1, -3, -4, -4]], dtype=np.float64)


def _both(torch_ref: ModuleType, values: np.ndarray, run: Callable[[ModuleType, Any], Any],
          grad: bool = False) -> list:
    outcomes = []
    for lib in (minitorch, torch_ref):
        x = lib.tensor(values, requires_grad=grad)
        out = run(lib, x)
        parts = list(out) if isinstance(out, tuple) else [out]
        row = [(p.dtype == lib.int64, p.detach().numpy()) for p in parts]
        if grad:
            weights = lib.arange(parts[0].numel(), dtype=lib.float64).reshape(parts[0].shape) + 1
            (parts[0] * weights).sum().backward()
            row.append((True, x.grad.numpy()))
        outcomes.append(row)
    for (ours_int, ours), (theirs_int, theirs) in zip(*outcomes):
        assert ours_int == theirs_int and ours.shape == theirs.shape
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-12, equal_nan=True)
    return outcomes


QUANTILE_CASES = [
    (0.3, None, False), (0.5, 1, False), (0.75, 0, True), (1.0, -1, False), (0.0, 1, True),
    ("q_tensor", 1, False), ("q_tensor", None, True), ("q_tensor", 0, True),
]


@pytest.mark.parametrize("interpolation", ["linear", "lower", "higher", "midpoint", "nearest"])
@pytest.mark.parametrize(("q", "dim", "keepdim"), QUANTILE_CASES, ids=repr)
def test_quantile_as_torch(q: Any, dim: Any, keepdim: bool, interpolation: str, torch_ref: ModuleType) -> None:
    def run(name: str) -> Callable[[ModuleType, Any], Any]:
        def call(lib: ModuleType, x: Any) -> Any:
            level = lib.tensor([0.0, 0.1, 0.5, 0.625, 0.9], dtype=lib.float64) if q == "q_tensor" else q
            return getattr(x, name)(level, dim, keepdim, interpolation=interpolation)
        return call

    _both(torch_ref, DISTINCT, run("quantile"), grad=True)
    _both(torch_ref, WITH_NAN, run("quantile"))
    _both(torch_ref, WITH_NAN, run("nanquantile"))


def test_quantile_in_float32_and_as_a_function(torch_ref: ModuleType) -> None:
    _both(torch_ref, DISTINCT.astype(np.float32), lambda lib, x: lib.quantile(x, 0.37, dim=1))
    _both(torch_ref, WITH_NAN.astype(np.float32), lambda lib, x: lib.nanquantile(x, 0.63))


@pytest.mark.parametrize(("values", "call", "message"), [
    (np.arange(4.0), lambda x: x.quantile(1.5), "in the range"),
    (np.arange(4), lambda x: x.quantile(0.5), "float or double"),
    (np.zeros(0), lambda x: x.quantile(0.5), "non-empty"),
    (np.arange(4.0), lambda x: x.quantile(0.5, interpolation="cubic"), "interpolation"),
    (np.arange(4.0), lambda x: x.kthvalue(5), "out of range"),
], ids=["q", "dtype", "empty", "interpolation", "k"])
def test_order_statistics_refuse_bad_arguments_as_torch(values: np.ndarray, call: Callable, message: str,
                                                         torch_ref: ModuleType) -> None:
    for lib in (minitorch, torch_ref):
        with pytest.raises(RuntimeError, match=message):
            call(lib.tensor(values))


@pytest.mark.parametrize(("k", "dim", "keepdim"), [(1, 1, False), (3, 0, True), (7, -1, False), (5, 0, False)])
def test_kthvalue_as_torch(k: int, dim: int, keepdim: bool, torch_ref: ModuleType) -> None:
    _both(torch_ref, DISTINCT, lambda lib, x: x.kthvalue(k, dim, keepdim), grad=True)
    _both(torch_ref, DISTINCT, lambda lib, x: lib.kthvalue(x, k, dim=dim, keepdim=keepdim))


@pytest.mark.parametrize(("dim", "keepdim"), [(None, False), (1, False), (0, True), (-1, True)])
def test_nanmedian_as_torch(dim: Any, keepdim: bool, torch_ref: ModuleType) -> None:
    def run(lib: ModuleType, x: Any) -> Any:
        return x.nanmedian() if dim is None else x.nanmedian(dim, keepdim)

    def without_all_nan_indices(lib: ModuleType, x: Any) -> Any:
        """The index of a slice that is all NaN is whatever PyTorch's selection left there (5 of
        7, 2 of 5, 0 of 3): not compared; its value (NaN) is."""
        out = run(lib, x)
        if dim is None:
            return out
        return out.values, out.indices.masked_fill(out.values.isnan(), -1)

    _both(torch_ref, WITH_NAN, without_all_nan_indices)
    _both(torch_ref, DISTINCT, run, grad=True)


def test_msort_as_torch(torch_ref: ModuleType) -> None:
    _both(torch_ref, DISTINCT, lambda lib, x: lib.msort(x), grad=True)
    _both(torch_ref, WITH_NAN, lambda lib, x: x.msort())


@pytest.mark.parametrize("name", ["cummax", "cummin"])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_running_extremes_as_torch(name: str, dim: int, torch_ref: ModuleType) -> None:
    _both(torch_ref, TIES, lambda lib, x: getattr(x, name)(dim))
    _both(torch_ref, DISTINCT, lambda lib, x: getattr(lib, name)(x, dim), grad=True)

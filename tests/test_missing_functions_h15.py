"""Four PyTorch functions minitorch lacked, each checked against PyTorch at run time.

* ``index_reduce`` (function, method, in-place): ``prod``, ``mean``, ``amax``, ``amin``, with and
  without ``include_self``; its "in beta" warning, errors and gradients.
* ``histogram``: bins as a number or a tensor of edges, ``range``, ``weight``, ``density``.
* ``special.ndtri``: the inverse of the standard normal CDF, and its gradient.
* ``put`` / ``put_``: flat positions, negative ones, ``accumulate``, errors and gradients.
"""

from __future__ import annotations

import subprocess
import sys
import warnings
from types import ModuleType
from typing import Any, Callable

import numpy as np
import pytest

import minitorch
from both_libraries import Case, check_same, compare, run_case
from minitorch.ops import index_reduce as index_reduce_module

torch = pytest.importorskip("torch")

REDUCTIONS = ("prod", "mean", "amax", "amin")
INTEGER_DTYPES = ("int64", "int32", "int16", "uint8")


def _quiet_compare(case: Case) -> None:
    """:func:`compare` without the warnings (``index_reduce`` warns once a process in PyTorch)."""
    ours, _ = run_case(case, minitorch)
    theirs, _ = run_case(case, torch)
    check_same(ours, theirs)


def _values(lib: ModuleType, values: Any, dtype: str = "float32", requires_grad: bool = False) -> Any:
    return lib.tensor(values, dtype=getattr(lib, dtype), requires_grad=requires_grad)


def _grads(lib: ModuleType, build: Callable[[ModuleType, Any, Any], Any], self_values: Any, source_values: Any) -> tuple:
    """``build(lib, x, s)`` on float64 leaves, its ``grad_fn`` name and the gradients of a weighted sum."""
    x = _values(lib, self_values, "float64", requires_grad=True)
    s = _values(lib, source_values, "float64", requires_grad=True)
    out = build(lib, x, s)
    weights = lib.arange(1, out.numel() + 1, dtype=out.dtype).reshape(out.shape)
    (out * weights).sum().backward()
    return out, out.grad_fn.name(), x.grad, s.grad


# ---- index_reduce ------------------------------------------------------------------------------

SELF_3X3 = [[1, 2, 3], [4, 5, 6], [7, 8, 9]]
SOURCE_3X3 = [[1, -2, 3], [0, 5, 6], [7, 0, -9]]


@pytest.mark.parametrize("reduce", REDUCTIONS)
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("dtype", ("float32", "float64") + INTEGER_DTYPES)
def test_index_reduce_values(reduce: str, include_self: bool, dtype: str) -> None:
    source = [[abs(v) for v in row] for row in SOURCE_3X3] if dtype == "uint8" else SOURCE_3X3
    _quiet_compare(lambda lib: _values(lib, SELF_3X3, dtype).index_reduce(
        0, lib.tensor([0, 2, 0]), _values(lib, source, dtype), reduce, include_self=include_self))
    _quiet_compare(lambda lib: lib.index_reduce(
        _values(lib, SELF_3X3, dtype), 1, lib.tensor([2, 2, 0], dtype=lib.int32), _values(lib, source, dtype), reduce,
        include_self=include_self))


@pytest.mark.parametrize("reduce", REDUCTIONS)
@pytest.mark.parametrize("include_self", [True, False])
def test_index_reduce_duplicates_negative_means_and_scalars(reduce: str, include_self: bool) -> None:
    # an integer mean rounds down (-2.5 to -3); a 0-d self takes a 0-d source
    _quiet_compare(lambda lib: _values(lib, [1, 2, 3], "int64").index_reduce(
        0, lib.tensor([2, 2, 0, 0]), _values(lib, [-1, -4, 1, 4], "int64"), reduce, include_self=include_self))
    _quiet_compare(lambda lib: _values(lib, 3.0).index_reduce(0, lib.tensor([0]), _values(lib, 5.0), reduce,
                                                              include_self=include_self))
    _quiet_compare(lambda lib: _values(lib, [[0.0, 1.0], [2.0, 3.0]]).index_reduce(
        -1, lib.tensor([1, 1, 1]), _values(lib, [[5.0, float("nan"), 1.0], [-1.0, 2.0, 7.0]]), reduce,
        include_self=include_self))
    _quiet_compare(lambda lib: lib.zeros(2).index_reduce(0, lib.tensor([], dtype=lib.int64), lib.zeros(0), reduce,
                                                         include_self=include_self))


def test_index_reduce_int32_product_wraps_as_pytorch() -> None:
    _quiet_compare(lambda lib: _values(lib, [100000, 3], "int32").index_reduce(
        0, lib.tensor([0, 0]), _values(lib, [100000, 7], "int32"), "prod"))


def test_index_reduce_out() -> None:
    def case(lib: ModuleType) -> Any:
        out = lib.empty(3)
        returned = lib.index_reduce(lib.ones(3), 0, lib.tensor([0, 0]), _values(lib, [2.0, 3.0]), "prod", out=out)
        assert returned is out
        return out

    _quiet_compare(case)


def test_index_reduce_repro_in_place() -> None:
    def case(lib: ModuleType) -> Any:
        x = lib.arange(9.0).reshape(3, 3)
        target = lib.ones(3, 3)
        returned = target.index_reduce_(0, lib.tensor([0, 2, 0]), x, "mean", include_self=False)
        assert returned is target
        return target

    _quiet_compare(case)


@pytest.mark.parametrize("reduce", REDUCTIONS)
@pytest.mark.parametrize("include_self", [True, False])
def test_index_reduce_bool(reduce: str, include_self: bool) -> None:
    _quiet_compare(lambda lib: _values(lib, [[1, 0], [0, 1]], "bool").index_reduce(
        0, lib.tensor([1, 1]), _values(lib, [[1, 0], [1, 1]], "bool"), reduce, include_self=include_self))
    _quiet_compare(lambda lib: _values(lib, [1, 0], "bool").index_reduce(
        0, lib.tensor([1, 1]), _values(lib, [1, 0], "bool"), reduce, include_self=include_self))


INDEX_REDUCE_ERRORS: dict[str, Case] = {
    "bad reduce": lambda lib: lib.ones(3, 3).index_reduce(0, lib.tensor([0, 2, 0]), lib.ones(3, 3), "sum"),
    "old name max": lambda lib: lib.ones(3, 3).index_reduce(0, lib.tensor([0, 2, 0]), lib.ones(3, 3), "max"),
    "dim": lambda lib: lib.ones(3, 3).index_reduce(5, lib.tensor([0.0]), lib.ones(3, 3), "prod"),
    "index rank": lambda lib: lib.ones(3, 3).index_reduce(0, lib.tensor([[0.0]]), lib.ones(3, 3).double(), "prod"),
    "index dtype": lambda lib: lib.ones(3, 3).index_reduce(0, lib.tensor([0.0]), lib.ones(3, 3).double(), "prod"),
    "index int16": lambda lib: lib.ones(3, 3).index_reduce(0, lib.tensor([0, 0, 0], dtype=lib.int16), lib.ones(3, 3),
                                                           "prod"),
    "source dtype": lambda lib: lib.ones(3, 3).index_reduce(0, lib.tensor([0]), lib.ones(3, 3).double(), "prod"),
    "index count": lambda lib: lib.ones(3, 3).index_reduce(0, lib.tensor([0]), lib.ones(3, 3), "prod"),
    "slice shape": lambda lib: lib.ones(3, 3).index_reduce(0, lib.tensor([0, 0, 9]), lib.ones(3, 2), "prod"),
    "index too large": lambda lib: lib.ones(3, 3).index_reduce(0, lib.tensor([0, 0, 9]), lib.ones(3, 3), "prod"),
    "negative index": lambda lib: lib.ones(3, 3).index_reduce(0, lib.tensor([0, -1, 0]), lib.ones(3, 3), "amin"),
    "source rank": lambda lib: lib.ones(3, 3).index_reduce(1, lib.tensor([0, 0, 0]), lib.ones(3), "prod"),
    "0-d source": lambda lib: lib.ones(3, 3).index_reduce(0, lib.tensor([0, 0, 0]), lib.tensor(1.0), "prod"),
    "0-d self, vector source": lambda lib: lib.tensor(1.0).index_reduce(0, lib.tensor([0, 0, 0]), lib.ones(3), "prod"),
    "include_self not bool": lambda lib: lib.ones(3, 3).index_reduce(0, lib.tensor([0, 0, 0]), lib.ones(3, 3), "amax",
                                                                     include_self=1),
    "expanded in place": lambda lib: lib.ones(3, 1).expand(3, 3).index_reduce_(0, lib.tensor([0, 0, 0]),
                                                                               lib.ones(3, 3), "amax"),
    "leaf in place": lambda lib: lib.ones(3, 3, requires_grad=True).index_reduce_(0, lib.tensor([0, 0, 0]),
                                                                                  lib.ones(3, 3), "amax"),
}


@pytest.mark.parametrize("name", INDEX_REDUCE_ERRORS)
def test_index_reduce_errors(name: str) -> None:
    _quiet_compare(INDEX_REDUCE_ERRORS[name])


def test_index_reduce_beta_warning() -> None:
    """PyTorch warns once a process: its message is read in a fresh interpreter."""
    script = ("import warnings, torch\nwith warnings.catch_warnings(record=True) as w:\n"
              "    warnings.simplefilter('always')\n"
              "    torch.ones(2).index_reduce(0, torch.tensor([0]), torch.ones(1), 'prod')\n"
              "print(w[0].category.__name__); print(str(w[0].message))")
    category, message = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                                       check=True).stdout.splitlines()
    index_reduce_module.warn_in_beta.cache_clear()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        minitorch.ones(2).index_reduce(0, minitorch.tensor([0]), minitorch.ones(1), "prod")
        minitorch.ones(2).index_reduce(0, minitorch.tensor([0]), minitorch.ones(1), "prod")
    assert [type(w.message).__name__ for w in caught] == [category]  # once only
    assert message.startswith(str(caught[0].message))


SELF_2X3 = [[2.0, 5.0, 1.0], [1.0, 0.0, 3.0]]
SOURCE_4X3 = [[0.0, 2.0, 1.0], [0.0, 3.0, 2.0], [4.0, 0.0, 3.0], [3.0, 2.0, 0.0]]


@pytest.mark.parametrize("reduce", REDUCTIONS)
@pytest.mark.parametrize("include_self", [True, False])
def test_index_reduce_gradients(reduce: str, include_self: bool) -> None:
    """Zeros (one and two per row) for ``prod``, ties (with ``self`` too) for ``amax``/``amin``."""
    def case(lib: ModuleType) -> tuple:
        return _grads(lib, lambda lib, x, s: x.index_reduce(0, lib.tensor([0, 0, 1, 1]), s, reduce,
                                                            include_self=include_self), SELF_2X3, SOURCE_4X3)

    _quiet_compare(case)


@pytest.mark.parametrize("reduce", REDUCTIONS)
def test_index_reduce_gradients_dim_1_and_scalar(reduce: str) -> None:
    _quiet_compare(lambda lib: _grads(
        lib, lambda lib, x, s: lib.index_reduce(x, 1, lib.tensor([2, 0, 2, 2]), s, reduce),
        [[1.0, 2.0, 3.0], [0.5, 0.0, 2.0]], [[2.0, 1.0, 3.0, 3.0], [4.0, 0.5, 0.0, 1.0]]))
    _quiet_compare(lambda lib: _grads(lib, lambda lib, x, s: x.index_reduce(0, lib.tensor([0]), s, reduce), 2.0, 3.0))


def test_index_reduce_in_place_records_its_node() -> None:
    def case(lib: ModuleType) -> tuple:
        return _grads(lib, lambda lib, x, s: x.clone().index_reduce_(0, lib.tensor([1, 0, 1, 1]), s, "amax"),
                      SELF_2X3, SOURCE_4X3)

    _quiet_compare(case)


# ---- histogram ---------------------------------------------------------------------------------

DATA = [1.0, 2.0, 1.0, 4.0, 2.5]
EDGES = [0.0, 1.5, 3.0, 10.0]

HISTOGRAM_CASES: dict[str, Case] = {
    "int bins": lambda lib: lib.histogram(_values(lib, DATA), 3),
    "default bins": lambda lib: lib.histogram(_values(lib, DATA)),
    "range": lambda lib: lib.histogram(_values(lib, DATA), bins=3, range=(0.0, 5.0)),
    "int range": lambda lib: lib.histogram(_values(lib, DATA), bins=3, range=(0, 5)),
    "narrow range": lambda lib: lib.histogram(_values(lib, DATA), 3, range=(1.5, 2.6)),
    "edges": lambda lib: lib.histogram(_values(lib, DATA), bins=_values(lib, EDGES)),
    "unsorted edges": lambda lib: lib.histogram(_values(lib, DATA), bins=_values(lib, [0.0, 3, 1.5, 10])),
    "one-point edges": lambda lib: lib.histogram(_values(lib, DATA), bins=_values(lib, [1.0, 1.0])),
    "weight": lambda lib: lib.histogram(_values(lib, DATA), bins=3, weight=_values(lib, [1.0, 2, 3, 4, 5])),
    "density": lambda lib: lib.histogram(_values(lib, DATA), bins=3, density=True),
    "weight and density": lambda lib: lib.histogram(_values(lib, DATA), bins=_values(lib, EDGES),
                                                    weight=_values(lib, [1.0, 2, 3, 4, 5]), density=True),
    "empty density": lambda lib: lib.histogram(_values(lib, DATA), bins=_values(lib, [5.0, 6.0]), density=True),
    "float64": lambda lib: lib.histogram(_values(lib, DATA, "float64"), bins=4),
    "2-d input, flat weight": lambda lib: lib.histogram(_values(lib, [[1.0, 2], [3, 4]]), bins=3, weight=lib.ones(4)),
    "nan left out": lambda lib: lib.histogram(_values(lib, [1.0, float("nan"), 3]), bins=_values(lib, EDGES)),
    "all equal": lambda lib: lib.histogram(lib.full((3,), 2.0), bins=4),
    "range of one point": lambda lib: lib.histogram(_values(lib, DATA), bins=3, range=(1.0, 1.0)),
    "empty input": lambda lib: lib.histogram(lib.tensor([]), bins=4),
    "empty input with range": lambda lib: lib.histogram(lib.tensor([]), bins=2, range=(-1.0, 3.0)),
    "0-d input": lambda lib: lib.histogram(lib.tensor(3.0), bins=2),
    "near edges": lambda lib: lib.histogram(_values(lib, [0.0, 0.1, 0.2, 0.30000001, 0.7, 1.0]), 10),
    "method": lambda lib: _values(lib, DATA).histogram(_values(lib, EDGES)),
    "requires grad": lambda lib: _values(lib, DATA, requires_grad=True).histogram(3),
    "weight requires grad": lambda lib: lib.histogram(_values(lib, DATA), 2, weight=lib.ones(5, requires_grad=True)),
    "long input": lambda lib: lib.histogram(_values(lib, DATA, "int64"), bins=3),
    "long input, bad weight": lambda lib: lib.histogram(_values(lib, DATA, "int64"), bins=3, weight=lib.ones(3)),
    "long edges": lambda lib: lib.histogram(_values(lib, DATA, "int64"), bins=_values(lib, [0, 1, 3], "int64")),
    "half input": lambda lib: lib.histogram(_values(lib, DATA, "float16"), bins=3),
    "half input with range": lambda lib: lib.histogram(_values(lib, DATA, "float16"), bins=3, range=(0.0, 4.0)),
    "empty half input": lambda lib: lib.histogram(lib.tensor([], dtype=lib.float16), bins=3),
    "half edges, weight, density": lambda lib: lib.histogram(
        _values(lib, DATA, "float16"), _values(lib, [0.0, 1.7, 2.6, 4.0], "float16"),
        weight=_values(lib, [1.0, 2, 3, 4, 5], "float16"), density=True),
    "bfloat16 edges, weight, density": lambda lib: lib.histogram(
        _values(lib, DATA, "bfloat16"), _values(lib, [0.0, 1.7, 2.6, 4.0], "bfloat16"),
        weight=_values(lib, [1.0, 2, 3, 4, 5], "bfloat16"), density=True),
    "int32 input with range": lambda lib: lib.histogram(_values(lib, DATA, "int32"), bins=3, range=(0.0, 4.0)),
    "bool input with range": lambda lib: lib.histogram(_values(lib, DATA, "bool"), bins=3, range=(0.0, 4.0)),
    "zero bins": lambda lib: lib.histogram(_values(lib, DATA), bins=0),
    "negative bins": lambda lib: lib.histogram(_values(lib, DATA, "int64"), bins=-1),
    "reversed range": lambda lib: lib.histogram(_values(lib, DATA), bins=3, range=(1.25, -0.5)),
    "infinite range": lambda lib: lib.histogram(_values(lib, DATA), bins=3, range=(0.0, float("inf"))),
    "nan data": lambda lib: lib.histogram(_values(lib, [1.0, float("nan"), 3]), bins=3),
    "infinite data": lambda lib: lib.histogram(_values(lib, [1.0, float("inf"), 3]), bins=3),
    "range of three": lambda lib: lib.histogram(_values(lib, DATA), bins=3, range=(0.0, 5.0, 6.0)),
    "edges dtype": lambda lib: lib.histogram(_values(lib, DATA), bins=_values(lib, EDGES, "float64")),
    "edges rank": lambda lib: lib.histogram(_values(lib, DATA), bins=_values(lib, [EDGES])),
    "no edges": lambda lib: lib.histogram(_values(lib, DATA), bins=lib.tensor([])),
    "one edge": lambda lib: lib.histogram(_values(lib, DATA), bins=_values(lib, [1.0])),
    "weight size": lambda lib: lib.histogram(_values(lib, DATA), bins=3, weight=lib.ones(4)),
    "weight dtype": lambda lib: lib.histogram(_values(lib, DATA), bins=_values(lib, [1.0]),
                                              weight=lib.ones(5, dtype=lib.float64)),
    "weight before range": lambda lib: lib.histogram(_values(lib, DATA), bins=2, range=(5.0, 1.0),
                                                     weight=lib.ones(5, dtype=lib.float64)),
}


@pytest.mark.parametrize("name", HISTOGRAM_CASES)
def test_histogram(name: str) -> None:
    compare(HISTOGRAM_CASES[name])


def test_histogram_returns_named_tuple() -> None:
    ours = minitorch.histogram(minitorch.tensor(DATA), 3)
    theirs = torch.histogram(torch.tensor(DATA), 3)
    assert type(ours).__name__ == type(theirs).__name__
    assert len(ours) == len(theirs)
    check_same((ours.hist, ours.bin_edges), (theirs.hist, theirs.bin_edges))
    assert repr(ours).split("(", 1)[0].split(".", 1)[1] == repr(theirs).split("(", 1)[0].split(".", 1)[1]


def test_histogram_random_data_matches_bin_for_bin() -> None:
    values = np.random.default_rng(0).normal(size=2000).astype(np.float32)
    for bins in (7, 50, 333):
        compare(lambda lib: lib.histogram(lib.tensor(values), bins))
        compare(lambda lib: lib.histogram(lib.tensor(values, dtype=lib.float64), bins, range=(-1.0, 1.0)))


def test_histogram_no_derivative() -> None:
    def case(lib: ModuleType) -> Any:
        hist, _ = lib.histogram(_values(lib, DATA, requires_grad=True), 3)
        return hist.sum().backward()

    compare(case)


# ---- special.ndtri -----------------------------------------------------------------------------

PROBABILITIES = [0.0, 5e-324, 1e-300, 1e-100, 1e-30, 1e-10, 1e-5, 9.99e-4, 1e-3, 0.01, 0.135, 0.3, 0.5, 0.5000001,
                 0.7, 0.99, 1 - 1e-7, 1 - 1e-12, 1.0, -0.5, 1.5, float("nan")]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_ndtri_values(dtype: str) -> None:
    rng = np.random.default_rng(1)
    probabilities = np.concatenate([PROBABILITIES, rng.random(500), 10 ** -rng.uniform(0, 300, 500)])
    theirs = torch.special.ndtri(torch.tensor(probabilities, dtype=getattr(torch, dtype)))
    ours = minitorch.special.ndtri(minitorch.tensor(probabilities, dtype=getattr(minitorch, dtype)))
    assert str(ours.dtype).split(".")[-1] == dtype
    torch.testing.assert_close(torch.tensor(ours.tolist(), dtype=theirs.dtype), theirs, equal_nan=True)


NDTRI_CASES: dict[str, Case] = {
    "int64": lambda lib: lib.special.ndtri(lib.tensor([0, 1, 2])),
    "bool": lambda lib: lib.special.ndtri(lib.tensor([True, False])),
    "uint8": lambda lib: lib.special.ndtri(lib.tensor([0, 1], dtype=lib.uint8)),
    "half": lambda lib: lib.special.ndtri(lib.tensor([0.5], dtype=lib.float16)),
    "number": lambda lib: lib.special.ndtri(0.5),
    "out": lambda lib: lib.special.ndtri(lib.tensor([0.25, 0.5]), out=lib.empty(2)),
    "out of another dtype": lambda lib: lib.special.ndtri(lib.tensor([0.25]), out=lib.empty(1, dtype=lib.int64)),
}


@pytest.mark.parametrize("name", NDTRI_CASES)
def test_ndtri_dtypes_and_errors(name: str) -> None:
    compare(NDTRI_CASES[name])


def test_ndtri_gradient() -> None:
    def case(lib: ModuleType) -> tuple:
        p = lib.tensor([0.1, 0.5, 0.9, 0.999, 0.0, 1.0], dtype=lib.float64, requires_grad=True)
        out = lib.special.ndtri(p)
        out.sum().backward()
        return out, p.grad

    compare(case)


# ---- put ---------------------------------------------------------------------------------------

def _grid(lib: ModuleType, dtype: str = "float32") -> Any:
    return lib.arange(6).reshape(2, 3).to(getattr(lib, dtype))


PUT_CASES: dict[str, Case] = {
    "negative positions": lambda lib: _grid(lib).put(lib.tensor([0, -1, 4]), _values(lib, [10.0, 20, 30])),
    "function, 2-d index": lambda lib: lib.put(_grid(lib), lib.tensor([[0], [-1]]), _values(lib, [10.0, 20])),
    "duplicates keep the last": lambda lib: _grid(lib).put(lib.tensor([1, 1, 4]), _values(lib, [10.0, 20, 30])),
    "accumulate duplicates": lambda lib: _grid(lib).put(lib.tensor([1, 1, -2]), _values(lib, [10.0, 20, 30]),
                                                        accumulate=True),
    "accumulate positional": lambda lib: _grid(lib).put(lib.tensor([1, 2]), _values(lib, [10.0, 20]), True),
    "integers": lambda lib: _grid(lib, "int64").put(lib.tensor([1, 1]), _values(lib, [5, 6], "int64"), accumulate=True),
    "bool accumulate": lambda lib: lib.ones(3).bool().put(lib.tensor([1, 1]), _values(lib, [0, 0], "bool"),
                                                          accumulate=True),
    "source of another shape": lambda lib: _grid(lib).put(lib.tensor([1, 2]), _values(lib, [[10.0, 20]])),
    "transposed": lambda lib: _grid(lib).t().put(lib.tensor([1]), _values(lib, [50.0])),
    "0-d": lambda lib: lib.tensor(3.0).put(lib.tensor(-1), lib.tensor(1.0)),
    "empty index": lambda lib: lib.empty(0).put(lib.tensor([], dtype=lib.int64), lib.tensor([])),
    "past the end": lambda lib: _grid(lib).put(lib.tensor([1, 6]), _values(lib, [10.0, 20])),
    "before the start": lambda lib: _grid(lib).put(lib.tensor([1, -7, 9]), _values(lib, [10.0, 20, 30]),
                                                   accumulate=True),
    "int32 index": lambda lib: _grid(lib).put(lib.tensor([1, 2], dtype=lib.int32), _values(lib, [10.0, 20])),
    "float index": lambda lib: _grid(lib).put(lib.tensor([1.0, 2.0]), _values(lib, [10.0, 20])),
    "source dtype": lambda lib: _grid(lib).put(lib.tensor([1, 2]), _values(lib, [10.0, 20], "float64")),
    "count": lambda lib: _grid(lib).put(lib.tensor([1, 2]), _values(lib, [10.0, 20, 30])),
    "number source": lambda lib: _grid(lib).put(lib.tensor([1, 2]), 5.0),
    "number source, function": lambda lib: lib.put(_grid(lib), lib.tensor([1, 2]), 5.0),
    "number source, in place": lambda lib: _grid(lib).put_(lib.tensor([1, 2]), 5.0),
    "accumulate not bool": lambda lib: lib.put(_grid(lib), lib.tensor([0]), _values(lib, [2.0]), accumulate=1),
    "empty tensor": lambda lib: lib.empty(0).put(lib.tensor([0]), lib.tensor([1.0])),
    "expanded in place": lambda lib: lib.ones(1).expand(3).put_(lib.tensor([1]), lib.tensor([50.0])),
    "leaf in place": lambda lib: lib.ones(3, requires_grad=True).put_(lib.tensor([1]), lib.tensor([50.0])),
}


@pytest.mark.parametrize("name", PUT_CASES)
def test_put(name: str) -> None:
    compare(PUT_CASES[name])


def test_put_in_place_returns_self() -> None:
    def case(lib: ModuleType) -> Any:
        target = _grid(lib)
        assert target.put_(lib.tensor([1, -1]), _values(lib, [50.0, 60.0])) is target
        return target

    compare(case)


@pytest.mark.parametrize("accumulate", [False, True])
def test_put_gradients(accumulate: bool) -> None:
    def case(lib: ModuleType) -> tuple:
        return _grads(lib, lambda lib, x, s: x.put(lib.tensor([[1, 1], [-1, 0]]), s, accumulate=accumulate),
                      [[0.0, 1, 2], [3, 4, 5]], [[1.0, 2.0], [3.0, 4.0]])

    compare(case)
    compare(lambda lib: _grads(lib, lambda lib, x, s: x.clone().put_(lib.tensor([2, 0]), s, accumulate), [1.0, 2, 3],
                               [7.0, 8.0]))

"""scatter (src, value, reduce), scatter_reduce (every reduction, with and without self),
index_fill, index_copy and their in-place forms: values against PyTorch (float64 to 1e-12,
float32), gradients against PyTorch's and central differences, errors (out-of-range indices
included, raised before any kernel runs) against PyTorch's messages."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import minitorch
from tests.gradcheck import gradcheck
from tests.test_shape_extra import _arr, _compare, _same, _same_error, _to

#: along dim 0 of a (3, 4) tensor: no position written twice
UNIQUE = np.array([[0, 1, 2, 0], [2, 0, 0, 1]])
#: along dim 0 of a (3, 4) tensor: positions written twice, and some never
REPEATED = np.array([[0, 0, 2, 0], [2, 0, 0, 0]])
#: along dim 1 of a (3, 5) tensor, smaller than src (2, 4) in both dimensions
NARROW = np.array([[4, 0], [1, 3]])


@pytest.mark.parametrize("dim,index,src_shape", [(0, UNIQUE, (2, 4)), (0, UNIQUE, (3, 5)), (1, NARROW, (2, 4)), (-1, NARROW, (3, 3))])
def test_scatter_src_matches_torch(torch_ref, dim, index, src_shape):
    width = 5 if index is NARROW else 4
    grads = src_shape == index.shape  # PyTorch's backward takes only a src of the index's shape
    _compare(torch_ref, lambda lib, t: lib.scatter(t[0], dim, t[2], t[1]), _arr(3, width), _arr(*src_shape), index, grads=grads)
    _compare(torch_ref, lambda lib, t: t[0].scatter(dim, t[2], t[1]), _arr(3, width), _arr(*src_shape), index, grads=grads)


def test_scatter_value_and_its_grad_fn_name(torch_ref):
    _compare(torch_ref, lambda lib, t: lib.scatter(t[0], 1, t[1], -2.5), _arr(3, 5), NARROW)
    _compare(torch_ref, lambda lib, t: t[0].scatter(1, t[1], value=4.0), _arr(3, 5), NARROW)
    x = minitorch.tensor(_arr(3, 5), requires_grad=True)
    assert minitorch.scatter(x, 1, minitorch.tensor(NARROW), 1.0).grad_fn.name() == "ScatterBackward1"
    assert minitorch.scatter(x, 0, minitorch.tensor(UNIQUE), x).grad_fn.name() == "ScatterBackward0"


def test_scatter_with_repeats_keeps_the_last_write_and_has_torchs_gradient(torch_ref):
    # PyTorch's CPU loop writes in order, so the last write wins; its src gradient is grad.gather
    index = np.array([1, 1, 3, 1])
    _compare(torch_ref, lambda lib, t: lib.scatter(t[0], 0, t[2], t[1]), _arr(5), _arr(4), index)


def test_scatter_gradient_by_central_differences():
    x = minitorch.tensor(_arr(3, 5), requires_grad=True)
    src = minitorch.tensor(_arr(2, 4), requires_grad=True)
    index = minitorch.tensor(NARROW)
    gradcheck(lambda a, s: minitorch.scatter(a, 1, index, s), x, src)


@pytest.mark.parametrize("reduce", ["add", "multiply"])
def test_scatter_reduce_argument(torch_ref, reduce):
    _compare(torch_ref, lambda lib, t: lib.scatter(t[0], 0, t[2], t[1], reduce=reduce), _arr(3, 4), _arr(2, 4), REPEATED, grads=False)
    _compare(torch_ref, lambda lib, t: lib.scatter(t[0], 0, t[1], 1.5, reduce=reduce), _arr(3, 4), REPEATED, grads=False)


def test_scatter_reduce_argument_has_no_derivative_as_in_torch(torch_ref):
    def run(lib: Any) -> None:
        x = lib.zeros(3, 4, dtype=lib.float64, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            lib.scatter(x, 0, lib.tensor(UNIQUE), x * 2, reduce="add").sum().backward()

    _same_error(torch_ref, run)
    _same_error(torch_ref, lambda lib: lib.scatter(lib.zeros(3, 4), 0, lib.tensor(UNIQUE), lib.zeros(2, 4), reduce="mean"))


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("index", [UNIQUE, REPEATED], ids=["unique", "repeated"])
def test_scatter_reduce_matches_torch(torch_ref, reduce, include_self, index):
    _compare(torch_ref, lambda lib, t: lib.scatter_reduce(t[0], 0, t[2], t[1], reduce, include_self=include_self), _arr(3, 4), _arr(2, 4), index)
    _compare(torch_ref, lambda lib, t: t[0].scatter_reduce(0, t[2], t[1], reduce=reduce, include_self=include_self), _arr(3, 4), _arr(3, 5), index,
             grads=False)  # PyTorch's backward takes only a src of the index's shape


@pytest.mark.parametrize("reduce", ["amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_splits_ties_as_torch(torch_ref, reduce, include_self):
    x = np.array([1.0, 5.0, -5.0, 2.0, 5.0])
    src = np.array([5.0, 5.0, 1.0, -5.0, -5.0, 7.0])
    index = np.array([1, 1, 3, 2, 2, 0])
    _compare(torch_ref, lambda lib, t: lib.scatter_reduce(t[0], 0, t[2], t[1], reduce, include_self=include_self), x, src, index)


@pytest.mark.parametrize("reduce", ["sum", "mean", "amax", "prod"])
def test_scatter_reduce_gradient_by_central_differences(reduce):
    x = minitorch.tensor(_arr(3, 4), requires_grad=True)
    src = minitorch.tensor(_arr(2, 4), requires_grad=True)
    index = minitorch.tensor(REPEATED)
    gradcheck(lambda a, s: minitorch.scatter_reduce(a, 0, index, s, reduce, include_self=False), x, src)
    gradcheck(lambda a, s: a.scatter_reduce(0, index, s, reduce), x, src)


@pytest.mark.parametrize("reduce", ["sum", "mean", "amax", "amin", "prod"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_on_integers(torch_ref, reduce, include_self):
    x, src, index = np.arange(-3, 5), np.array([3, 4, -3, 7, -8]), np.array([0, 0, 1, 7, 7])
    ours = minitorch.scatter_reduce(minitorch.tensor(x), 0, minitorch.tensor(index), minitorch.tensor(src), reduce, include_self=include_self)
    theirs = torch_ref.scatter_reduce(torch_ref.tensor(x), 0, torch_ref.tensor(index), torch_ref.tensor(src), reduce, include_self=include_self)
    _same(ours, theirs)


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_index_fill(torch_ref, dim):
    index = np.array([0, 2])
    _compare(torch_ref, lambda lib, t: lib.index_fill(t[0], dim, t[1], -1.5), _arr(3, 4), index)
    _compare(torch_ref, lambda lib, t: t[0].index_fill(dim, t[2], t[1]), _arr(3, 4), np.array(2.5), index)
    # a negative index counts from the end (PyTorch's backward rejects it, so values only)
    _compare(torch_ref, lambda lib, t: t[0].index_fill(dim, t[2], t[1]), _arr(3, 4), np.array(2.5), np.array([-1, 0]), grads=False)


@pytest.mark.parametrize("reduce", ["max", "min"])
def test_scatter_reduce_accepts_torchs_older_names(torch_ref, reduce):
    # values only: PyTorch's backward knows only the new names
    _compare(torch_ref, lambda lib, t: lib.scatter_reduce(t[0], 0, t[2], t[1], reduce), _arr(3, 4), _arr(2, 4), REPEATED, grads=False)


@pytest.mark.parametrize("dim,index", [(0, [2, 0]), (1, [3, 1]), (-1, [0]), (1, [])])
def test_index_copy(torch_ref, dim, index):
    index = np.array(index, dtype=np.int64)
    shape = [3, 4]
    shape[dim] = index.size
    _compare(torch_ref, lambda lib, t: lib.index_copy(t[0], dim, t[2], t[1]), _arr(3, 4), _arr(*shape), index)
    _compare(torch_ref, lambda lib, t: t[0].index_copy(dim, t[2], t[1]), _arr(3, 4), _arr(*shape), index)


def test_index_fill_and_copy_gradients_by_central_differences():
    x = minitorch.tensor(_arr(3, 4), requires_grad=True)
    value = minitorch.tensor(1.5, dtype=minitorch.float64, requires_grad=True)
    source = minitorch.tensor(_arr(3, 2), requires_grad=True)
    index = minitorch.tensor([3, 0])
    gradcheck(lambda a, v: minitorch.index_fill(a, 1, index, v), x, value)
    gradcheck(lambda a, s: minitorch.index_copy(a, 1, index, s), x, source)


INPLACE = [
    ("scatter_", lambda lib: (0, lib.tensor(UNIQUE), lib.tensor(_FIXED_SRC))),
    ("scatter_reduce_", lambda lib: (0, lib.tensor(REPEATED), lib.tensor(_FIXED_SRC), "amax")),
    ("scatter_add_", lambda lib: (0, lib.tensor(REPEATED), lib.tensor(_FIXED_SRC))),
    ("index_fill_", lambda lib: (1, lib.tensor([1, 3]), 0.5)),
    ("index_copy_", lambda lib: (0, lib.tensor([2, 0]), lib.tensor(_FIXED_SRC))),
    ("index_add_", lambda lib: (0, lib.tensor([2, 2]), lib.tensor(_FIXED_SRC))),
]
_FIXED_SRC = _arr(2, 4)
_FIXED_X = _arr(3, 4)


@pytest.mark.parametrize("name,args", INPLACE, ids=[c[0] for c in INPLACE])
def test_in_place_forms(torch_ref, name, args):
    def run(lib: Any) -> tuple:
        leaf = lib.tensor(_FIXED_X, requires_grad=True)
        y = leaf * 1.0
        version = y._version
        assert getattr(y, name)(*args(lib)) is y
        assert y._version > version
        (y * lib.tensor(np.arange(12.0).reshape(3, 4))).sum().backward()
        plain = lib.tensor(_FIXED_X)
        getattr(plain, name)(*args(lib))
        return y, leaf.grad, plain

    _same(run(minitorch), run(torch_ref))
    _same_error(torch_ref, lambda lib: getattr(lib.tensor(_FIXED_X, requires_grad=True), name)(*args(lib)))


SCATTER_ERRORS = [
    lambda lib: lib.scatter(lib.zeros(3, 4), 0, lib.tensor(UNIQUE + 5), lib.zeros(2, 4)),
    lambda lib: lib.scatter(lib.zeros(3, 4), 0, lib.tensor(UNIQUE - 5), lib.zeros(2, 4)),
    lambda lib: lib.scatter(lib.zeros(3, 4), 1, lib.tensor(UNIQUE - 1), 1.0),
    lambda lib: lib.scatter(lib.zeros(3, 4), 0, lib.tensor(UNIQUE).float(), lib.zeros(2, 4)),
    lambda lib: lib.scatter(lib.zeros(3, 4), 0, lib.tensor(UNIQUE), lib.zeros(2, 4, dtype=lib.float64)),
    lambda lib: lib.scatter(lib.zeros(3, 4), 0, lib.tensor(UNIQUE)[None], lib.zeros(2, 4)),
    lambda lib: lib.scatter(lib.zeros(3, 4), 0, lib.tensor(UNIQUE), lib.zeros(1, 4)),
    lambda lib: lib.scatter_reduce(lib.zeros(3, 4), 0, lib.tensor(UNIQUE), lib.zeros(2, 4), "maximum"),
    lambda lib: lib.scatter_reduce(lib.zeros(3, 4), 0, lib.tensor(UNIQUE + 9), lib.zeros(2, 4), "sum", include_self=False),
    lambda lib: lib.scatter_reduce(lib.zeros(3, 4), 0, lib.tensor(UNIQUE), lib.zeros(2, 4, dtype=lib.float64), "amax"),
    lambda lib: lib.index_fill(lib.zeros(3, 4), 0, lib.tensor([0, 5]), 3.0),
    lambda lib: lib.index_fill(lib.zeros(3, 4), 1, lib.tensor([0, -5]), 3.0),
    lambda lib: lib.index_fill(lib.zeros(3, 4), 0, lib.tensor([[0]]), 3.0),
    lambda lib: lib.index_fill(lib.zeros(3, 4), 0, lib.tensor([0], dtype=lib.int32), 3.0),
    lambda lib: lib.index_fill(lib.zeros(3, 4), 0, lib.tensor([0]), lib.tensor([3.0, 1.0])),
    lambda lib: lib.index_copy(lib.zeros(3, 4), 0, lib.tensor([0, 7]), lib.zeros(2, 4)),
    lambda lib: lib.index_copy(lib.zeros(3, 4), 0, lib.tensor([0, -1]), lib.zeros(2, 4)),
    lambda lib: lib.index_copy(lib.zeros(3, 4), 0, lib.tensor([0, 2]), lib.zeros(1, 4)),
    lambda lib: lib.index_copy(lib.zeros(3, 4), 0, lib.tensor([0, 2]), lib.zeros(2, 3)),
    lambda lib: lib.index_copy(lib.zeros(3, 4, 5), 1, lib.tensor([0, 2]), lib.zeros(3, 2, 4)),
    lambda lib: lib.index_copy(lib.zeros(3, 4), 0, lib.tensor([0.0, 2.0]), lib.zeros(2, 4)),
    lambda lib: lib.index_copy(lib.zeros(3, 4), 0, lib.tensor([[0, 2]]), lib.zeros(2, 4)),
    lambda lib: lib.index_copy(lib.zeros(3, 4), 0, lib.tensor([0, 2]), lib.zeros(2, 4, dtype=lib.float64)),
    lambda lib: lib.index_copy(lib.zeros(3, 4, 5), 1, lib.tensor([0, 1]), lib.zeros(3, 2)),
]


@pytest.mark.parametrize("call", SCATTER_ERRORS)
def test_errors_match_torch_and_come_before_any_kernel(torch_ref, call):
    _same_error(torch_ref, call)


def test_float32_inputs(torch_ref):
    ours = _to(minitorch, (_arr(3, 4), _arr(2, 4)), "float32")
    theirs = _to(torch_ref, (_arr(3, 4), _arr(2, 4)), "float32")
    theirs = [torch_ref.tensor(o.numpy()) for o in ours]
    got = minitorch.scatter_reduce(ours[0], 0, minitorch.tensor(REPEATED), ours[1], "mean")
    want = torch_ref.scatter_reduce(theirs[0], 0, torch_ref.tensor(REPEATED), theirs[1], "mean")
    _same(got, want, rtol=1e-6)


EDGE_CASES = [
    lambda lib: lib.scatter(lib.zeros(3), 0, lib.tensor([], dtype=lib.int64), lib.zeros(0)),
    lambda lib: lib.scatter(lib.tensor(1.0), 0, lib.tensor(0), lib.tensor(5.0)),
    lambda lib: lib.scatter_reduce(lib.tensor(1.0), 0, lib.tensor(0), lib.tensor(5.0), "sum"),
    lambda lib: lib.scatter_reduce(lib.tensor(1.0), 0, lib.tensor(0), lib.tensor(5.0), "amax"),
    lambda lib: lib.scatter_reduce(lib.zeros(3), 0, lib.tensor([], dtype=lib.int64), lib.zeros(0), "amax"),
    lambda lib: lib.index_fill(lib.tensor(1.0), 0, lib.tensor(0), 3.0),
    lambda lib: lib.index_copy(lib.tensor(1.0), 0, lib.tensor(0), lib.tensor(3.0)),
    lambda lib: lib.index_copy(lib.zeros(3), 0, lib.tensor(1), lib.tensor(3.0)),
]


@pytest.mark.parametrize("call", EDGE_CASES)
def test_empty_indices_and_0d_tensors(torch_ref, call):
    _same(call(minitorch), call(torch_ref))


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64", "uint8"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_prod_keeps_an_integer_dtype(torch_ref, dtype, include_self):
    """PyTorch multiplies in the input's integer dtype (wrapping); minitorch's products widen to
    int64 on the way and come back with the same low bits."""
    rng = np.random.default_rng(9)
    low = 0 if dtype == "uint8" else -9
    values, source, index = rng.integers(low, 9, 12), rng.integers(low, 60, 30), rng.integers(0, 12, 30)
    results = []
    for lib in (minitorch, torch_ref):
        kind = getattr(lib, dtype)
        out = lib.tensor(values).to(kind).scatter_reduce(0, lib.tensor(index), lib.tensor(source).to(kind), "prod",
                                                         include_self=include_self)
        results.append((out.tolist(), str(out.dtype).split(".")[-1]))
    assert results[0] == results[1]

"""Randomised low-rank SVD and PCA, searchsorted's non-contiguity warnings and the signs of a
Hessian's zeros, each checked against PyTorch at run time.

* ``svd_lowrank`` / ``pca_lowrank``: with one seed both libraries draw the same test matrix, so
  the results agree to rounding. The small SVD at the end may pick the opposite sign for a
  singular pair (the two LAPACK builds differ for wide matrices), so ``U`` and ``V`` are compared
  after aligning each column's sign, ``S`` and the reconstruction directly; errors, gradients and
  the random stream left behind are compared as they are.
* ``searchsorted`` / ``bucketize``: PyTorch warns once a process for each non-contiguous operand
  (input values, boundaries, sorter); its messages are read in a fresh interpreter.
* ``func.hessian`` / ``jacfwd``: the Jacobian is built column by column, as PyTorch's forward mode
  builds it, so off-diagonal zeros carry PyTorch's signs.
"""

from __future__ import annotations

import json
import subprocess
import sys
import warnings
from types import ModuleType
from typing import Any, Callable

import numpy as np
import pytest

import minitorch
from both_libraries import compare
from minitorch.ops import numpy_like

torch = pytest.importorskip("torch")

SEED = 3
#: how close float64 / float32 results of the two libraries must be (many products and QRs apart)
TOLERANCE = {"float64": {"rtol": 1e-9, "atol": 1e-10}, "float32": {"rtol": 1e-4, "atol": 1e-5}}


def _as_array(value: Any) -> np.ndarray:
    return np.asarray(value.detach().double().tolist(), dtype=np.float64)


def _seeded_matrix(lib: ModuleType, shape: tuple[int, ...], dtype: str, requires_grad: bool = False) -> Any:
    lib.manual_seed(SEED)
    return lib.randn(*shape, dtype=getattr(lib, dtype), requires_grad=requires_grad)


# ---------------------------------------------------------------------------- svd_lowrank, pca_lowrank

LowRankCall = Callable[[ModuleType, Any], Any]

LOWRANK_CASES: dict[str, tuple[tuple[int, ...], LowRankCall]] = {
    "svd defaults": ((7, 5), lambda lib, a: lib.svd_lowrank(a)),
    "svd wide": ((4, 9), lambda lib, a: lib.svd_lowrank(a, q=3)),
    "svd batched": ((2, 6, 5), lambda lib, a: lib.svd_lowrank(a, q=3, niter=1)),
    "svd niter 0": ((8, 6), lambda lib, a: lib.svd_lowrank(a, q=4, niter=0)),
    "svd niter None q None": ((6, 6), lambda lib, a: lib.svd_lowrank(a, q=None, niter=None)),
    "svd q above n": ((7, 5), lambda lib, a: lib.svd_lowrank(a, q=9)),
    "svd M row": ((6, 5), lambda lib, a: lib.svd_lowrank(a, q=4, M=a[:1] * 0.5)),
    "svd M wide": ((4, 8), lambda lib, a: lib.svd_lowrank(a, q=2, M=a[:, :1])),
    "svd M batched": ((3, 6, 4), lambda lib, a: lib.svd_lowrank(a, q=3, M=a.mean(0))),
    "pca defaults": ((9, 5), lambda lib, a: lib.pca_lowrank(a)),
    "pca q": ((9, 5), lambda lib, a: lib.pca_lowrank(a, q=3, niter=3)),
    "pca uncentred batched": ((3, 4, 6), lambda lib, a: lib.pca_lowrank(a, q=2, center=False)),
    "pca wide": ((4, 10), lambda lib, a: lib.pca_lowrank(a, q=3)),
}


def _aligned(ours: Any, theirs: Any) -> np.ndarray:
    """The sign (+1 or -1) that turns each of our singular vectors (columns) into PyTorch's."""
    return np.where((_as_array(ours) * _as_array(theirs)).sum(axis=-2, keepdims=True) < 0, -1.0, 1.0)


def _check_decomposition(ours: tuple, theirs: tuple, dtype: str) -> None:
    """Same shapes, dtypes and ``grad_fn`` names; ``S`` and ``U diag(S) V^T`` equal; ``U`` and ``V``
    equal column by column up to one sign per singular pair."""
    assert isinstance(ours, tuple) and len(ours) == len(theirs) == 3
    for a, b in zip(ours, theirs):
        assert list(a.shape) == list(b.shape)
        assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]
        assert type(a.grad_fn).__name__ == type(b.grad_fn).__name__
    (u, s, v), (tu, ts, tv) = ours, theirs
    tol = TOLERANCE[dtype]
    np.testing.assert_allclose(_as_array(s), _as_array(ts), **tol)
    signs = _aligned(u, tu)
    np.testing.assert_allclose(_as_array(u) * signs, _as_array(tu), **tol)
    np.testing.assert_allclose(_as_array(v) * signs, _as_array(tv), **tol)
    ours_product = (_as_array(u) * _as_array(s)[..., None, :]) @ np.swapaxes(_as_array(v), -1, -2)
    theirs_product = (_as_array(tu) * _as_array(ts)[..., None, :]) @ np.swapaxes(_as_array(tv), -1, -2)
    np.testing.assert_allclose(ours_product, theirs_product, **tol)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", LOWRANK_CASES)
def test_lowrank_values(name: str, dtype: str) -> None:
    shape, call = LOWRANK_CASES[name]
    ours = call(minitorch, _seeded_matrix(minitorch, shape, dtype))
    theirs = call(torch, _seeded_matrix(torch, shape, dtype))
    _check_decomposition(ours, theirs, dtype)


@pytest.mark.parametrize("name", ["svd defaults", "svd M batched", "pca defaults"])
def test_lowrank_draws_pytorchs_stream(name: str) -> None:
    """The test matrix comes from the generator as PyTorch's does: the next draw agrees too."""
    shape, call = LOWRANK_CASES[name]

    def case(lib: ModuleType) -> Any:
        call(lib, _seeded_matrix(lib, shape, "float64"))
        return lib.randn(4, dtype=lib.float64)

    compare(case)


def _errors(lib: ModuleType, which: str) -> Any:
    a = _seeded_matrix(lib, (6, 4), "float64")
    calls = {
        "pca q above min(m, n)": lambda: lib.pca_lowrank(a, q=5),
        "pca negative q": lambda: lib.pca_lowrank(a, q=-1),
        "pca negative niter": lambda: lib.pca_lowrank(a, niter=-2),
        "pca one dimension": lambda: lib.pca_lowrank(a[0]),
        "svd one dimension": lambda: lib.svd_lowrank(a[0]),
        "svd negative q": lambda: lib.svd_lowrank(a, q=-1),
        "svd M not broadcastable": lambda: lib.svd_lowrank(a, M=lib.ones(3, 4, dtype=lib.float64)),
        "svd q zero": lambda: lib.svd_lowrank(a, q=0),
    }
    return calls[which]()


@pytest.mark.parametrize("which", ["pca q above min(m, n)", "pca negative q", "pca negative niter", "pca one dimension",
                                   "svd one dimension", "svd negative q", "svd M not broadcastable", "svd q zero"])
def test_lowrank_errors(which: str) -> None:
    compare(lambda lib: _errors(lib, which))


def _gradient_case(shape: tuple[int, ...], call: LowRankCall) -> Callable[[ModuleType], Any]:
    """The input's gradient of a loss that does not depend on the singular vectors' signs, and the
    results' ``grad_fn`` names."""
    def case(lib: ModuleType) -> Any:
        a = _seeded_matrix(lib, shape, "float64", requires_grad=True)
        u, s, v = call(lib, a)
        names = [type(t.grad_fn).__name__ for t in (u, s, v)]
        rebuilt = (u * s.unsqueeze(-2)) @ v.mT
        projector = u @ u.mT
        ((rebuilt ** 2).sum() + s.sum() + (projector * projector.sin()).sum()).backward()
        return a.grad, names

    return case


#: ``q`` above the short side makes a power iteration factor a wide matrix, whose QR minitorch cannot differentiate yet
WIDE_QR_BACKWARD = pytest.mark.xfail(strict=True,
                                     reason="linalg.qr's backward for a matrix with more columns than rows")


@pytest.mark.parametrize("name", [pytest.param("svd defaults", marks=WIDE_QR_BACKWARD), "svd wide", "svd batched",
                                  "svd M row", "pca q", "pca wide"])
def test_lowrank_gradients(name: str) -> None:
    compare(_gradient_case(*LOWRANK_CASES[name]))


# ---------------------------------------------------------------------------- searchsorted's warnings

#: each scenario runs in order in one process: later ones see the warnings already given
SEARCH_SCENARIOS = {
    "searchsorted": [
        "lib.searchsorted(boundaries_nc, lib.ones(3, 2))",  # an error comes before any warning
        "lib.searchsorted(boundaries_nc, lib.ones(2, 0))",  # an empty input: none
        "lib.searchsorted(boundaries, values)",  # contiguous: none
        "lib.searchsorted(boundaries_nc, values)",
        "lib.searchsorted(boundaries_nc, values_nc, sorter=lib.arange(5).expand(2, 5))",
        "lib.searchsorted(boundaries_nc, values_nc, sorter=lib.arange(5).expand(2, 5))",  # all given already
    ],
    "bucketize": [
        "lib.bucketize(values_nc, lib.arange(10.)[::2], right=True)",
        "lib.bucketize(3.5, lib.arange(10.)[::2])",
    ],
    "scalar value": ["lib.searchsorted(lib.arange(10.)[::2], 3)", "lib.searchsorted(lib.arange(10.)[::2], values)"],
    "empty boundaries": ["lib.searchsorted(lib.ones(2, 3)[:, :0], values_nc)"],
}
SEARCH_SETUP = ("boundaries = lib.arange(10.).reshape(2, 5)\nboundaries_nc = lib.arange(10.).reshape(5, 2).t()\n"
                "values = lib.tensor([[1.5, 3.], [2., 8.]])\nvalues_nc = lib.tensor([[1.5, 2.], [3., 8.]]).t()\n")


def _scenario_script(lines: list[str]) -> str:
    """A script that runs ``lines`` in order and prints, per line, its result (or error) and warnings."""
    body = "".join(
        "with warnings.catch_warnings(record=True) as caught:\n    warnings.simplefilter('always')\n"
        f"    try:\n        result = repr({line}.tolist())\n"
        "    except Exception as error:\n        result = type(error).__name__ + ': ' + str(error)\n"
        "report.append([result, [type(w.message).__name__ + ': ' + str(w.message).split(' (Triggered')[0]"
        " for w in caught]])\n" for line in lines)
    return f"import json, warnings\nreport = []\n{SEARCH_SETUP}{body}print(json.dumps(report))\n"


@pytest.mark.parametrize("name", SEARCH_SCENARIOS)
def test_searchsorted_non_contiguous_warnings(name: str) -> None:
    script = _scenario_script(SEARCH_SCENARIOS[name])
    theirs = json.loads(subprocess.run([sys.executable, "-c", "import torch as lib\n" + script], capture_output=True,
                                       text=True, check=True).stdout)
    numpy_like.warn_non_contiguous.cache_clear()
    printed: list[str] = []
    exec(compile(script, "<scenarios>", "exec"), {"lib": minitorch, "print": printed.append})  # noqa: S102
    assert json.loads(printed[0]) == theirs


# ---------------------------------------------------------------------------- the signs of a Hessian's zeros

SIGN_CASES: dict[str, Callable[[ModuleType], Any]] = {
    "hessian of a cube sum": lambda lib: lib.func.hessian(lambda x: (x ** 3).sum())(lib.tensor([1.0, -2.0, 3.0])),
    "hessian of a sine sum": lambda lib: lib.func.hessian(lambda x: x.sin().sum())(lib.tensor([1.0, -2.0, 3.0])),
    "hessian of a negated cube": lambda lib: lib.func.hessian(lambda x: -(x ** 3).sum())(
        lib.tensor([[1.0, -2.0], [0.5, 3.0]], dtype=lib.float64)),
    "hessian, two arguments": lambda lib: lib.func.hessian(lambda x, y: (x ** 3 * y).sum(), argnums=(0, 1))(
        lib.tensor([1.0, -2.0]), lib.tensor([3.0, -4.0])),
    "jacfwd of a product": lambda lib: lib.func.jacfwd(lambda x, y: (x * y, (x ** 2).sum() * y), argnums=(0, 1))(
        lib.tensor([1.0, -2.0]), lib.tensor([3.0, -4.0])),
    "jacfwd with aux": lambda lib: lib.func.jacfwd(lambda x: (x.sin() * x, x * 2), has_aux=True)(
        lib.tensor([[1.0, -2.0], [0.5, 3.0]], dtype=lib.float64)),
}


def _flat_tensors(value: Any) -> list[Any]:
    if isinstance(value, (tuple, list)):
        return [t for item in value for t in _flat_tensors(item)]
    return [value]


@pytest.mark.parametrize("name", SIGN_CASES)
def test_jacobian_zero_signs(name: str) -> None:
    """The values (to rounding), and the sign bit of every element, zeros included."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PyTorch's transforms warn on first use
        theirs = _flat_tensors(SIGN_CASES[name](torch))
    ours = _flat_tensors(SIGN_CASES[name](minitorch))
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        assert list(a.shape) == list(b.shape)
        np.testing.assert_allclose(_as_array(a), _as_array(b), **TOLERANCE[str(b.dtype).split(".")[-1]])
        np.testing.assert_array_equal(np.signbit(_as_array(a)), np.signbit(_as_array(b)))

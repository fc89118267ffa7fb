"""PyTorch's NumPy-style helpers (``hstack``, ``diff``, ``cov``, ``searchsorted``, ``range``...), each
run under minitorch and PyTorch: shapes, dtypes and values, and gradients where they have them."""

from __future__ import annotations

from types import ModuleType
from typing import Any, Callable

import numpy as np
import pytest

import minitorch


def cases(lib: ModuleType) -> dict[str, Callable[[], Any]]:
    def T(v: Any, **k: Any) -> Any:
        return lib.tensor(v, dtype=lib.float64, **k)

    a = T([[1., 2., 3.], [4., 5., 6.]])
    v = T([1., 4., 9., 16.])
    w = T([0.5, -1.0, 2.0, 0.0])
    n = T([1., float('nan'), 3.])
    return {
        "hstack": lambda: lib.hstack([a, a]),
        "hstack1d": lambda: lib.hstack([v, w]),
        "vstack": lambda: lib.vstack([v, w]),
        "dstack": lambda: lib.dstack([a, a]),
        "column_stack": lambda: lib.column_stack([v, w]),
        "row_stack": lambda: lib.row_stack([v, w]),
        "atleast_1d": lambda: lib.atleast_1d(T(3.)),
        "atleast_2d": lambda: lib.atleast_2d(v),
        "atleast_3d": lambda: lib.atleast_3d(a),
        "atleast_3d_v": lambda: lib.atleast_3d(v),
        "tensor_split3": lambda: lib.tensor_split(lib.arange(7.), 3),
        "tensor_split_idx": lambda: lib.tensor_split(lib.arange(7.), [1, 5]),
        "tensor_split_neg": lambda: lib.tensor_split(lib.arange(7.), [-2, 9]),
        "hsplit": lambda: lib.hsplit(a, 3),
        "vsplit": lambda: lib.vsplit(a, [1]),
        "fliplr": lambda: lib.fliplr(a),
        "flipud": lambda: lib.flipud(a),
        "rot90": lambda: lib.rot90(a),
        "rot90_2": lambda: lib.rot90(a, 2),
        "rot90_-1": lambda: lib.rot90(a, -1, [0, 1]),
        "diff": lambda: lib.diff(v),
        "diff2": lambda: lib.diff(v, n=2),
        "diff_pre": lambda: lib.diff(v, prepend=T([0.]), append=T([20.])),
        "diff_dim0": lambda: a.diff(dim=0),
        "logit": lambda: lib.logit(T([0.2, 0.5, 0.9])),
        "logit_eps": lambda: lib.logit(T([0., 1.]), eps=1e-6),
        "xlogy": lambda: lib.xlogy(T([0., 2., 0.]), T([0., 3., float('nan')])),
        # promoted before the log: float32 y logged in float64, integers in float32
        "xlogy_mixed": lambda: lib.xlogy(T([1.5, 2.0, 0.0]), lib.tensor([1.1, 0.3, 0.0], dtype=lib.float32)),
        "xlogy_ints": lambda: lib.xlogy(lib.tensor([1, 2, 0]), lib.tensor([3, 4, 0])),
        "deg2rad": lambda: lib.deg2rad(T([180., 90.])),
        "rad2deg": lambda: lib.rad2deg(T([3.14159])),
        "logaddexp2": lambda: lib.logaddexp2(T([1., 100.]), T([2., -100.])),
        "sinc": lambda: lib.sinc(T([0., 0.5, 1.5])),
        "heaviside": lambda: lib.heaviside(T([-1., 0., 2.]), T([0.5])),
        "fmax": lambda: lib.fmax(n, T([2., 2., float('nan')])),
        "fmin": lambda: lib.fmin(n, T([2., 2., float('nan')])),
        "nansum": lambda: lib.nansum(n),
        "nanmean": lambda: lib.nanmean(n),
        "nanmean_dim": lambda: lib.nanmean(lib.stack([n, n]), dim=1),
        "aminmax": lambda: tuple(lib.aminmax(a)),
        "aminmax_dim": lambda: tuple(lib.aminmax(a, dim=1)),
        "inner": lambda: lib.inner(a, a),
        "inner_v": lambda: lib.inner(v, w),
        "vdot": lambda: lib.vdot(v, w),
        "addmv": lambda: lib.addmv(T([1., 1.]), a, T([1., 0., 1.]), beta=2, alpha=0.5),
        "addr": lambda: lib.addr(lib.zeros(2, 3, dtype=lib.float64), T([1., 2.]), T([1., 0., -1.])),
        "block_diag": lambda: lib.block_diag(a, T([[7.]]), T([8., 9.])),
        "cartesian_prod": lambda: lib.cartesian_prod(T([1., 2.]), T([3., 4., 5.])),
        "cov": lambda: lib.cov(a),
        "cov_corr0": lambda: lib.cov(a, correction=0),
        "cov_fw": lambda: lib.cov(a, fweights=lib.tensor([1, 2, 1])),
        "cov_aw": lambda: lib.cov(a, aweights=T([0.5, 1., 2.])),
        "corrcoef": lambda: lib.corrcoef(T([[1., 2., 4.], [2., 1., 0.5]])),
        "tril_indices": lambda: lib.tril_indices(3, 4, 1),
        "triu_indices": lambda: lib.triu_indices(3, 3, -1),
        "searchsorted": lambda: lib.searchsorted(T([1., 3., 5., 7.]), T([3., 6., 9.])),
        "searchsorted_r": lambda: lib.searchsorted(T([1., 3., 5., 7.]), T([3., 6.]), right=True),
        "searchsorted_2d": lambda: lib.searchsorted(T([[1., 3.], [2., 4.]]), T([[2.], [5.]])),
        "bucketize": lambda: lib.bucketize(T([0.5, 3., 8.]), T([1., 3., 5.])),
        "isin": lambda: lib.isin(lib.tensor([1, 2, 3, 4]), lib.tensor([2, 4])),
        "isin_inv": lambda: lib.isin(lib.tensor([1, 2]), lib.tensor([2]), invert=True),
        "take": lambda: lib.take(a, lib.tensor([[0, 5], [-1, 2]])),
        "range": lambda: lib.range(1, 4),
        "range_step": lambda: lib.range(0, 1, 0.25),
        "positive": lambda: lib.positive(v),
    }


def plain(result: Any) -> Any:
    """A tensor as {shape, dtype, values}; a tuple of tensors as a list of those."""
    if isinstance(result, tuple):
        return [plain(x) for x in result]
    return {"shape": tuple(result.shape), "dtype": str(result.dtype).split(".")[-1],
            "values": np.asarray(result.tolist(), dtype=float)}


def assert_same(ours: Any, theirs: Any) -> None:
    if isinstance(theirs, list):
        assert len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            assert_same(a, b)
        return
    assert (ours["shape"], ours["dtype"]) == (theirs["shape"], theirs["dtype"])
    np.testing.assert_allclose(ours["values"], theirs["values"], rtol=1e-12, atol=1e-12)


NAMES = sorted(cases(minitorch))


@pytest.mark.parametrize("name", NAMES)
def test_as_torch(name: str, torch_ref: ModuleType) -> None:
    assert_same(plain(cases(minitorch)[name]()), plain(cases(torch_ref)[name]()))


GRADIENTS: dict[str, Callable[[ModuleType, Any], Any]] = {
    "hstack": lambda lib, x: lib.hstack([x, x * 2]),
    "vstack": lambda lib, x: lib.vstack([x, x.exp()]),
    "diff": lambda lib, x: lib.diff(x * x, n=2, dim=1),
    "logit": lambda lib, x: lib.logit(x.sigmoid()),
    "xlogy": lambda lib, x: lib.xlogy(x, x * x + 1),
    "sinc": lambda lib, x: lib.sinc(x),
    "fmax": lambda lib, x: lib.fmax(x, x.flip(1)),
    "nanmean": lambda lib, x: lib.nanmean(x, dim=0),
    "rot90": lambda lib, x: lib.rot90(x) * lib.arange(6.0, dtype=lib.float64).reshape(3, 2),
    "inner": lambda lib, x: lib.inner(x, x.exp()),
    "addmv": lambda lib, x: lib.addmv(x[:, 0], x, x[0], beta=0.5, alpha=2),
    "addr": lambda lib, x: lib.addr(x, x[:, 0], x[0]),
    "block_diag": lambda lib, x: lib.block_diag(x, x.t()) * lib.arange(25.0, dtype=lib.float64).reshape(5, 5),
    "cartesian_prod": lambda lib, x: lib.cartesian_prod(x[0], x[1]).prod(1),
    "cov": lambda lib, x: lib.cov(x * x),
    "corrcoef": lambda lib, x: lib.corrcoef(x.exp()),
    "tensor_split": lambda lib, x: lib.tensor_split(x, [1], dim=1)[1] * 3,
}


@pytest.mark.parametrize("name", sorted(GRADIENTS))
def test_gradient_as_torch(name: str, torch_ref: ModuleType) -> None:
    grads = []
    for lib in (minitorch, torch_ref):
        x = lib.tensor([[0.3, -0.2, 0.8], [0.5, 0.1, -0.6]], dtype=lib.float64, requires_grad=True)
        out = GRADIENTS[name](lib, x)
        (out * out).sum().backward()
        grads.append(np.asarray(x.grad.tolist()))
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-10, atol=1e-12)


def test_range_never_shadows_pythons_range() -> None:
    from minitorch.ops import numpy_like

    assert "range" not in vars(numpy_like) and minitorch.range(0, 2).tolist() == [0.0, 1.0, 2.0]

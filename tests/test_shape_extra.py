"""diag, diagonal, diag_embed, narrow, unfold, tril_/triu_, baddbmm, tensordot, kron, meshgrid,
cross, cdist, cosine_similarity: values against PyTorch (float64 to 1e-12, float32), gradients
against PyTorch's and central differences, errors against PyTorch's messages."""

from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy as np
import pytest

import minitorch
from tests.gradcheck import gradcheck

RNG = np.random.default_rng(17)


def _arr(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape)


def _to(lib: Any, arrays: tuple, dtype: str = "float64", grad: bool = False) -> list:
    return [lib.tensor(a.astype(dtype) if a.dtype.kind == "f" else a, requires_grad=grad and a.dtype.kind == "f") for a in arrays]


def _same(ours: Any, theirs: Any, rtol: float = 1e-12) -> None:
    if isinstance(theirs, (tuple, list)):
        assert len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            _same(a, b, rtol)
        return
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=rtol, atol=rtol)


def _compare(torch: Any, fn: Callable[[Any, list], Any], *arrays: np.ndarray, grads: bool = True) -> None:
    """``fn(lib, tensors)`` under both libraries: float64 values and gradients, float32 values."""
    ours_in, theirs_in = _to(minitorch, arrays, grad=grads), _to(torch, arrays, grad=grads)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours, theirs = fn(minitorch, ours_in), fn(torch, theirs_in)
        _same(ours, theirs)
        _same(fn(minitorch, _to(minitorch, arrays, "float32")), fn(torch, _to(torch, arrays, "float32")), rtol=1e-5)
    if not grads:
        return
    outs = ours if isinstance(ours, (tuple, list)) else [ours]
    touts = theirs if isinstance(theirs, (tuple, list)) else [theirs]
    weights = [RNG.standard_normal(tuple(t.shape)) for t in touts]
    sum(((o * minitorch.tensor(w)).sum() for o, w in zip(outs, weights)), minitorch.tensor(0.0)).backward()
    sum(((o * torch.tensor(w)).sum() for o, w in zip(touts, weights)), torch.tensor(0.0, dtype=torch.float64)).backward()
    for a, b in zip(ours_in, theirs_in):
        if b.requires_grad:
            assert (a.grad is None) == (b.grad is None)
            if b.grad is not None:
                np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-12, atol=1e-12)


def _same_error(torch: Any, fn: Callable[[Any], Any]) -> None:
    """The same exception type and message from both libraries."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception) as theirs:
            fn(torch)
        with pytest.raises(type(theirs.value)) as ours:
            fn(minitorch)
    assert str(ours.value).splitlines()[0] == str(theirs.value).splitlines()[0]


# ---- diagonals ----


@pytest.mark.parametrize("offset", [0, 1, -2, 5])
def test_diag_of_a_vector_and_of_a_matrix(torch_ref, offset):
    _compare(torch_ref, lambda lib, t: lib.diag(t[0], offset), _arr(4))
    _compare(torch_ref, lambda lib, t: lib.diag(t[0], offset), _arr(3, 5))
    _compare(torch_ref, lambda lib, t: t[0].diag(offset), _arr(5, 3))


@pytest.mark.parametrize("offset,dim1,dim2", [(0, 0, 1), (1, 0, 2), (-1, 2, 0), (2, -1, -3), (-7, 0, 1)])
def test_diagonal_matches_torch(torch_ref, offset, dim1, dim2):
    _compare(torch_ref, lambda lib, t: lib.diagonal(t[0], offset, dim1, dim2), _arr(3, 4, 5))
    _compare(torch_ref, lambda lib, t: t[0].diagonal(offset=offset, dim1=dim1, dim2=dim2) * 2, _arr(4, 3, 4))


def test_diagonal_is_a_view_that_writes_through():
    x = minitorch.zeros(3, 4)
    d = x.diagonal(1)
    assert d._base is x
    d.fill_(7.0)
    np.testing.assert_array_equal(x.numpy(), np.eye(3, 4, 1) * 7.0)
    assert x._version == d._version == 1


def test_diagonal_inplace_under_autograd_matches_torch(torch_ref):
    data = _arr(3, 3)

    def run(lib: Any) -> tuple:
        leaf = lib.tensor(data, requires_grad=True)
        y = leaf * 1.0
        y.diagonal().mul_(3.0)
        (y * lib.tensor(np.arange(9.0).reshape(3, 3))).sum().backward()
        return y, leaf.grad

    _same(run(minitorch), run(torch_ref))


def test_diagonal_gradient_by_central_differences():
    x = minitorch.tensor(_arr(3, 4, 2), requires_grad=True)
    gradcheck(lambda t: t.diagonal(-1, 1, 0), x)
    v = minitorch.tensor(_arr(3), requires_grad=True)
    gradcheck(lambda t: minitorch.diag(t, 1), v)


@pytest.mark.parametrize("offset,dim1,dim2", [(0, -2, -1), (1, 0, 2), (-2, 1, 0)])
def test_diag_embed(torch_ref, offset, dim1, dim2):
    _compare(torch_ref, lambda lib, t: lib.diag_embed(t[0], offset, dim1, dim2), _arr(2, 3))


@pytest.mark.parametrize("call", [
    lambda lib: lib.diag(lib.zeros(2, 2, 2)),
    lambda lib: lib.diag(lib.tensor(1.0)),
    lambda lib: lib.diagonal(lib.zeros(2, 3), 0, 1, 1),
    lambda lib: lib.diagonal(lib.zeros(2, 3), 0, 0, 2),
    lambda lib: lib.diagonal(lib.zeros(3), 0),
])
def test_diagonal_errors(torch_ref, call):
    _same_error(torch_ref, call)


# ---- narrow, unfold, tril_/triu_ ----


@pytest.mark.parametrize("dim,start,length", [(0, 1, 2), (1, -3, 3), (-1, 4, 0), (1, 0, 4)])
def test_narrow(torch_ref, dim, start, length):
    _compare(torch_ref, lambda lib, t: lib.narrow(t[0], dim, start, length), _arr(3, 4))
    _compare(torch_ref, lambda lib, t: lib.narrow(t[0], dim, lib.tensor(start), length), _arr(3, 4))


@pytest.mark.parametrize("start,length", [(5, 0), (-5, 1), (1, -1), (2, 3)])
def test_narrow_errors(torch_ref, start, length):
    _same_error(torch_ref, lambda lib: lib.narrow(lib.zeros(3, 4), 1, start, length))


@pytest.mark.parametrize("dim,size,step", [(0, 2, 1), (1, 3, 2), (-1, 1, 3), (2, 4, 1), (1, 0, 1), (2, 2, 5)])
def test_unfold_matches_torch(torch_ref, dim, size, step):
    _compare(torch_ref, lambda lib, t: t[0].unfold(dim, size, step), _arr(3, 5, 4))


def test_unfold_is_a_view_and_overlapping_windows_add_their_gradients():
    x = minitorch.tensor(_arr(2, 7), requires_grad=True)
    u = x.unfold(1, 3, 2)
    assert u._data.storage is x._data.storage
    gradcheck(lambda t: t.unfold(1, 3, 1), x)
    gradcheck(lambda t: t.unfold(0, 1, 1).unfold(1, 4, 3), x)


@pytest.mark.parametrize("args", [(1, 6, 1), (1, 2, 0), (2, 2, 1), (1, -1, 1)])
def test_unfold_errors(torch_ref, args):
    _same_error(torch_ref, lambda lib: lib.zeros(3, 5).unfold(*args))


@pytest.mark.parametrize("name", ["tril_", "triu_"])
@pytest.mark.parametrize("diagonal", [0, 1, -1])
def test_triangles_in_place(torch_ref, name, diagonal):
    data = _arr(4, 3)

    def run(lib: Any) -> tuple:
        leaf = lib.tensor(data, requires_grad=True)
        y = leaf * 2.0
        version = y._version
        assert getattr(y, name)(diagonal) is y and y._version == version + 1
        (y * lib.tensor(np.arange(12.0).reshape(4, 3))).sum().backward()
        return y, leaf.grad

    _same(run(minitorch), run(torch_ref))
    _same_error(torch_ref, lambda lib: getattr(lib.zeros(2, 2, requires_grad=True), name)())


# ---- products ----


@pytest.mark.parametrize("shape", [(2, 3, 5), (3, 5), (1, 5), ()])
@pytest.mark.parametrize("beta,alpha", [(1, 1), (0.5, -2.0), (0, 3.0)])
def test_baddbmm(torch_ref, shape, beta, alpha):
    _compare(torch_ref, lambda lib, t: lib.baddbmm(t[0], t[1], t[2], beta=beta, alpha=alpha), _arr(*shape), _arr(2, 3, 4), _arr(2, 4, 5))
    _compare(torch_ref, lambda lib, t: t[0].baddbmm(t[1], t[2], beta=beta, alpha=alpha), _arr(*shape), _arr(2, 3, 4), _arr(2, 4, 5))


def test_baddbmm_ignores_input_nans_when_beta_is_zero_and_works_in_place(torch_ref):
    _compare(torch_ref, lambda lib, t: lib.baddbmm(t[0], t[1], t[2], beta=0), np.full((2, 3, 5), np.nan), _arr(2, 3, 4), _arr(2, 4, 5), grads=False)
    data = [_arr(2, 3, 5), _arr(2, 3, 4), _arr(2, 4, 5)]
    ours, theirs = _to(minitorch, tuple(data)), _to(torch_ref, tuple(data))
    assert ours[0].baddbmm_(ours[1], ours[2], alpha=0.5) is ours[0]
    theirs[0].baddbmm_(theirs[1], theirs[2], alpha=0.5)
    _same(ours[0], theirs[0])


def test_tensor_bmm(torch_ref):
    _compare(torch_ref, lambda lib, t: t[0].bmm(t[1]), _arr(2, 3, 4), _arr(2, 4, 5))


@pytest.mark.parametrize("shapes", [((2, 3, 5), (2, 3, 4), (2, 3, 5)), ((7, 5), (2, 3, 4), (2, 4, 5)), ((2, 3, 5), (2, 3, 4), (3, 4, 5))])
def test_baddbmm_errors(torch_ref, shapes):
    _same_error(torch_ref, lambda lib: lib.baddbmm(*[lib.zeros(*s) for s in shapes]))


@pytest.mark.parametrize("shapes,dims", [
    (((3, 4), (4, 5)), 1), (((2, 3, 4), (3, 4, 2)), 2), (((3, 4), (3, 4)), 0),
    (((2, 3, 4), (4, 3, 5)), ([1, 2], [1, 0])), (((3, 4), (4, 3)), ([0], [1])), (((3, 4), (3, 4)), [[0, 1], [0, 1]]),
])
def test_tensordot(torch_ref, shapes, dims):
    _compare(torch_ref, lambda lib, t: lib.tensordot(t[0], t[1], dims=dims), *[_arr(*s) for s in shapes])


@pytest.mark.parametrize("dims", [-1, ([0], [1]), 3])
def test_tensordot_errors(torch_ref, dims):
    _same_error(torch_ref, lambda lib: lib.tensordot(lib.zeros(3, 4), lib.zeros(3, 4), dims=dims))


@pytest.mark.parametrize("shapes", [((2, 3), (4, 5)), ((3,), (2, 2)), ((2, 1, 3), (3, 2)), ((), (3,))])
def test_kron(torch_ref, shapes):
    _compare(torch_ref, lambda lib, t: lib.kron(t[0], t[1]), *[_arr(*s) for s in shapes])
    _compare(torch_ref, lambda lib, t: t[0].kron(t[1]), *[_arr(*s) for s in shapes])


@pytest.mark.parametrize("indexing", ["ij", "xy"])
@pytest.mark.parametrize("sizes", [(3, 4), (2, 3, 4), (5,), (2, 1, 3, 2)])
def test_meshgrid(torch_ref, indexing, sizes):
    _compare(torch_ref, lambda lib, t: lib.meshgrid(*t, indexing=indexing), *[_arr(n) for n in sizes])
    _compare(torch_ref, lambda lib, t: lib.meshgrid(t, indexing=indexing), *[_arr(n) for n in sizes])


def test_meshgrid_defaults_to_ij_with_torchs_warning_and_checks_its_arguments(torch_ref):
    with pytest.warns(UserWarning, match="indexing argument"):
        grid = minitorch.meshgrid(minitorch.arange(3), minitorch.arange(2))
    assert tuple(grid[0].shape) == (3, 2)
    _same_error(torch_ref, lambda lib: lib.meshgrid(lib.zeros(2), lib.zeros(2), indexing="ji"))
    _same_error(torch_ref, lambda lib: lib.meshgrid(lib.zeros(2), lib.zeros(2, dtype=lib.float64), indexing="ij"))


@pytest.mark.parametrize("shapes,dim", [(((4, 3), (4, 3)), -1), (((3, 2), (3, 1)), 0), (((2, 3, 3), (1, 3, 3)), 1)])
def test_linalg_cross(torch_ref, shapes, dim):
    _compare(torch_ref, lambda lib, t: lib.linalg.cross(t[0], t[1], dim=dim), *[_arr(*s) for s in shapes])
    _compare(torch_ref, lambda lib, t: lib.cross(t[0], t[1], dim=dim), *[_arr(*s) for s in shapes])


@pytest.mark.parametrize("shape", [(2, 3), (3, 4), (4, 3, 3)])
def test_cross_default_dim_is_the_first_of_size_3(torch_ref, shape):
    _compare(torch_ref, lambda lib, t: lib.cross(t[0], t[1]), _arr(*shape), _arr(*shape))
    _compare(torch_ref, lambda lib, t: t[0].cross(t[1]), _arr(*shape), _arr(*shape))


@pytest.mark.parametrize("call", [
    lambda lib: lib.linalg.cross(lib.zeros(3, 4), lib.zeros(3, 4)),
    lambda lib: lib.linalg.cross(lib.zeros(2, 3), lib.zeros(2, 3, dtype=lib.float64)),
    lambda lib: lib.cross(lib.zeros(2, 3), lib.zeros(2, 3), dim=0),
    lambda lib: lib.linalg.cross(lib.zeros(3, 2), lib.zeros(1, 2), dim=0),
    lambda lib: lib.linalg.cross(lib.zeros(2, 3), lib.zeros(3)),
])
def test_cross_errors(torch_ref, call):
    _same_error(torch_ref, call)


@pytest.mark.parametrize("p", [2.0, 1.0, 0.0, 3.5, float("inf")])
@pytest.mark.parametrize("shapes", [((4, 3), (5, 3)), ((2, 4, 3), (5, 3)), ((2, 1, 4, 2), (3, 5, 2))])
def test_cdist(torch_ref, p, shapes):
    _compare(torch_ref, lambda lib, t: lib.cdist(t[0], t[1], p=p), *[_arr(*s) for s in shapes], grads=p != 0.0)


def test_cdist_gradient_at_zero_distance_is_zero_as_in_torch(torch_ref):
    data = _arr(3, 2)
    _compare(torch_ref, lambda lib, t: lib.cdist(t[0], t[1]), data, np.concatenate([data, _arr(1, 2)]))
    x = minitorch.tensor(_arr(3, 2), requires_grad=True)
    other = minitorch.tensor(_arr(2, 2))
    gradcheck(lambda t: minitorch.cdist(t, other, p=3.0), x)
    gradcheck(lambda t: minitorch.cdist(t, other), x)


@pytest.mark.parametrize("call", [
    lambda lib: lib.cdist(lib.zeros(3), lib.zeros(3)),
    lambda lib: lib.cdist(lib.zeros(3, 4), lib.zeros(3, 2)),
    lambda lib: lib.cdist(lib.zeros(3, 4), lib.zeros(3, 4), p=-1.0),
])
def test_cdist_errors(torch_ref, call):
    _same_error(torch_ref, call)


@pytest.mark.parametrize("shapes,dim", [(((4, 5), (4, 5)), 1), (((2, 3, 4), (3, 4)), -1), (((3, 4), (1, 4)), 0)])
def test_cosine_similarity(torch_ref, shapes, dim):
    _compare(torch_ref, lambda lib, t: lib.cosine_similarity(t[0], t[1], dim=dim), *[_arr(*s) for s in shapes])


def test_cosine_similarity_of_a_zero_vector_is_zero(torch_ref):
    _compare(torch_ref, lambda lib, t: lib.cosine_similarity(t[0], t[1]), np.zeros((2, 3)), _arr(2, 3), grads=False)

"""The LU family and the solvers around it against PyTorch: ``linalg.lu_factor(_ex)``, ``linalg.lu``,
``lu_unpack``, ``linalg.lu_solve``, ``linalg.inv_ex``/``solve_ex``, ``tensorinv``/``tensorsolve``,
``triangular_solve`` and the singular-value matrix norms: values, pivots, ``info``, gradients
of the same losses, grad_fn names and PyTorch's error messages."""

from __future__ import annotations

import warnings
from types import ModuleType
from typing import Callable

import numpy as np
import pytest

import minitorch
from minitorch import linalg

RNG = np.random.default_rng(11)
SINGULAR = [[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 1.0, 1.0]]


def random(*shape: int) -> np.ndarray:
    return RNG.normal(size=shape)


def both(torch: ModuleType, array: np.ndarray) -> tuple[minitorch.Tensor, object]:
    ours = minitorch.tensor(array, dtype=minitorch.float64, requires_grad=True)
    theirs = torch.tensor(array, dtype=torch.float64, requires_grad=True)
    return ours, theirs


def close(ours: minitorch.Tensor, theirs: object, tol: float = 1e-9) -> None:
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=tol, atol=tol)


@pytest.fixture(autouse=True)
def _quiet_deprecations() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield


@pytest.mark.parametrize("shape", [(3, 3), (4, 5, 5), (5, 3), (3, 5), (2, 3, 0), (2, 0, 0), (8, 8)])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_lu_factor_gives_torchs_factors_and_pivots(torch_ref: ModuleType, shape: tuple, dtype: str) -> None:
    array = random(*shape)
    ours = linalg.lu_factor_ex(minitorch.tensor(array, dtype=getattr(minitorch, dtype)))
    theirs = torch_ref.linalg.lu_factor_ex(torch_ref.tensor(array, dtype=getattr(torch_ref, dtype)))
    assert type(ours).__name__ == "linalg_lu_factor_ex" and ours.LU.dtype == getattr(minitorch, dtype)
    assert ours.pivots.dtype == minitorch.int32 and ours.info.dtype == minitorch.int32
    np.testing.assert_array_equal(ours.pivots.numpy(), theirs.pivots.numpy())
    np.testing.assert_array_equal(ours.info.numpy(), theirs.info.numpy())
    close(ours.LU, theirs.LU, 1e-5 if dtype == "float32" else 1e-12)
    P, L, U = linalg.lu(minitorch.tensor(array))
    tP, tL, tU = torch_ref.linalg.lu(torch_ref.tensor(array))
    np.testing.assert_array_equal(P.numpy(), tP.numpy())
    close(L, tL, 1e-5)
    close(U, tU, 1e-5)


def test_singular_matrix_factors_report_the_zero_pivot(torch_ref: ModuleType) -> None:
    batch = np.stack([np.eye(3), np.array(SINGULAR), np.zeros((3, 3))])
    ours = linalg.lu_factor_ex(minitorch.tensor(batch))
    theirs = torch_ref.linalg.lu_factor_ex(torch_ref.tensor(batch))
    np.testing.assert_array_equal(ours.LU.numpy(), theirs.LU.numpy())
    np.testing.assert_array_equal(ours.pivots.numpy(), theirs.pivots.numpy())
    assert ours.info.tolist() == theirs.info.tolist() == [0, 3, 1]
    LU, pivots = ours.LU[1], ours.pivots[1]
    rhs = random(3, 2)
    solved = linalg.lu_solve(LU, pivots, minitorch.tensor(rhs))
    expected = torch_ref.linalg.lu_solve(theirs.LU[1], theirs.pivots[1], torch_ref.tensor(rhs))
    np.testing.assert_array_equal(solved.numpy(), expected.numpy())  # the same inf and nan


def _lu_loss(lib: ModuleType, a: object, w: object) -> object:
    P, L, U = lib.linalg.lu(a)
    return (L * w[..., : L.shape[-2], : L.shape[-1]]).sum() + (U * U).sum()


def _lu_factor_loss(lib: ModuleType, a: object, w: object) -> object:
    return (lib.linalg.lu_factor(a).LU * w[..., : a.shape[-2], : a.shape[-1]]).sum()


def _unpack_loss(lib: ModuleType, a: object, w: object) -> object:
    LU, pivots = lib.linalg.lu_factor(a)
    P, L, U = lib.lu_unpack(LU * 2, pivots)
    return (L * w[..., : L.shape[-2], : L.shape[-1]]).sum() + (U ** 2).sum()


def _lu_solve_loss(left: bool, adjoint: bool) -> Callable:
    def loss(lib: ModuleType, a: object, w: object) -> object:
        LU, pivots = lib.linalg.lu_factor(a)
        return (lib.linalg.lu_solve(LU, pivots, w, left=left, adjoint=adjoint) * w).sum()
    return loss


def _solve_ex_loss(lib: ModuleType, a: object, w: object) -> object:
    return (lib.linalg.solve_ex(a, w).result * w).sum() + lib.linalg.inv_ex(a).inverse.sum()


def _triangular_loss(upper: bool, transpose: bool, unit: bool) -> Callable:
    def loss(lib: ModuleType, a: object, w: object) -> object:
        X, M = lib.triangular_solve(w, a, upper, transpose, unit)
        return (X * w).sum() + (M * w).sum()
    return loss


def _tensor_loss(lib: ModuleType, a: object, w: object) -> object:
    reshaped = a.reshape(2, 2, 4)
    return (lib.linalg.tensorinv(reshaped, ind=2) * w.reshape(4, 2, 2)).sum() + \
        (lib.linalg.tensorsolve(reshaped, w[0, :4].reshape(2, 2)) ** 2).sum()


def _norm_loss(lib: ModuleType, a: object, w: object) -> object:
    norms = lib.linalg.matrix_norm(a, "nuc") + lib.linalg.matrix_norm(a, 2) * 2 + lib.linalg.matrix_norm(a, -2) * 3
    return norms.sum()


# each case: the input's shape and a loss written once for both libraries, of the input and a
# weight w: WIDEST x WIDEST for the factorisations, SOLVED x SOLVED for the solvers
SHIFTED = 3.0
WIDEST, SOLVED = 6, 4
CASES: dict[str, tuple[tuple[int, ...], Callable]] = {
    "lu square": ((2, 4, 4), _lu_loss),
    "lu tall": ((6, 4), _lu_loss),
    "lu wide": ((3, 4), _lu_loss),
    "lu_factor square": ((4, 4), _lu_factor_loss),
    "lu_factor tall": ((2, 6, 4), _lu_factor_loss),
    "lu_factor wide": ((3, 4), _lu_factor_loss),
    "lu_unpack": ((4, 4), _unpack_loss),
    "lu_solve": ((2, 4, 4), _lu_solve_loss(True, False)),
    "lu_solve adjoint": ((4, 4), _lu_solve_loss(True, True)),
    "lu_solve right": ((4, 4), _lu_solve_loss(False, False)),
    "lu_solve right adjoint": ((4, 4), _lu_solve_loss(False, True)),
    "solve_ex inv_ex": ((2, 4, 4), _solve_ex_loss),
    "triangular upper": ((4, 4), _triangular_loss(True, False, False)),
    "triangular lower transposed": ((2, 4, 4), _triangular_loss(False, True, False)),
    "triangular unit": ((4, 4), _triangular_loss(True, True, True)),
    "tensorinv tensorsolve": ((4, 4), _tensor_loss),
    "matrix norms": ((2, 4, 3), _norm_loss),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_and_gradients_equal_torch(torch_ref: ModuleType, name: str) -> None:
    shape, loss = CASES[name]
    array = random(*shape)
    if shape[-1] == shape[-2] and name != "matrix norms":
        array = array + SHIFTED * np.eye(shape[-1])  # well conditioned
    ours, theirs = both(torch_ref, array)
    w = np.random.default_rng(1).normal(size=shape[:-2] + (WIDEST, WIDEST))
    if not name.startswith(("lu ", "lu_factor", "lu_unpack")):  # the factor losses cut w to their shapes
        w = w[..., :SOLVED, :SOLVED]
    w_ours, w_theirs = minitorch.tensor(w, dtype=minitorch.float64), torch_ref.tensor(w, dtype=torch_ref.float64)
    loss_ours, loss_theirs = loss(minitorch, ours, w_ours), loss(torch_ref, theirs, w_theirs)
    close(loss_ours, loss_theirs)
    loss_ours.backward()
    loss_theirs.backward()
    close(ours.grad, theirs.grad, tol=1e-7)


def test_second_derivative_of_lu_solve_through_create_graph(torch_ref: ModuleType) -> None:
    array, rhs = random(3, 3) + SHIFTED * np.eye(3), random(3, 2)
    grads = []
    for lib in (minitorch, torch_ref):
        a = lib.tensor(array, requires_grad=True)
        b = lib.tensor(rhs)
        LU, pivots = lib.linalg.lu_factor(a)
        (first,) = lib.autograd.grad((lib.linalg.lu_solve(LU, pivots, b) ** 2).sum(), a, create_graph=True)
        (first ** 2).sum().backward()
        grads.append(a.grad)
    close(grads[0], grads[1], tol=1e-7)


def test_grad_fn_names_and_result_types(torch_ref: ModuleType) -> None:
    array = random(3, 3) + SHIFTED * np.eye(3)
    for lib in (minitorch, torch_ref):
        a = lib.tensor(array, requires_grad=True)
        b = lib.tensor(random(3, 2))
        LU, pivots = lib.linalg.lu_factor(a)
        P, L, U = lib.linalg.lu(a)
        names = [type(t.grad_fn).__name__ for t in (
            LU, L, lib.lu_unpack(LU, pivots).U, lib.linalg.lu_solve(LU, pivots, b), lib.linalg.inv_ex(a).inverse,
            lib.linalg.solve_ex(a, b).result, lib.triangular_solve(b, a).cloned_coefficient,
            lib.linalg.matrix_norm(a, "nuc"))]
        assert names == ["LinalgLuFactorExBackward0", "LinalgLuBackward0", "LuUnpackBackward0", "LinalgLuSolveBackward0",
                         "LinalgInvExBackward0", "LinalgSolveExBackward0", "TriangularSolveBackward0", "SumBackward1"]
        assert P.grad_fn is None and not P.requires_grad and pivots.dtype == lib.int32
        results = [lib.linalg.lu_factor(a), lib.linalg.lu_factor_ex(a), lib.linalg.lu(a), lib.lu_unpack(LU, pivots),
                   lib.linalg.inv_ex(a), lib.linalg.solve_ex(a, b), lib.triangular_solve(b, a)]
        assert [type(r).__name__ for r in results] == [
            "linalg_lu_factor", "linalg_lu_factor_ex", "linalg_lu", "lu_unpack", "linalg_inv_ex", "linalg_solve_ex",
            "triangular_solve"]
    ours = linalg.solve_ex(minitorch.tensor(array), minitorch.tensor(random(3, 2)))
    assert ours.result is ours[0] and ours.info is ours[1]


def test_legacy_names_and_methods(torch_ref: ModuleType) -> None:
    array, rhs = random(2, 3, 3), random(2, 3, 2)
    a, b = minitorch.tensor(array), minitorch.tensor(rhs)
    ta, tb = torch_ref.tensor(array), torch_ref.tensor(rhs)
    LU, pivots = minitorch.lu(a)
    tLU, tpivots = torch_ref.lu(ta)
    close(LU, tLU)
    assert minitorch.lu(a, get_infos=True).info.tolist() == [0, 0]
    close(minitorch.lu_solve(b, LU, pivots), torch_ref.lu_solve(tb, tLU, tpivots))
    close(b.lu_solve(LU, pivots), tb.lu_solve(tLU, tpivots))
    close(a.lu()[0], ta.lu()[0])
    close(b.triangular_solve(a, upper=False)[0], tb.triangular_solve(ta, upper=False)[0])
    with pytest.warns(UserWarning, match="torch.triangular_solve is deprecated"):
        warnings.simplefilter("always")
        minitorch.triangular_solve(b, a)


def test_lu_unpack_options_and_broadcast_solves(torch_ref: ModuleType) -> None:
    array = random(5, 3)
    LU, pivots = linalg.lu_factor(minitorch.tensor(array))
    tLU, tpivots = torch_ref.linalg.lu_factor(torch_ref.tensor(array))
    P, L, U = minitorch.lu_unpack(LU, pivots, unpack_data=False)
    assert tuple(L.shape) == tuple(U.shape) == (0,) and tuple(P.shape) == (5, 5)
    P, L, U = minitorch.lu_unpack(LU, pivots, unpack_pivots=False)
    assert tuple(P.shape) == (0,)
    close(L, torch_ref.lu_unpack(tLU, tpivots).L)
    square = random(3, 3) + SHIFTED * np.eye(3)
    rhs = random(4, 3, 2)
    LU, pivots = linalg.lu_factor(minitorch.tensor(square))
    tLU, tpivots = torch_ref.linalg.lu_factor(torch_ref.tensor(square))
    close(linalg.lu_solve(LU, pivots, minitorch.tensor(rhs)), torch_ref.linalg.lu_solve(tLU, tpivots, torch_ref.tensor(rhs)))
    batch_a = random(2, 1, 3, 3) + SHIFTED * np.eye(3)
    ours = linalg.solve_ex(minitorch.tensor(batch_a), minitorch.tensor(rhs))
    theirs = torch_ref.linalg.solve_ex(torch_ref.tensor(batch_a), torch_ref.tensor(rhs))
    close(ours.result, theirs.result)
    assert tuple(ours.info.shape) == tuple(theirs.info.shape) == (2, 1)


def test_ex_forms_report_singular_matrices(torch_ref: ModuleType) -> None:
    batch = np.stack([np.eye(3), np.array(SINGULAR)])
    rhs = random(3, 2)
    for name, call in (("inv_ex", lambda lib, a: lib.linalg.inv_ex(a)),
                       ("solve_ex", lambda lib, a: lib.linalg.solve_ex(a, lib.tensor(rhs)))):
        ours, theirs = call(minitorch, minitorch.tensor(batch)), call(torch_ref, torch_ref.tensor(batch))
        assert ours[1].tolist() == theirs[1].tolist() == [0, 3], name
        close(ours[0][0], theirs[0][0])
        assert not np.isfinite(ours[0][1].numpy()).all()


def test_out_arguments(torch_ref: ModuleType) -> None:
    array = random(3, 3) + SHIFTED * np.eye(3)
    a = minitorch.tensor(array)
    LU, pivots = minitorch.empty(0, dtype=minitorch.float64), minitorch.empty(0, dtype=minitorch.int32)
    result = linalg.lu_factor(a, out=(LU, pivots))
    assert result.LU is LU and result.pivots is pivots and type(result).__name__ == "linalg_lu_factor"
    close(LU, torch_ref.linalg.lu_factor(torch_ref.tensor(array)).LU)
    inverse, info = minitorch.empty(0, dtype=minitorch.float64), minitorch.empty(0, dtype=minitorch.int32)
    assert linalg.inv_ex(a, out=(inverse, info)).inverse is inverse
    close(inverse, torch_ref.linalg.inv(torch_ref.tensor(array)))
    norm = minitorch.empty(0, dtype=minitorch.float64)
    assert linalg.matrix_norm(a, "nuc", out=norm) is norm


def test_norms_of_singular_values(torch_ref: ModuleType) -> None:
    array = random(2, 3, 4)
    a, t = minitorch.tensor(array), torch_ref.tensor(array)
    for ord in ("nuc", 2, -2):
        close(linalg.matrix_norm(a, ord), torch_ref.linalg.matrix_norm(t, ord))
        close(linalg.matrix_norm(a, ord, dim=(0, 2), keepdim=True),
              torch_ref.linalg.matrix_norm(t, ord, dim=(0, 2), keepdim=True))
        close(linalg.norm(a, ord, dim=(2, 1)), torch_ref.linalg.norm(t, ord, dim=(2, 1)))
        close(linalg.norm(a[0], ord), torch_ref.linalg.norm(t[0], ord))
    close(minitorch.norm(a[0], "nuc"), torch_ref.norm(t[0], "nuc"))
    close(minitorch.norm(a, "nuc", dim=(0, 1)), torch_ref.norm(t, "nuc", dim=(0, 1)))
    close(linalg.matrix_norm(minitorch.ones(0, 3), 2), torch_ref.linalg.matrix_norm(torch_ref.ones(0, 3), 2))
    assert linalg.matrix_norm(minitorch.ones(3, 3), "nuc", dtype=minitorch.float64).dtype == minitorch.float64


ERRORS = [
    ("lu_factor singular", lambda lib: lib.linalg.lu_factor(lib.tensor(SINGULAR))),
    ("lu_factor batch singular", lambda lib: lib.linalg.lu_factor(lib.stack([lib.eye(3), lib.tensor(SINGULAR)]))),
    ("lu_factor_ex check", lambda lib: lib.linalg.lu_factor_ex(lib.tensor(SINGULAR), check_errors=True)),
    ("lu_factor pivot", lambda lib: lib.linalg.lu_factor(lib.eye(2), pivot=False)),
    ("lu_factor 1d", lambda lib: lib.linalg.lu_factor(lib.ones(3))),
    ("lu 1d", lambda lib: lib.linalg.lu(lib.ones(3))),
    ("lu_unpack pivots dtype", lambda lib: lib.lu_unpack(lib.eye(2), lib.ones(2, dtype=lib.int64))),
    ("lu_unpack pivots range", lambda lib: lib.lu_unpack(lib.eye(2), lib.tensor([0, 2], dtype=lib.int32))),
    ("lu_unpack 1d", lambda lib: lib.lu_unpack(lib.ones(2), lib.ones(2, dtype=lib.int32))),
    ("lu_solve shape", lambda lib: lib.linalg.lu_solve(lib.eye(3), lib.ones(3, dtype=lib.int32), lib.ones(4, 2))),
    ("lu_solve right shape", lambda lib: lib.linalg.lu_solve(lib.eye(3), lib.ones(3, dtype=lib.int32),
                                                             lib.ones(3, 2), left=False)),
    ("lu_solve vector", lambda lib: lib.linalg.lu_solve(lib.eye(3), lib.ones(3, dtype=lib.int32), lib.ones(3))),
    ("lu_solve dtype", lambda lib: lib.linalg.lu_solve(lib.eye(3), lib.ones(3, dtype=lib.int32),
                                                       lib.ones(3, 1, dtype=lib.float64))),
    ("lu_solve pivots dtype", lambda lib: lib.linalg.lu_solve(lib.eye(3), lib.ones(3, dtype=lib.int64), lib.ones(3, 1))),
    ("lu_solve pivots size", lambda lib: lib.linalg.lu_solve(lib.eye(3), lib.ones(2, dtype=lib.int32), lib.ones(3, 1))),
    ("lu_solve not square", lambda lib: lib.linalg.lu_solve(lib.ones(3, 4), lib.ones(3, dtype=lib.int32), lib.ones(3, 1))),
    ("inv_ex check", lambda lib: lib.linalg.inv_ex(lib.stack([lib.eye(3), lib.tensor(SINGULAR)]), check_errors=True)),
    ("inv_ex not square", lambda lib: lib.linalg.inv_ex(lib.ones(3, 4))),
    ("solve_ex check", lambda lib: lib.linalg.solve_ex(lib.tensor(SINGULAR), lib.ones(3, 1), check_errors=True)),
    ("solve_ex batch check", lambda lib: lib.linalg.solve_ex(lib.stack([lib.eye(3), lib.tensor(SINGULAR)]),
                                                             lib.ones(3, 1), check_errors=True)),
    ("solve batch singular", lambda lib: lib.linalg.solve(lib.stack([lib.eye(3), lib.tensor(SINGULAR)]), lib.ones(3, 1))),
    ("solve_ex shape", lambda lib: lib.linalg.solve_ex(lib.eye(3), lib.ones(4, 2))),
    ("tensorinv ind", lambda lib: lib.linalg.tensorinv(lib.eye(4), ind=0)),
    ("tensorinv shape", lambda lib: lib.linalg.tensorinv(lib.ones(2, 3, 4), ind=1)),
    ("tensorinv singular", lambda lib: lib.linalg.tensorinv(lib.zeros(4, 4), ind=1)),
    ("tensorsolve shape", lambda lib: lib.linalg.tensorsolve(lib.ones(2, 3, 5), lib.ones(2, 3))),
    ("tensorsolve dims", lambda lib: lib.linalg.tensorsolve(lib.ones(6, 4, 2, 3), lib.ones(6, 4), dims=(0, 2))),
    ("triangular b 1d", lambda lib: lib.triangular_solve(lib.ones(3), lib.eye(3))),
    ("triangular A 1d", lambda lib: lib.triangular_solve(lib.ones(3, 1), lib.ones(3))),
    ("triangular dtype", lambda lib: lib.triangular_solve(lib.ones(3, 1), lib.eye(3, dtype=lib.float64))),
    ("triangular not square", lambda lib: lib.triangular_solve(lib.ones(3, 1), lib.ones(3, 4))),
    ("triangular sizes", lambda lib: lib.triangular_solve(lib.ones(4, 1), lib.eye(3))),
    ("matrix_norm nuc int", lambda lib: lib.linalg.matrix_norm(lib.ones(2, 3, dtype=lib.int64), "nuc")),
    ("matrix_norm nuc half", lambda lib: lib.linalg.matrix_norm(lib.ones(2, 3, dtype=lib.float16), "nuc")),
    ("matrix_norm nuc same dims", lambda lib: lib.linalg.matrix_norm(lib.ones(3, 3), "nuc", dim=(0, 0))),
    ("norm nuc 3d", lambda lib: lib.norm(lib.ones(2, 3, 3), "nuc")),
    ("norm nuc one dim", lambda lib: lib.norm(lib.ones(2, 3, 3), "nuc", dim=1)),
    ("linalg.norm nuc 1d", lambda lib: lib.linalg.norm(lib.ones(3), "nuc")),
]


@pytest.mark.parametrize("name, call", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors_are_torchs(torch_ref: ModuleType, name: str, call: Callable) -> None:
    with pytest.raises(RuntimeError) as theirs:
        call(torch_ref)
    with pytest.raises(RuntimeError) as ours:
        call(minitorch)
    assert str(ours.value) == str(theirs.value).split("\n")[0]
    assert isinstance(ours.value, linalg.LinAlgError) == isinstance(theirs.value, torch_ref.linalg.LinAlgError)


@pytest.mark.parametrize("dtype", ["int64", "float16"])
def test_unsupported_dtypes_are_refused_as_torch(torch_ref: ModuleType, dtype: str) -> None:
    with pytest.raises(NotImplementedError) as theirs:
        torch_ref.linalg.lu_factor(torch_ref.ones(3, 3, dtype=getattr(torch_ref, dtype)))
    with pytest.raises(NotImplementedError) as ours:
        linalg.lu_factor(minitorch.ones(3, 3, dtype=getattr(minitorch, dtype)))
    assert str(ours.value) == str(theirs.value)


def _symmetric(*shape: int) -> np.ndarray:
    m = random(*shape)
    return m + np.swapaxes(m, -1, -2)


@pytest.mark.parametrize("shape", [(4, 4), (3, 6, 6), (1, 1), (2, 0, 0)])
def test_ldl_factor_gives_torchs_blocks_and_pivots(torch_ref: ModuleType, shape: tuple) -> None:
    array = _symmetric(*shape)
    if shape[-1] > 1:
        array[..., 0, 0] = 0.0  # a zero corner forces a 2 x 2 block
    ours = linalg.ldl_factor_ex(minitorch.tensor(array))
    theirs = torch_ref.linalg.ldl_factor_ex(torch_ref.tensor(array))
    np.testing.assert_array_equal(ours.pivots.numpy(), theirs.pivots.numpy())
    np.testing.assert_array_equal(ours.info.numpy(), theirs.info.numpy())
    close(ours.LD, theirs.LD, 1e-12)
    rhs = random(*shape[:-1], 2)
    close(linalg.ldl_solve(ours.LD, ours.pivots, minitorch.tensor(rhs)),
          torch_ref.linalg.ldl_solve(theirs.LD, theirs.pivots, torch_ref.tensor(rhs)))


def test_ldl_has_no_derivative_as_in_torch(torch_ref: ModuleType) -> None:
    array = _symmetric(3, 3)
    for lib in (minitorch, torch_ref):
        a = lib.tensor(array, requires_grad=True)
        LD, pivots = lib.linalg.ldl_factor(a)
        solved = lib.linalg.ldl_solve(LD, pivots, lib.ones(3, 1, dtype=lib.float64))
        assert type(LD.grad_fn).__name__ == type(solved.grad_fn).__name__ == "NotImplemented"
        with pytest.raises(RuntimeError, match="derivative for aten::linalg_ldl_factor_ex is not implemented"):
            LD.sum().backward()
    info = linalg.ldl_factor_ex(minitorch.zeros(2, 3, 3)).info
    assert info.tolist() == torch_ref.linalg.ldl_factor_ex(torch_ref.zeros(2, 3, 3)).info.tolist() == [1, 1]
    with pytest.raises(RuntimeError, match=r"\(Batch element 0\): .* singular"):
        linalg.ldl_factor_ex(minitorch.zeros(2, 3, 3), check_errors=True)


LDL_ERRORS = [
    ("ldl 1d", lambda lib: lib.linalg.ldl_factor(lib.ones(3))),
    ("ldl not square", lambda lib: lib.linalg.ldl_factor(lib.ones(3, 4))),
    ("ldl int", lambda lib: lib.linalg.ldl_factor(lib.ones(3, 3, dtype=lib.int64))),
    ("ldl_solve sizes", lambda lib: lib.linalg.ldl_solve(lib.eye(4), lib.ones(4, dtype=lib.int32), lib.ones(3, 1))),
    ("ldl_solve dtype", lambda lib: lib.linalg.ldl_solve(lib.eye(4), lib.ones(4, dtype=lib.int32),
                                                         lib.ones(4, 1, dtype=lib.float64))),
    ("ldl_solve pivots", lambda lib: lib.linalg.ldl_solve(lib.eye(4), lib.ones(3, dtype=lib.int32), lib.ones(4, 1))),
]


@pytest.mark.parametrize("name, call", LDL_ERRORS, ids=[e[0] for e in LDL_ERRORS])
def test_ldl_errors_are_torchs(torch_ref: ModuleType, name: str, call: Callable) -> None:
    with pytest.raises(RuntimeError) as theirs:
        call(torch_ref)
    with pytest.raises(RuntimeError) as ours:
        call(minitorch)
    assert str(ours.value) == str(theirs.value).split("\n")[0]


def test_tensor_norm_method_takes_the_nuclear_norm(torch_ref: ModuleType) -> None:
    """``x.norm(p='nuc')``, as ``torch.norm(x, p='nuc')``: the sum of the singular values, with its gradient."""
    values = np.random.default_rng(5).standard_normal((2, 4, 3))
    results = []
    for lib in (minitorch, torch_ref):
        x = lib.tensor(values, requires_grad=True)
        nuclear = x.norm(p="nuc", dim=(1, 2))
        nuclear.sum().backward()
        results.append((nuclear.detach().numpy(), x.grad.numpy()))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-12)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(results[0][0], np.linalg.norm(values, "nuc", axis=(1, 2)), rtol=1e-12)
    assert float(minitorch.tensor(values[0]).norm(p=2)) == pytest.approx(np.linalg.norm(values[0]), rel=1e-12)

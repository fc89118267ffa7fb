"""What the fifth round of tutorial-style corpus scripts found, each checked against PyTorch.

* ``torch.cholesky_solve`` and ``torch.cholesky_inverse`` (and their Tensor methods): the
  Gaussian-process script solves against the Cholesky factor of its kernel matrix with them;
  their gradients treat the factor as a full matrix, as PyTorch's do.
* ``torch.linalg.cholesky_ex``: the factor with an ``info`` code instead of an error, as GP code
  uses to retry with more jitter.
* ``torch.linalg.multi_dot``, ``vecdot``, ``diagonal``, ``matrix_rank`` and ``cond``: the
  linear-algebra helpers the GP script reaches for around its kernel matrix.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, Callable

import numpy as np
import pytest

import minitorch

Case = Callable[[ModuleType], Any]
TOL = {"rtol": 1e-10, "atol": 1e-12}


def _spd(lib: ModuleType, batch: tuple[int, ...], size: int) -> Any:
    """A symmetric positive-definite (batch of) matrix made from sines, the same in both libraries."""
    count = int(np.prod(batch + (size, size)))
    values = np.sin(0.7 * np.arange(count) + 0.3).reshape(batch + (size, size))
    A = lib.tensor(values, dtype=lib.float64)
    return A @ A.mT + size * lib.eye(size, dtype=lib.float64)


def _rhs(lib: ModuleType, shape: tuple[int, ...]) -> Any:
    values = np.cos(0.4 * np.arange(int(np.prod(shape)))).reshape(shape)
    return lib.tensor(values, dtype=lib.float64, requires_grad=True)


def _factor(lib: ModuleType, batch: tuple[int, ...], size: int, upper: bool) -> Any:
    return lib.linalg.cholesky(_spd(lib, batch, size), upper=upper).requires_grad_()


SOLVE_CASES: dict[str, tuple[tuple[int, ...], tuple[int, ...], bool]] = {
    # name: (factor batch, rhs shape, upper)
    "lower": ((), (4, 3), False),
    "upper": ((), (4, 3), True),
    "one column": ((), (4, 1), False),
    "batched": ((2,), (2, 4, 2), False),
    "factor broadcast over rhs batch": ((), (3, 4, 2), True),
    "rhs broadcast over factor batch": ((2, 1), (3, 4, 2), False),
}


def _weights(lib: ModuleType, shape: tuple[int, ...]) -> Any:
    return lib.tensor(np.linspace(-1.0, 2.0, int(np.prod(shape))).reshape(shape), dtype=lib.float64)


@pytest.mark.parametrize("name", list(SOLVE_CASES))
def test_cholesky_solve_values_and_gradients_as_torch(name: str, torch_ref: ModuleType) -> None:
    batch, rhs_shape, upper = SOLVE_CASES[name]
    results = []
    for lib in (minitorch, torch_ref):
        factor, rhs = _factor(lib, batch, 4, upper), _rhs(lib, rhs_shape)
        solution = lib.cholesky_solve(rhs, factor, upper=upper)
        (solution * _weights(lib, tuple(solution.shape))).sum().backward()
        results.append((np.asarray(solution.tolist()), np.asarray(factor.grad.tolist()),
                        np.asarray(rhs.grad.tolist()), solution.grad_fn.name()))
    ours, theirs = results
    for got, expected in zip(ours[:3], theirs[:3]):
        np.testing.assert_allclose(got, expected, **TOL)
    assert ours[3] == theirs[3] == "CholeskySolveBackward0"


def test_cholesky_solve_solves_the_system() -> None:
    A = _spd(minitorch, (), 5)
    B = _rhs(minitorch, (5, 2)).detach()
    for upper in (False, True):
        X = minitorch.cholesky_solve(B, minitorch.linalg.cholesky(A, upper=upper), upper)
        np.testing.assert_allclose((A @ X).tolist(), B.tolist(), rtol=1e-12, atol=1e-12)


def test_cholesky_solve_reads_only_the_factors_triangle(torch_ref: ModuleType) -> None:
    results = []
    for lib in (minitorch, torch_ref):
        factor = _factor(lib, (), 3, False).detach() + lib.ones(3, 3, dtype=lib.float64).triu(1)
        results.append(np.asarray(lib.cholesky_solve(_rhs(lib, (3, 2)).detach(), factor).tolist()))
    np.testing.assert_allclose(results[0], results[1], **TOL)


def test_cholesky_solve_second_derivative_as_torch(torch_ref: ModuleType) -> None:
    results = []
    for lib in (minitorch, torch_ref):
        factor, rhs = _factor(lib, (), 3, False), _rhs(lib, (3, 2))
        (grad_b,) = lib.autograd.grad(lib.cholesky_solve(rhs, factor).pow(2).sum(), rhs, create_graph=True)
        grad_b.sum().backward()
        results.append((np.asarray(factor.grad.tolist()), np.asarray(rhs.grad.tolist())))
    for got, expected in zip(*results):
        np.testing.assert_allclose(got, expected, **TOL)


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_inverse_values_and_gradients_as_torch(upper: bool, torch_ref: ModuleType) -> None:
    results = []
    for lib in (minitorch, torch_ref):
        factor = _factor(lib, (2,), 4, upper)
        inverse = lib.cholesky_inverse(factor, upper)
        (inverse * _weights(lib, tuple(inverse.shape))).sum().backward()
        results.append((np.asarray(inverse.tolist()), np.asarray(factor.grad.tolist()), inverse.grad_fn.name()))
    ours, theirs = results
    np.testing.assert_allclose(ours[0], theirs[0], **TOL)
    np.testing.assert_allclose(ours[1], theirs[1], **TOL)
    assert ours[2] == theirs[2] == "CholeskyInverseBackward0"


def test_cholesky_inverse_is_the_inverse() -> None:
    A = _spd(minitorch, (), 4)
    inverse = minitorch.cholesky_inverse(minitorch.linalg.cholesky(A))
    np.testing.assert_allclose((inverse @ A).tolist(), np.eye(4), atol=1e-12)


def test_tensor_methods_and_out(torch_ref: ModuleType) -> None:
    results = []
    for lib in (minitorch, torch_ref):
        factor, rhs = _factor(lib, (), 3, False).detach(), _rhs(lib, (3, 2)).detach()
        out = lib.empty(3, 2, dtype=lib.float64)
        returned = lib.cholesky_solve(rhs, factor, out=out)
        results.append([np.asarray(rhs.cholesky_solve(factor).tolist()),
                        np.asarray(factor.cholesky_inverse().tolist()),
                        np.asarray(out.tolist()), returned is out])
    for got, expected in zip(*results):
        np.testing.assert_allclose(got, expected, **TOL)


CHOLESKY_EX_INPUTS: dict[str, list[Any]] = {
    "positive definite": [[4.0, 2.0], [2.0, 3.0]],
    "second minor fails": [[1.0, 2.0], [2.0, 1.0]],
    "first minor fails": [[-1.0, 0.0], [0.0, -1.0]],
    "batch, one failing": [[[1.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 3.0]],
                           [[2.0, 1.0, 0.0], [1.0, 2.0, 3.0], [0.0, 3.0, 1.0]]],
}


@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("name", list(CHOLESKY_EX_INPUTS))
def test_cholesky_ex_as_torch(name: str, upper: bool, torch_ref: ModuleType) -> None:
    results = []
    for lib in (minitorch, torch_ref):
        L, info = lib.linalg.cholesky_ex(lib.tensor(CHOLESKY_EX_INPUTS[name], dtype=lib.float64), upper=upper)
        results.append((np.asarray(L.tolist()), info.tolist(), str(info.dtype).split(".")[-1]))
    ours, theirs = results
    np.testing.assert_allclose(ours[0], theirs[0], **TOL)
    assert ours[1:] == theirs[1:]


def test_cholesky_ex_result_is_named_and_differentiable() -> None:
    A = _spd(minitorch, (), 3).requires_grad_()
    result = minitorch.linalg.cholesky_ex(A)
    assert type(result).__name__ == "linalg_cholesky_ex" and result.info.item() == 0
    result.L.sum().backward()
    expected = _spd(minitorch, (), 3).requires_grad_()
    minitorch.linalg.cholesky(expected).sum().backward()
    np.testing.assert_allclose(A.grad.tolist(), expected.grad.tolist(), rtol=1e-14)


# ---- linalg helpers ----

def _square(lib: ModuleType) -> Any:
    return lib.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=lib.float64, requires_grad=True)


def _singular(lib: ModuleType) -> Any:
    return lib.tensor([[1.0, 2.0], [2.0, 4.0]], dtype=lib.float64)


LINALG_CASES: dict[str, Case] = {
    **{f"cond p={p}": (lambda p: lambda lib: lib.linalg.cond(_square(lib), p))(p)
       for p in (None, 2, -2, 1, -1, float("inf"), float("-inf"), "fro", "nuc")},
    "cond of a singular matrix, p=1": lambda lib: lib.linalg.cond(_singular(lib), 1),
    "cond batched": lambda lib: lib.linalg.cond(lib.stack([_square(lib), _square(lib) * 2 + 1])),
    "matrix_rank": lambda lib: lib.linalg.matrix_rank(lib.stack([_square(lib).detach(), _singular(lib)])),
    "matrix_rank hermitian": lambda lib: lib.linalg.matrix_rank(_singular(lib), hermitian=True),
    "matrix_rank atol": lambda lib: lib.linalg.matrix_rank(_square(lib).detach(), atol=3.0),
    "matrix_rank rtol": lambda lib: lib.linalg.matrix_rank(_square(lib).detach(), rtol=0.5),
    "matrix_rank tol": lambda lib: lib.linalg.matrix_rank(_square(lib).detach(), 0.5),
    "multi_dot vectors": lambda lib: lib.linalg.multi_dot(
        [lib.ones(2, dtype=lib.float64), _square(lib), _singular(lib), lib.ones(2, dtype=lib.float64)]),
    "multi_dot matrices": lambda lib: lib.linalg.multi_dot([_square(lib), _singular(lib), _square(lib)]),
    "multi_dot row vector": lambda lib: lib.linalg.multi_dot([lib.ones(2, dtype=lib.float64), _square(lib)]),
    "vecdot": lambda lib: lib.linalg.vecdot(_square(lib), _singular(lib)),
    "vecdot dim 0, broadcast": lambda lib: lib.linalg.vecdot(_square(lib), _singular(lib)[:1], dim=0),
    "diagonal": lambda lib: lib.linalg.diagonal(lib.arange(8.0).view(2, 2, 2), offset=1),
    "diagonal dims": lambda lib: lib.linalg.diagonal(lib.arange(8.0).view(2, 2, 2), dim1=0, dim2=2),
}


@pytest.mark.parametrize("name", list(LINALG_CASES))
def test_linalg_helpers_as_torch(name: str, torch_ref: ModuleType) -> None:
    results = []
    for lib in (minitorch, torch_ref):
        result = LINALG_CASES[name](lib)
        results.append((np.asarray(result.tolist()), str(result.dtype).split(".")[-1], tuple(result.shape)))
    ours, theirs = results
    np.testing.assert_allclose(ours[0], theirs[0], **TOL)
    assert ours[1:] == theirs[1:]


def test_linalg_helpers_gradients_as_torch(torch_ref: ModuleType) -> None:
    grads = []
    for lib in (minitorch, torch_ref):
        A = _square(lib)
        total = lib.linalg.cond(A) + lib.linalg.multi_dot([A, A.mT, A]).sum() + lib.linalg.vecdot(A, A).sum()
        total.backward()
        grads.append(np.asarray(A.grad.tolist()))
    np.testing.assert_allclose(grads[0], grads[1], **TOL)


ERRORS: dict[str, Case] = {
    "solve, rhs 1-D": lambda lib: lib.cholesky_solve(lib.ones(3, dtype=lib.float64), lib.eye(3, dtype=lib.float64)),
    "solve, factor 1-D": lambda lib: lib.cholesky_solve(lib.ones(3, 2, dtype=lib.float64),
                                                        lib.ones(3, dtype=lib.float64)),
    "solve, dtypes": lambda lib: lib.cholesky_solve(lib.ones(3, 2), lib.eye(3, dtype=lib.float64)),
    "solve, not square": lambda lib: lib.cholesky_solve(lib.ones(3, 2, dtype=lib.float64),
                                                        lib.ones(3, 2, dtype=lib.float64)),
    "solve, sizes": lambda lib: lib.cholesky_solve(lib.ones(2, 2, dtype=lib.float64), lib.eye(3, dtype=lib.float64)),
    "inverse, 1-D": lambda lib: lib.cholesky_inverse(lib.ones(3, dtype=lib.float64)),
    "inverse, not square": lambda lib: lib.cholesky_inverse(lib.ones(3, 2, dtype=lib.float64)),
    "cholesky_ex, check_errors": lambda lib: lib.linalg.cholesky_ex(lib.tensor([[1.0, 2.0], [2.0, 1.0]]),
                                                                    check_errors=True),
    "multi_dot, one tensor": lambda lib: lib.linalg.multi_dot([lib.eye(2)]),
    "multi_dot, first 3-D": lambda lib: lib.linalg.multi_dot([lib.ones(2, 2, 2), lib.eye(2)]),
    "multi_dot, last 3-D": lambda lib: lib.linalg.multi_dot([lib.eye(2), lib.ones(2, 2, 2)]),
    "multi_dot, middle 3-D": lambda lib: lib.linalg.multi_dot([lib.eye(2), lib.ones(2, 2, 2), lib.eye(2)]),
    "multi_dot, shapes": lambda lib: lib.linalg.multi_dot([lib.ones(3), lib.ones(2, 2)]),
    "multi_dot, dtypes": lambda lib: lib.linalg.multi_dot([lib.ones(2, 3), lib.ones(3, dtype=lib.float64)]),
    "matrix_rank, 1-D": lambda lib: lib.linalg.matrix_rank(lib.ones(3)),
    "cond, 1-D": lambda lib: lib.linalg.cond(lib.ones(3)),
    "cond, not square": lambda lib: lib.linalg.cond(lib.ones(2, 3), 1),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_as_torch(name: str, torch_ref: ModuleType) -> None:
    messages = []
    for lib in (minitorch, torch_ref):
        with pytest.raises(RuntimeError) as error:
            ERRORS[name](lib)
        messages.append(str(error.value))
    assert messages[0] == messages[1]

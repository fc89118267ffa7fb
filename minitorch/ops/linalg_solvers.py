r"""Solvers around LU: ``linalg.inv_ex``, ``linalg.solve_ex``, ``linalg.tensorinv``,
``linalg.tensorsolve`` and the older ``torch.triangular_solve``.

The ``_ex`` forms report LAPACK's ``info`` (the first zero pivot of ``A``'s LU factorisation)
instead of raising, and then return what LAPACK computes for a singular matrix (``inf`` and
``nan``). Their backwards are :mod:`.decompositions`' ``Inverse`` and ``Solve``. For
``triangular_solve``, :math:`X = \operatorname{op}(T)^{-1} b` with ``T`` the triangle of ``A``
and ``op`` the transpose when asked: :math:`\bar b = \operatorname{op}(T)^{-\top}\bar X`,
:math:`\bar T = -\bar b X^\top` (:math:`-X\bar b^\top` transposed), kept on the triangle read,
and the copy of ``A`` it returns passes its gradient straight through.
"""

from __future__ import annotations

import math
import warnings
from typing import Any, Callable, Optional, Sequence

import numpy as np

from .. import return_types
from ..autograd.function import Context, Function
from ..dtypes import float32, float64, int32, scalar_type_name
from ..out_argument import write_out
from ..tensor import Tensor, add_tensor_methods
from . import lu_host
from .decompositions import (
    Inverse, LinAlgError, Solve, _batch_prefix, _host, _like, check_matrices, check_same_dtype, inv, solve, solve_with,
)

linalg_inv_ex = return_types._named_result("linalg_inv_ex", ("inverse", "info"))
linalg_solve_ex = return_types._named_result("linalg_solve_ex", ("result", "info"))
triangular_solve_result = return_types._named_result("triangular_solve", ("solution", "cloned_coefficient"))

#: the dtypes LAPACK's triangular solve runs in
TRIANGULAR_DTYPES = (float32, float64)
TRIANGULAR_SOLVE_DEPRECATION = (
    "torch.triangular_solve is deprecated in favor of torch.linalg.solve_triangularand will be removed in a future "
    "PyTorch release.\ntorch.linalg.solve_triangular has its arguments reversed and does not return a copy of one of "
    "the inputs.\nX = torch.triangular_solve(B, A).solution\nshould be replaced with\n"
    "X = torch.linalg.solve_triangular(A, B).")


def _infos(A: Tensor) -> np.ndarray:
    """LAPACK ``getrf``'s ``info`` of each matrix of ``A``."""
    return lu_host.getrf(_host(A))[2]


def _first_singular(info: np.ndarray) -> Optional[tuple[str, int]]:
    """The batch prefix of PyTorch's error and the zero pivot of the first singular matrix, if any."""
    for index, zero in enumerate(info.reshape(-1)):
        if zero:
            return _batch_prefix(info.shape, index), int(zero)
    return None


class InverseEx(Inverse):
    """:class:`Inverse` computed from the LU factors, which does not raise for a singular matrix."""

    @staticmethod
    def forward(ctx: Context, A: Tensor) -> Tensor:  # noqa: N803
        ctx.grad_fn_name = "LinalgInvExBackward0"
        host = _host(A)
        lu, pivots, _ = lu_host.getrf(host)
        identity = np.broadcast_to(np.eye(host.shape[-1], dtype=host.dtype), host.shape)
        out = _like(lu_host.getrs(lu, pivots, identity), A)
        ctx.save_for_backward(out)
        return out


class SolveEx(Solve):
    """:class:`Solve` computed from the LU factors, which does not raise for a singular matrix."""

    @staticmethod
    def forward(ctx: Context, A: Tensor, B: Tensor) -> Tensor:  # noqa: N803
        ctx.grad_fn_name = "LinalgSolveExBackward0"
        lu, pivots, _ = lu_host.getrf(_host(A))
        out = _like(lu_host.getrs(lu, pivots, _host(B)), A)
        ctx.save_for_backward(A, out)
        return out


def _never_raising(compute: Callable[[], Tensor], from_factors: Callable[[], Tensor]) -> Tensor:
    """``compute()``, or where its solver finds the matrix singular though this module's ``getrf``
    found no zero pivot (a rounding apart), the result ``from_factors()`` that does not raise."""
    try:
        return compute()
    except LinAlgError:
        return from_factors()


def inv_ex(A: Tensor, *, check_errors: bool = False,  # noqa: N803 - PyTorch's name
           out: Optional[tuple[Tensor, Tensor]] = None) -> tuple[Tensor, Tensor]:
    """``(inverse, info)``: ``info`` is 0, or for a singular matrix the 1-based index of its first
    zero pivot (the inverse then holds ``inf``/``nan``); ``check_errors=True`` raises instead."""
    check_matrices(A, "linalg.inv")
    info = _infos(A)
    singular = _first_singular(info)
    if singular is not None and check_errors:
        prefix, zero = singular
        raise LinAlgError(f"linalg.inv_ex: {prefix}The diagonal element {zero} is zero, the inversion could not be "
                          "completed because the input matrix is singular.")
    inverse = InverseEx.apply(A) if singular is not None else _never_raising(lambda: inv(A), lambda: InverseEx.apply(A))
    result = linalg_inv_ex(inverse, A.new_tensor(info, dtype=int32))
    return write_out(result, out, "linalg_inv_ex")


def solve_ex(A: Tensor, B: Tensor, *, left: bool = True, check_errors: bool = False,  # noqa: N803
             out: Optional[tuple[Tensor, Tensor]] = None) -> tuple[Tensor, Tensor]:
    """``(result, info)``: :func:`~minitorch.linalg.solve` reporting a singular ``A`` in ``info``
    (as :func:`inv_ex`) instead of raising, unless ``check_errors``."""
    check_matrices(A, "linalg.solve")
    info = _infos(A)
    singular = _first_singular(info)
    if singular is not None and check_errors:
        raise LinAlgError(f"torch.linalg.solve_ex: {singular[0]}The solver failed because the input matrix is "
                          "singular.")
    solution = (solve_with(SolveEx, A, B, left) if singular is not None
                else _never_raising(lambda: solve_with(Solve, A, B, left), lambda: solve_with(SolveEx, A, B, left)))
    return write_out(linalg_solve_ex(solution, A.new_tensor(info, dtype=int32)), out, "linalg_solve_ex")


# ---------------------------------------------------------------------- tensor forms


def _check_ind(ind: Any) -> None:
    if not isinstance(ind, int) or isinstance(ind, bool):
        raise TypeError(f"linalg_tensorinv(): argument 'ind' must be int, not {type(ind).__name__}")
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")


def tensorinv(A: Tensor, ind: int = 2, *, out: Optional[Tensor] = None) -> Tensor:  # noqa: N803
    """The inverse of ``A`` read as a map from its first ``ind`` dims to the rest: shaped
    ``A.shape[ind:] + A.shape[:ind]``, so that ``tensordot(tensorinv(A), A, ind)`` is the identity."""
    _check_ind(ind)
    rows, cols = math.prod(A.shape[:ind]), math.prod(A.shape[ind:])
    if rows != cols:
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[ind:]) == "
                           f"prod(self.shape[:ind]), but got {cols} != {rows}")
    try:
        inverse = inv(A.reshape(rows, cols))
    except LinAlgError as error:  # PyTorch's message names the op it calls, ``inv``
        raise LinAlgError(str(error).replace("linalg.inv:", "inv:", 1)) from None
    return write_out(inverse.reshape(tuple(A.shape[ind:]) + tuple(A.shape[:ind])), out, "linalg_tensorinv")


def tensorsolve(A: Tensor, B: Tensor, dims: Optional[Sequence[int]] = None, *,  # noqa: N803
                out: Optional[Tensor] = None) -> Tensor:
    """``X`` with ``tensordot(A, X, X.ndim) = B``: ``A``'s leading dims match ``B``'s, the rest are
    ``X``'s; ``dims`` are moved to the end of ``A`` first."""
    if dims:
        count = A.dim()
        A = A.movedim(tuple(dims), tuple(range(count - len(dims), count)))
    result_shape = tuple(A.shape[B.dim():])
    result_size, rhs_size = math.prod(result_shape), B.numel()
    if result_size != rhs_size:
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
                           f"prod(self.shape[:other.ndim]), but got {result_size} != {rhs_size}")
    solution = solve(A.reshape(result_size, result_size), B.reshape(-1))
    return write_out(solution.reshape(result_shape), out, "linalg_tensorsolve")


# ---------------------------------------------------------------------- torch.triangular_solve


class TriangularSolve(Function):
    """``(X, copy of A)`` with ``op(T) X = b`` (module docstring for the backward)."""

    @staticmethod
    def forward(ctx: Context, b: Tensor, A: Tensor, upper: bool, transpose: bool,  # noqa: N803
                unitriangular: bool) -> tuple[Tensor, Tensor]:
        ctx.grad_fn_name = "TriangularSolveBackward0"
        host_a, host_b = _host(A), _host(b)
        triangle = np.swapaxes(host_a, -1, -2) if transpose else host_a
        solution = lu_host.trsm(triangle, host_b, lower=upper == transpose, unit=unitriangular)
        batch = solution.shape[:-2]
        X = _like(solution, b)
        ctx.save_for_backward(A, X)
        ctx.flags = (upper, transpose, unitriangular)
        return X, _like(np.broadcast_to(host_a, batch + host_a.shape[-2:]).copy(), A)

    @staticmethod
    def backward(ctx: Context, grad_x: Optional[Tensor],
                 grad_copy: Optional[Tensor]) -> tuple[Optional[Tensor], Optional[Tensor], None, None, None]:
        A, X = ctx.saved_tensors
        upper, transpose, unitriangular = ctx.flags
        grad_b = grad_a = None
        if grad_x is not None:
            grad_b = TriangularSolve.apply(grad_x, A, upper, not transpose, unitriangular)[0]
            grad_a = -(X @ grad_b.mT) if transpose else -(grad_b @ X.mT)
            grad_a = grad_a.triu(int(unitriangular)) if upper else grad_a.tril(-int(unitriangular))
        if grad_copy is not None:
            grad_a = grad_copy if grad_a is None else grad_a + grad_copy
        return grad_b, grad_a, None, None, None


def triangular_solve(b: Tensor, A: Tensor, upper: bool = True, transpose: bool = False,  # noqa: N803
                     unitriangular: bool = False, *,
                     out: Optional[tuple[Tensor, Tensor]] = None) -> tuple[Tensor, Tensor]:
    """``torch.triangular_solve``: ``(X, A)`` with ``A X = b`` for the upper (or lower) triangle of
    ``A`` (``A^T X = b`` when ``transpose``; a unit diagonal when ``unitriangular``)."""
    warnings.warn(TRIANGULAR_SOLVE_DEPRECATION, UserWarning, stacklevel=2)
    for name, t in (("b", b), ("A", A)):
        if t.dim() < 2:
            raise RuntimeError(f"torch.triangular_solve: Expected {name} to have at least 2 dimensions, but it has "
                               f"{t.dim()} dimensions instead")
    check_same_dtype(b, A)
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"A must be batches of square matrices, but they are {A.shape[-2]} by {A.shape[-1]} "
                           "matrices")
    if A.shape[-1] != b.shape[-2]:
        raise RuntimeError(f"Incompatible matrix sizes for triangular_solve: each A matrix is {A.shape[-2]} by "
                           f"{A.shape[-1]} but each b matrix is {b.shape[-2]} by {b.shape[-1]}")
    if A.dtype not in TRIANGULAR_DTYPES:
        raise NotImplementedError(f"\"triangular_solve_cpu\" not implemented for '{scalar_type_name(A.dtype)}'")
    result = triangular_solve_result(*TriangularSolve.apply(b, A, upper, transpose, unitriangular))
    return write_out(result, out, "triangular_solve")


#: the functions ``minitorch`` exports at its top level, under PyTorch's names
FUNCTIONS = {"triangular_solve": triangular_solve}

add_tensor_methods(FUNCTIONS)

r"""What is built on a Cholesky factor: ``cholesky_solve``, ``cholesky_inverse`` and
``linalg.cholesky_ex``.

As in :mod:`.decompositions`, the forwards run on the host in NumPy and each backward is written
in tensor ops, so it can itself be differentiated. With :math:`A = LL^\top` (or :math:`U^\top U`
for ``upper=True``), :math:`X = A^{-1}B` and :math:`\bar X = \partial L/\partial X`, PyTorch's
backwards, which treat the factor as a full matrix (not only its triangle), are

* ``cholesky_solve``: :math:`\bar B = A^{-1}\bar X`, :math:`C = \bar B X^\top + X\bar B^\top`,
  :math:`\bar L = -C L` (lower) or :math:`\bar U = -U C` (upper);
* ``cholesky_inverse``, :math:`Y = A^{-1}`: :math:`C = Y(\bar Y + \bar Y^\top)Y`, and
  :math:`\bar L = -C L` or :math:`\bar U = -U C` likewise.
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from .. import return_types
from ..autograd.function import Context, Function
from ..out_argument import write_out
from ..dtypes import int32
from ..tensor import Tensor, add_tensor_methods
from .decompositions import LinAlgError, _host, _like, check_matrices, check_same_dtype, cholesky

linalg_cholesky_ex = return_types._named_result("linalg_cholesky_ex", ("L", "info"))


def _lower_factor(factor: np.ndarray, upper: bool) -> np.ndarray:
    """The lower factor read from the triangle LAPACK reads (the upper one transposed)."""
    return np.swapaxes(np.triu(factor), -1, -2) if upper else np.tril(factor)


def _host_cholesky_solve(b: np.ndarray, factor: np.ndarray, upper: bool) -> np.ndarray:
    """``(L L^T)^{-1} b`` by two triangular solves, batch dims broadcast."""
    lower = _lower_factor(factor, upper)
    batch = np.broadcast_shapes(b.shape[:-2], lower.shape[:-2])
    lower = np.broadcast_to(lower, batch + lower.shape[-2:])
    b = np.broadcast_to(b, batch + b.shape[-2:])
    with np.errstate(all="ignore"):
        half = np.linalg.solve(lower, b)
        return np.linalg.solve(np.swapaxes(lower, -1, -2), half)


def _factor_grad(common: Tensor, factor: Tensor, upper: bool) -> Tensor:
    return -(factor @ common) if upper else -(common @ factor)


class CholeskySolve(Function):
    """``X = A^{-1} B`` with ``A`` given by its Cholesky factor (module docstring for the backward)."""

    @staticmethod
    def forward(ctx: Context, B: Tensor, factor: Tensor, upper: bool) -> Tensor:
        ctx.grad_fn_name = "CholeskySolveBackward0"
        out = _like(_host_cholesky_solve(_host(B), _host(factor), upper), B)
        ctx.save_for_backward(factor, out)
        ctx.upper = upper
        return out

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Tensor, Optional[Tensor], None]:
        factor, solution = ctx.saved_tensors
        grad_b = CholeskySolve.apply(grad, factor, ctx.upper)
        if not ctx.needs_input_grad[1]:
            return grad_b, None, None
        common = grad_b @ solution.mT
        return grad_b, _factor_grad(common + common.mT, factor, ctx.upper), None


def _check_two_dims(t: Tensor, name: str) -> None:
    if t.dim() < 2:
        raise RuntimeError(f"{name} should have at least 2 dimensions, but has {t.dim()} dimensions instead")


def cholesky_solve(input: Tensor, input2: Tensor, upper: bool = False, *,  # noqa: A002 - PyTorch's names
                   out: Optional[Tensor] = None) -> Tensor:
    """``torch.cholesky_solve(B, L)``: the solution of ``(L L^T) X = B`` (``(U^T U) X = B`` when
    ``upper``), for the factor ``L`` that :func:`~minitorch.linalg.cholesky` returns; batches broadcast."""
    _check_two_dims(input, "b")
    _check_two_dims(input2, "u")
    check_same_dtype(input, input2)
    if input2.shape[-1] != input2.shape[-2]:
        raise RuntimeError(f"A must be batches of square matrices, but they are {input2.shape[-2]} by "
                           f"{input2.shape[-1]} matrices")
    if input2.shape[-1] != input.shape[-2]:
        raise RuntimeError(f"Incompatible matrix sizes for cholesky_solve: each A matrix is {input2.shape[-2]} by "
                           f"{input2.shape[-1]} but each b matrix is {input.shape[-2]} by {input.shape[-1]}")
    check_matrices(input2, "cholesky_solve")
    return write_out(CholeskySolve.apply(input, input2, upper), out, "cholesky_solve")


class CholeskyInverse(Function):
    """``Y = (L L^T)^{-1}`` from the factor (module docstring for the backward)."""

    @staticmethod
    def forward(ctx: Context, factor: Tensor, upper: bool) -> Tensor:
        ctx.grad_fn_name = "CholeskyInverseBackward0"
        host = _host(factor)
        identity = np.broadcast_to(np.eye(host.shape[-1], dtype=host.dtype), host.shape)
        out = _like(_host_cholesky_solve(identity, host, upper), factor)
        ctx.save_for_backward(factor, out)
        ctx.upper = upper
        return out

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Tensor, None]:
        factor, inverse = ctx.saved_tensors
        common = inverse @ (grad + grad.mT) @ inverse
        return _factor_grad(common, factor, ctx.upper), None


def cholesky_inverse(input: Tensor, upper: bool = False, *, out: Optional[Tensor] = None) -> Tensor:  # noqa: A002
    """``torch.cholesky_inverse(L)``: the inverse of ``A = L L^T`` (``U^T U`` when ``upper``) from its factor."""
    check_matrices(input, "cholesky_inverse")
    return write_out(CholeskyInverse.apply(input, upper), out, "cholesky_inverse")


def _unblocked_cholesky(matrix: np.ndarray) -> tuple[np.ndarray, int]:
    """LAPACK ``potf2`` on the lower triangle: the factor, or where a pivot is not positive the
    partial factor with that pivot left in place, and ``info`` (0, or the failing order)."""
    lower = np.tril(np.array(matrix, dtype=np.float64))
    for column in range(lower.shape[0]):
        pivot = lower[column, column] - lower[column, :column] @ lower[column, :column]
        if not pivot > 0:
            lower[column, column] = pivot
            return lower, column + 1
        lower[column, column] = np.sqrt(pivot)
        below = lower[column + 1:, column] - lower[column + 1:, :column] @ lower[column, :column]
        lower[column + 1:, column] = below / lower[column, column]
    return lower, 0


def cholesky_ex(A: Tensor, *, upper: bool = False, check_errors: bool = False,  # noqa: N803 - PyTorch's name
                out: Optional[tuple[Tensor, Tensor]] = None) -> tuple[Tensor, Tensor]:
    """``torch.linalg.cholesky_ex``: ``(L, info)`` without raising for a matrix that is not positive
    definite (``info`` is then the order of its first failing leading minor, ``L`` the partial
    factor); ``check_errors=True`` raises as :func:`~minitorch.linalg.cholesky` does."""
    check_matrices(A, "linalg.cholesky_ex")
    host = _host(A)
    flat = host.reshape((-1,) + host.shape[-2:])
    infos = np.zeros(flat.shape[0], dtype=np.int32)
    for index, matrix in enumerate(flat):
        infos[index] = _unblocked_cholesky(matrix)[1]
    if check_errors and infos.any():
        try:
            cholesky(A)
        except LinAlgError as error:
            raise LinAlgError(str(error).replace("linalg.cholesky:", "linalg.cholesky_ex:", 1)) from None
    if not infos.any():
        factor = cholesky(A, upper=upper)
    else:
        partial = np.stack([_unblocked_cholesky(matrix)[0] for matrix in flat]).reshape(host.shape)
        factor = _like(np.swapaxes(partial, -1, -2) if upper else partial, A)
    info = A.new_tensor(infos.reshape(host.shape[:-2]), dtype=int32)
    return write_out(linalg_cholesky_ex(factor, info), out, "linalg_cholesky_ex")


#: the functions ``minitorch`` exports at its top level, under PyTorch's names
FUNCTIONS = {"cholesky_solve": cholesky_solve, "cholesky_inverse": cholesky_inverse}

add_tensor_methods(FUNCTIONS)

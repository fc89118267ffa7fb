r"""The LU family: ``linalg.lu_factor(_ex)``, ``linalg.lu``, ``lu_unpack``, ``linalg.lu_solve`` and
the older ``torch.lu`` / ``torch.lu_solve``.

The factorisation is LAPACK's ``getrf`` (partial pivoting, :mod:`.lu_host`), so the factors and
the 1-based ``int32`` pivots are PyTorch's. Each backward is written in tensor ops, as in
:mod:`.decompositions`. With :math:`A = PLU` (``L`` unit lower, ``U`` upper), for a square
``A``: :math:`\bar A = P L^{-\top}\big(\operatorname{tril}_{-1}(L^\top\bar L)
+ \operatorname{triu}(\bar U U^\top)\big) U^{-\top}`. A tall ``A`` (``L = [L_1; L_2]``) first adds
:math:`-L_2^\top\bar L_2 U^{-\top}` to :math:`\bar U` and gets :math:`\bar A_2 = P(\bar L_2 U^{-\top})`
for its bottom rows; a wide one (``U = [U_1\ U_2]``) adds :math:`-L^{-\top}\bar U_2 U_2^\top` to
:math:`\bar L` and gets :math:`P L^{-\top}\bar U_2` for its right columns. For
:math:`X = A^{-1}B` from the factors, :math:`\bar B = A^{-\top}\bar X` and
:math:`\bar A = -\bar B X^\top`, which reaches the packed factors as
:math:`\operatorname{tril}_{-1}(P^\top\bar A U^\top) + \operatorname{triu}(L^\top P^\top\bar A)`.
"""

from __future__ import annotations

import math
import warnings
from typing import Optional

import numpy as np

from .. import return_types
from ..autograd.function import Context, Function
from ..creation import eye
from ..dtypes import float32, float64, int32, scalar_type_name
from ..out_argument import write_out
from ..tensor import Tensor, add_tensor_methods
from . import lu_host
from .decompositions import _batch_prefix, _host, _like, check_matrices, solve_triangular
from .shape_ops import cat

linalg_lu_factor = return_types._named_result("linalg_lu_factor", ("LU", "pivots"))
linalg_lu_factor_ex = return_types._named_result("linalg_lu_factor_ex", ("LU", "pivots", "info"))
linalg_lu = return_types._named_result("linalg_lu", ("P", "L", "U"))
lu_unpack_result = return_types._named_result("lu_unpack", ("P", "L", "U"))
lu_with_info = return_types._named_result("_lu_with_info", ("LU", "pivots", "info"))

#: the dtypes LAPACK's LU runs in (PyTorch's CPU kernel refuses the others)
LU_DTYPES = (float32, float64)
NO_PIVOTING = "linalg.lu_factor: LU without pivoting is not implemented on the CPU"
SINGULAR_FACTOR = ("{op}: {prefix}U[{index},{index}] is zero and using it on lu_solve would result in a division by "
                   "zero. If you still want to perform the factorization, consider calling linalg.lu(A, pivot) or "
                   "linalg.lu_factor_ex(A, pivot)")
#: (PyTorch's first line; its second notes that the pivots come from ``linalg.lu_factor``)
PIVOTS_DTYPE = "torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 dtype."
BAD_PIVOTS = ("pivots passed to lu_unpack must be between 1 and LU.size(-2) inclusive.Did you properly pass the "
              "result of lu_factor?")
LU_SOLVE_DEPRECATION = (
    "torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be removed in a future PyTorch release.\n"
    "Note that torch.linalg.lu_solve has its arguments reversed.\nX = torch.lu_solve(B, LU, pivots)\n"
    "should be replaced with\nX = torch.linalg.lu_solve(LU, pivots, B)")
LU_DEPRECATION = (
    "torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex and will be removed in a "
    "future PyTorch release.\nLU, pivots = torch.lu(A, compute_pivots)\nshould be replaced with\n"
    "LU, pivots = torch.linalg.lu_factor(A, compute_pivots)\nand\n"
    "LU, pivots, info = torch.lu(A, compute_pivots, get_infos=True)\nshould be replaced with\n"
    "LU, pivots, info = torch.linalg.lu_factor_ex(A, compute_pivots)")


# ---------------------------------------------------------------------- checks


def _check_factorable(A: Tensor, pivot: bool, op: str = "torch.lu_factor") -> None:
    """PyTorch's refusals of an input ``getrf`` cannot factor."""
    if A.dim() < 2:
        raise RuntimeError(f"{op}: Expected tensor with 2 or more dimensions. Got size: {list(A.shape)} instead")
    if A.dtype not in LU_DTYPES:
        raise NotImplementedError(f"\"lu_cpu\" not implemented for '{scalar_type_name(A.dtype)}'")
    if not pivot:
        raise RuntimeError(NO_PIVOTING)


def _raise_singular(info: np.ndarray, op: str) -> None:
    """``lu_factor``'s error for the first matrix with a zero pivot, if any."""
    flat = info.reshape(-1)
    for index, zero in enumerate(flat):
        if zero:
            raise RuntimeError(SINGULAR_FACTOR.format(op=op, prefix=_batch_prefix(info.shape, index), index=zero))


def _check_pivots(pivots: Tensor, LU: Tensor, op: str) -> None:  # noqa: N803 - PyTorch's names
    if pivots.dtype is not int32:
        raise RuntimeError(f"{op}: pivots should be a Tensor of scalar type torch.int32")
    if tuple(pivots.shape) != tuple(LU.shape[:-1]):
        if pivots.shape[-1:] != LU.shape[-1:]:
            raise RuntimeError(f"{op}: Number of pivots per batch should be same as the dimension of the matrix")
        raise RuntimeError(f"{op}: Expected LU.shape[:-1] and pivots.shape to be the same, but got pivots with "
                           f"shape {list(pivots.shape)} instead")


# ---------------------------------------------------------------------- the backward of A = P L U


def _pad(t: Tensor, rows: int, cols: int) -> Tensor:
    """``t`` with zeros appended up to ``rows x cols``."""
    if t.shape[-1] < cols:
        t = cat([t, t.new_zeros(t.shape[:-1] + (cols - t.shape[-1],))], -1)
    if t.shape[-2] < rows:
        t = cat([t, t.new_zeros(t.shape[:-2] + (rows - t.shape[-2], t.shape[-1]))], -2)
    return t


def _core_grad(L: Tensor, U: Tensor, grad_l: Tensor, grad_u: Tensor) -> Tensor:  # noqa: N803
    r""":math:`L^{-\top}(\operatorname{tril}_{-1}(L^\top\bar L) + \operatorname{triu}(\bar U U^\top))U^{-\top}`
    for square ``L`` and ``U``."""
    phi = (L.mT @ grad_l).tril(-1) + (grad_u @ U.mT).triu()
    left = solve_triangular(L.mT, phi, upper=True, unitriangular=True)
    return solve_triangular(U.mT, left, upper=False, left=False)


def lu_backward(P: Tensor, L: Tensor, U: Tensor, grad_l: Optional[Tensor],  # noqa: N803
                grad_u: Optional[Tensor]) -> Tensor:
    """The gradient of ``A = P L U`` from those of ``L`` (``m x k``) and ``U`` (``k x n``)."""
    rows, steps, cols = L.shape[-2], L.shape[-1], U.shape[-1]
    grad_l = L.new_zeros(L.shape) if grad_l is None else grad_l
    grad_u = U.new_zeros(U.shape) if grad_u is None else grad_u
    if rows == cols:
        return P @ _core_grad(L, U, grad_l, grad_u)
    if rows > cols:  # tall: L = [L1; L2], and L2 = A2 U^{-1}
        lower, grad_lower = L[..., steps:, :], grad_l[..., steps:, :]
        grad_u = grad_u - solve_triangular(U.mT, lower.mT @ grad_lower, upper=False, left=False)
        top = _core_grad(L[..., :steps, :], U, grad_l[..., :steps, :], grad_u)
        return P @ cat([top, solve_triangular(U.mT, grad_lower, upper=False, left=False)], -2)
    # wide: U = [U1 U2], and U2 = L^{-1} P^T A2
    right, grad_right = U[..., :, steps:], grad_u[..., :, steps:]
    grad_l = grad_l - solve_triangular(L.mT, grad_right @ right.mT, upper=True, unitriangular=True)
    left = _core_grad(L, U[..., :, :steps], grad_l, grad_u[..., :, :steps])
    return P @ cat([left, solve_triangular(L.mT, grad_right, upper=True, unitriangular=True)], -1)


def _unpack(LU: Tensor) -> tuple[Tensor, Tensor]:  # noqa: N803 - PyTorch's name
    """``L`` (unit lower, ``m x k``) and ``U`` (upper, ``k x n``) from the packed factors, in tensor ops."""
    rows, cols = LU.shape[-2], LU.shape[-1]
    steps = min(rows, cols)
    L = LU[..., :, :steps].tril(-1) + eye(rows, steps, dtype=LU.dtype, device=LU.device)
    return L, LU[..., :steps, :].triu()


def _packed_grad(grad_l: Optional[Tensor], grad_u: Optional[Tensor], rows: int, cols: int) -> Tensor:
    """The gradient of the packed factors from those of ``L`` and ``U``: each read from its triangle."""
    total = None
    if grad_l is not None:
        total = _pad(grad_l.tril(-1), rows, cols)
    if grad_u is not None:
        upper = _pad(grad_u.triu(), rows, cols)
        total = upper if total is None else total + upper
    return total


def _permutation(pivots: np.ndarray, like: Tensor, rows: int) -> Tensor:
    return _like(lu_host.permutation_matrix(pivots, rows, like.dtype.numpy), like)


# ---------------------------------------------------------------------- Functions


class LuFactor(Function):
    """``(LU, pivots, info)``: LAPACK's ``getrf``; the gradient reaches ``A`` through ``L`` and ``U``."""

    @staticmethod
    def forward(ctx: Context, A: Tensor) -> tuple[Tensor, Tensor, Tensor]:  # noqa: N803
        ctx.grad_fn_name = "LinalgLuFactorExBackward0"
        lu, pivots, info = lu_host.getrf(_host(A))
        LU = _like(lu, A)
        ctx.save_for_backward(LU)
        ctx.permutation = _permutation(pivots, A, A.shape[-2])
        return LU, A.new_tensor(pivots, dtype=int32), A.new_tensor(info, dtype=int32)

    @staticmethod
    def backward(ctx: Context, grad: Optional[Tensor], *unused: Optional[Tensor]) -> Tensor:
        (LU,) = ctx.saved_tensors
        rows, cols = LU.shape[-2], LU.shape[-1]
        steps = min(rows, cols)
        L, U = _unpack(LU)
        return lu_backward(ctx.permutation, L, U, grad[..., :, :steps].tril(-1), grad[..., :steps, :].triu())


class LuUnpack(Function):
    """``(L, U)`` from the packed factors; each gradient lands on the triangle it was read from."""

    @staticmethod
    def forward(ctx: Context, LU: Tensor) -> tuple[Tensor, Tensor]:  # noqa: N803
        ctx.grad_fn_name = "LuUnpackBackward0"
        ctx.shape = (LU.shape[-2], LU.shape[-1])
        lower, upper = _unpack(LU)
        return lower, upper

    @staticmethod
    def backward(ctx: Context, grad_l: Optional[Tensor], grad_u: Optional[Tensor]) -> Tensor:
        return _packed_grad(grad_l, grad_u, *ctx.shape)


class LinalgLu(Function):
    """``(L, U)`` of ``A = P L U`` from ``A``'s ``getrf`` factors (``P`` is made beside it, without
    a gradient, as PyTorch's)."""

    @staticmethod
    def forward(ctx: Context, A: Tensor, lu: np.ndarray, pivots: np.ndarray) -> tuple[Tensor, Tensor]:  # noqa: N803
        ctx.grad_fn_name = "LinalgLuBackward0"
        L, U = _unpack(_like(lu, A))
        ctx.save_for_backward(L, U)
        ctx.permutation = _permutation(pivots, A, A.shape[-2])
        return L, U

    @staticmethod
    def backward(ctx: Context, grad_l: Optional[Tensor], grad_u: Optional[Tensor]) -> tuple[Tensor, None, None]:
        L, U = ctx.saved_tensors
        return lu_backward(ctx.permutation, L, U, grad_l, grad_u), None, None


def _host_lu_solve(lu: np.ndarray, pivots: np.ndarray, rhs: np.ndarray, left: bool, adjoint: bool) -> np.ndarray:
    if left:
        return lu_host.getrs(lu, pivots, rhs, transpose=adjoint)
    return np.swapaxes(lu_host.getrs(lu, pivots, np.swapaxes(rhs, -1, -2), transpose=not adjoint), -1, -2)


class LuSolve(Function):
    """``X`` with ``op(A) X = B`` (``X op(A) = B`` for ``left=False``), ``A = P L U`` given by its
    packed factors, ``op`` the transpose when ``adjoint`` (module docstring for the backward)."""

    @staticmethod
    def forward(ctx: Context, LU: Tensor, pivots: Tensor, B: Tensor, left: bool,  # noqa: N803
                adjoint: bool) -> Tensor:
        ctx.grad_fn_name = "LinalgLuSolveBackward0"
        host_pivots = pivots.detach()._host_numpy()
        out = _like(_host_lu_solve(_host(LU), host_pivots, _host(B), left, adjoint), B)
        ctx.save_for_backward(LU, pivots, out)
        ctx.left, ctx.adjoint, ctx.host_pivots = left, adjoint, host_pivots
        return out

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Optional[Tensor], None, Tensor, None, None]:
        LU, pivots, solution = ctx.saved_tensors
        left, adjoint = ctx.left, ctx.adjoint
        grad_b = LuSolve.apply(LU, pivots, grad, left, not adjoint)
        if not ctx.needs_input_grad[0]:
            return None, None, grad_b, None, None
        grad_op = -(grad_b @ solution.mT) if left else -(solution.mT @ grad_b)
        grad_a = grad_op.mT if adjoint else grad_op
        P = _permutation(ctx.host_pivots, LU, LU.shape[-1])
        L, U = _unpack(LU)
        unpermuted = P.mT @ grad_a
        grad_lu = (unpermuted @ U.mT).tril(-1) + (L.mT @ unpermuted).triu()
        return grad_lu, None, grad_b, None, None


# ---------------------------------------------------------------------- the public functions


def lu_factor_ex(A: Tensor, *, pivot: bool = True, check_errors: bool = False,  # noqa: N803
                 out: Optional[tuple[Tensor, Tensor, Tensor]] = None) -> tuple[Tensor, Tensor, Tensor]:
    """``(LU, pivots, info)`` of each matrix: ``info`` is the 1-based index of the first zero
    pivot (0 for none); ``check_errors=True`` raises for one instead."""
    _check_factorable(A, pivot)
    LU, pivots, info = LuFactor.apply(A)
    if check_errors:
        _raise_singular(info.numpy(), "torch.linalg.lu_factor_ex")
    return write_out(linalg_lu_factor_ex(LU, pivots, info), out, "linalg_lu_factor_ex")


def lu_factor(A: Tensor, *, pivot: bool = True,  # noqa: N803
              out: Optional[tuple[Tensor, Tensor]] = None) -> tuple[Tensor, Tensor]:
    """``(LU, pivots)``: the compact LU factorisation with partial pivoting (LAPACK's ``getrf``);
    a matrix with a zero pivot raises."""
    _check_factorable(A, pivot)
    LU, pivots, info = LuFactor.apply(A)
    _raise_singular(info.numpy(), "torch.linalg.lu_factor")
    return write_out(linalg_lu_factor(LU, pivots), out, "linalg_lu_factor")


def lu(A: Tensor, *, pivot: bool = True,  # noqa: N803
       out: Optional[tuple[Tensor, Tensor, Tensor]] = None) -> tuple[Tensor, Tensor, Tensor]:
    """``(P, L, U)`` with ``A = P L U``: ``P`` a permutation, ``L`` unit lower (``m x k``),
    ``U`` upper (``k x n``), ``k = min(m, n)``."""
    _check_factorable(A, pivot, "linalg.lu")
    lu_array, pivots, _ = lu_host.getrf(_host(A))
    P = _permutation(pivots, A, A.shape[-2])
    L, U = LinalgLu.apply(A, lu_array, pivots)
    return write_out(linalg_lu(P, L, U), out, "linalg_lu")


def lu_unpack(LU_data: Tensor, LU_pivots: Tensor, unpack_data: bool = True, unpack_pivots: bool = True, *,  # noqa: N803
              out: Optional[tuple[Tensor, Tensor, Tensor]] = None) -> tuple[Tensor, Tensor, Tensor]:
    """``(P, L, U)`` from :func:`lu_factor`'s result; ``unpack_data=False`` leaves ``L`` and ``U``
    empty, ``unpack_pivots=False`` leaves ``P`` empty (and ``LU_pivots`` unread)."""
    if LU_data.dim() < 2:
        raise RuntimeError(f"torch.lu_unpack: Expected tensor with 2 or more dimensions. Got size: "
                           f"{list(LU_data.shape)} instead")
    if unpack_pivots and LU_pivots.dtype is not int32:
        raise RuntimeError(PIVOTS_DTYPE)
    L = U = P = LU_data.new_empty((0,))
    if unpack_data:
        L, U = LuUnpack.apply(LU_data)
    if unpack_pivots:
        P = _permutation(_pivots_per_matrix(LU_data, LU_pivots), LU_data, LU_data.shape[-2])
    return write_out(lu_unpack_result(P, L, U), out, "lu_unpack")


def _pivots_per_matrix(LU_data: Tensor, LU_pivots: Tensor) -> np.ndarray:  # noqa: N803
    """The ``k = min(m, n)`` pivots of each matrix of ``LU_data`` (batch shape + ``(k,)``), read as
    PyTorch reads ``LU_pivots``: no broadcasting; its batch index is aligned with ``LU_data``'s
    from the left (row ``(i, j)`` of pivots for a batch ``(B0, B1, B2)`` is matrix ``(i, j, 0)``),
    the first ``k`` of each row are read, and every matrix no row reaches keeps no interchange
    (the identity). A pivots batch that reaches past ``LU_data``'s is refused: PyTorch then
    reads or writes outside its buffers."""
    rows, cols = LU_data.shape[-2], LU_data.shape[-1]
    steps = min(rows, cols)
    batch = tuple(LU_data.shape[:-2])
    host = LU_pivots.detach()._host_numpy()
    if host.ndim == 0 or host.shape[-1] < steps:
        raise RuntimeError(BAD_PIVOTS)
    given = host.shape[:-1]
    aligned = min(len(given), len(batch))
    if (any(n > size for n, size in zip(given, batch)) or any(n != 1 for n in given[aligned:])
            or (math.prod(given) and not math.prod(batch))):
        raise RuntimeError(f"torch.lu_unpack: Expected the batch shape of LU_pivots to fit in that of LU_data, "
                           f"aligned from the left, but got LU_pivots of shape {list(host.shape)} for LU_data of "
                           f"shape {list(LU_data.shape)}")
    read = host[..., :steps]
    if ((read < 1) | (read > rows)).any():
        raise RuntimeError(BAD_PIVOTS)
    pivots = np.empty(batch + (steps,), dtype=lu_host.PIVOT_DTYPE)
    pivots[...] = np.arange(1, steps + 1, dtype=lu_host.PIVOT_DTYPE)
    reached = tuple(slice(0, n) for n in given[:aligned]) + (0,) * (len(batch) - aligned)
    pivots[reached] = read.reshape(given[:aligned] + (steps,))
    return pivots


def lu_solve(LU: Tensor, pivots: Tensor, B: Tensor, *, left: bool = True, adjoint: bool = False,  # noqa: N803
             out: Optional[Tensor] = None) -> Tensor:
    """The solution of ``A X = B`` from ``A``'s :func:`lu_factor` (``X A = B`` for ``left=False``,
    ``A^T`` for ``A`` when ``adjoint``); batches broadcast."""
    check_matrices(LU, "torch.linalg.lu_solve")
    if B.dim() < 2:
        raise RuntimeError("linalg.lu_solve: The input tensor B must have at least 2 dimensions.")
    if LU.dtype is not B.dtype:
        raise RuntimeError(f"linalg.lu_solve: Expected LU and B to have the same dtype, but found LU of type "
                           f"{scalar_type_name(LU.dtype)} and B of type {scalar_type_name(B.dtype)} instead")
    _check_pivots(pivots, LU, "linalg.lu_solve")
    size = LU.shape[-1]
    if (B.shape[-2] if left else B.shape[-1]) != size:
        equation = "AX = B" if left else "XA = B"
        raise RuntimeError(f"linalg.lu_solve: Incompatible shapes of A and B for the equation {equation} "
                           f"({size}x{size} and {B.shape[-2]}x{B.shape[-1]})")
    return write_out(LuSolve.apply(LU, pivots, B, left, adjoint), out, "linalg_lu_solve")


# ---------------------------------------------------------------------- PyTorch's older spellings


def legacy_lu(A: Tensor, pivot: bool = True, get_infos: bool = False,  # noqa: N803
              out: Optional[tuple[Tensor, ...]] = None) -> tuple[Tensor, ...]:
    """``torch.lu``: ``(LU, pivots)``, with ``info`` when ``get_infos``; never raises for a singular matrix."""
    warnings.warn(LU_DEPRECATION, UserWarning, stacklevel=2)
    factors = lu_factor_ex(A, pivot=pivot)
    result = lu_with_info(*factors) if get_infos else (factors.LU, factors.pivots)
    return write_out(result, out, "lu")


def legacy_lu_solve(b: Tensor, LU_data: Tensor, LU_pivots: Tensor, *,  # noqa: N803 - PyTorch's names
                    out: Optional[Tensor] = None) -> Tensor:
    """``torch.lu_solve(b, LU, pivots)``: :func:`lu_solve` with the arguments in the older order."""
    warnings.warn(LU_SOLVE_DEPRECATION, UserWarning, stacklevel=2)
    return write_out(lu_solve(LU_data, LU_pivots, b), out, "lu_solve")


def _tensor_lu(self: Tensor, pivot: bool = True, get_infos: bool = False) -> tuple[Tensor, ...]:
    """``Tensor.lu``: :func:`legacy_lu` of this tensor."""
    return legacy_lu(self, pivot, get_infos)


#: the functions ``minitorch`` exports at its top level, under PyTorch's names
FUNCTIONS = {"lu": legacy_lu, "lu_solve": legacy_lu_solve, "lu_unpack": lu_unpack}

add_tensor_methods({"lu": _tensor_lu, "lu_solve": legacy_lu_solve})

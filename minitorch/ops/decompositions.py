r"""Matrix decompositions and what is built on them: ``inv``, ``solve``, ``det``, ``slogdet``,
``cholesky``, ``qr``, ``eigh``, ``svd``, ``matrix_exp``.

The factorisations run in LAPACK through NumPy on the host: pivoted LU, Householder QR or a
symmetric eigensolver are not what the course's kernels teach, and LAPACK's are the ones
PyTorch calls too. Every backward is written in tensor ops, beside its forward, so it runs
on the tensor's device and can itself be differentiated (``create_graph=True``). With
:math:`\bar X = \partial L / \partial X` and :math:`A^{-\top} = (A^{-1})^\top`:

* inverse, :math:`Y = A^{-1}`: :math:`\bar A = -Y^\top \bar Y Y^\top`;
* solve, :math:`X = A^{-1}B`: :math:`\bar B = A^{-\top}\bar X`, :math:`\bar A = -\bar B X^\top`;
* log-determinant: :math:`\bar A = \bar\ell\, A^{-\top}`, and :math:`\det` multiplies it by :math:`\det A`;
* the rest (Cholesky, QR, eigh, SVD, the exponential) are derived at their Functions.
"""

from __future__ import annotations

from typing import Callable, Optional

import numpy as np

from .. import return_types
from ..dtypes import scalar_type_name
from ..type_info import finfo
from ..autograd.function import Context, Function
from ..creation import eye
from ..out_argument import write_out
from ..tensor import Tensor, add_tensor_methods
from . import lu_host

class LinAlgError(RuntimeError):
    """A factorisation that failed on its input (a singular or not positive-definite matrix)."""


linalg_slogdet = return_types._named_result("linalg_slogdet", ("sign", "logabsdet"))
slogdet_result = return_types._named_result("slogdet", ("sign", "logabsdet"))
linalg_qr = return_types._named_result("linalg_qr", ("Q", "R"))
linalg_eigh = return_types._named_result("linalg_eigh", ("eigenvalues", "eigenvectors"))
linalg_svd = return_types._named_result("linalg_svd", ("U", "S", "Vh"))
svd_result = return_types._named_result("svd", ("U", "S", "V"))
geqrf_result = return_types._named_result("geqrf", ("a", "tau"))

QR_MODES = ("reduced", "complete", "r")
#: Padé [13/13] coefficients and the 1-norm below which they reach double precision (Higham 2005)
PADE13 = (64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0,
          129060195264000.0, 10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0,
          40840800.0, 960960.0, 16380.0, 182.0, 1.0)
PADE13_THETA = 5.371920351148152


# ---------------------------------------------------------------------- checks and host calls


def check_matrices(A: Tensor, op: str, square: bool = True, name: str = "A") -> None:
    """PyTorch's errors for an input that is not a (batch of) floating (square) matrix."""
    if A.dim() < 2:
        raise RuntimeError(f"{op}: The input tensor {name} must have at least 2 dimensions.")
    if not A.dtype.is_floating_point:
        raise RuntimeError(f"{op}: Expected a floating point or complex tensor as input. Got {scalar_type_name(A.dtype)}")
    if square and A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{op}: {name} must be batches of square matrices, but they are "
                           f"{A.shape[-2]} by {A.shape[-1]} matrices")


def check_same_dtype(b: Tensor, A: Tensor) -> None:
    """PyTorch's error for a solver's right-hand side ``b`` of another dtype than its matrix ``A``."""
    if b.dtype is not A.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type {scalar_type_name(b.dtype)} "
                           f"and A of type {scalar_type_name(A.dtype)} instead.")


def _host(A: Tensor) -> np.ndarray:
    return A.detach()._host_numpy()


def _like(array: np.ndarray, A: Tensor) -> Tensor:
    """``array`` as a tensor of ``A``'s dtype on ``A``'s device."""
    return A.new_tensor(np.asarray(array, order="C"), dtype=A.dtype)


def _batch_prefix(batch_shape: tuple[int, ...], index: int) -> str:
    return "" if not batch_shape else f"(Batch element {index}): "


def first_zero_pivot(matrix: np.ndarray) -> int:
    """LAPACK ``getrf``'s ``info``: the 1-based position of the first zero pivot of an LU
    factorisation with partial pivoting, 0 when there is none."""
    lu = np.array(matrix, dtype=np.float64)
    size = lu.shape[0]
    for column in range(size):
        pivot = column + int(np.argmax(np.abs(lu[column:, column])))
        if lu[pivot, column] == 0:
            return column + 1
        lu[[column, pivot]] = lu[[pivot, column]]
        lu[column + 1:, column:] -= np.outer(lu[column + 1:, column] / lu[column, column], lu[column, column:])
    return 0


def _singular_error(op: str, A: np.ndarray) -> LinAlgError:
    batch_shape = A.shape[:-2]
    matrices = A.reshape((-1,) + A.shape[-2:])
    for index, matrix in enumerate(matrices):
        zero = first_zero_pivot(matrix)
        if zero:
            return LinAlgError(f"{op}: {_batch_prefix(batch_shape, index)}The diagonal element {zero} is zero, the "
                               "inversion could not be completed because the input matrix is singular.")
    return LinAlgError(f"{op}: The inversion could not be completed because the input matrix is singular.")


def _lapack(call: Callable[..., object], *arrays: np.ndarray, on_error: Callable[[], Exception]) -> object:
    try:
        with np.errstate(all="ignore"):
            return call(*arrays)
    except np.linalg.LinAlgError:
        raise on_error() from None


# ---------------------------------------------------------------------- inverse and solve


class Inverse(Function):
    r""":math:`Y = A^{-1}`; :math:`\bar A = -Y^\top \bar Y Y^\top`."""

    @staticmethod
    def forward(ctx: Context, A: Tensor) -> Tensor:
        ctx.grad_fn_name = "LinalgInvExBackward0"
        host = _host(A)
        out = _like(_lapack(np.linalg.inv, host, on_error=lambda: _singular_error("linalg.inv", host)), A)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> Tensor:
        (inverse,) = ctx.saved_tensors
        inverse_t = inverse.mT
        return -(inverse_t @ grad @ inverse_t)


def inv(A: Tensor) -> Tensor:
    """The inverse of each square matrix in ``A``; a singular one raises :class:`LinAlgError`."""
    check_matrices(A, "linalg.inv")
    return Inverse.apply(A)


class Solve(Function):
    r""":math:`X = A^{-1} B` for a batch of matrices ``B``; :math:`\bar B = A^{-\top}\bar X`,
    :math:`\bar A = -\bar B X^\top`."""

    @staticmethod
    def forward(ctx: Context, A: Tensor, B: Tensor) -> Tensor:
        ctx.grad_fn_name = "LinalgSolveExBackward0"
        host_a, host_b = _host(A), _host(B)

        def singular() -> LinAlgError:
            info = lu_host.getrf(host_a)[2]
            index = int(np.argmax(info.reshape(-1) != 0)) if info.size else 0
            return LinAlgError(f"torch.linalg.solve: {_batch_prefix(info.shape, index)}The solver failed because "
                               "the input matrix is singular.")

        out = _like(_lapack(np.linalg.solve, host_a, host_b, on_error=singular), A)
        ctx.save_for_backward(A, out)
        return out

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Tensor, Optional[Tensor]]:
        A, solution = ctx.saved_tensors
        grad_b = Solve.apply(A.mT, grad)
        grad_a = -(grad_b @ solution.mT) if ctx.needs_input_grad[0] else None
        return grad_a, grad_b


def _is_vector_rhs(A: Tensor, B: Tensor) -> bool:
    """``torch.linalg.solve``'s rule: ``B`` is a (batch of) vector(s) when it is 1-D, or has one
    dim fewer than ``A`` and matches ``A``'s shape without its last dim."""
    return B.dim() == 1 or (B.dim() == A.dim() - 1 and tuple(B.shape) == tuple(A.shape[:-1]))


def solve(A: Tensor, B: Tensor, *, left: bool = True, out: Optional[Tensor] = None) -> Tensor:
    """The solution ``X`` of ``A X = B`` (``X A = B`` for ``left=False``); batches broadcast."""
    return write_out(solve_with(Solve, A, B, left), out, "linalg_solve")


def solve_with(solver: type[Function], A: Tensor, B: Tensor, left: bool) -> Tensor:
    """:func:`solve`'s checks and shapes (vector or matrix ``B``, ``left``) around ``solver.apply(A, rhs)``
    (``linalg.solve_ex`` passes a solver that does not raise for a singular ``A``)."""
    check_matrices(A, "linalg.solve")
    if A.dtype is not B.dtype:
        raise RuntimeError(f"linalg.solve: Expected A and B to have the same dtype, but found A of type "
                           f"{scalar_type_name(A.dtype)} and B of type {scalar_type_name(B.dtype)} instead")
    vector = _is_vector_rhs(A, B)
    rhs = B.unsqueeze(-1) if vector else B
    if not left:
        if vector:
            raise RuntimeError("linalg.solve: Vector broadcasting of the left hand side is not supported for "
                               "left=False. In this case linalg.solve is equivalent to B / A.squeeze(-1)")
        A, rhs = A.mT, rhs.mT
    if rhs.shape[-2] != A.shape[-1]:
        rows, cols = (rhs.shape[-2], rhs.shape[-1]) if not vector else (B.shape[-1], 1)
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation AX = B "
                           f"({A.shape[-2]}x{A.shape[-1]} and {rows}x{cols})")
    solution = solver.apply(A, rhs)
    return solution.squeeze(-1) if vector else (solution if left else solution.mT)


#: the dtypes PyTorch's CPU triangular solver computes in
TRIANGULAR_SOLVE_DTYPES = ("float32", "float64")


class TriangularSolve(Function):
    r"""``X`` with :math:`AX = B` (:math:`XA = B` for ``left=False``), ``A`` read from one triangle (its
    diagonal taken as ones when ``unitriangular``), ``B`` in ``A``'s dtype; batches broadcast. Solved by
    :func:`~.lu_host.trsm`'s sweeps, which divide by every diagonal entry as PyTorch's CPU solver does:
    a zero on the diagonal gives ``inf`` and ``nan``, no error. For ``left``, :math:`\bar B = A^{-\top}\bar X`
    and :math:`\bar A = -\bar B X^\top`, kept to ``A``'s triangle (``left=False``: the transposes)."""

    @staticmethod
    def forward(ctx: Context, A: Tensor, B: Tensor, upper: bool, left: bool, unitriangular: bool) -> Tensor:
        ctx.grad_fn_name = "LinalgSolveTriangularBackward0"
        ctx.flags, ctx.b_dtype = (upper, left, unitriangular), B.dtype
        host_a = _host(A)
        host_b = _host(B).astype(host_a.dtype, copy=False)
        if left:
            solution = lu_host.trsm(host_a, host_b, lower=not upper, unit=unitriangular)
        else:  # X A = B is A^T X^T = B^T, with the other triangle
            solution = np.swapaxes(lu_host.trsm(np.swapaxes(host_a, -1, -2), np.swapaxes(host_b, -1, -2),
                                                lower=upper, unit=unitriangular), -1, -2)
        out = _like(solution, A)
        ctx.save_for_backward(A, out)
        return out

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Optional[Tensor], Optional[Tensor], None, None, None]:
        A, solution = ctx.saved_tensors
        upper, left, unitriangular = ctx.flags
        grad_b = TriangularSolve.apply(A.mT, grad, not upper, left, unitriangular)
        grad_a = None
        if ctx.needs_input_grad[0]:
            grad_a = -(grad_b @ solution.mT) if left else -(solution.mT @ grad_b)
            diagonal = 1 if unitriangular else 0  # a unit diagonal is not read: no gradient for it
            grad_a = grad_a.triu(diagonal) if upper else grad_a.tril(-diagonal)
        if ctx.needs_input_grad[1] and grad_b.dtype is not ctx.b_dtype:
            grad_b = grad_b.to(ctx.b_dtype)
        return grad_a, (grad_b if ctx.needs_input_grad[1] else None), None, None, None


def solve_triangular(A: Tensor, B: Tensor, *, upper: bool, left: bool = True, unitriangular: bool = False,
                     out: Optional[Tensor] = None) -> Tensor:
    """``solve`` reading only the upper (``upper=True``) or lower triangle of ``A`` (its diagonal
    taken as ones when ``unitriangular``); ``B`` must be a (batch of) matrix, and is read in ``A``'s
    dtype. A zero on the diagonal gives ``inf``/``nan`` (no error), as PyTorch's."""
    op = "linalg.solve_triangular"
    for matrix, name in ((A, "A"), (B, "B")):
        if matrix.dim() < 2:
            raise RuntimeError(f"{op}: The input tensor {name} must have at least 2 dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{op}: A must be batches of square matrices, but they are {A.shape[-2]} by {A.shape[-1]} matrices")
    rows, cols = (B.shape[-2], B.shape[-1])
    if (rows if left else cols) != A.shape[-1]:
        raise RuntimeError(f"{op}: Incompatible shapes of A and B for the equation {'AX = B' if left else 'XA = B'} "
                           f"({A.shape[-2]}x{A.shape[-1]} and {rows}x{cols})")
    _refuse_batch_mismatch(B.shape[:-2], A.shape[:-2])  # (PyTorch names B "tensor a")
    if A.dtype.name not in TRIANGULAR_SOLVE_DTYPES:
        raise NotImplementedError(f'"triangular_solve_cpu" not implemented for \'{scalar_type_name(A.dtype)}\'')
    if out is not None and out.dtype is not A.dtype:
        raise RuntimeError(f"expected scalar type {scalar_type_name(A.dtype)} but found {scalar_type_name(out.dtype)}")
    return write_out(TriangularSolve.apply(A, B, upper, left, unitriangular), out, "linalg_solve_triangular")


def _refuse_batch_mismatch(a_batch: tuple[int, ...], b_batch: tuple[int, ...]) -> None:
    """PyTorch's error for batch dims of a solve's operands that do not broadcast (the first clash, counted
    from the left of the longer batch)."""
    rank = max(len(a_batch), len(b_batch))
    a_full = (1,) * (rank - len(a_batch)) + tuple(a_batch)
    b_full = (1,) * (rank - len(b_batch)) + tuple(b_batch)
    for d, (m, n) in enumerate(zip(a_full, b_full)):
        if m != n and m != 1 and n != 1:
            raise RuntimeError(f"The size of tensor a ({m}) must match the size of tensor b ({n}) at non-singleton dimension {d}")


def _eye_like(A: Tensor) -> Tensor:
    return eye(A.shape[-1], dtype=A.dtype, device=A.device)


# ---------------------------------------------------------------------- determinants


class SignedLogDet(Function):
    r"""``(sign, log|det A|)``; only the logarithm has a gradient, :math:`\bar A = \bar\ell\,A^{-\top}`."""

    @staticmethod
    def forward(ctx: Context, A: Tensor) -> tuple[Tensor, Tensor]:
        ctx.grad_fn_name = "LinalgSlogdetBackward0"
        sign, logabsdet = np.linalg.slogdet(_host(A))
        ctx.save_for_backward(A)
        return _like(np.asarray(sign), A), _like(np.asarray(logabsdet), A)

    @staticmethod
    def backward(ctx: Context, grad_sign: Optional[Tensor], grad_logabsdet: Optional[Tensor]) -> Tensor:
        (A,) = ctx.saved_tensors
        return grad_logabsdet.unsqueeze(-1).unsqueeze(-1) * Inverse.apply(A).mT


def slogdet(A: Tensor) -> tuple[Tensor, Tensor]:
    """``(sign, logabsdet)`` of each square matrix: ``det = sign * exp(logabsdet)`` without overflow."""
    check_matrices(A, "linalg.slogdet")
    return linalg_slogdet(*SignedLogDet.apply(A))


class Determinant(Function):
    r""":math:`d = \det A`; :math:`\bar A = \bar d\, d\, A^{-\top}` (for an invertible ``A``)."""

    @staticmethod
    def forward(ctx: Context, A: Tensor) -> Tensor:
        ctx.grad_fn_name = "LinalgDetBackward0"
        out = _like(np.asarray(np.linalg.det(_host(A))), A)
        ctx.save_for_backward(A, out)
        return out

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> Tensor:
        A, determinant = ctx.saved_tensors
        return (grad * determinant).unsqueeze(-1).unsqueeze(-1) * Inverse.apply(A).mT


def det(A: Tensor) -> Tensor:
    """The determinant of each square matrix in ``A``."""
    check_matrices(A, "linalg.det")
    return Determinant.apply(A)


def logdet(A: Tensor) -> Tensor:
    """``log(det A)``: ``nan`` where the determinant is negative, ``-inf`` where it is zero."""
    check_matrices(A, "logdet")
    sign, logabsdet = SignedLogDet.apply(A)
    nan = logabsdet.new_full((), float("nan"))
    return logabsdet.where(sign >= 0, nan)


# ---------------------------------------------------------------------- Cholesky


def _phi(X: Tensor) -> Tensor:
    """The lower triangle of ``X`` with its diagonal halved."""
    return X.tril() - 0.5 * X.diagonal(0, -2, -1).diag_embed()


class Cholesky(Function):
    r"""The lower factor :math:`L` of :math:`A = L L^\top` (read from ``A``'s lower triangle).

    With :math:`\Phi` taking the lower triangle and halving the diagonal,
    :math:`S = L^{-\top}\,\Phi(L^\top \bar L)\,L^{-1}` and :math:`\bar A = \tfrac12 (S + S^\top)`.
    """

    @staticmethod
    def forward(ctx: Context, A: Tensor) -> Tensor:
        ctx.grad_fn_name = "LinalgCholeskyExBackward0"
        host = _host(A)
        lower = _lapack(np.linalg.cholesky, np.tril(host), on_error=lambda: _not_positive_definite(host))
        out = _like(lower, A)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> Tensor:
        (lower,) = ctx.saved_tensors
        inverse = Inverse.apply(lower)
        middle = inverse.mT @ _phi(lower.mT @ grad) @ inverse
        return 0.5 * (middle + middle.mT)


def _not_positive_definite(A: np.ndarray) -> LinAlgError:
    batch_shape = A.shape[:-2]
    for index, matrix in enumerate(A.reshape((-1,) + A.shape[-2:])):
        order = first_failing_minor(matrix)
        if order:
            return LinAlgError(f"linalg.cholesky: {_batch_prefix(batch_shape, index)}The factorization could not be "
                               "completed because the input is not positive-definite (the leading minor of order "
                               f"{order} is not positive-definite).")
    return LinAlgError("linalg.cholesky: The factorization could not be completed because the input is not "
                       "positive-definite.")


def first_failing_minor(matrix: np.ndarray) -> int:
    """LAPACK ``potrf``'s ``info``: the order of the first leading minor that is not positive
    definite, found by the Cholesky recurrence on the lower triangle; 0 when there is none."""
    lower = np.tril(np.array(matrix, dtype=np.float64))
    size = lower.shape[0]
    for column in range(size):
        pivot = lower[column, column] - lower[column, :column] @ lower[column, :column]
        if not pivot > 0:
            return column + 1
        lower[column, column] = np.sqrt(pivot)
        below = lower[column + 1:, column] - lower[column + 1:, :column] @ lower[column, :column]
        lower[column + 1:, column] = below / lower[column, column]
    return 0


def cholesky(A: Tensor, *, upper: bool = False, out: Optional[Tensor] = None) -> Tensor:
    """The Cholesky factor of each symmetric positive-definite matrix: lower, or upper (its transpose)."""
    check_matrices(A, "linalg.cholesky")
    factor = Cholesky.apply(A)
    return write_out(factor.mT if upper else factor, out, "linalg_cholesky")


# ---------------------------------------------------------------------- QR


class ReducedQR(Function):
    r"""``A = QR`` with ``Q`` of orthonormal columns; the backward of the tall case
    (:math:`m \ge n`): with :math:`M = R\bar R^\top - \bar Q^\top Q` and
    :math:`\operatorname{copyltu}(M)` its lower triangle mirrored onto the upper,
    :math:`\bar A = (\bar Q + Q \operatorname{copyltu}(M))\,R^{-\top}`.
    """

    @staticmethod
    def forward(ctx: Context, A: Tensor, complete: bool) -> tuple[Tensor, Tensor]:
        ctx.grad_fn_name = "LinalgQrBackward0"
        q, r = np.linalg.qr(_host(A), mode="complete" if complete else "reduced")
        Q, R = _like(q, A), _like(r, A)
        ctx.save_for_backward(Q, R)
        ctx.tall = A.shape[-2] >= A.shape[-1]
        ctx.square_or_reduced = not complete or A.shape[-2] == A.shape[-1]
        return Q, R

    @staticmethod
    def backward(ctx: Context, grad_q: Optional[Tensor], grad_r: Optional[Tensor]) -> tuple[Tensor, None]:
        if not ctx.tall:
            raise RuntimeError("The derivative of linalg.qr depends on Q, which is not computed when mode='r'. "
                               "Please use linalg.qr(A, mode='reduced') if you are going to differentiate "
                               "through linalg.qr.") if grad_q is None else NotImplementedError(
                "The QR decomposition is not differentiable when mode='complete' and nrows > ncols, or when "
                "the input has more columns than rows (minitorch differentiates the tall case only).")
        if not ctx.square_or_reduced:
            raise NotImplementedError("The QR decomposition is not differentiable when mode='complete' and "
                                      "nrows > ncols.")
        Q, R = ctx.saved_tensors
        grad_q = Q.new_zeros(Q.shape) if grad_q is None else grad_q
        grad_r = R.new_zeros(R.shape) if grad_r is None else grad_r
        M = R @ grad_r.mT - grad_q.mT @ Q
        lower = M.tril(-1)
        copyltu = lower + lower.mT + M.diagonal(0, -2, -1).diag_embed()
        return solve_triangular(R, (grad_q + Q @ copyltu).mT, upper=True).mT, None


def qr(A: Tensor, mode: str = "reduced") -> tuple[Tensor, Tensor]:
    """``(Q, R)`` with ``A = QR``: ``Q`` of orthonormal columns, ``R`` upper triangular.
    ``mode``: ``'reduced'`` (``Q`` is m x k), ``'complete'`` (m x m), ``'r'`` (``Q`` empty)."""
    if mode not in QR_MODES:
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), "
                           "'r', or 'complete'")
    check_matrices(A, "linalg.qr", square=False)
    Q, R = ReducedQR.apply(A, mode == "complete")
    if mode == "r":
        Q = A.new_empty((0,))
    return linalg_qr(Q, R)


# ---------------------------------------------------------------------- symmetric eigenproblem


class SymmetricEigen(Function):
    r"""``A = V \operatorname{diag}(\lambda) V^\top`` for a symmetric ``A`` (read from one triangle).

    With :math:`E_{ij} = \lambda_j - \lambda_i` off the diagonal,
    :math:`\bar A = V\big(\operatorname{diag}(\bar\lambda) + (V^\top\bar V) / E\big)V^\top`
    (the quotient taken off the diagonal only), made symmetric as PyTorch's: only symmetric
    changes of ``A`` keep it in the function's domain.
    """

    @staticmethod
    def forward(ctx: Context, A: Tensor, UPLO: str) -> tuple[Tensor, Tensor]:  # noqa: N803 - PyTorch's name
        ctx.grad_fn_name = "LinalgEighBackward0"
        values, vectors = np.linalg.eigh(_host(A), UPLO=UPLO)
        L, V = _like(values, A), _like(vectors, A)
        ctx.save_for_backward(L, V)
        return L, V

    @staticmethod
    def backward(ctx: Context, grad_values: Optional[Tensor], grad_vectors: Optional[Tensor]) -> tuple[Tensor, None]:
        L, V = ctx.saved_tensors
        middle = L.new_zeros(V.shape)
        if grad_vectors is not None:
            gaps = L.unsqueeze(-2) - L.unsqueeze(-1)
            off_diagonal = 1 - _eye_like(V)
            middle = (V.mT @ grad_vectors) / (gaps + _eye_like(V)) * off_diagonal
        if grad_values is not None:
            middle = middle + grad_values.diag_embed()
        grad_a = V @ middle @ V.mT
        return 0.5 * (grad_a + grad_a.mT), None


def _check_uplo(UPLO: str, op: str) -> None:  # noqa: N803
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")


def eigh(A: Tensor, UPLO: str = "L") -> tuple[Tensor, Tensor]:  # noqa: N803
    """Eigenvalues (ascending) and orthonormal eigenvectors of each symmetric matrix."""
    check_matrices(A, "linalg.eigh")
    _check_uplo(UPLO, "linalg.eigh")
    return linalg_eigh(*SymmetricEigen.apply(A, UPLO))


def eigvalsh(A: Tensor, UPLO: str = "L") -> Tensor:  # noqa: N803
    """The eigenvalues (ascending) of each symmetric matrix."""
    check_matrices(A, "linalg.eigvalsh")
    _check_uplo(UPLO, "linalg.eigvalsh")
    return SymmetricEigen.apply(A, UPLO)[0]


# ---------------------------------------------------------------------- SVD


class ReducedSVD(Function):
    r"""``A = U \operatorname{diag}(S) V^\top`` with ``k = min(m, n)`` singular values.

    With :math:`E_{ij} = S_j^2 - S_i^2` off the diagonal, :math:`J = U^\top\bar U`,
    :math:`K = V^\top\bar V` and :math:`\operatorname{skew}(X) = X - X^\top`:

    .. math:: \bar A = U\Big(\frac{\operatorname{skew}(J)\,S + S\,\operatorname{skew}(K)}{E}
              + \operatorname{diag}(\bar S)\Big)V^\top
              + (I - UU^\top)\,\bar U S^{-1} V^\top + U S^{-1}\bar V^\top (I - VV^\top).
    """

    @staticmethod
    def forward(ctx: Context, A: Tensor, full_matrices: bool) -> tuple[Tensor, Tensor, Tensor]:
        ctx.grad_fn_name = "LinalgSvdBackward0"
        u, s, vh = np.linalg.svd(_host(A), full_matrices=full_matrices)
        U, S, Vh = _like(u, A), _like(s, A), _like(vh, A)
        ctx.save_for_backward(U, S, Vh)
        return U, S, Vh

    @staticmethod
    def backward(ctx: Context, grad_u: Optional[Tensor], grad_s: Optional[Tensor],
                 grad_vh: Optional[Tensor]) -> tuple[Tensor, None]:
        U, S, Vh = ctx.saved_tensors
        k = S.shape[-1]
        U, Vh = U[..., :, :k], Vh[..., :k, :]
        grad_u = None if grad_u is None else grad_u[..., :, :k]
        grad_vh = None if grad_vh is None else grad_vh[..., :k, :]
        if grad_u is None and grad_vh is None:
            return (U * grad_s.unsqueeze(-2)) @ Vh, None
        V = Vh.mT
        squares = S * S
        gaps = squares.unsqueeze(-2) - squares.unsqueeze(-1) + _eye_like(S.unsqueeze(-1).expand(*S.shape, k))
        middle = S.new_zeros(S.shape + (k,))
        if grad_u is not None:
            J = U.mT @ grad_u
            middle = middle + (J - J.mT) * S.unsqueeze(-2)
        if grad_vh is not None:
            K = Vh @ grad_vh.mT
            middle = middle + S.unsqueeze(-1) * (K - K.mT)
        middle = middle / gaps
        if grad_s is not None:
            middle = middle + grad_s.diag_embed()
        grad_a = U @ middle @ Vh
        if grad_u is not None and U.shape[-2] > k:
            scaled = grad_u / S.unsqueeze(-2)
            grad_a = grad_a + (scaled - U @ (U.mT @ scaled)) @ Vh
        if grad_vh is not None and V.shape[-2] > k:
            scaled = grad_vh.mT / S.unsqueeze(-2)
            grad_a = grad_a + U @ (scaled - V @ (Vh @ scaled)).mT
        return grad_a, None


def svd(A: Tensor, full_matrices: bool = True, *, driver: Optional[str] = None) -> tuple[Tensor, Tensor, Tensor]:
    """``(U, S, Vh)`` with ``A = U diag(S) Vh``, singular values descending."""
    check_matrices(A, "linalg.svd", square=False)
    return linalg_svd(*ReducedSVD.apply(A, full_matrices))


def svdvals(A: Tensor, *, driver: Optional[str] = None) -> Tensor:
    """The singular values of each matrix, descending."""
    check_matrices(A, "linalg.svdvals", square=False)
    return ReducedSVD.apply(A, False)[1]


def pinv(A: Tensor, *, atol: Optional[float] = None, rtol: Optional[float] = None, hermitian: bool = False) -> Tensor:
    """The Moore-Penrose pseudo-inverse from the SVD: singular values at most
    ``max(atol, rtol * S.max())`` count as zero (``rtol`` defaults to ``eps * max(m, n)``)."""
    check_matrices(A, "linalg.pinv", square=False)
    U, S, Vh = ReducedSVD.apply(A, False)
    if rtol is None:
        rtol = 0.0 if atol is not None and atol > 0 else finfo(A.dtype).eps * max(A.shape[-2], A.shape[-1])
    cutoff = S.amax(-1, keepdim=True) * rtol
    if atol is not None:
        cutoff = cutoff.clamp(min=atol)
    kept = S > cutoff
    inverse_s = (1 / S.where(kept, S.new_ones(()))).where(kept, S.new_zeros(()))
    return (Vh.mT * inverse_s.unsqueeze(-2)) @ U.mT


# ---------------------------------------------------------------------- matrix exponential and powers


def _expm(matrix: np.ndarray) -> np.ndarray:
    """``exp(matrix)`` in float64 by scaling and squaring with the Padé [13/13] approximant."""
    norm = np.abs(matrix).sum(axis=0).max() if matrix.size else 0.0
    squarings = max(0, int(np.ceil(np.log2(norm / PADE13_THETA)))) if norm > PADE13_THETA else 0
    scaled = matrix / 2.0 ** squarings
    identity = np.eye(matrix.shape[0])
    powers = [identity, scaled @ scaled]
    powers.append(powers[1] @ powers[1])
    powers.append(powers[1] @ powers[2])
    b = PADE13
    inner_u = b[13] * powers[3] + b[11] * powers[2] + b[9] * powers[1]
    odd = scaled @ (powers[3] @ inner_u + b[7] * powers[3] + b[5] * powers[2] + b[3] * powers[1] + b[1] * identity)
    inner_v = b[12] * powers[3] + b[10] * powers[2] + b[8] * powers[1]
    even = powers[3] @ inner_v + b[6] * powers[3] + b[4] * powers[2] + b[2] * powers[1] + b[0] * identity
    result = np.linalg.solve(even - odd, even + odd)
    for _ in range(squarings):
        result = result @ result
    return result


class MatrixExp(Function):
    r""":math:`e^A = \sum_k A^k / k!`. Its backward is itself: for
    :math:`B = \begin{pmatrix} A^\top & \bar Y \\ 0 & A^\top \end{pmatrix}`, the top-right block
    of :math:`e^B` is :math:`\bar A`."""

    @staticmethod
    def forward(ctx: Context, A: Tensor) -> Tensor:
        ctx.grad_fn_name = "LinalgMatrixExpBackward0"
        host = np.asarray(_host(A), dtype=np.float64)
        flat = host.reshape((-1,) + host.shape[-2:])
        result = np.stack([_expm(matrix) for matrix in flat]) if flat.shape[0] else flat.copy()
        ctx.save_for_backward(A)
        return _like(result.reshape(host.shape).astype(A.dtype.numpy), A)

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> Tensor:
        (A,) = ctx.saved_tensors
        from .shape_ops import cat

        size = A.shape[-1]
        top = cat([A.mT, grad], -1)
        bottom = cat([A.new_zeros(A.shape), A.mT], -1)
        return MatrixExp.apply(cat([top, bottom], -2))[..., :size, size:]


def matrix_exp(A: Tensor) -> Tensor:
    """The matrix exponential of each square matrix in ``A``."""
    check_matrices(A, "linalg.matrix_exp")
    return MatrixExp.apply(A)


def matrix_power(A: Tensor, n: int, *, out: Optional[Tensor] = None) -> Tensor:
    """``A`` multiplied by itself ``n`` times by repeated squaring (``n = 0``: the identity,
    ``n < 0``: the power of the inverse)."""
    check_matrices(A, "linalg.matrix_power")
    if not isinstance(n, int) or isinstance(n, bool):
        raise TypeError(f"linalg.matrix_power(): argument 'n' must be int, not {type(n).__name__}")
    if n == 0:
        result = _eye_like(A).expand(*A.shape).clone()
    else:
        base = inv(A) if n < 0 else A
        result, remaining = None, abs(n)
        while remaining:
            if remaining & 1:
                result = base if result is None else result @ base
            remaining >>= 1
            if remaining:
                base = base @ base
    return write_out(result, out, "linalg_matrix_power")


# ---------------------------------------------------------------------- Householder products


def householder_product(A: Tensor, tau: Tensor) -> Tensor:
    r"""The first ``n`` columns of :math:`H_1 H_2 \cdots H_k`, :math:`H_i = I - \tau_i v_i v_i^\top`,
    where :math:`v_i` is column ``i`` of ``A`` below the diagonal with a 1 on it (LAPACK's
    ``orgqr``). Written in tensor ops, so autograd differentiates it."""
    check_matrices(A, "torch.linalg.householder_product", square=False, name="input")
    if tau.dim() != A.dim() - 1:
        raise RuntimeError(f"torch.linalg.householder_product: Expected tau to have one dimension less than input, but got "
                           f"tau.ndim equal to {tau.dim()} and input.ndim is equal to {A.dim()}")
    rows, cols = A.shape[-2], A.shape[-1]
    if cols > rows:
        raise RuntimeError("torch.linalg.householder_product: input.shape[-2] must be greater than or equal to "
                           "input.shape[-1]")
    if tau.shape[-1] > cols:
        raise RuntimeError("torch.linalg.householder_product: input.shape[-1] must be greater than or equal to "
                           "tau.shape[-1]")
    reflectors = A.tril(-1) + eye(rows, cols, dtype=A.dtype, device=A.device)
    Q = eye(rows, cols, dtype=A.dtype, device=A.device).expand(*A.shape[:-2], rows, cols)
    for index in reversed(range(tau.shape[-1])):
        v = reflectors[..., :, index:index + 1]
        Q = Q - (tau[..., index].unsqueeze(-1).unsqueeze(-1) * v) @ (v.mT @ Q)
    return Q


def geqrf(A: Tensor) -> tuple[Tensor, Tensor]:
    """LAPACK's ``geqrf``: ``R`` on and above the diagonal, the Householder vectors below it,
    and their scales ``tau`` (not differentiable, as in PyTorch)."""
    check_matrices(A, "geqrf", square=False)
    host = np.asarray(_host(A))
    flat = host.reshape((-1,) + host.shape[-2:])
    packed, scales = [], []
    for matrix in flat:
        h, tau = np.linalg.qr(matrix, mode="raw")
        packed.append(h.T)
        scales.append(tau)
    k = min(host.shape[-2], host.shape[-1])
    a = np.stack(packed).reshape(host.shape) if packed else host.copy()
    t = np.stack(scales).reshape(host.shape[:-2] + (k,)) if scales else np.zeros(host.shape[:-2] + (k,))
    return geqrf_result(_like(a, A), _like(t, A))


# ---------------------------------------------------------------------- PyTorch's older spellings


def legacy_slogdet(input: Tensor) -> tuple[Tensor, Tensor]:  # noqa: A002 - PyTorch's name
    """``torch.slogdet``: :func:`slogdet` under its older name and result type."""
    return slogdet_result(*slogdet(input))


def legacy_qr(input: Tensor, some: bool = True) -> tuple[Tensor, Tensor]:  # noqa: A002
    """``torch.qr``: reduced (``some=True``) or complete."""
    return tuple(qr(input, "reduced" if some else "complete"))  # type: ignore[return-value]


def legacy_svd(input: Tensor, some: bool = True, compute_uv: bool = True) -> tuple[Tensor, Tensor, Tensor]:  # noqa: A002
    """``torch.svd``: ``(U, S, V)`` with ``V`` itself, not its transpose; reduced when ``some``."""
    U, S, Vh = svd(input, full_matrices=not some)
    if not compute_uv:
        return svd_result(U.new_zeros(U.shape).detach(), S, Vh.new_zeros(Vh.shape).detach())
    return svd_result(U, S, Vh.mT)


def legacy_cholesky(input: Tensor, upper: bool = False) -> Tensor:  # noqa: A002
    """``torch.cholesky`` (deprecated in PyTorch in favour of ``torch.linalg.cholesky``)."""
    return cholesky(input, upper=upper)


def pinverse(input: Tensor, rcond: float = 1e-15) -> Tensor:  # noqa: A002
    """``torch.pinverse``: :func:`pinv` with singular values below ``rcond`` times the largest dropped."""
    return pinv(input, rtol=rcond)


#: the functions ``minitorch`` exports at its top level, under PyTorch's names
functions = {
    "inverse": inv, "det": det, "logdet": logdet, "slogdet": legacy_slogdet, "matrix_exp": matrix_exp,
    "matrix_power": matrix_power, "cholesky": legacy_cholesky, "qr": legacy_qr, "svd": legacy_svd,
    "geqrf": geqrf, "pinverse": pinverse,
}

add_tensor_methods({
    "inverse": inv, "det": det, "logdet": logdet, "slogdet": legacy_slogdet, "matrix_exp": matrix_exp,
    "matrix_power": matrix_power, "cholesky": legacy_cholesky, "qr": legacy_qr, "svd": legacy_svd,
    "geqrf": geqrf, "pinverse": pinverse,
})

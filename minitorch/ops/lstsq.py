r"""``linalg.lstsq``: the least-squares solution :math:`X` of :math:`\min_X \|AX - B\|_F` for a
(batch of) :math:`m \times n` matrix :math:`A`, with PyTorch's results per LAPACK driver.

As the other decompositions (:mod:`.decompositions`), the factorisations run on the host in NumPy,
in float64, and each driver's rules for the rank and for what it reports are LAPACK's:

* ``'gels'`` (QR, or LQ when :math:`m < n`) assumes a full-rank :math:`A`: an exactly zero pivot of
  the triangular factor is PyTorch's error; no rank and no singular values are reported.
* ``'gelsy'`` (PyTorch's default on the CPU; ``'gels'`` on CUDA) takes a QR factorisation with
  column pivoting, :math:`AP = QR`, and keeps the largest leading block :math:`R_{11}` with
  :math:`\sigma_{\max}(R_{11})\,\mathrm{rcond} \le \sigma_{\min}(R_{11})`; the solution is the
  minimum-norm one of :math:`A` with :math:`R_{22}` set to zero. LAPACK estimates those singular
  values incrementally; here they are computed, so a matrix at the edge may get another rank.
  Every column is free to pivot, as LAPACK does with a cleared pivot array; PyTorch's CPU build
  hands it one it never cleared (pytorch/pytorch#187411), so its rank and solution for a
  rank-deficient matrix can change from one call to the next.
* ``'gelsd'`` and ``'gelss'`` (SVD) treat :math:`\sigma_i \le \mathrm{rcond}\,\sigma_1` as zero
  (``gelsd`` takes half the machine epsilon for an ``rcond`` outside :math:`(0, 1)`, ``gelss`` the
  epsilon for a negative one and never less than the smallest normal number), and report the rank
  and the singular values.

``rcond`` defaults to the dtype's epsilon times :math:`\max(m, n)` (and is rounded to ``A``'s dtype,
as LAPACK's float32 routines take it). Batches broadcast as PyTorch's do: ``A``'s batch dimensions
against the same number of leading dimensions of ``B`` (for a ``B`` of one dimension less that is
not a batch of vectors, these include its rows); ``rank`` and ``singular_values`` are those of
``A``'s own batch. The residuals
:math:`\|AX - B\|^2` of each column are reported only for :math:`m > n`, by ``gels`` always and by
``gelsd``/``gelss`` when every matrix has rank :math:`n` (else, and for ``gelsy``, an empty tensor).

Gradients are PyTorch's: those of :math:`X = A^+ B` with the pseudo-inverse :math:`P = A^+` of
``linalg.pinv`` (whatever rank the driver found). With :math:`Y = PB`, :math:`\bar B = P^\top \bar X`
and the derivative of the pseudo-inverse at a constant rank
(:math:`dP = -P\,dA\,P + PP^\top dA^\top (I - AP) + (I - PA)\,dA^\top P^\top P`),

.. math:: \bar A = -\bar B Y^\top + (B - AY)(P\bar B)^\top + P^\top Y\,(\bar X - A^\top \bar B)^\top;

the residuals :math:`r_j = \min_x \|Ax - b_j\|^2` add :math:`2(AY - B)\operatorname{diag}(\bar r)Y^\top`
to :math:`\bar A` and :math:`-2(AY - B)\operatorname{diag}(\bar r)` to :math:`\bar B`. The backward is
written in tensor ops, so it can be differentiated again.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from .. import return_types
from ..autograd.function import Context, Function
from ..dtypes import float32, float64, int64, scalar_type_name
from ..tensor import Tensor
from ..tensor_data import IndexingError, shape_broadcast
from .decompositions import LinAlgError, _batch_prefix, _host, _is_vector_rhs, _like, pinv

linalg_lstsq = return_types._named_result("linalg_lstsq", ("solution", "residuals", "rank", "singular_values"))

DRIVERS = ("gels", "gelsy", "gelsd", "gelss")
#: the drivers that report singular values (all but ``gels`` report the rank)
SVD_DRIVERS = ("gelsd", "gelss")
OP = "torch.linalg.lstsq"


# ---------------------------------------------------------------------- checks


def _check_arguments(A: Any, B: Any, rcond: Any, driver: Any) -> None:
    """PyTorch's argument parser's errors (types), then its checks of dimensions, dtypes and sizes."""
    for position, (name, value) in enumerate((("input", A), ("b", B)), start=1):
        if not isinstance(value, Tensor):
            raise TypeError(f"linalg_lstsq(): argument '{name}' (position {position}) must be Tensor, "
                            f"not {type(value).__name__}")
    if rcond is not None and (isinstance(rcond, bool) or not isinstance(rcond, (int, float))):
        raise TypeError(f"linalg_lstsq(): argument 'rcond' must be float, not {type(rcond).__name__}")
    if driver is not None and not isinstance(driver, str):
        raise TypeError(f"linalg_lstsq(): argument 'driver' must be str, not {type(driver).__name__}")
    if A.dim() < 2:
        raise RuntimeError(f"{OP}: input must have at least 2 dimensions.")
    if B.dim() < 1:
        raise RuntimeError(f"{OP}: other must have at least 1 dimension.")
    if A.dtype is not B.dtype:
        raise RuntimeError(f"{OP}: Expected input and other to have the same dtype, but got input's dtype "
                           f"{scalar_type_name(A.dtype)} and other's dtype {scalar_type_name(B.dtype)}")
    if not 0 <= A.dim() - B.dim() <= 1:
        raise RuntimeError(f"{OP}: input.dim() must be greater or equal to other.dim() and "
                           "(input.dim() - other.dim()) <= 1")


def _driver(name: Optional[str], A: Tensor) -> str:
    """The driver PyTorch runs: the given one (any case), else ``gelsy`` on the CPU and ``gels`` on CUDA."""
    on_cuda = A.device.type == "cuda"
    if name is None:
        return "gels" if on_cuda else "gelsy"
    name = name.lower()
    if on_cuda and name != "gels":
        raise RuntimeError(f"{OP}: `driver` other than `gels` is not supported on CUDA")
    if name not in DRIVERS:
        raise RuntimeError(f"{OP}: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    return name


def _broadcast(first: tuple[int, ...], second: tuple[int, ...]) -> tuple[int, ...]:
    try:
        return tuple(shape_broadcast(first, second))
    except IndexingError as error:  # PyTorch's message is ours without the shapes at its end
        raise RuntimeError(str(error).split(": shapes ")[0]) from None


# ---------------------------------------------------------------------- the drivers, on the host


def _svd_inverse(a: np.ndarray, rcond: float, driver: str, eps: float, tiny: float) -> tuple[np.ndarray, ...]:
    """``gelsd``/``gelss``: the truncated pseudo-inverses (..., n, m), ranks and singular values."""
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    largest = s[..., :1]
    if driver == "gelsd":
        cut = rcond if 0 < rcond < 1 else eps / 2  # LAPACK's dlamch('E'): half the machine epsilon
        kept = s > cut * largest
    else:
        kept = s > np.maximum((rcond if rcond >= 0 else eps) * largest, tiny)
    inverse_s = np.divide(1.0, s, out=np.zeros_like(s), where=kept)
    inverse = np.matmul(np.swapaxes(vh, -1, -2) * inverse_s[..., None, :], np.swapaxes(u, -1, -2))
    return inverse, kept.sum(-1).astype(np.int64), s


def _pivot_order(a: np.ndarray) -> np.ndarray:
    """The column order of a Householder QR with column pivoting (the largest remaining column
    norm first, the first of equal ones), as LAPACK's ``geqp3`` chooses it."""
    work = np.array(a, dtype=np.float64)
    m, n = work.shape
    order = np.arange(n)
    for j in range(min(m, n)):
        trailing = work[j:, j:]
        pick = j + int(np.argmax(np.einsum("ij,ij->j", trailing, trailing)))
        if pick != j:
            work[:, [j, pick]] = work[:, [pick, j]]
            order[[j, pick]] = order[[pick, j]]
        column = work[j:, j]
        norm = np.linalg.norm(column)
        if norm == 0:
            break  # what is left is zero
        reflector = column.copy()
        reflector[0] += np.copysign(norm, column[0])
        reflector /= np.linalg.norm(reflector)
        work[j:, j:] -= 2.0 * np.outer(reflector, reflector @ work[j:, j:])
    return order


def _full_row_rank_inverse(M: np.ndarray) -> np.ndarray:
    """The pseudo-inverse of an ``r x n`` matrix of rank ``r`` (zero singular values left out)."""
    u, s, vh = np.linalg.svd(M, full_matrices=False)
    with np.errstate(all="ignore"):  # an rcond of 0 keeps subnormal values: LAPACK overflows there too
        inverse_s = np.divide(1.0, s, out=np.zeros_like(s), where=s > 0)
        return (vh.T * inverse_s) @ u.T


def _gelsy_inverse(a: np.ndarray, rcond: float) -> tuple[np.ndarray, int]:
    """``gelsy`` on one matrix: the minimum-norm inverse of :math:`A` with :math:`R_{22}` dropped, and the rank."""
    m, n = a.shape
    inverse = np.zeros((n, m))
    if min(m, n) == 0:
        return inverse, 0
    order = _pivot_order(a)
    q, r = np.linalg.qr(a[:, order])
    if r[0, 0] == 0:
        return inverse, 0

    def conditioned(size: int) -> bool:
        values = np.linalg.svd(r[:size, :size], compute_uv=False)
        return bool(values[0] * rcond <= values[-1])

    # the condition number of the leading blocks grows with their size: the last good one by bisection
    low, high = 1, min(m, n)
    while low < high:
        middle = (low + high + 1) // 2
        low, high = (middle, high) if conditioned(middle) else (low, middle - 1)
    inverse[order] = _full_row_rank_inverse(r[:low]) @ q[:, :low].T
    return inverse, low


def _gels_inverse(a: np.ndarray) -> np.ndarray:
    """``gels``: :math:`R^{-1}Q^\\top` (or :math:`Q R^{-\\top}` for a wide :math:`A`); PyTorch's error at an
    exactly zero pivot names the first such matrix of ``A``'s own batch and the pivot (LAPACK's ``info``)."""
    m, n = a.shape[-2:]
    tall = m >= n
    q, r = np.linalg.qr(a if tall else np.swapaxes(a, -1, -2))
    zero = np.diagonal(r, axis1=-2, axis2=-1) == 0
    if zero.any():
        flat = zero.reshape(-1, zero.shape[-1])
        index = int(np.argmax(flat.any(-1)))
        code = int(np.argmax(flat[index])) + 1
        batch_shape = a.shape[:-2]
        raise LinAlgError(f"{OP}: {_batch_prefix(batch_shape, index)}The least squares solution could not be computed "
                          f"because the input matrix does not have full rank (error code: {code}).")
    with np.errstate(all="ignore"):
        inverse = np.linalg.solve(r, np.swapaxes(q, -1, -2))
    return inverse if tall else np.swapaxes(inverse, -1, -2)


def _residuals(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    r""":math:`\|AX - B\|^2` per column for a full-rank tall :math:`A`: the part of :math:`B`
    outside :math:`A`'s column space, :math:`\|Q_2^\top B\|^2` (what LAPACK leaves in the rows past :math:`n`)."""
    n = a.shape[-1]
    complement = np.linalg.qr(a, mode="complete")[0][..., :, n:]
    return (np.matmul(np.swapaxes(complement, -1, -2), b) ** 2).sum(-2)


# ---------------------------------------------------------------------- the graph node


class LeastSquares(Function):
    """``(solution, residuals)`` computed on the host; the backward of :math:`X = A^+ B` (module docstring)."""

    @staticmethod
    def forward(ctx: Context, A: Tensor, B: Tensor, solution: np.ndarray,
                residuals: Optional[np.ndarray]) -> tuple[Tensor, Tensor]:
        ctx.grad_fn_name = "LinalgLstsqBackward0"
        ctx.save_for_backward(A, B)
        out_residuals = A.new_empty((0,)) if residuals is None else _like(residuals, A)
        return _like(solution, A), out_residuals

    @staticmethod
    def backward(ctx: Context, grad_solution: Optional[Tensor],
                 grad_residuals: Optional[Tensor]) -> tuple[Optional[Tensor], Optional[Tensor], None, None]:
        A, B = ctx.saved_tensors
        if A.numel() == 0 or B.numel() == 0:
            return A.new_zeros(A.shape), B.new_zeros(B.shape), None, None
        P = pinv(A)
        Y = P @ B
        grad_a: Optional[Tensor] = None
        grad_b: Optional[Tensor] = None
        if grad_solution is not None:
            grad_b = P.mT @ grad_solution
            grad_a = (-(grad_b @ Y.mT) + (B - A @ Y) @ (P @ grad_b).mT
                      + (P.mT @ Y) @ (grad_solution - A.mT @ grad_b).mT)
        if grad_residuals is not None and grad_residuals.numel() > 0:
            weighted = 2 * (A @ Y - B) * grad_residuals.unsqueeze(-2)
            grad_a = weighted @ Y.mT if grad_a is None else grad_a + weighted @ Y.mT
            grad_b = -weighted if grad_b is None else grad_b - weighted
        return grad_a, grad_b, None, None


# ---------------------------------------------------------------------- lstsq


def lstsq(input: Tensor, b: Tensor, rcond: Optional[float] = None, *,  # noqa: A002 - PyTorch's names
          driver: Optional[str] = None) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """``(solution, residuals, rank, singular_values)`` of :math:`\\min_X \\|AX - B\\|_F` for ``A`` of
    shape ``(*, m, n)`` and ``B`` of shape ``(*, m, k)``, or ``(*, m)`` (then the solution is ``(*, n)``).

    Batches broadcast as in PyTorch; ``rank`` (int64) and ``singular_values`` are those of ``A``'s own
    batch, and empty where the driver computes none (module docstring)."""
    A, B = input, b
    _check_arguments(A, B, rcond, driver)
    vector = _is_vector_rhs(A, B)
    B2 = B.unsqueeze(-1) if vector else B
    m, n, k = A.shape[-2], A.shape[-1], B2.shape[-1]
    if B2.shape[-2] != m:
        raise RuntimeError(f"{OP}: input.size(-2) should match other.size(-1)" if vector
                           else f"{OP}: input.size(-2) should match other.size(-2)")
    name = _driver(driver, A)
    if A.dtype not in (float32, float64):
        raise RuntimeError("This function doesn't handle types other than float and double")
    own_batch = tuple(A.shape[:-2])
    # PyTorch's batch: A's against B's leading dims (those of (*, m) for a B of one dim less than A)
    batch = _broadcast(own_batch, tuple(B2.shape[: len(own_batch)]))
    if _broadcast(batch + (m, k), tuple(B2.shape)) != batch + (m, k):
        raise RuntimeError(f"{OP}: B of shape {list(B.shape)} does not broadcast to {list(batch + (m, k))}")
    info = np.finfo(A.dtype.numpy)
    rcond = float(info.eps) * max(m, n) if rcond is None else float(rcond)
    rcond = float(np.asarray(rcond, dtype=A.dtype.numpy))  # in A's precision, as LAPACK's sgelsd takes it
    a = np.asarray(_host(A), dtype=np.float64)
    b_host = np.broadcast_to(np.asarray(_host(B2), dtype=np.float64), batch + (m, k))
    count = int(np.prod(own_batch, dtype=np.int64))

    rank = values = None
    if name in SVD_DRIVERS:
        inverse, rank, values = _svd_inverse(a, rcond, name, float(info.eps), float(info.tiny))
    elif name == "gelsy":
        flat = a.reshape((count, m, n))
        pairs = [_gelsy_inverse(matrix, rcond) for matrix in flat]
        inverse = np.stack([p[0] for p in pairs]).reshape(own_batch + (n, m)) if pairs else np.zeros(own_batch + (n, m))
        rank = np.array([p[1] for p in pairs], dtype=np.int64).reshape(own_batch)
        if k == 0:
            rank = np.zeros_like(rank)  # LAPACK's gelsy returns at once, with rank 0, for no right-hand side
    else:
        inverse = _gels_inverse(a)
    with np.errstate(all="ignore"):
        solution = np.matmul(inverse, b_host)
    full_rank = name == "gels" or (name in SVD_DRIVERS and bool((rank == n).all()))
    residuals = _residuals(a, b_host) if m > n and full_rank else None
    if residuals is not None and name == "gels" and n == 0:
        residuals = np.zeros_like(residuals)  # LAPACK's gels returns a zeroed B for an empty A

    A_batched = A if own_batch == batch else A.expand(*batch, m, n)
    B_batched = B2 if tuple(B2.shape) == batch + (m, k) else B2.expand(*batch, m, k)
    out_solution, out_residuals = LeastSquares.apply(A_batched, B_batched, solution, residuals)
    if vector:
        out_solution = out_solution.squeeze(-1)
    out_rank = A.new_tensor(rank if rank is not None else np.zeros((0,), np.int64), dtype=int64)
    out_values = _like(values, A) if values is not None else A.new_empty((0,))
    return linalg_lstsq(out_solution, out_residuals, out_rank, out_values)


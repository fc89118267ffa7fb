r"""``svd_lowrank`` and ``pca_lowrank``: randomised low-rank SVD and PCA, PyTorch's names.

Halko, Martinsson and Tropp's method (2009, algorithms 4.4 and 5.1): a Gaussian test matrix
:math:`R` (drawn from the generator's stream, so a seed gives PyTorch's matrix) is multiplied
into :math:`A`, the product's range is refined by ``niter`` power iterations, each ending in a
QR factorisation, and the small matrix :math:`B = Q^T A` is decomposed exactly:

.. math::
    Q = \mathrm{qr}\bigl((A A^T)^{\,\mathrm{niter}} A R\bigr), \qquad
    Q^T A = \tilde U \,\mathrm{diag}(S)\, V^T, \qquad A \approx (Q \tilde U)\,\mathrm{diag}(S)\, V^T

A wide matrix is transposed first so that :math:`Q` is always built on the taller side. With
``M`` the decomposition is that of :math:`A - M` without forming it. ``pca_lowrank`` centres
each column (subtracts the mean of the rows) before the same decomposition. Every step is a
differentiable minitorch op, so the results carry PyTorch's gradients.
"""

from __future__ import annotations

from typing import Optional

from .. import dtypes
from ..creation import randn
from ..linalg import matmul, qr, svd
from ..tensor import Tensor

#: ``svd_lowrank``'s rank estimate when ``q`` is ``None``; also ``pca_lowrank``'s cap on its default
DEFAULT_RANK = 6
#: power iterations when ``niter`` is ``None``
DEFAULT_ITERATIONS = 2
#: the floating dtypes kept as they are; any other input dtype draws its test matrix in float32
FLOATING_DTYPES = (dtypes.float16, dtypes.float32, dtypes.float64)


def _floating_dtype(A: Tensor) -> dtypes.dtype:
    """``A``'s dtype if it is floating, otherwise float32 (the dtype of the random test matrix)."""
    return A.dtype if A.dtype in FLOATING_DTYPES else dtypes.float32


def _shifted_product(A: Tensor, M: Optional[Tensor], X: Tensor) -> Tensor:
    r""":math:`(A - M) X`, without forming :math:`A - M`."""
    product = matmul(A, X)
    return product if M is None else product - matmul(M, X)


def _approximate_basis(A: Tensor, q: int, niter: Optional[int], M: Optional[Tensor]) -> Tensor:
    r"""``q`` orthonormal columns :math:`Q` with :math:`Q Q^T (A - M) \approx A - M` (Halko et al.'s 4.4)."""
    niter = DEFAULT_ITERATIONS if niter is None else niter
    R = randn(A.shape[-1], q, dtype=_floating_dtype(A), device=A.device)
    Q = qr(_shifted_product(A, M, R)).Q
    M_t = None if M is None else M.mT
    for _ in range(niter):
        Q = qr(_shifted_product(A.mT, M_t, Q)).Q
        Q = qr(_shifted_product(A, M, Q)).Q
    return Q


def _svd_lowrank(A: Tensor, q: Optional[int], niter: Optional[int],
                 M: Optional[Tensor]) -> tuple[Tensor, Tensor, Tensor]:
    """Halko et al.'s algorithm 5.1, on the taller orientation of ``A`` (and ``M``)."""
    q = DEFAULT_RANK if q is None else q
    m, n = A.shape[-2:]
    if M is not None:
        M = M.broadcast_to(A.shape)
    wide = m < n
    if wide:
        A = A.mT
        M = None if M is None else M.mT
    Q = _approximate_basis(A, q, niter, M)
    B = matmul(Q.mT, A)
    if M is not None:
        B = B - matmul(Q.mT, M)
    U, S, Vh = svd(B, full_matrices=False)
    V = Vh.mT
    U = Q.matmul(U)
    return (V, S, U) if wide else (U, S, V)


def svd_lowrank(A: Tensor, q: Optional[int] = DEFAULT_RANK, niter: Optional[int] = DEFAULT_ITERATIONS,
                M: Optional[Tensor] = None) -> tuple[Tensor, Tensor, Tensor]:
    r"""``(U, S, V)`` with :math:`A - M \approx U \operatorname{diag}(S) V^T` of (at most) rank ``q``, by
    ``niter`` power iterations on a random basis; ``M`` (broadcast to ``A``) defaults to zero."""
    return _svd_lowrank(A, q, niter, M)


def pca_lowrank(A: Tensor, q: Optional[int] = None, center: bool = True,
                niter: int = DEFAULT_ITERATIONS) -> tuple[Tensor, Tensor, Tensor]:
    r"""Principal components of the rows of ``A`` (``m`` samples of ``n`` features): the low-rank
    ``(U, S, V)`` of ``A`` with each column's mean subtracted (unless ``center=False``); ``V``'s
    columns are the principal directions, :math:`S^2 / (m - 1)` the variances along them.
    ``q`` defaults to ``min(6, m, n)``."""
    m, n = A.shape[-2:]
    if q is None:
        q = min(DEFAULT_RANK, m, n)
    elif not 0 <= q <= min(m, n):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than min(m, n)={min(m, n)}")
    if not niter >= 0:
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if not center:
        return _svd_lowrank(A, q, niter, None)
    return _svd_lowrank(A - A.mean(dim=(-2,), keepdim=True), q, niter, None)

"""``minitorch.linalg``: PyTorch's ``torch.linalg``: norms, products, decompositions and solvers."""

from typing import Any, Optional, Union

from .ops.decompositions import (
    LinAlgError,
    cholesky,
    det,
    eigh,
    eigvalsh,
    householder_product,
    inv,
    matrix_exp,
    matrix_power,
    pinv,
    qr,
    slogdet,
    solve,
    solve_triangular,
    svd,
    svdvals,
)
from .ops.cholesky_solvers import cholesky_ex
from .ops.linalg_extra import cond, diagonal, linalg_matmul as matmul, matrix_rank, multi_dot, vecdot
from .ops.linalg_ldl import ldl_factor, ldl_factor_ex, ldl_solve
from .ops.linalg_lu import lu, lu_factor, lu_factor_ex, lu_solve
from .ops.linalg_solvers import inv_ex, solve_ex, tensorinv, tensorsolve
from .ops.lstsq import lstsq
from .ops.matrix_norms import matrix_norm
from .ops.products import linalg_cross as cross
from .ops.reductions_extra import vector_norm
from .tensor import Tensor

#: the matrix norms :func:`norm` passes to :func:`matrix_norm` when no ``dim`` says otherwise
MATRIX_ORDERS = ("fro", "nuc")


def norm(A: Tensor, ord: Any = None, dim: Optional[Union[int, tuple[int, ...]]] = None,  # noqa: A002,N803
         keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """A vector or matrix norm, chosen as ``torch.linalg.norm`` chooses.

    No ``ord`` and no ``dim``: the 2-norm of all elements. A single ``dim``, or a 1-D input with
    an ``ord``: a vector norm. Two dims, or a 2-D input with an ``ord``: a matrix norm.
    """
    if isinstance(dim, int) or (isinstance(dim, (tuple, list)) and len(dim) == 1):
        return vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype)
    if dim is None:
        if ord is None:
            return vector_norm(A, 2, None, keepdim, dtype=dtype)
        if A.dim() == 1 and ord not in MATRIX_ORDERS:
            return vector_norm(A, ord, None, keepdim, dtype=dtype)
        if A.dim() < 2:  # a matrix order of a vector: matrix_norm's refusal
            return matrix_norm(A, ord, (-2, -1), keepdim, dtype=dtype)
        if A.dim() != 2:
            raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. "
                               f"Got {A.dim()}D.")
        dim = (-2, -1)
    if len(dim) != 2:
        raise RuntimeError(f"linalg.norm: If dim is specified, it must be of length 1 or 2. Got {list(dim)}")
    return matrix_norm(A, "fro" if ord is None else ord, tuple(dim), keepdim, dtype=dtype)


__all__ = [
    "LinAlgError", "cholesky", "cholesky_ex", "cond", "cross", "det", "diagonal", "eigh", "eigvalsh",
    "householder_product", "inv", "inv_ex", "ldl_factor", "ldl_factor_ex", "ldl_solve", "lstsq", "lu", "lu_factor",
    "lu_factor_ex", "lu_solve", "matmul", "matrix_exp", "matrix_norm", "matrix_power", "matrix_rank", "multi_dot",
    "norm", "pinv", "qr", "slogdet", "solve", "solve_ex", "solve_triangular", "svd", "svdvals", "tensorinv", "tensorsolve",
    "vecdot", "vector_norm",
]

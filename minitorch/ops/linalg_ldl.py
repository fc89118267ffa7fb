"""``linalg.ldl_factor(_ex)`` and ``linalg.ldl_solve``: the Bunch-Kaufman factorisation
``A = P L D L^T P^T`` of symmetric (possibly indefinite) matrices, and solving with it.

The host work is LAPACK's ``sytf2``/``sytrs`` (:mod:`.ldl_host`). PyTorch defines no derivative
for either: the results require grad with a ``NotImplemented`` node whose backward raises.
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from .. import return_types
from ..autograd.function import Context, Underivable
from ..dtypes import int32
from ..out_argument import write_out
from ..tensor import Tensor
from . import ldl_host
from .decompositions import _batch_prefix, _host, _like, check_matrices, check_same_dtype

linalg_ldl_factor = return_types._named_result("linalg_ldl_factor", ("LD", "pivots"))
linalg_ldl_factor_ex = return_types._named_result("linalg_ldl_factor_ex", ("LD", "pivots", "info"))


class LdlFactor(Underivable):
    """``(LD, pivots, info)`` of each matrix; no derivative."""

    @staticmethod
    def forward(ctx: Context, A: Tensor) -> tuple[Tensor, Tensor, Tensor]:  # noqa: N803 - PyTorch's name
        ctx.op = "linalg_ldl_factor_ex"
        host = _host(A)
        batch, size = host.shape[:-2], host.shape[-1]
        factors = [ldl_host.sytf2(matrix) for matrix in host.reshape((_count(batch), size, size))]
        ld = np.array([f[0] for f in factors], dtype=host.dtype).reshape(host.shape)
        pivots = np.array([f[1] for f in factors], dtype=np.int32).reshape(batch + (size,))
        info = np.array([f[2] for f in factors], dtype=np.int32).reshape(batch)
        return _like(ld, A), A.new_tensor(pivots, dtype=int32), A.new_tensor(info, dtype=int32)


class LdlSolve(Underivable):
    """``A^{-1} B`` from ``A``'s :class:`LdlFactor` factors, batches broadcast; no derivative."""

    @staticmethod
    def forward(ctx: Context, LD: Tensor, pivots: Tensor, B: Tensor) -> Tensor:  # noqa: N803
        ctx.op = "linalg_ldl_solve"
        ld, rhs = _host(LD), _host(B)
        host_pivots = pivots.detach()._host_numpy()
        batch = np.broadcast_shapes(ld.shape[:-2], rhs.shape[:-2])
        count = _count(batch)
        ld = np.broadcast_to(ld, batch + ld.shape[-2:]).reshape((count,) + ld.shape[-2:])
        host_pivots = np.broadcast_to(host_pivots, batch + host_pivots.shape[-1:]).reshape((count, ld.shape[-1]))
        rhs = np.broadcast_to(rhs, batch + rhs.shape[-2:]).reshape((count,) + rhs.shape[-2:])
        solved = np.array([ldl_host.sytrs(*parts) for parts in zip(ld, host_pivots, rhs)], dtype=rhs.dtype)
        return _like(solved.reshape(batch + rhs.shape[-2:]), B)


def _count(batch: tuple[int, ...]) -> int:
    """The number of matrices in a batch of shape ``batch``."""
    return int(np.prod(batch, dtype=np.int64))


def ldl_factor_ex(A: Tensor, *, hermitian: bool = False, check_errors: bool = False,  # noqa: N803
                  out: Optional[tuple[Tensor, Tensor, Tensor]] = None) -> tuple[Tensor, Tensor, Tensor]:
    """``(LD, pivots, info)``: ``L`` below the diagonal blocks of ``LD``, ``D`` on them, LAPACK's
    pivots; ``info`` is the 1-based index of the first zero diagonal block (0 for none)."""
    check_matrices(A, "torch.linalg.ldl_factor_ex")
    LD, pivots, info = LdlFactor.apply(A)
    if check_errors:
        _raise_singular(info, "torch.linalg.ldl_factor_ex")
    return write_out(linalg_ldl_factor_ex(LD, pivots, info), out, "linalg_ldl_factor_ex")


def _raise_singular(info: Tensor, op: str) -> None:
    flat = info.numpy().reshape(-1)
    for index, zero in enumerate(flat):
        if zero:
            raise RuntimeError(f"{op}: {_batch_prefix(tuple(info.shape), index)}The factorization could not be "
                               f"completed because the input is singular (the diagonal element {zero} of D is zero).")


def ldl_factor(A: Tensor, *, hermitian: bool = False,  # noqa: N803
               out: Optional[tuple[Tensor, Tensor]] = None) -> tuple[Tensor, Tensor]:
    """``(LD, pivots)`` of :func:`ldl_factor_ex`; a singular matrix raises."""
    LD, pivots, info = ldl_factor_ex(A, hermitian=hermitian)
    _raise_singular(info, "torch.linalg.ldl_factor")
    return write_out(linalg_ldl_factor(LD, pivots), out, "linalg_ldl_factor")


def ldl_solve(LD: Tensor, pivots: Tensor, B: Tensor, *, hermitian: bool = False,  # noqa: N803
              out: Optional[Tensor] = None) -> Tensor:
    """The solution of ``A X = B`` from ``A``'s :func:`ldl_factor`; batches broadcast."""
    check_matrices(LD, "torch.linalg.ldl_solve", name="LD")
    check_matrices(B, "torch.linalg.ldl_solve", square=False, name="B")
    if tuple(pivots.shape) != tuple(LD.shape[:-1]):
        raise RuntimeError(f"torch.linalg.ldl_solve: Expected LD.shape[:-1] and pivots.shape to be the same, but got "
                           f"pivots with shape {list(pivots.shape)} instead")
    check_same_dtype(B, LD)
    if B.shape[-2] != LD.shape[-1]:
        raise RuntimeError(f"Incompatible matrix sizes for torch.linalg.ldl_solve: each A matrix is {LD.shape[-2]} "
                           f"by {LD.shape[-1]} but each b matrix is {B.shape[-2]} by {B.shape[-1]}")
    return write_out(LdlSolve.apply(LD, pivots, B), out, "linalg_ldl_solve")

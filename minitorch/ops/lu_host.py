"""LAPACK's LU routines in NumPy, on batches of matrices: ``getrf`` (LU with partial pivoting),
``getrs`` (solving with its factors) and ``trsm`` (triangular solves), none of which NumPy has.

They follow the reference LAPACK/BLAS order of operations, so they give PyTorch's LU factors
and pivots (the first row of largest magnitude is the pivot; pivots are 1-based ``int32``) and,
for a singular matrix, do not raise: ``getrf`` reports the first zero pivot in ``info`` and
the solves divide by it, giving ``inf`` and ``nan`` as PyTorch's CPU LAPACK does (the pattern
follows from the factors: where PyTorch's LAPACK rounds a pivot to a tiny number instead of an
exact zero, or orders a sum differently, the two can differ). No tensors here: the
callers in :mod:`.linalg_lu` and :mod:`.linalg_solvers` wrap these in autograd Functions.
"""

from __future__ import annotations

import numpy as np

#: the dtype of LAPACK's pivots and ``info``
PIVOT_DTYPE = np.int32


def getrf(matrices: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(LU, pivots, info)`` of each ``m x n`` matrix in ``matrices`` (``(..., m, n)``).

    ``LU`` holds ``U`` on and above the diagonal and ``L`` (unit diagonal) below it; row ``i``
    was swapped with row ``pivots[i] - 1`` at step ``i``; ``info`` is the 1-based index of the
    first zero pivot, 0 when there is none (the factorisation then still completes).
    """
    batch, (rows, cols) = matrices.shape[:-2], matrices.shape[-2:]
    steps = min(rows, cols)
    count = int(np.prod(batch, dtype=np.int64))
    lu = np.array(matrices, copy=True).reshape((count, rows, cols))
    pivots = np.zeros((count, steps), dtype=PIVOT_DTYPE)
    info = np.zeros(count, dtype=PIVOT_DTYPE)
    every = np.arange(count)
    with np.errstate(all="ignore"):
        for step in range(steps):
            pivot_rows = step + np.argmax(np.abs(lu[:, step:, step]), axis=1)
            pivots[:, step] = pivot_rows + 1
            chosen = lu[every, pivot_rows].copy()
            lu[every, pivot_rows] = lu[:, step]
            lu[:, step] = chosen
            pivot = lu[:, step, step]
            zero = pivot == 0
            info[(info == 0) & zero] = step + 1
            # ``dscal`` by the reciprocal, skipped for a zero pivot (its column below is all zeros)
            scale = np.where(zero, 1, 1 / np.where(zero, 1, pivot)).astype(lu.dtype)
            lu[:, step + 1:, step] *= scale[:, None]
            lu[:, step + 1:, step + 1:] -= lu[:, step + 1:, step:step + 1] * lu[:, step:step + 1, step + 1:]
    return (lu.reshape(matrices.shape), pivots.reshape(batch + (steps,)), info.reshape(batch))


def permutation(pivots: np.ndarray, rows: int) -> np.ndarray:
    """The row order ``perm`` the interchanges ``pivots`` (``(..., k)``, 1-based) make of ``rows``
    rows: row ``i`` of ``P^T A`` is row ``perm[i]`` of ``A``."""
    batch, steps = pivots.shape[:-1], pivots.shape[-1]
    count = int(np.prod(batch, dtype=np.int64))
    flat = pivots.reshape((count, steps)).astype(np.int64) - 1
    order = np.broadcast_to(np.arange(rows), (count, rows)).copy()
    every = np.arange(flat.shape[0])
    for step in range(steps):
        target = flat[:, step]
        moved = order[every, target].copy()
        order[every, target] = order[:, step]
        order[:, step] = moved
    return order.reshape(batch + (rows,))


def permutation_matrix(pivots: np.ndarray, rows: int, dtype: np.dtype) -> np.ndarray:
    """``P`` with ``A = P L U``: ``P[perm[i], i] = 1``."""
    order = permutation(pivots, rows)
    flat = order.reshape((int(np.prod(order.shape[:-1], dtype=np.int64)), rows))
    matrix = np.zeros((flat.shape[0], rows, rows), dtype=dtype)
    matrix[np.arange(flat.shape[0])[:, None], flat, np.arange(rows)[None, :]] = 1
    return matrix.reshape(order.shape[:-1] + (rows, rows))


def trsm(triangle: np.ndarray, rhs: np.ndarray, lower: bool, unit: bool) -> np.ndarray:
    """``T^{-1} B`` for a lower (or upper) triangular ``T`` read from its triangle only (its
    diagonal taken as ones when ``unit``), batches broadcast; a column sweep that divides and
    updates every entry, zeros too, as PyTorch's CPU BLAS does (so a zero on the diagonal gives
    ``0/0 = nan`` for a zero entry of the solution, and ``nan`` spreads through the updates)."""
    size = triangle.shape[-1]
    batch = np.broadcast_shapes(triangle.shape[:-2], rhs.shape[:-2])
    triangle = np.broadcast_to(triangle, batch + triangle.shape[-2:])
    solution = np.array(np.broadcast_to(rhs, batch + rhs.shape[-2:]), copy=True)
    order = range(size) if lower else reversed(range(size))
    with np.errstate(all="ignore"):
        for k in order:
            if not unit:
                solution[..., k, :] /= triangle[..., k, k, None]
            rest = slice(k + 1, None) if lower else slice(0, k)
            solution[..., rest, :] -= triangle[..., rest, k, None] * solution[..., None, k, :]
    return solution


def getrs(lu: np.ndarray, pivots: np.ndarray, rhs: np.ndarray, transpose: bool = False) -> np.ndarray:
    """``A^{-1} B`` (``A^{-T} B`` when ``transpose``) from ``A``'s ``getrf`` factors, batches broadcast."""
    batch = np.broadcast_shapes(lu.shape[:-2], rhs.shape[:-2])
    lu = np.broadcast_to(lu, batch + lu.shape[-2:])
    pivots = np.broadcast_to(pivots, batch + pivots.shape[-1:])
    rhs = np.broadcast_to(rhs, batch + rhs.shape[-2:])
    order = permutation(pivots, lu.shape[-1])
    if not transpose:
        permuted = np.take_along_axis(rhs, order[..., None], axis=-2)
        return trsm(lu, trsm(lu, permuted, lower=True, unit=True), lower=False, unit=False)
    lu_t = np.swapaxes(lu, -1, -2)
    solved = trsm(lu_t, trsm(lu_t, rhs, lower=True, unit=False), lower=False, unit=True)
    result = np.empty_like(solved)
    np.put_along_axis(result, np.broadcast_to(order[..., None], solved.shape), solved, axis=-2)
    return result

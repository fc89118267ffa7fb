"""LAPACK's symmetric indefinite factorisation in NumPy: ``sytf2`` (Bunch-Kaufman pivoting,
``A = P L D L^T P^T`` read from the lower triangle) and ``sytrs`` (solving with its factors).

``D`` is block diagonal with 1 x 1 and 2 x 2 blocks. The pivots are LAPACK's: 1-based, positive
``p`` at step ``k`` for a 1 x 1 block after swapping rows and columns ``k`` and ``p``, and ``-p``
at both steps of a 2 x 2 block after swapping ``k + 1`` and ``p``. The pivot choices depend on
each matrix's values, so the loops run matrix by matrix. No tensors here (:mod:`.linalg_ldl`).
"""

from __future__ import annotations

import math

import numpy as np

#: Bunch and Kaufman's threshold, which bounds the growth of the entries of ``L``
ALPHA = (1 + math.sqrt(17)) / 8


def _choose_pivot(a: np.ndarray, k: int) -> tuple[int, int, bool]:
    """``(kp, step, zero)``: the row to swap in, the block size, and whether column ``k`` is zero."""
    size = a.shape[0]
    absakk = abs(a[k, k])
    imax, colmax = k, 0.0
    if k + 1 < size:
        imax = k + 1 + int(np.argmax(np.abs(a[k + 1:, k])))
        colmax = abs(a[imax, k])
    if max(absakk, colmax) == 0 or math.isnan(absakk):
        return k, 1, True
    if absakk >= ALPHA * colmax:
        return k, 1, False
    rowmax = float(np.max(np.abs(a[imax, k:imax]))) if imax > k else 0.0
    if imax + 1 < size:
        rowmax = max(rowmax, float(np.max(np.abs(a[imax + 1:, imax]))))
    if absakk >= ALPHA * colmax * (colmax / rowmax):
        return k, 1, False
    if abs(a[imax, imax]) >= ALPHA * rowmax:
        return imax, 1, False
    return imax, 2, False


def _swap(a: np.ndarray, kk: int, kp: int) -> None:
    """Swap rows and columns ``kk < kp`` of the trailing lower triangle."""
    a[kp + 1:, [kk, kp]] = a[kp + 1:, [kp, kk]]
    between = a[kk + 1:kp, kk].copy()
    a[kk + 1:kp, kk] = a[kp, kk + 1:kp]
    a[kp, kk + 1:kp] = between
    a[kk, kk], a[kp, kp] = a[kp, kp], a[kk, kk]


def sytf2(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """``(LD, pivots, info)`` of one symmetric matrix (its lower triangle read): ``L`` below the
    diagonal blocks, ``D`` on them, the strict upper triangle zero; ``info`` is the 1-based index
    of the first zero diagonal block, 0 for none."""
    a = np.tril(np.array(matrix, copy=True))
    size = a.shape[0]
    pivots = np.zeros(size, dtype=np.int32)
    info, k = 0, 0
    with np.errstate(all="ignore"):
        while k < size:
            kp, step, zero = _choose_pivot(a, k)
            if zero:
                info = info or k + 1
                pivots[k] = k + 1
                k += 1
                continue
            kk = k + step - 1
            if kp != kk:
                _swap(a, kk, kp)
                if step == 2:
                    a[k + 1, k], a[kp, k] = a[kp, k], a[k + 1, k]
            if step == 1:
                if k + 1 < size:
                    inverse = 1 / a[k, k]
                    column = a[k + 1:, k].copy()
                    a[k + 1:, k + 1:] -= np.tril(inverse * np.outer(column, column))
                    a[k + 1:, k] = column * inverse
                pivots[k] = kp + 1
            else:
                if k + 2 < size:
                    d21 = a[k + 1, k]
                    d11, d22 = a[k + 1, k + 1] / d21, a[k, k] / d21
                    d21 = (1 / (d11 * d22 - 1)) / d21
                    first, second = a[k + 2:, k].copy(), a[k + 2:, k + 1].copy()
                    wk = d21 * (d11 * first - second)
                    wkp1 = d21 * (d22 * second - first)
                    a[k + 2:, k + 2:] -= np.tril(np.outer(first, wk) + np.outer(second, wkp1))
                    a[k + 2:, k], a[k + 2:, k + 1] = wk, wkp1
                pivots[k] = pivots[k + 1] = -(kp + 1)
            k += step
    return a, pivots, info


def sytrs(ld: np.ndarray, pivots: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """``A^{-1} B`` for one matrix ``A`` given by :func:`sytf2`'s factors."""
    b = np.array(rhs, copy=True)
    size = ld.shape[0]
    with np.errstate(all="ignore"):
        k = 0
        while k < size:  # L D Y = P^T B
            if pivots[k] > 0:
                kp = pivots[k] - 1
                b[[k, kp]] = b[[kp, k]]
                b[k + 1:] -= np.outer(ld[k + 1:, k], b[k])
                b[k] /= ld[k, k]
                k += 1
                continue
            kp = -pivots[k] - 1
            b[[k + 1, kp]] = b[[kp, k + 1]]
            b[k + 2:] -= np.outer(ld[k + 2:, k], b[k]) + np.outer(ld[k + 2:, k + 1], b[k + 1])
            akm1k = ld[k + 1, k]
            akm1, ak = ld[k, k] / akm1k, ld[k + 1, k + 1] / akm1k
            denominator = akm1 * ak - 1
            bkm1, bk = b[k] / akm1k, b[k + 1] / akm1k
            b[k], b[k + 1] = (ak * bkm1 - bk) / denominator, (akm1 * bk - bkm1) / denominator
            k += 2
        k = size - 1
        while k >= 0:  # L^T P^T X = Y
            if pivots[k] > 0:
                b[k] -= ld[k + 1:, k] @ b[k + 1:]
                kp = pivots[k] - 1
                b[[k, kp]] = b[[kp, k]]
                k -= 1
                continue
            b[k] -= ld[k + 1:, k] @ b[k + 1:]
            b[k - 1] -= ld[k + 1:, k - 1] @ b[k + 1:]
            kp = -pivots[k] - 1
            b[[k, kp]] = b[[kp, k]]
            k -= 2
    return b

"""Arithmetic rounded as PyTorch's compiled CPU kernels round it.

PyTorch's kernels are compiled with fused multiply-adds: :math:`a b + c` is rounded once, not
after the product and again after the sum. Where a result's last bit decides something a user
sees (which pixel ``grid_sample`` reads first, which value ``linspace`` lands on), minitorch
rounds the same way. NumPy has no fused multiply-add, so it is built here from exact pieces.
"""

from __future__ import annotations

import numpy as np

#: Veltkamp's splitting constant for float64, :math:`2^{27} + 1`
SPLITTER = 134217729.0


def fused_multiply_add(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """:math:`a b + c` with (almost always) one rounding, in float64: the product's rounding error
    found exactly by Dekker's two-product, the sum's by Knuth's two-sum, both added back."""
    product = a * b
    a_high = SPLITTER * a - (SPLITTER * a - a)
    b_high = SPLITTER * b - (SPLITTER * b - b)
    a_low, b_low = a - a_high, b - b_high
    product_error = ((a_high * b_high - product) + a_high * b_low + a_low * b_high) + a_low * b_low
    total = product + c
    c_part = total - product
    sum_error = (product - (total - c_part)) + (c - c_part)
    return total + (sum_error + product_error)


def fused_multiply_add_float32(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """:math:`a b + c` for float32 operands with (almost always) one rounding: the product is exact
    in float64, so only the sum rounds there before the final rounding to float32 (the two roundings
    differ from one only for sums within :math:`2^{-29}` of a float32 halfway point)."""
    wide = np.asarray(a, np.float64) * np.asarray(b, np.float64) + np.asarray(c, np.float64)
    return wide.astype(np.float32)


def fused_multiply_add_in(dtype: np.dtype, a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """:math:`a b + c` rounded once to ``dtype`` (float32 or float64), the operands cast to it first."""
    dtype = np.dtype(dtype)
    a, b, c = (np.asarray(v, dtype=dtype) for v in (a, b, c))
    if dtype == np.float32:
        return fused_multiply_add_float32(a, b, c)
    return fused_multiply_add(a, b, c)


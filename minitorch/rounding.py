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

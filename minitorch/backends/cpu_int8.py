"""The int8 matrix product of dynamic quantization (course task 11.3), a Numba kernel.

:func:`int8_matmul_kernel` computes ``out[i, j] = sum_k a[i, k] * b[j, k]`` for activations
``a`` stored as unsigned bytes (quint8's integers, 0..255), weights ``b`` as signed bytes
(qint8's, -128..127) with one row per output feature, as ``Linear`` stores its weight, and
sums in int32. A product of two bytes needs 16 bits, and ``K`` of them at most
:math:`K \\cdot 255 \\cdot 128`: int32 holds that for ``K`` up to 65,793, which the caller checks.

Both operands are read along ``k``, contiguously, so the inner loop is a dot product of two
byte rows, which LLVM turns into SIMD multiplies and adds. Measured at 256 x 784 x 256: 21
GOPS on one core, 28 to 37 on two (products in int16 or in int32 differ by less than the
noise). Computing four columns at once, to reuse each byte of ``a``, gave less than half:
LLVM no longer vectorised the four sums.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from . import kernel_cache
from .cpu_kernels import KERNEL_OPTIONS, launch, prange_only

# cached under a digest of this file's source and of what it compiles in (see :mod:`.kernel_cache`)
kernel_cache.register(__file__)

#: the longest dot product an int32 sum of u8 x s8 products can hold without overflow
INT8_MAX_DEPTH = (2**31 - 1) // (255 * 128)


@njit(inline="always", **KERNEL_OPTIONS)
def int8_dot(a: np.ndarray, b: np.ndarray, i: int, j: int) -> np.int32:
    """``sum_k a[i, k] * b[j, k]`` in int32."""
    # BEGIN SOLUTION 11.3
    total = np.int32(0)
    for k in range(a.shape[1]):
        # a u8 x s8 product lies in [-32640, 32385]: exact in int16, and int16 lanes are twice
        # as many per SIMD register as int32 ones; the sum needs int32
        total += np.int32(np.int16(a[i, k]) * np.int16(b[j, k]))
    return total
    # END SOLUTION


@njit(**KERNEL_OPTIONS)
def int8_matmul_serial(out: np.ndarray, a: np.ndarray, b: np.ndarray) -> None:
    """``out[i, j] = sum_k a[i, k] * b[j, k]`` on one thread (small products)."""
    for i in range(a.shape[0]):
        for j in range(b.shape[0]):
            out[i, j] = int8_dot(a, b, i, j)


@njit(parallel=prange_only(), **KERNEL_OPTIONS)
def int8_matmul_parallel(out: np.ndarray, a: np.ndarray, b: np.ndarray) -> None:
    """``out[i, j] = sum_k a[i, k] * b[j, k]`` with the rows of ``out`` shared among threads."""
    # BEGIN SOLUTION 11.3
    for i in prange(a.shape[0]):
        for j in range(b.shape[0]):
            out[i, j] = int8_dot(a, b, i, j)
    # END SOLUTION


def int8_matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a @ b.T`` summed in int32, for C-contiguous ``a`` (uint8, M x K) and ``b`` (int8, N x K)."""
    if a.dtype != np.uint8 or b.dtype != np.int8:
        raise TypeError(f"int8_matmul multiplies uint8 by int8, got {a.dtype} and {b.dtype}")
    if a.ndim != 2 or b.ndim != 2 or a.shape[1] != b.shape[1]:
        raise ValueError(f"int8_matmul: shapes {a.shape} and {b.shape} don't match (a is M x K, b is N x K)")
    if a.shape[1] > INT8_MAX_DEPTH:
        raise ValueError(f"int8_matmul: {a.shape[1]} terms per sum could overflow int32 (at most {INT8_MAX_DEPTH})")
    out = np.empty((a.shape[0], b.shape[0]), dtype=np.int32)
    launch(out.size * a.shape[1], int8_matmul_parallel, int8_matmul_serial, out, np.ascontiguousarray(a),
           np.ascontiguousarray(b))
    return out


@njit(**KERNEL_OPTIONS)
def quantize_u8_kernel(out: np.ndarray, values: np.ndarray, inverse: float, zero_point: float) -> None:
    """``out[i] = clamp(rint(float32(values[i] * inverse + zero_point)), 0, 255)`` for float32
    ``values`` (the rounding of :func:`minitorch.quantized.qtensor.quantize_values`: the product
    of two float32 numbers is exact in float64, so this is one fused multiply-add); NaN gives 0."""
    for i in range(values.size):
        rounded = np.rint(np.float32(np.float64(values[i]) * inverse + zero_point))
        if not rounded >= 0:  # negative or NaN
            rounded = 0
        elif rounded > 255:
            rounded = 255
        out[i] = np.uint8(rounded)


def quantize_u8(values: np.ndarray, scale: float, zero_point: int) -> np.ndarray:
    """float32 ``values`` as quint8's integers with ``scale`` and ``zero_point`` (any shape)."""
    if values.dtype != np.float32:
        raise TypeError(f"quantize_u8 reads float32 values, got {values.dtype}")
    flat = np.ascontiguousarray(values).reshape(-1)
    out = np.empty(flat.size, dtype=np.uint8)
    inverse = float(np.float32(1) / np.float32(scale))
    quantize_u8_kernel(out, flat, inverse, float(zero_point))
    return out.reshape(values.shape)

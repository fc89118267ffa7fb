"""bfloat16 on the GPU by its bits: Numba's CUDA target has float16 but no bfloat16 type.

A bfloat16 is the upper half of a float32, so the cuda backend reads bfloat16 storage as
``uint16`` and converts with integer arithmetic on contiguous buffers:

* :func:`widen_kernel` puts the 16 bits above 16 zero bits: the float32 of the same value (exact);
* :func:`round_kernel` rounds a float32 to nearest, ties to even, as PyTorch's
  ``round_to_nearest_even`` (a NaN becomes the quiet NaN ``0x7FC0``; past the largest bfloat16 is inf).
"""

from __future__ import annotations

import numpy as np
from numba import cuda

#: the bits above a bfloat16's in its float32
SHIFT = 16
#: float32 bits of an exponent field all ones (inf and NaN)
EXPONENT_MASK = np.uint32(0x7F800000)
#: float32 bits of the significand
SIGNIFICAND_MASK = np.uint32(0x007FFFFF)
#: the quiet NaN PyTorch's rounding gives every NaN
QUIET_NAN = np.uint16(0x7FC0)
#: half a bfloat16 unit in the last place, less one: with the kept bit's 1 a tie rounds to even
ROUNDING_BIAS = np.uint32(0x7FFF)


@cuda.jit
def widen_kernel(size, out, source):  # type: ignore[no-untyped-def]
    """``out[i]`` (float32 bits, uint32) = ``source[i]`` (bfloat16 bits, uint16) shifted up."""
    i = cuda.grid(1)
    stride = cuda.gridsize(1)
    while i < size:
        out[i] = np.uint32(source[i]) << SHIFT
        i += stride


@cuda.jit
def round_kernel(size, out, source):  # type: ignore[no-untyped-def]
    """``out[i]`` (bfloat16 bits, uint16) = ``source[i]`` (float32 bits, uint32) rounded to nearest even."""
    i = cuda.grid(1)
    stride = cuda.gridsize(1)
    while i < size:
        bits = np.uint32(source[i])
        if (bits & EXPONENT_MASK) == EXPONENT_MASK and (bits & SIGNIFICAND_MASK) != 0:
            out[i] = QUIET_NAN
        else:
            kept = (bits >> SHIFT) & np.uint32(1)
            out[i] = np.uint16((bits + ROUNDING_BIAS + kept) >> SHIFT)
        i += stride

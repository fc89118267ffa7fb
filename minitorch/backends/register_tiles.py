"""Sums that stay in SIMD registers: stack tiles for the inner loops of the matrix products.

A matrix product's inner loop adds ``a[i, p] * b[p, j]`` into a tile of ``out`` for each ``p``.
The loop runs at the speed of the CPU's multiply-add units only if the tile's running sums stay
in registers: a sum kept in memory costs a load and a store per multiply-add. LLVM keeps an
array's elements in registers only when it can prove that no other pointer of the loop reaches
them. That holds for a stack allocation whose address never leaves the function; it does not
hold for a NumPy array, which Numba allocates on the heap, and which to LLVM might share
memory with any array argument. :func:`stack_tile` is such a stack allocation.

A tile that needs more registers than the CPU has is spilled to memory at every step, which is
slower than keeping it in memory on purpose (:func:`fits_in_registers` decides).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic, overload

from .vector_width import compiled_vector_bytes

#: (SIMD register bytes, registers) of the targets whose tiles stay in registers: AVX-512's 32
#: registers of 64 bytes (AVX2 and SSE2 have 16, too few for a tile and the operands beside it)
REGISTER_FILES = {64: 32}


def fits_in_registers(sums: int, itemsize: int = 4) -> bool:
    """Whether a tile of ``sums`` elements of ``itemsize`` bytes stays in the SIMD registers Numba
    compiles for (at most half of them for float32, so that the operands have room beside it;
    float64 tiles of the same shape take them all, and measured faster than in memory still)."""
    vector_bytes = compiled_vector_bytes()
    registers = REGISTER_FILES.get(vector_bytes, 0)
    return sums * itemsize <= registers // 2 * vector_bytes


def stack_tile(like: np.ndarray, size: int) -> np.ndarray:
    """An uninitialised array of ``size`` elements (a compile-time constant) of ``like``'s dtype:
    on the stack in compiled code, until the function returns; a NumPy array in Python."""
    return np.empty(size, like.dtype)


@intrinsic(prefer_literal=True)
def _stack_tile(typingctx: Any, like: types.Array, size: types.IntegerLiteral) -> Any:
    if not isinstance(size, types.IntegerLiteral):
        return None
    dtype, count = like.dtype, size.literal_value
    array_type = types.Array(dtype, 1, "C")

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        element = context.get_value_type(dtype)
        data = cgutils.alloca_once(builder, element, size=count)
        array = context.make_array(array_type)(context, builder)
        itemsize = context.get_constant(types.intp, context.get_abi_sizeof(element))
        context.populate_array(array, data=data, shape=[context.get_constant(types.intp, count)],
                               strides=[itemsize], itemsize=itemsize, meminfo=None)
        return array._getvalue()

    return array_type(like, size), codegen


@overload(stack_tile, target="cpu", inline="always", prefer_literal=True)
def _stack_tile_overload(like: Any, size: Any) -> Any:
    def tile(like: Any, size: Any) -> Any:
        return _stack_tile(like, size)

    return tile

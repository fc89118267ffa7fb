r"""A fused multiply-add for the kernels: :math:`x y + z` rounded once.

PyTorch's CPU kernels compute ``add(a, b, alpha=)``, ``sub``, ``lerp``, ``addcmul`` and the
optimizers' steps built on them with fused multiply-adds: :math:`a + \alpha b` is one FMA
instruction with one rounding, where :math:`\alpha b` rounded and then added rounds twice. In
float32 the two differ in about one element in five (measured against PyTorch 2.13), and an
SGD step then moves a fifth of the weights by an ulp more or less than PyTorch's.

:func:`fma` is LLVM's ``llvm.fma``: one rounding on every CPU, an FMA instruction where the CPU
has one (every x86-64 since 2013 and every 64-bit ARM), the C library's ``fma`` where it has
not. So minitorch's results are the same on any machine. (LLVM's other multiply-add,
``llvm.fmuladd``, fuses only where the CPU has the instruction: the results would then depend on
the CPU the kernels were compiled for.) Numba has no ``fma`` of its own, so this is a Numba
*intrinsic*: a function whose body is the LLVM instruction, compiled into the kernel that calls
it, which Numba's on-disk cache keeps like any other code.

Plain Python has no ``fma`` before 3.13: :func:`fma_reference` gives the same result exactly,
with rational arithmetic, for tests and the reference backend.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np
from llvmlite import ir
from numba.core import cgutils, types
from numba.extending import intrinsic, overload

#: LLVM's name of ``llvm.fma`` for each float type the kernels compute in
_LLVM_SUFFIX = {types.float32: "f32", types.float64: "f64"}


def fma(x: Any, y: Any, z: Any) -> Any:
    r""":math:`x y + z` rounded once, for three floats of one type (float32 or float64).

    Inside a kernel, LLVM's ``llvm.fma`` (the overload below); called from Python (the CUDA
    simulator runs kernels so), :func:`fma_reference`."""
    return fma_reference(x, y, z)


@intrinsic
def _llvm_fma(typingctx: Any, x: types.Type, y: types.Type, z: types.Type) -> Any:
    """``llvm.fma`` of three floats of one type."""
    if not (x == y == z and x in _LLVM_SUFFIX):
        return None
    signature = x(x, y, z)

    def codegen(context: Any, builder: ir.IRBuilder, sig: Any, args: Any) -> ir.Value:
        value_type = args[0].type
        function_type = ir.FunctionType(value_type, [value_type] * 3)
        function = cgutils.get_or_insert_function(builder.module, function_type, f"llvm.fma.{_LLVM_SUFFIX[x]}")
        return builder.call(function, args)

    return signature, codegen


@overload(fma)
def _fma(x, y, z):  # type: ignore[no-untyped-def] # Numba requires the implementation's very signature
    if x == y == z and x in _LLVM_SUFFIX:
        return lambda x, y, z: _llvm_fma(x, y, z)
    return None


def fma_reference(x: Any, y: Any, z: Any) -> Any:
    r""":math:`x y + z` rounded once to the type of ``x`` (a NumPy float32 or float64, or a Python
    float): the exact rational result, rounded to nearest even. A float32 is rounded from the
    exact value directly, since rounding to float64 first could round twice."""
    kind = type(x)
    if not all(math.isfinite(float(v)) for v in (x, y, z)):
        return kind(float(x) * float(y) + float(z))  # inf and NaN: IEEE arithmetic has one answer
    exact = Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z))
    if kind is np.float32:
        return _round_to_float32(exact)
    return kind(float(exact))  # Fraction's float() rounds correctly, to nearest even


def _round_to_float32(exact: Fraction) -> np.float32:
    """The float32 nearest ``exact`` (ties to even), without rounding to float64 first."""
    guess = np.float32(float(exact))
    if not np.isfinite(guess) or Fraction(float(guess)) == exact:
        return guess
    low, high = (guess, np.nextafter(guess, np.float32(np.inf))) if Fraction(float(guess)) < exact \
        else (np.nextafter(guess, np.float32(-np.inf)), guess)
    below, above = exact - Fraction(float(low)), Fraction(float(high)) - exact
    if below != above:
        return low if below < above else high
    return low if int(np.float32(low).view(np.int32)) % 2 == 0 else high

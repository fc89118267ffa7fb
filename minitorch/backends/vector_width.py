"""The SIMD width that Numba's LLVM compiles the CPU kernels for.

On CPUs with AVX-512 (Intel's server and workstation parts from Skylake-SP on), LLVM's
tuning for the CPU prefers 256-bit vectors, although the CPU has 512-bit registers: on the
first of these CPUs, 512-bit instructions lowered the clock of the whole core, which costs
more than it gains in code that only now and then has a short vector loop. The kernels of
this backend are the other case: long, regular loops (polynomials for ``exp`` and ``tanh``,
the multiply-adds of a matrix product) that do twice the work per instruction at 512 bits.
PyTorch's CPU kernels make the same choice on these CPUs.

So, before the first kernel is declared, :func:`prefer_full_vector_width` gives Numba the
host's features with that one preference turned off (``-prefer-256-bit``, an LLVM tuning
feature). Numba compiles every function of a process with one target machine, made when
the first function is declared, so:

* the setting holds for the whole process, the user's own Numba functions included: the same
  operations, twice as wide (results change only where ``fastmath`` lets LLVM reorder a sum,
  since the order follows the vector width);
* it only applies if minitorch is imported before any other Numba function is declared;
* ``NUMBA_CPU_NAME`` or ``NUMBA_CPU_FEATURES`` in the environment is the user's own choice
  of target, and left alone (``NUMBA_CPU_FEATURES`` set to the host's features keeps
  LLVM's 256-bit preference).

The features are part of the key of Numba's on-disk cache, so code compiled either way is
never loaded for the other.

Measured by ``bench/run.py`` on a 2-core Cascade Lake, 2 threads, in two pairs of runs taken
one after the other (256-bit preference, then this): float32 ops on 1e6 elements, ``exp``
1.33 and 1.11 ms -> 0.75 and 0.79 ms, ``log`` 2.06 and 1.56 -> 1.03 and 1.10, ``tanh`` 1.95
and 1.95 -> 1.20 and 1.20, ``sigmoid`` 2.18 and 2.02 -> 1.31 and 1.27, ``erf`` 3.20 and 3.24
-> 1.81 and 1.82; the memory-bound ``add`` and the matrix products within the noise.
"""

from __future__ import annotations

import os
from typing import Optional

from numba.core import codegen, config

#: LLVM's tuning feature that keeps vectorised loops at 256 bits on CPUs with AVX-512
PREFER_256_BIT = "prefer-256-bit"
#: the environment variables by which a user chooses Numba's target
USER_CHOICES = ("NUMBA_CPU_NAME", "NUMBA_CPU_FEATURES")


def full_width_features(numba_features: str) -> Optional[str]:
    """Numba's feature string for the host (``+name`` or ``-name``, comma-separated) without the
    256-bit preference; ``None`` where it has no 512-bit vectors."""
    if "+avx512f" not in numba_features.split(","):
        return None
    return f"{numba_features},-{PREFER_256_BIT}"


def prefer_full_vector_width() -> bool:
    """Let LLVM use the CPU's full vector width in this process; whether it was set."""
    if any(os.environ.get(name) for name in USER_CHOICES):
        return False
    # Numba's own reading of the host (empty where LLVM cannot tell, no AVX under NUMBA_ENABLE_AVX=0)
    features = full_width_features(codegen.get_host_cpu_features())
    if features is None:
        return False
    config.CPU_FEATURES = features
    return True


#: bytes of a SIMD register by the feature that brings it (the widest present wins)
REGISTER_BYTES = (("+avx512f", 64), ("+avx", 32))
#: SIMD register bytes where no feature above is present (SSE2 on x86-64, NEON on ARM)
BASELINE_REGISTER_BYTES = 16


def compiled_vector_bytes() -> int:
    """The widest vector Numba's code uses in this process: 64 with AVX-512 once its 256-bit
    preference is off (:func:`prefer_full_vector_width`), 32 with AVX or AVX2 (or AVX-512 with the
    preference on), 16 otherwise (``NUMBA_CPU_NAME=generic``, whose features Numba empties)."""
    flags = target_features()
    for flag, size in REGISTER_BYTES:
        if flag in flags:
            if size == 64 and f"-{PREFER_256_BIT}" not in flags:
                continue
            return size
    return BASELINE_REGISTER_BYTES


def target_features() -> set[str]:
    """The features Numba compiles for in this process (``+name`` or ``-name``): those set in its
    configuration, else the host's."""
    features = config.CPU_FEATURES if config.CPU_FEATURES is not None else codegen.get_host_cpu_features()
    return set(features.split(","))


def scales_by_powers_of_two() -> bool:
    r"""Whether LLVM compiles its ``ldexp`` (:math:`x \cdot 2^k`) to one instruction here:
    ``vscalefps`` with AVX-512; elsewhere it is a call of the C library's ``ldexpf`` (15 times slower
    than two multiplies in a loop of 1e6 float32 with AVX2, measured on a 2-core Xeon)."""
    return "+avx512f" in target_features()

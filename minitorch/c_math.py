"""The C math library's ``lgamma`` and ``log1pf``, for samplers that must compute what PyTorch's
compiled kernels compute.

Python's :mod:`math` calls the C library for ``log``, ``exp``, ``log1p`` and ``sqrt``, but computes
``lgamma`` its own way (a few units in the last place away from the C library's now and then) and
has no single-precision functions, whose C versions need not be correctly rounded (``log1pf`` is
not, in some C libraries). PyTorch's CPU kernels call the C library's, so these do too: they are
looked up in the running process (which links the C math library), and where they cannot be
found, :mod:`math`'s stand in (``log1pf`` as ``log1p`` rounded to single precision).
"""

from __future__ import annotations

import ctypes
import math
from functools import lru_cache
from typing import Callable, Optional

import numpy as np


def _process_function(name: str, ctype: type) -> Optional[Callable[[float], float]]:
    """The C function ``name`` of one ``ctype`` argument and result, from the running process, or None."""
    try:
        function = getattr(ctypes.CDLL(None), name)
    except (OSError, AttributeError, TypeError):  # no such symbol, or no process handle on this platform
        return None
    function.restype = ctype
    function.argtypes = [ctype]
    return function


@lru_cache(maxsize=None)
def _lgamma() -> Callable[[float], float]:
    return _process_function("lgamma", ctypes.c_double) or math.lgamma


@lru_cache(maxsize=None)
def _log1pf() -> Callable[[float], float]:
    return _process_function("log1pf", ctypes.c_float) or (lambda x: float(np.float32(math.log1p(x))))


def lgamma(x: float) -> float:
    r"""The C library's :math:`\log|\Gamma(x)|` of a double."""
    return _lgamma()(x)


def log1pf(x: float) -> float:
    r"""The C library's single-precision :math:`\log(1 + x)` of ``x`` (a float32 value), as a Python float."""
    return _log1pf()(x)


__all__ = ["lgamma", "log1pf"]

"""NumPy oracles of the elementwise math ops of issue 17, shared by the backend tests (erf and
erfc from Python's libm, erfinv from PyTorch, the oracle of the project's differential tests)."""

from __future__ import annotations

import math
from typing import Callable

import numpy as np


def _erfinv(x: np.ndarray) -> np.ndarray:
    import torch

    return torch.erfinv(torch.from_numpy(np.asarray(x, dtype=np.float64))).numpy().astype(np.asarray(x).dtype)


def _libm(function: Callable[[float], float]) -> Callable[[np.ndarray], np.ndarray]:
    return lambda x: np.vectorize(function, otypes=[np.float64])(x).astype(np.asarray(x).dtype)


MATH_NUMPY: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "tan": np.tan, "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan, "sinh": np.sinh,
    "cosh": np.cosh, "asinh": np.arcsinh, "acosh": np.arccosh, "atanh": np.arctanh,
    "erf": _libm(math.erf), "erfc": _libm(math.erfc), "erfinv": _erfinv, "log1p": np.log1p,
    "expm1": np.expm1, "log2": np.log2, "log10": np.log10, "exp2": np.exp2, "floor": np.floor,
    "ceil": np.ceil, "round": np.round, "trunc": np.trunc, "rsqrt": lambda x: 1 / np.sqrt(x),
    "reciprocal": np.reciprocal,
}
MATH_BINARY_NUMPY: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "atan2": np.arctan2, "hypot": np.hypot, "fmod": np.fmod, "remainder": np.remainder,
    "int_fmod": np.fmod, "int_remainder": np.remainder,
}

"""NumPy oracles of the elementwise math ops of issue 17, shared by the backend tests (erf and
erfc from Python's libm, erfinv from PyTorch, the oracle of the project's differential tests)."""

from __future__ import annotations

import math
from typing import Callable

import numpy as np


def _erfinv(x: np.ndarray) -> np.ndarray:
    import torch

    return torch.erfinv(torch.from_numpy(np.asarray(x, dtype=np.float64))).numpy().astype(np.asarray(x).dtype)


def _torch_special(name: str) -> Callable[[np.ndarray], np.ndarray]:
    """``torch.special.<name>`` computed in float64, rounded to the input's dtype."""

    def oracle(x: np.ndarray) -> np.ndarray:
        import torch

        wide = torch.from_numpy(np.asarray(x, dtype=np.float64))
        return getattr(torch.special, name)(wide).numpy().astype(np.asarray(x).dtype)

    return oracle


def _polygamma(x: np.ndarray, n: np.ndarray) -> np.ndarray:
    r"""The kernel's :math:`\psi^{(n)}(x)`: mpmath's to float64 for a whole ``n`` from 1 to 170
    and a finite ``x`` off the poles (PyTorch's trigamma is accurate to only about 1e-10);
    PyTorch's values at infinities and poles (+inf at the trigamma's poles, where PyTorch gives
    the rounding artefact :math:`\pi^2/\sin^2(\pi x)`); NaN for any other ``n``."""
    import mpmath

    x, n = np.broadcast_arrays(np.asarray(x), np.asarray(n))
    result = np.empty(x.shape)
    for index, (value, order) in enumerate(zip(x.astype(np.float64).ravel(), n.astype(np.float64).ravel())):
        sign = 1.0 if order % 2 == 1 else -1.0
        if np.isnan(value) or not (1 <= order <= 170 and order == np.floor(order)):
            answer = np.nan
        elif value == np.inf:
            answer = 0.0 if order == 1 else np.nan
        elif value <= 0 and value == np.floor(value):
            answer = np.nan if (value == -np.inf and order == 1) else sign * np.inf
        else:
            with mpmath.workdps(40):
                answer = float(mpmath.polygamma(int(order), mpmath.mpf(float(value))))
        result.flat[index] = answer
    return result.astype(x.dtype)


def _libm(function: Callable[[float], float]) -> Callable[[np.ndarray], np.ndarray]:
    return lambda x: np.vectorize(function, otypes=[np.float64])(x).astype(np.asarray(x).dtype)


MATH_NUMPY: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "tan": np.tan, "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan, "sinh": np.sinh,
    "cosh": np.cosh, "asinh": np.arcsinh, "acosh": np.arccosh, "atanh": np.arctanh,
    "erf": _libm(math.erf), "erfc": _libm(math.erfc), "erfinv": _erfinv, "log1p": np.log1p,
    "expm1": np.expm1, "log2": np.log2, "log10": np.log10, "exp2": np.exp2, "floor": np.floor,
    "ceil": np.ceil, "round": np.round, "trunc": np.trunc, "rsqrt": lambda x: 1 / np.sqrt(x),
    "reciprocal": np.reciprocal,
    **{name: _torch_special(name) for name in ("digamma", "i0", "i0e", "i1", "i1e", "erfcx")},
    "lgamma": _torch_special("gammaln"),
}
def _trunc_divide(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The quotient rounded towards zero, from NumPy's exact floored one (a zero divisor gives 0)."""
    floored = np.floor_divide(x, y)
    return np.where((floored < 0) & (floored * y != x), floored + 1, floored).astype(np.result_type(x, y))


MATH_BINARY_NUMPY: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "atan2": np.arctan2, "hypot": np.hypot, "fmod": np.fmod, "remainder": np.remainder,
    "int_fmod": np.fmod, "int_remainder": np.remainder, "polygamma": _polygamma,
    "floor_divide": np.floor_divide, "int_floor_divide": np.floor_divide, "int_trunc_divide": _trunc_divide,
}

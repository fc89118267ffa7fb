"""Fit the polynomials of ``minitorch/backends/vector_math.py`` and print them as Python.

Each function there reduces its argument to a short interval and evaluates a polynomial on
it. This script fits those polynomials: least squares on Chebyshev nodes of the interval,
weighted so that the error measured is the *relative* error of the final result (what an ulp
is), in 60-digit arithmetic. On Chebyshev nodes least squares comes within a small factor of
the minimax polynomial, which is all a float32 result needs.

Run it with ``mpmath`` installed (it comes with PyTorch, or ``pip install mpmath``)::

    python tools/fit_vector_math.py

and paste its output over the coefficient block of ``vector_math.py``. It prints the fit's
worst relative error beside each table; the tests measure the final accuracy in ulps.
"""

from __future__ import annotations

from typing import Callable

import mpmath as mp
import numpy as np

mp.mp.dps = 60
NODES = 400


def fit(f: Callable, lo: float, hi: float, degree: int, weight: Callable) -> tuple[list, float]:
    """Coefficients (lowest power first) of the degree-``degree`` polynomial nearest ``f`` on
    ``[lo, hi]`` in the weighted least-squares sense, and the largest weighted error."""
    lo, hi = mp.mpf(lo), mp.mpf(hi)
    nodes = [(lo + hi) / 2 + (hi - lo) / 2 * mp.cos(mp.pi * (2 * k + 1) / (2 * NODES)) for k in range(NODES)]
    design = mp.matrix(NODES, degree + 1)
    target = mp.matrix(NODES, 1)
    for i, t in enumerate(nodes):
        w = weight(t)
        for j in range(degree + 1):
            design[i, j] = w * t**j
        target[i] = w * f(t)
    coefficients = mp.lu_solve(design.T * design, design.T * target)
    coefficients = [coefficients[j] for j in range(degree + 1)]
    worst = max(abs(mp.polyval(coefficients[::-1], t) - f(t)) * weight(t) for t in nodes)
    return coefficients, float(worst)


LN2 = mp.log(2)
SQRT2 = mp.sqrt(2)
#: where ``tanh`` and ``erf`` switch from their polynomial near 0 to the form through ``exp``
TANH_SPLIT = 0.625
ERF_SPLIT = 1.0
#: from here on ``erf`` rounds to 1 in float32
ERF_ONE = 3.92

TABLES = {
    # e^r = 1 + r + r^2 q(r), |r| <= ln2 / 2
    "EXP": (lambda r: (mp.exp(r) - 1 - r) / r**2, -LN2 / 2, LN2 / 2, 4,
            lambda r: r**2 / mp.exp(r)),
    # log(1 + f) = f - f^2 / 2 + f^3 q(f), 1/sqrt2 - 1 <= f <= sqrt2 - 1
    "LOG": (lambda f: (mp.log1p(f) - f + f**2 / 2) / f**3, 1 / SQRT2 - 1, SQRT2 - 1, 7,
            lambda f: abs(f**3 / mp.log1p(f))),
    # tanh(x) = x + x^3 q(x^2), |x| < TANH_SPLIT
    "TANH": (lambda z: (mp.tanh(mp.sqrt(z)) / mp.sqrt(z) - 1) / z, 1e-30, TANH_SPLIT**2, 5,
             lambda z: z * mp.sqrt(z) / mp.tanh(mp.sqrt(z))),
    # erf(x) = x + x q(x^2), |x| < ERF_SPLIT (the correction q is small, so is its rounding)
    "ERF": (lambda z: mp.erf(mp.sqrt(z)) / mp.sqrt(z) - 1, 1e-30, ERF_SPLIT**2, 6,
            lambda z: mp.sqrt(z) / mp.erf(mp.sqrt(z))),
    # erf(x) = 1 - exp(q(x)), ERF_SPLIT <= x <= ERF_ONE (an error in q is damped by erfc / erf)
    "ERFC_LOG": (lambda a: mp.log(mp.erfc(a)), ERF_SPLIT, ERF_ONE, 8,
                 lambda a: mp.erfc(a) / mp.erf(a)),
}


def main() -> None:
    for name, (f, lo, hi, degree, weight) in TABLES.items():
        coefficients, worst = fit(f, lo, hi, degree, weight)
        values = ", ".join(repr(float(np.float32(float(c)))) for c in coefficients)
        print(f"#: fitted on [{float(lo):.6g}, {float(hi):.6g}], worst relative error of the result {worst:.2e}")
        print(f"{name}_32 = _float32({values})")


if __name__ == "__main__":
    main()

r"""The standard normal CDF :math:`\Phi` to float64 accuracy, from ``exp`` and arithmetic only.

For :math:`z \ge 0` write :math:`t = 1/(1 + z/2) \in (0, 1]` and

.. math:: \mathrm{erfc}(z) = t\,\exp\big(-z^2 + P(t)\big),
   \qquad P(t) = \log\frac{\mathrm{erfc}(z)\,e^{z^2}}{t},

where :math:`P` is smooth on :math:`[0, 1]` (it tends to :math:`-\log(2\sqrt\pi)` as
:math:`z \to \infty`). :math:`P` is stored as a degree-24 Chebyshev series in
:math:`y = 2t - 1`, fitted by least squares at 200 Chebyshev nodes to :math:`P` computed in
40-digit arithmetic; its absolute error, hence the relative error of :math:`\mathrm{erfc}`,
is about 2e-15 over all of :math:`[0, \infty)`. Only elementwise tensor ops are used, so it
runs on every backend and device and in every float dtype.
"""

from __future__ import annotations

import math

from ..tensor import Tensor

#: Chebyshev coefficients :math:`c_0, \dots, c_{24}` of :math:`P(t)` in :math:`y = 2t - 1`
ERFC_CHEBYSHEV = (
    -0.6513268598908547, 0.6419697923564904, 0.019476473204185947, -0.009561514786808549,
    -0.0009465953444817868, 0.00036683949785290895, 4.252332480688131e-05, -2.0278578112332072e-05,
    -1.6242900046080564e-06, 1.3036558356373951e-06, 1.5626441909954163e-08, -8.52380956436751e-08,
    6.529054357173389e-09, 5.059343751377604e-09, -9.913641508997494e-10, -2.2736515698609577e-10,
    9.646793276254416e-11, 2.3941288709014406e-12, -6.886101394122606e-12, 8.946028613837664e-13,
    3.131001461717604e-13, -1.1259653063561065e-13, 3.2451148281159735e-16, 7.036059532584998e-15,
    -1.43438692961708e-15,
)
SQRT_HALF = math.sqrt(0.5)


def chebyshev_series(y: Tensor, coefficients: tuple[float, ...]) -> Tensor:
    r""":math:`\sum_k c_k T_k(y)` by Clenshaw's recurrence :math:`b_k = c_k + 2y\,b_{k+1} - b_{k+2}`."""
    later = y * 0.0
    current = later + coefficients[-1]
    for c in reversed(coefficients[1:-1]):
        current, later = 2.0 * y * current - later + c, current
    return y * current - later + coefficients[0]


def erfc_of_nonnegative(z: Tensor) -> Tensor:
    r""":math:`\mathrm{erfc}(z)` for :math:`z \ge 0` (relative error about 2e-15; 0 at :math:`+\infty`)."""
    t = 1.0 / (1.0 + 0.5 * z)
    return t * (chebyshev_series(2.0 * t - 1.0, ERFC_CHEBYSHEV) - z * z).exp()


def normal_cdf(x: Tensor) -> Tensor:
    r""":math:`\Phi(x) = \tfrac12\,\mathrm{erfc}(-x/\sqrt2)`, accurate in the lower tail too.

    With :math:`h = \tfrac12\mathrm{erfc}(|x|/\sqrt2)` (the tail beyond :math:`|x|`),
    :math:`\Phi = h` for :math:`x < 0` (no cancellation: tiny values keep their digits) and
    :math:`1 - h` for :math:`x > 0`; the step :math:`s = (\mathrm{sign}\,x + 1)/2` picks the branch.
    """
    tail = 0.5 * erfc_of_nonnegative(x.abs() * SQRT_HALF)
    upper = 0.5 * (x.sign() + 1.0)
    return tail + upper * (1.0 - 2.0 * tail)

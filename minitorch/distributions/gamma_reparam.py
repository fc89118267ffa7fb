r"""Reparameterized draws of :math:`\mathrm{Gamma}(\alpha, 1)`, with the implicit gradient
(Figurnov, Mohamed and Mnih, 2018) with respect to the concentration :math:`\alpha`.

The draw :math:`z` is NumPy's, on the stream of minitorch's generator. Holding its quantile
:math:`u = P(\alpha, z)` fixed (:math:`P` the regularized lower incomplete gamma function,
:math:`p` the density) gives

.. math:: \frac{dz}{d\alpha} = -\frac{\partial_\alpha P(\alpha, z)}{p(z; \alpha)}.

Differentiating the series :math:`P(\alpha, z) = \sum_{n \ge 0} e^{-z} z^{\alpha + n} / \Gamma(\alpha + n + 1)`
term by term and dividing by :math:`p(z; \alpha) = e^{-z} z^{\alpha - 1} / \Gamma(\alpha)`:

.. math:: \frac{dz}{d\alpha} = \sum_{n \ge 0} r_n \left(\psi(\alpha + n + 1) - \log z\right),
          \qquad r_n = \prod_{j=0}^{n} \frac{z}{\alpha + j},

summed in float64 until the rest of the series is below the rounding of the sum. The factor
:math:`e^{-z}` cancels, so nothing underflows. Where :math:`z` lies far in the upper tail the
terms grow before they shrink and partly cancel: the relative error is about machine epsilon
divided by the upper-tail probability of :math:`z` (about :math:`10^{-10}` for a draw beyond its
:math:`1 - 10^{-6}` quantile). PyTorch approximates the same derivative in closed form (a Taylor
series, a saddle-point expansion, a rational fit); the two agree to that approximation's accuracy.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from ..autograd.function import Context, Function
from ..creation import tensor as make_tensor
from ..dtypes import float64
from ..tensor import Tensor
from ..type_info import finfo
from .numpy_draws import standard_gamma

#: relative size below which the rest of the series no longer changes the float64 sum
SERIES_TOLERANCE = float(np.finfo(np.float64).eps)
#: a bound on the number of terms, far beyond what any draw needs (about z - alpha + 10 sqrt(z))
MAX_TERMS = 1_000_000


def gamma_draw_slope(alpha: np.ndarray, z: np.ndarray) -> np.ndarray:
    r""":math:`dz/d\alpha` at draws ``z`` of :math:`\mathrm{Gamma}(\alpha, 1)` (the series above), in float64.

    After the term :math:`n` with ratio :math:`\rho = z / (\alpha + n + 1) < 1` the rest is at most
    :math:`r_n (|\psi(\alpha + n + 1) - \log z| + 1) / (1 - \rho)^2`; an entry stops when that is
    below the rounding of its sum.
    """
    alpha, z = np.broadcast_arrays(np.asarray(alpha, dtype=np.float64), np.asarray(z, dtype=np.float64))
    shape = alpha.shape
    alpha, z = alpha.ravel(), z.ravel()
    log_z = np.log(z)
    psi = make_tensor(alpha, dtype=float64).digamma().numpy() + 1.0 / alpha  # \psi(\alpha + 1)
    ratio = z / alpha  # r_0
    total = ratio * (psi - log_z)
    active = np.arange(alpha.size)
    for n in range(1, MAX_TERMS):
        if active.size == 0:
            break
        shifted = alpha[active] + n
        psi[active] += 1.0 / shifted  # \psi(\alpha + n + 1)
        ratio[active] *= z[active] / shifted  # r_n
        gap = psi[active] - log_z[active]
        total[active] += ratio[active] * gap
        shrink = z[active] / (shifted + 1.0)
        below = shrink < 1.0
        rest = ratio[active] * (np.abs(gap) + 1.0) / np.square(np.where(below, 1.0 - shrink, 1.0))
        active = active[~(below & (rest <= SERIES_TOLERANCE * np.abs(total[active])))]
    return total.reshape(shape)


class StandardGammaDraw(Function):
    r"""Draws :math:`z \sim \mathrm{Gamma}(\alpha, 1)`, one per entry of ``concentration`` (at least the
    smallest normal number, as PyTorch); backward multiplies by :math:`dz/d\alpha`."""

    @staticmethod
    def forward(ctx: Context, concentration: Tensor) -> Tensor:
        tiny = finfo(concentration.dtype).tiny
        draws = standard_gamma(concentration, tuple(concentration.shape)).clamp(min=tiny)
        ctx.save_for_backward(concentration, draws)
        return draws

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> Tensor:
        concentration, draws = ctx.saved_tensors
        alpha = concentration.detach().to("cpu").numpy()
        slope = gamma_draw_slope(alpha, draws.detach().to("cpu").numpy())
        return grad * make_tensor(slope, dtype=grad.dtype, device=grad.device)


def standard_gamma_rsample(concentration: Tensor, shape: Sequence[int]) -> Tensor:
    r"""Draws of :math:`\mathrm{Gamma}(\alpha, 1)` of ``shape`` (``concentration`` broadcast to it),
    differentiable with respect to :math:`\alpha`."""
    return StandardGammaDraw.apply(concentration.expand(*shape))


__all__ = ["StandardGammaDraw", "gamma_draw_slope", "standard_gamma_rsample"]

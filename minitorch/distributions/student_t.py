r"""``StudentT``: Student's t with ``df`` :math:`\nu`, ``loc`` :math:`\mu` and ``scale`` :math:`\sigma`,

.. math:: \log p(x) = -\tfrac{\nu + 1}{2}\log\left(1 + \tfrac{y^2}{\nu}\right) - \log\sigma
          - \tfrac12\log(\nu\pi) - \log\Gamma(\tfrac{\nu}{2}) + \log\Gamma(\tfrac{\nu + 1}{2}),
          \qquad y = \frac{x - \mu}{\sigma}.

A draw is :math:`\mu + \sigma\,\varepsilon\,\sqrt{\nu / \chi}` with :math:`\varepsilon` standard normal and
:math:`\chi = 2G \sim \chi^2_\nu`, :math:`G \sim \mathrm{Gamma}(\nu/2, 1)`, as PyTorch. ``rsample`` is
differentiable in all three parameters: in :math:`\mu` and :math:`\sigma` directly, in :math:`\nu`
through :math:`\sqrt{\nu}` and through the implicit gradient of :math:`G` (:mod:`.gamma_reparam`).
"""

from __future__ import annotations

import math
from typing import Any, Optional, Sequence

from ..creation import full_like, randn
from ..tensor import Tensor, where
from . import constraints
from .distribution import Distribution, as_tensor, broadcast_all
from .gamma_reparam import standard_gamma_rsample

#: :math:`\log\Gamma(\tfrac12) = \tfrac12\log\pi`
LGAMMA_HALF = math.lgamma(0.5)
#: :math:`\tfrac12\log\pi`
HALF_LOG_PI = 0.5 * math.log(math.pi)
#: the variance is finite above this many degrees of freedom, the mean above one
FINITE_VARIANCE_DF = 2.0
FINITE_MEAN_DF = 1.0


def _check_df(df: Tensor) -> None:
    """PyTorch's error for a ``df`` that is not positive: PyTorch finds it in the :math:`\\chi^2_\\nu`
    distribution it builds first (so the message names ``Chi2()``, whose repr shows no parameter)."""
    if not bool(constraints.positive.check(df).all().item()):
        raise ValueError(f"Expected parameter df ({type(df).__name__} of shape {tuple(df.shape)}) of distribution Chi2() "
                         f"to satisfy the constraint {constraints.positive!r}, but found invalid values:\n{df}")


class StudentT(Distribution):
    r"""Student's t with ``df`` :math:`\nu > 0`, ``loc`` :math:`\mu`, ``scale`` :math:`\sigma > 0`.

    Unlike PyTorch, whose check of ``df`` happens in an inner ``Chi2`` that follows the global
    default, ``validate_args=False`` turns that check off too."""

    arg_constraints = {"df": constraints.positive, "loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, df: Any, loc: Any = 0.0, scale: Any = 1.0, validate_args: Optional[bool] = None) -> None:
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        if self._validate_default if validate_args is None else validate_args:
            _check_df(self.df)
        super().__init__(tuple(self.df.shape), (), validate_args)

    @property
    def mean(self) -> Tensor:
        r""":math:`\mu` for :math:`\nu > 1`, else NaN."""
        return where(self.df > FINITE_MEAN_DF, self.loc, float("nan"))

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        r""":math:`\sigma^2\nu/(\nu - 2)` for :math:`\nu > 2`, :math:`\infty` for :math:`1 < \nu \le 2`, else NaN."""
        df = self.df
        finite = df > FINITE_VARIANCE_DF
        safe_df = where(finite, df, 2 * FINITE_VARIANCE_DF)  # no 0/0 in the branch not taken, nor in its gradient
        heavy = full_like(df, float("nan")).masked_fill((df > FINITE_MEAN_DF) & ~finite, float("inf"))
        return where(finite, self.scale.pow(2) * safe_df / (safe_df - FINITE_VARIANCE_DF), heavy)

    def rsample(self, sample_shape: Sequence[int] = ()) -> Tensor:
        r""":math:`\mu + \sigma\,\varepsilon / \sqrt{\chi/\nu}`, :math:`\chi = 2G`, :math:`G \sim \mathrm{Gamma}(\nu/2, 1)`."""
        shape = self._extended_shape(sample_shape)
        noise = randn(shape, dtype=self.df.dtype, device=self.df.device)
        chi2 = 2 * standard_gamma_rsample(0.5 * self.df, shape)
        return self.loc + self.scale * noise * (chi2 / self.df).rsqrt()

    def log_prob(self, value: Any) -> Tensor:
        self._validate_sample(value)
        value = as_tensor(value, self.df)
        y = (value - self.loc) / self.scale
        normalizer = (self.scale.log() + 0.5 * self.df.log() + HALF_LOG_PI
                      + (0.5 * self.df).lgamma() - (0.5 * (self.df + 1.0)).lgamma())
        return -0.5 * (self.df + 1.0) * (y.pow(2) / self.df).log1p() - normalizer

    def entropy(self) -> Tensor:
        r""":math:`\log\sigma + \tfrac{\nu + 1}{2}\left(\psi(\tfrac{\nu + 1}{2}) - \psi(\tfrac{\nu}{2})\right)
        + \tfrac12\log\nu + \log B(\tfrac{\nu}{2}, \tfrac12)`."""
        half, half_up = 0.5 * self.df, 0.5 * (self.df + 1)
        log_beta = half.lgamma() + LGAMMA_HALF - half_up.lgamma()
        return self.scale.log() + half_up * (half_up.digamma() - half.digamma()) + 0.5 * self.df.log() + log_beta


__all__ = ["StudentT"]

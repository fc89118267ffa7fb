r"""Families defined as a transformed base: ``LogNormal`` (:math:`e^X`, :math:`X` normal),
``HalfNormal`` (:math:`|X|`, :math:`X` centred normal) and ``Gumbel`` (:math:`\mu - \beta \log(-\log U)`,
:math:`U` uniform). Each overrides what has a closed form (moments, entropy, ``log_prob``)."""

from __future__ import annotations

import math
from typing import Any, Optional

from ..creation import full_like, ones_like, zeros_like
from ..tensor import Tensor
from ..type_info import finfo
from . import constraints
from .continuous import Normal, Uniform
from .distribution import broadcast_all
from .transformed import TransformedDistribution
from .transforms import AbsTransform, AffineTransform, ExpTransform

#: the Euler–Mascheroni constant :math:`\gamma`, the mean of the standard Gumbel distribution
EULER_GAMMA = 0.57721566490153286060


class LogNormal(TransformedDistribution):
    r""":math:`Y = e^X`, :math:`X \sim \mathcal{N}(\mu, \sigma^2)`: ``loc`` :math:`\mu` and ``scale`` :math:`\sigma` of :math:`\log Y`."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, validate_args: Optional[bool] = None) -> None:
        super().__init__(Normal(loc, scale, validate_args=validate_args), ExpTransform(), validate_args)

    @property
    def loc(self) -> Tensor:
        return self.base_dist.loc

    @property
    def scale(self) -> Tensor:
        return self.base_dist.scale

    @property
    def mean(self) -> Tensor:
        r""":math:`e^{\mu + \sigma^2/2}`."""
        return (self.loc + self.scale.pow(2) / 2).exp()

    @property
    def mode(self) -> Tensor:
        r""":math:`e^{\mu - \sigma^2}`."""
        return (self.loc - self.scale.square()).exp()

    @property
    def variance(self) -> Tensor:
        r""":math:`(e^{\sigma^2} - 1)\, e^{2\mu + \sigma^2}`."""
        scale_sq = self.scale.pow(2)
        return scale_sq.expm1() * (2 * self.loc + scale_sq).exp()

    def entropy(self) -> Tensor:
        r""":math:`H(X) + \mu`."""
        return self.base_dist.entropy() + self.loc


class HalfNormal(TransformedDistribution):
    r""":math:`|X|`, :math:`X \sim \mathcal{N}(0, \sigma^2)`: density :math:`2\,\varphi_\sigma(y)` on :math:`y \ge 0`."""

    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, scale: Any, validate_args: Optional[bool] = None) -> None:
        super().__init__(Normal(0, scale, validate_args=False), AbsTransform(), validate_args)

    @property
    def scale(self) -> Tensor:
        return self.base_dist.scale

    @property
    def mean(self) -> Tensor:
        r""":math:`\sigma \sqrt{2/\pi}`."""
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def mode(self) -> Tensor:
        return zeros_like(self.scale)

    @property
    def variance(self) -> Tensor:
        r""":math:`\sigma^2 (1 - 2/\pi)`."""
        return self.scale.pow(2) * (1 - 2 / math.pi)

    def log_prob(self, value: Tensor) -> Tensor:
        self._validate_sample(value)
        log_prob = self.base_dist.log_prob(value) + math.log(2)
        return log_prob.where(value >= 0, float("-inf"))

    def cdf(self, value: Tensor) -> Tensor:
        r""":math:`2\Phi_\sigma(y) - 1`."""
        self._validate_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob: Tensor) -> Tensor:
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self) -> Tensor:
        return self.base_dist.entropy() - math.log(2)


class Gumbel(TransformedDistribution):
    r"""Gumbel with ``loc`` :math:`\mu`, ``scale`` :math:`\beta`: :math:`\log p(x) = -(z + e^{-z}) - \log\beta`,
    :math:`z = (x - \mu)/\beta`; drawn as :math:`\mu - \beta \log(-\log U)`."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real

    def __init__(self, loc: Any, scale: Any, validate_args: Optional[bool] = None) -> None:
        numbers = not isinstance(loc, Tensor) and not isinstance(scale, Tensor)
        self.loc, self.scale = broadcast_all(loc, scale)
        info = finfo(self.loc.dtype)
        if numbers:
            base = Uniform(info.tiny, 1 - info.eps, validate_args=validate_args)
        else:
            base = Uniform(full_like(self.loc, info.tiny), full_like(self.loc, 1 - info.eps), validate_args=validate_args)
        chain = [ExpTransform().inv, AffineTransform(loc=0, scale=-ones_like(self.scale)), ExpTransform().inv,
                 AffineTransform(loc=loc, scale=-self.scale)]
        super().__init__(base, chain, validate_args)

    def log_prob(self, value: Tensor) -> Tensor:
        self._validate_sample(value)
        z = (self.loc - value) / self.scale
        return (z - z.exp()) - self.scale.log()

    @property
    def mean(self) -> Tensor:
        r""":math:`\mu + \beta\gamma`."""
        return self.loc + self.scale * EULER_GAMMA

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def stddev(self) -> Tensor:
        r""":math:`\pi\beta / \sqrt{6}`."""
        return (math.pi / math.sqrt(6)) * self.scale

    @property
    def variance(self) -> Tensor:
        return self.stddev.pow(2)

    def entropy(self) -> Tensor:
        r""":math:`\log\beta + 1 + \gamma`."""
        return self.scale.log() + (1 + EULER_GAMMA)


__all__ = ["Gumbel", "HalfNormal", "LogNormal"]

r"""``Normal`` and ``Uniform``: continuous distributions with reparameterized sampling
(``rsample``: :math:`\mu + \sigma \varepsilon`, :math:`\mathrm{low} + (\mathrm{high} - \mathrm{low})\,u`),
so a loss through a sample has a gradient with respect to the parameters."""

from __future__ import annotations

import math
from typing import Any, Optional, Sequence

from ..creation import rand, randn
from ..tensor import Tensor
from . import constraints
from .constraints import Constraint
from .distribution import Distribution, as_tensor, broadcast_all

LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)


class LocationScale(Distribution):
    r"""A family over the reals of a ``loc`` :math:`\mu` and a ``scale`` :math:`\sigma > 0`
    (:math:`x = \mu + \sigma z` for a standard member :math:`z`, so ``rsample`` is reparameterised),
    whose mode, and mean where it has one, is :math:`\mu`: Normal, Laplace, Cauchy."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, validate_args: Optional[bool] = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(tuple(self.loc.shape), (), validate_args)

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def mode(self) -> Tensor:
        return self.loc


class Normal(LocationScale):
    r""":math:`\mathcal{N}(\mu, \sigma^2)` with ``loc`` :math:`\mu` and ``scale`` :math:`\sigma > 0`."""

    @property
    def stddev(self) -> Tensor:
        return self.scale

    @property
    def variance(self) -> Tensor:
        return self.scale ** 2

    def rsample(self, sample_shape: Sequence[int] = ()) -> Tensor:
        noise = randn(self._extended_shape(sample_shape), dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + noise * self.scale

    def log_prob(self, value: Any) -> Tensor:
        self._validate_sample(value)
        value = as_tensor(value, self.loc)
        return -((value - self.loc) ** 2) / (2 * self.variance) - self.scale.log() - LOG_SQRT_2PI

    def entropy(self) -> Tensor:
        return 0.5 + LOG_SQRT_2PI + self.scale.log()

    def cdf(self, value: Any) -> Tensor:
        self._validate_sample(value)
        value = as_tensor(value, self.loc)
        return 0.5 * (1 + ((value - self.loc) / (self.scale * math.sqrt(2))).erf())

    def icdf(self, value: Any) -> Tensor:
        value = as_tensor(value, self.loc)
        return self.loc + self.scale * (2 * value - 1).erfinv() * math.sqrt(2)


class Uniform(Distribution):
    """Uniform on :math:`[\\mathrm{low}, \\mathrm{high})`."""

    has_rsample = True

    def __init__(self, low: Any, high: Any, validate_args: Optional[bool] = None) -> None:
        self.low, self.high = broadcast_all(low, high)
        super().__init__(tuple(self.low.shape), (), validate_args)

    @property
    def arg_constraints(self) -> dict[str, Constraint]:  # type: ignore[override]
        return {"low": constraints.less_than(self.high), "high": constraints.greater_than(self.low)}

    @property
    def support(self) -> Constraint:  # type: ignore[override]
        return constraints.interval(self.low, self.high)

    @property
    def mean(self) -> Tensor:
        return (self.high + self.low) / 2

    @property
    def mode(self) -> Tensor:
        return self.high * float("nan")

    @property
    def variance(self) -> Tensor:
        return (self.high - self.low) ** 2 / 12

    def rsample(self, sample_shape: Sequence[int] = ()) -> Tensor:
        u = rand(self._extended_shape(sample_shape), dtype=self.low.dtype, device=self.low.device)
        return self.low + u * (self.high - self.low)

    def log_prob(self, value: Any) -> Tensor:
        self._validate_sample(value)
        value = as_tensor(value, self.low)
        inside = ((self.low <= value) & (self.high > value)).to(self.low.dtype)
        return inside.log() - (self.high - self.low).log()

    def entropy(self) -> Tensor:
        return (self.high - self.low).log()

    def cdf(self, value: Any) -> Tensor:
        self._validate_sample(value)
        value = as_tensor(value, self.low)
        return ((value - self.low) / (self.high - self.low)).clamp(0, 1)

    def icdf(self, value: Any) -> Tensor:
        value = as_tensor(value, self.low)
        return self.low + value * (self.high - self.low)


__all__ = ["Normal", "Uniform"]

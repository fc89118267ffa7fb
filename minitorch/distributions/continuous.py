r"""``Normal`` and ``Uniform``: continuous distributions with reparameterized sampling
(``rsample``: :math:`\mu + \sigma \varepsilon`, :math:`\mathrm{low} + (\mathrm{high} - \mathrm{low})\,u`),
so a loss through a sample has a gradient with respect to the parameters."""

from __future__ import annotations

import math
from typing import Any, Optional, Sequence

from ..creation import rand, randn
from ..tensor import Tensor
from .distribution import Distribution, as_tensor

LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)


def _broadcast(*values: Any) -> list[Tensor]:
    """Numbers and tensors as tensors of one shape (numbers take the tensors' dtype)."""
    like = next((v for v in values if isinstance(v, Tensor)), None)
    tensors = [as_tensor(v, like) for v in values]
    shape = tensors[0].shape
    for t in tensors[1:]:
        shape = (tensors[0] + t).shape if t.shape != shape else shape
    return [t.expand(*shape) if t.shape != shape else t for t in tensors]


class Normal(Distribution):
    r""":math:`\mathcal{N}(\mu, \sigma^2)` with ``loc`` :math:`\mu` and ``scale`` :math:`\sigma > 0`."""

    arg_constraints = {"loc": ("Real()", lambda v: v == v), "scale": ("GreaterThan(lower_bound=0.0)", lambda v: v > 0)}
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, validate_args: Optional[bool] = None) -> None:
        self.loc, self.scale = _broadcast(loc, scale)
        super().__init__(tuple(self.loc.shape), (), validate_args)

    @property
    def mean(self) -> Tensor:
        return self.loc

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
        value = as_tensor(value, self.loc)
        return -((value - self.loc) ** 2) / (2 * self.variance) - self.scale.log() - LOG_SQRT_2PI

    def entropy(self) -> Tensor:
        return 0.5 + LOG_SQRT_2PI + self.scale.log()

    def cdf(self, value: Any) -> Tensor:
        value = as_tensor(value, self.loc)
        return 0.5 * (1 + ((value - self.loc) / (self.scale * math.sqrt(2))).erf())

    def icdf(self, value: Any) -> Tensor:
        value = as_tensor(value, self.loc)
        return self.loc + self.scale * (2 * value - 1).erfinv() * math.sqrt(2)


class Uniform(Distribution):
    """Uniform on :math:`[\\mathrm{low}, \\mathrm{high})`."""

    arg_constraints = {"low": ("Real()", lambda v: v == v), "high": ("Real()", lambda v: v == v)}
    has_rsample = True

    def __init__(self, low: Any, high: Any, validate_args: Optional[bool] = None) -> None:
        self.low, self.high = _broadcast(low, high)
        super().__init__(tuple(self.low.shape), (), validate_args)
        if self._validate_args and not bool((self.low < self.high).all().item()):
            raise ValueError(f"Expected parameter low ({type(self.low).__name__} of shape {tuple(self.low.shape)}) of "
                             f"distribution {self!r} to satisfy the constraint LessThan(upper_bound={self.high}), "
                             f"but found invalid values:\n{self.low}")

    @property
    def mean(self) -> Tensor:
        return (self.high + self.low) / 2

    @property
    def variance(self) -> Tensor:
        return (self.high - self.low) ** 2 / 12

    def rsample(self, sample_shape: Sequence[int] = ()) -> Tensor:
        u = rand(self._extended_shape(sample_shape), dtype=self.low.dtype, device=self.low.device)
        return self.low + u * (self.high - self.low)

    def log_prob(self, value: Any) -> Tensor:
        value = as_tensor(value, self.low)
        self._check_support(value, f"Interval(lower_bound={self.low}, upper_bound={self.high})",
                            (self.low <= value) & (value <= self.high))
        inside = ((self.low <= value) & (self.high > value)).to(self.low.dtype)
        return inside.log() - (self.high - self.low).log()

    def entropy(self) -> Tensor:
        return (self.high - self.low).log()

    def cdf(self, value: Any) -> Tensor:
        value = as_tensor(value, self.low)
        return ((value - self.low) / (self.high - self.low)).clamp(0, 1)

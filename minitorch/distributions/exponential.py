r"""``Exponential``: waiting times, density :math:`\lambda e^{-\lambda x}` on :math:`x \ge 0`,
drawn as :math:`-\log(1 - U)/\lambda` (reparameterized through ``rate``)."""

from __future__ import annotations

from typing import Any, Optional, Sequence

from ..creation import empty, zeros_like
from ..tensor import Tensor
from . import constraints
from .distribution import Distribution, broadcast_all


class Exponential(Distribution):
    r"""Exponential with ``rate`` :math:`\lambda > 0`: mean :math:`1/\lambda`, variance :math:`1/\lambda^2`."""

    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, rate: Any, validate_args: Optional[bool] = None) -> None:
        (self.rate,) = broadcast_all(rate)
        super().__init__(tuple(self.rate.shape), (), validate_args)

    @property
    def mean(self) -> Tensor:
        return self.rate.reciprocal()

    @property
    def mode(self) -> Tensor:
        return zeros_like(self.rate)

    @property
    def stddev(self) -> Tensor:
        return self.rate.reciprocal()

    @property
    def variance(self) -> Tensor:
        return self.rate.pow(-2)

    def rsample(self, sample_shape: Sequence[int] = ()) -> Tensor:
        # a standard exponential draw, -log(1 - u), scaled by 1/rate (PyTorch's draw, number for number)
        shape = self._extended_shape(sample_shape)
        return empty(shape, dtype=self.rate.dtype, device=self.rate.device).exponential_() / self.rate

    def log_prob(self, value: Tensor) -> Tensor:
        r""":math:`\log\lambda - \lambda x`."""
        self._validate_sample(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value: Tensor) -> Tensor:
        r""":math:`1 - e^{-\lambda x}`."""
        self._validate_sample(value)
        return 1 - (-self.rate * value).exp()

    def icdf(self, value: Tensor) -> Tensor:
        r""":math:`-\log(1 - p)/\lambda`."""
        return -(-value).log1p() / self.rate

    def entropy(self) -> Tensor:
        r""":math:`1 - \log\lambda`."""
        return 1.0 - self.rate.log()


__all__ = ["Exponential"]

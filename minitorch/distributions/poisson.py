r"""``Poisson``: counts of events at a rate :math:`\lambda`, :math:`P(k) = \lambda^k e^{-\lambda} / k!`,
with :math:`\log k! = \log\Gamma(k + 1)` (``lgamma``). Draws are ``minitorch.poisson``'s of the rate
expanded to the sample's shape, outside the graph (no ``rsample``), as in PyTorch, so after a seed they
are PyTorch's numbers."""

from __future__ import annotations

from typing import Any, Optional, Sequence

from ..autograd.grad_mode import no_grad
from ..dtypes import promote_types
from ..ops.count_sampling import poisson
from ..tensor import Tensor
from . import constraints
from .distribution import Distribution, broadcast_all


class Poisson(Distribution):
    r"""Poisson with ``rate`` :math:`\lambda \ge 0`: :math:`\log P(k) = k\log\lambda - \lambda - \log\Gamma(k + 1)`.
    As in PyTorch there is no closed-form ``entropy`` (it raises ``NotImplementedError``)."""

    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    def __init__(self, rate: Any, validate_args: Optional[bool] = None) -> None:
        (self.rate,) = broadcast_all(rate)
        super().__init__(tuple(self.rate.shape), (), validate_args)

    @property
    def mean(self) -> Tensor:
        return self.rate

    @property
    def mode(self) -> Tensor:
        return self.rate.floor()

    @property
    def variance(self) -> Tensor:
        return self.rate

    def sample(self, sample_shape: Sequence[int] = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        with no_grad():
            return poisson(self.rate.expand(shape))

    def log_prob(self, value: Any) -> Tensor:
        self._validate_sample(value)
        rate, value = broadcast_all(self.rate, value)
        common = promote_types(rate.dtype, value.dtype)  # xlogy takes the log in its second argument's dtype
        return value.to(common).xlogy(rate.to(common)) - rate - (value + 1).lgamma()


__all__ = ["Poisson"]

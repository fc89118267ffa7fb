r"""``Binomial``: successes in :math:`n` independent trials of probability :math:`p`,
:math:`P(k) = \binom{n}{k} p^k (1 - p)^{n - k}`, given by ``probs`` or ``logits`` (the other computed on
demand, as for ``Bernoulli``), with :math:`\log k! = \log\Gamma(k + 1)` (``lgamma``). Draws are
``minitorch.binomial``'s of ``total_count`` and ``probs`` expanded to the sample's shape, outside the
graph (no ``rsample``), as in PyTorch, so after a seed they are PyTorch's numbers."""

from __future__ import annotations

from typing import Any, Optional, Sequence

from ..autograd.grad_mode import no_grad
from ..creation import arange
from ..ops.count_sampling import binomial
from ..tensor import Tensor
from . import constraints
from .categorical import BinaryParameters, one_parameter
from .constraints import Constraint
from .distribution import Distribution, as_tensor, broadcast_all


def _clamp_by_zero(x: Tensor) -> Tensor:
    r""":math:`\max(x, 0)` whose gradient at 0 is :math:`\tfrac12` (PyTorch's, for the same gradients)."""
    return (x.clamp(min=0) + x - x.clamp(max=0)) / 2


class Binomial(BinaryParameters, Distribution):
    r"""Binomial with ``total_count`` :math:`n` and ``probs`` :math:`p` or ``logits`` :math:`\ell = \log\frac{p}{1 - p}`:
    :math:`\log P(k) = \log\binom{n}{k} + k\ell - n\log(1 + e^{\ell})`."""

    arg_constraints = {"total_count": constraints.nonnegative_integer, "probs": constraints.unit_interval,
                       "logits": constraints.real}
    has_enumerate_support = True

    def __init__(self, total_count: Any = 1, probs: Any = None, logits: Any = None,
                 validate_args: Optional[bool] = None) -> None:
        one_parameter(probs, logits)
        if probs is not None:
            total_count, self.probs = broadcast_all(total_count, probs)
            self._param = self.probs
        else:
            total_count, self.logits = broadcast_all(total_count, logits)
            self._param = self.logits
        self.total_count = total_count.type_as(self._param)
        super().__init__(tuple(self._param.shape), (), validate_args)

    def expand(self, batch_shape: Sequence[int], _instance: Optional[Distribution] = None) -> Distribution:
        new = super().expand(batch_shape, _instance)
        new._param = new.__dict__["logits" if "logits" in self.__dict__ else "probs"]
        return new

    @property
    def support(self) -> Constraint:  # type: ignore[override]
        return constraints.integer_interval(0, self.total_count)

    @property
    def param_shape(self) -> Any:
        return self._param.shape

    @property
    def mean(self) -> Tensor:
        return self.total_count * self.probs

    @property
    def mode(self) -> Tensor:
        r""":math:`\min(\lfloor (n + 1)p \rfloor, n)`."""
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self) -> Tensor:
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape: Sequence[int] = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        with no_grad():
            return binomial(self.total_count.expand(shape), self.probs.expand(shape))

    def log_prob(self, value: Any) -> Tensor:
        r""":math:`\log\binom{n}{k} + k\ell - n\left(\max(\ell, 0) + \log(1 + e^{-|\ell|})\right)`, stable for any :math:`\ell`."""
        self._validate_sample(value)
        value = as_tensor(value, self._param)
        n, logits = self.total_count, self.logits
        log_binomial = (n + 1).lgamma() - (value + 1).lgamma() - (n - value + 1).lgamma()
        log_normalizer = n * _clamp_by_zero(logits) + n * (-logits.abs()).exp().log1p()
        return log_binomial + value * logits - log_normalizer

    def _common_count(self, method: str) -> int:
        """The one ``total_count`` of every batch entry (PyTorch's error when they differ)."""
        count = int(self.total_count.max().item())
        if not bool((self.total_count.min() == count).item()):
            raise NotImplementedError(f"Inhomogeneous total count not supported by `{method}`.")
        return count

    def entropy(self) -> Tensor:
        r""":math:`-\sum_{k=0}^{n} P(k)\log P(k)` over the support (one ``total_count`` for the whole batch)."""
        self._common_count("entropy")
        log_prob = self.log_prob(self.enumerate_support(False))
        return -(log_prob.exp() * log_prob).sum(0)

    def enumerate_support(self, expand: bool = True) -> Tensor:
        count = self._common_count("enumerate_support")
        values = arange(1 + count, dtype=self._param.dtype, device=self._param.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        return values.expand(1 + count, *self._batch_shape) if expand else values


__all__ = ["Binomial"]

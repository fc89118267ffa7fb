r"""The Gamma family: ``Gamma`` on :math:`x \ge 0`, ``Beta`` on :math:`[0, 1]` and ``Dirichlet`` on the
simplex, with :math:`\log\Gamma` (``lgamma``) in the normalizers and :math:`\psi` (``digamma``) in
the entropies.

Draws come from NumPy's gamma sampler on the stream of minitorch's generator of the parameters'
device (``Beta``: :math:`G_1/(G_1 + G_0)`, ``Dirichlet``: :math:`G_k/\sum_j G_j`). Unlike PyTorch
there is no ``rsample`` yet: the gradient of a draw with respect to the concentration (PyTorch's
implicit reparameterization) is in :mod:`.gamma_reparam`, used so far by ``StudentT`` only;
``sample`` (outside the graph), ``log_prob`` and ``entropy`` are complete.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy as np

from ..autograd.grad_mode import no_grad
from ..creation import eye, stack
from ..creation import tensor as make_tensor
from ..generator import default_generator_of
from ..tensor import Tensor
from . import constraints
from .distribution import Distribution, broadcast_all


def standard_gamma(concentration: Tensor, shape: Sequence[int]) -> Tensor:
    """Draws of :math:`\\mathrm{Gamma}(\\alpha, 1)` of ``shape`` (``concentration`` broadcast to it), outside the graph."""
    alpha = np.broadcast_to(concentration.detach().to("cpu").numpy(), tuple(shape))
    drawn = default_generator_of(concentration.device.type).numpy_generator().standard_gamma(alpha)
    return make_tensor(np.asarray(drawn), dtype=concentration.dtype, device=concentration.device)


class Gamma(Distribution):
    r"""Gamma with ``concentration`` :math:`\alpha` and ``rate`` :math:`\beta`:
    :math:`\log p(x) = \alpha\log\beta + (\alpha - 1)\log x - \beta x - \log\Gamma(\alpha)`."""

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative

    def __init__(self, concentration: Any, rate: Any, validate_args: Optional[bool] = None) -> None:
        self.concentration, self.rate = broadcast_all(concentration, rate)
        super().__init__(tuple(self.concentration.shape), (), validate_args)

    @property
    def mean(self) -> Tensor:
        return self.concentration / self.rate

    @property
    def mode(self) -> Tensor:
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self) -> Tensor:
        return self.concentration / self.rate.pow(2)

    def sample(self, sample_shape: Sequence[int] = ()) -> Tensor:
        with no_grad():
            shape = self._extended_shape(sample_shape)
            return standard_gamma(self.concentration, shape) / self.rate.detach()

    def log_prob(self, value: Tensor) -> Tensor:
        self._validate_sample(value)
        return (self.concentration.xlogy(self.rate) + (self.concentration - 1).xlogy(value) - self.rate * value
                - self.concentration.lgamma())

    def entropy(self) -> Tensor:
        r""":math:`\alpha - \log\beta + \log\Gamma(\alpha) + (1 - \alpha)\psi(\alpha)`."""
        alpha = self.concentration
        return alpha - self.rate.log() + alpha.lgamma() + (1.0 - alpha) * alpha.digamma()


class Dirichlet(Distribution):
    r"""Dirichlet with ``concentration`` :math:`\alpha \in \mathbb{R}_{>0}^K` (the last dimension):
    :math:`\log p(x) = \sum_k (\alpha_k - 1)\log x_k + \log\Gamma(\alpha_0) - \sum_k \log\Gamma(\alpha_k)`,
    :math:`\alpha_0 = \sum_k \alpha_k`."""

    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex

    def __init__(self, concentration: Tensor, validate_args: Optional[bool] = None) -> None:
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        super().__init__(tuple(concentration.shape[:-1]), tuple(concentration.shape[-1:]), validate_args)

    @property
    def mean(self) -> Tensor:
        return self.concentration / self.concentration.sum(-1, keepdim=True)

    @property
    def mode(self) -> Tensor:
        """The normalized :math:`(\\alpha_k - 1)^+`; where every :math:`\\alpha_k < 1`, the first vertex (as PyTorch)."""
        excess = (self.concentration - 1).clamp(min=0)
        mode = excess / excess.sum(-1, keepdim=True)
        vertex = eye(mode.shape[-1], dtype=mode.dtype, device=mode.device)[0]
        below = (self.concentration < 1).all(-1, keepdim=True)
        return vertex.where(below, mode)

    @property
    def variance(self) -> Tensor:
        r""":math:`\alpha_k(\alpha_0 - \alpha_k) / (\alpha_0^2(\alpha_0 + 1))`."""
        total = self.concentration.sum(-1, keepdim=True)
        return self.concentration * (total - self.concentration) / (total.pow(2) * (total + 1))

    def sample(self, sample_shape: Sequence[int] = ()) -> Tensor:
        with no_grad():
            draws = standard_gamma(self.concentration, self._extended_shape(sample_shape))
            return draws / draws.sum(-1, keepdim=True)

    def log_prob(self, value: Tensor) -> Tensor:
        self._validate_sample(value)
        alpha = self.concentration
        return (alpha - 1).xlogy(value).sum(-1) + alpha.sum(-1).lgamma() - alpha.lgamma().sum(-1)

    def entropy(self) -> Tensor:
        r""":math:`\sum_k \log\Gamma(\alpha_k) - \log\Gamma(\alpha_0) + (\alpha_0 - K)\psi(\alpha_0) - \sum_k (\alpha_k - 1)\psi(\alpha_k)`."""
        alpha = self.concentration
        k = alpha.shape[-1]
        total = alpha.sum(-1)
        return (alpha.lgamma().sum(-1) - total.lgamma() - (k - total) * total.digamma()
                - ((alpha - 1.0) * alpha.digamma()).sum(-1))


class Beta(Distribution):
    r"""Beta with ``concentration1`` :math:`a` and ``concentration0`` :math:`b`:
    :math:`\log p(x) = (a - 1)\log x + (b - 1)\log(1 - x) - \log B(a, b)`. As in PyTorch it is the
    two-category ``Dirichlet`` of :math:`(a, b)` at :math:`(x, 1 - x)` (its parameter errors name that one)."""

    arg_constraints = {"concentration1": constraints.positive, "concentration0": constraints.positive}
    support = constraints.unit_interval

    def __init__(self, concentration1: Any, concentration0: Any, validate_args: Optional[bool] = None) -> None:
        ones, zeros = broadcast_all(concentration1, concentration0)
        self._dirichlet = Dirichlet(stack([ones, zeros], -1), validate_args=validate_args)
        super().__init__(tuple(self._dirichlet.batch_shape), (), validate_args)

    def expand(self, batch_shape: Sequence[int], _instance: Optional[Distribution] = None) -> Distribution:
        new = object.__new__(type(self)) if _instance is None else _instance
        new._dirichlet = self._dirichlet.expand(batch_shape)
        Distribution.__init__(new, batch_shape, (), validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def concentration1(self) -> Tensor:
        return self._dirichlet.concentration[..., 0]

    @property
    def concentration0(self) -> Tensor:
        return self._dirichlet.concentration[..., 1]

    @property
    def mean(self) -> Tensor:
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def mode(self) -> Tensor:
        return self._dirichlet.mode[..., 0]

    @property
    def variance(self) -> Tensor:
        r""":math:`ab / ((a + b)^2 (a + b + 1))`."""
        total = self.concentration1 + self.concentration0
        return self.concentration1 * self.concentration0 / (total.pow(2) * (total + 1))

    def sample(self, sample_shape: Sequence[int] = ()) -> Tensor:
        return self._dirichlet.sample(sample_shape)[..., 0]

    def log_prob(self, value: Tensor) -> Tensor:
        self._validate_sample(value)
        return self._dirichlet.log_prob(stack([value, 1.0 - value], -1))

    def entropy(self) -> Tensor:
        r""":math:`\log B(a, b) - (a - 1)\psi(a) - (b - 1)\psi(b) + (a + b - 2)\psi(a + b)`."""
        return self._dirichlet.entropy()


__all__ = ["Beta", "Dirichlet", "Gamma"]

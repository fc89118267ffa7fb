r"""Heavy-tailed location-scale families with closed forms: ``Laplace`` (double exponential) and
``Cauchy``. Both draw :math:`\mathrm{loc} + \mathrm{scale}\cdot\varepsilon` with a standard
:math:`\varepsilon` made from a uniform draw, so ``rsample`` carries gradients to both parameters."""

from __future__ import annotations

import math
from typing import Sequence

from ..creation import empty, full_like, rand
from ..tensor import Tensor
from ..type_info import finfo
from .continuous import LocationScale


class Laplace(LocationScale):
    r"""Laplace with ``loc`` :math:`\mu`, ``scale`` :math:`b`: density :math:`\frac{1}{2b} e^{-|x - \mu|/b}`."""

    @property
    def variance(self) -> Tensor:
        r""":math:`2b^2`."""
        return 2 * self.scale.pow(2)

    @property
    def stddev(self) -> Tensor:
        return math.sqrt(2) * self.scale

    def rsample(self, sample_shape: Sequence[int] = ()) -> Tensor:
        r""":math:`\mu - b\,\mathrm{sign}(u)\log(1 - |u|)`, :math:`u` uniform on :math:`(\epsilon - 1, 1)`."""
        eps = finfo(self.loc.dtype).eps
        u = rand(self._extended_shape(sample_shape), dtype=self.loc.dtype, device=self.loc.device)
        u = (eps - 1) + (2 - eps) * u
        return self.loc - self.scale * u.sign() * (-u.abs()).log1p()

    def log_prob(self, value: Tensor) -> Tensor:
        r""":math:`-\log(2b) - |x - \mu|/b`."""
        self._validate_sample(value)
        return -(2 * self.scale).log() - (value - self.loc).abs() / self.scale

    def cdf(self, value: Tensor) -> Tensor:
        r""":math:`\tfrac12 - \tfrac12\,\mathrm{sign}(x - \mu)\,(e^{-|x - \mu|/b} - 1)`."""
        self._validate_sample(value)
        return 0.5 - 0.5 * (value - self.loc).sign() * (-(value - self.loc).abs() / self.scale).expm1()

    def icdf(self, value: Tensor) -> Tensor:
        r""":math:`\mu - b\,\mathrm{sign}(p - \tfrac12)\log(1 - 2|p - \tfrac12|)`."""
        term = value - 0.5
        return self.loc - self.scale * term.sign() * (-2 * term.abs()).log1p()

    def entropy(self) -> Tensor:
        r""":math:`1 + \log(2b)`."""
        return 1 + (2 * self.scale).log()


class Cauchy(LocationScale):
    r"""Cauchy with ``loc`` :math:`x_0`, ``scale`` :math:`\gamma`: density
    :math:`1 / (\pi\gamma (1 + ((x - x_0)/\gamma)^2))`; no mean or variance (NaN and infinity)."""

    @property
    def mean(self) -> Tensor:
        return full_like(self.loc, float("nan"))

    @property
    def variance(self) -> Tensor:
        return full_like(self.loc, float("inf"))

    def rsample(self, sample_shape: Sequence[int] = ()) -> Tensor:
        r""":math:`x_0 + \gamma \tan(\pi (u - \tfrac12))`."""
        shape = self._extended_shape(sample_shape)
        standard = empty(shape, dtype=self.loc.dtype, device=self.loc.device).cauchy_()  # PyTorch's draw
        return self.loc + standard * self.scale

    def log_prob(self, value: Tensor) -> Tensor:
        self._validate_sample(value)
        return -math.log(math.pi) - self.scale.log() - ((value - self.loc) / self.scale).pow(2).log1p()

    def cdf(self, value: Tensor) -> Tensor:
        r""":math:`\tfrac12 + \arctan((x - x_0)/\gamma)/\pi`."""
        self._validate_sample(value)
        return ((value - self.loc) / self.scale).atan() / math.pi + 0.5

    def icdf(self, value: Tensor) -> Tensor:
        return (math.pi * (value - 0.5)).tan() * self.scale + self.loc

    def entropy(self) -> Tensor:
        r""":math:`\log(4\pi\gamma)`."""
        return math.log(4 * math.pi) + self.scale.log()


__all__ = ["Cauchy", "Laplace"]

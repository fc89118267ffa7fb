r"""``MultivariateNormal``: :math:`\mathcal{N}(\mu, \Sigma)` over vectors, computed through the Cholesky
factor :math:`L` (:math:`\Sigma = L L^\top`):

.. math:: \log p(x) = -\tfrac12\left(k \log 2\pi + \lVert L^{-1}(x - \mu)\rVert^2\right) - \sum_i \log L_{ii},

draws :math:`\mu + L\varepsilon`. The covariance may be given as ``covariance_matrix``,
``precision_matrix`` (:math:`\Sigma^{-1}`) or ``scale_tril`` (:math:`L` itself); the other two are
computed when first asked for. ``linalg.cholesky`` and ``solve_triangular`` are differentiable, so
``log_prob`` and ``rsample`` carry gradients to every parameterization.
"""

from __future__ import annotations

import math
from typing import Any, Optional, Sequence

from ..creation import eye, randn
from ..linalg import cholesky, inv, solve_triangular
from ..ops.strided import broadcast_shapes
from ..tensor import Tensor
from . import constraints
from .distribution import Distribution

#: the matrix arguments, in PyTorch's order, and the one the factor comes from
MATRICES = ("covariance_matrix", "precision_matrix", "scale_tril")


def mahalanobis(scale_tril: Tensor, diff: Tensor) -> Tensor:
    r""":math:`\lVert L^{-1} d \rVert^2` for each vector :math:`d` (batch dims broadcast)."""
    solved = solve_triangular(scale_tril, diff.unsqueeze(-1), upper=False).squeeze(-1)
    return solved.pow(2).sum(-1)


def half_log_det(scale_tril: Tensor) -> Tensor:
    r""":math:`\tfrac12 \log\det\Sigma = \sum_i \log L_{ii}`."""
    return scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)


class MultivariateNormal(Distribution):
    """Gaussian over vectors of ``loc.shape[-1]`` coordinates; exactly one matrix argument."""

    arg_constraints = {"loc": constraints.real_vector, "covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite, "scale_tril": constraints.lower_cholesky}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc: Tensor, covariance_matrix: Optional[Tensor] = None, precision_matrix: Optional[Tensor] = None,
                 scale_tril: Optional[Tensor] = None, validate_args: Optional[bool] = None) -> None:
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        given = {"covariance_matrix": covariance_matrix, "precision_matrix": precision_matrix, "scale_tril": scale_tril}
        named = [name for name in MATRICES if given[name] is not None]
        if len(named) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.")
        name = named[0]
        matrix = given[name]
        if matrix.dim() < 2:
            raise ValueError(f"{name} matrix must be at least two-dimensional, with optional leading batch dimensions"
                             if name == "scale_tril" else
                             f"{name} must be at least two-dimensional, with optional leading batch dimensions")
        batch_shape = tuple(broadcast_shapes(tuple(matrix.shape[:-2]), tuple(loc.shape[:-1])))
        setattr(self, name, matrix.expand(*batch_shape, -1, -1))
        self.loc = loc.expand(*batch_shape, -1)
        super().__init__(batch_shape, tuple(loc.shape[-1:]), validate_args)
        if name == "scale_tril":
            self._unbroadcasted_scale_tril = matrix
        elif name == "covariance_matrix":
            self._unbroadcasted_scale_tril = cholesky(matrix)
        else:  # \Sigma = P^{-1}
            self._unbroadcasted_scale_tril = cholesky(inv(matrix))

    def __getattr__(self, name: str) -> Any:  # a matrix not given, computed once on demand
        if name not in MATRICES or "_unbroadcasted_scale_tril" not in self.__dict__:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        tril = self._unbroadcasted_scale_tril
        if name == "scale_tril":
            value = tril
        elif name == "covariance_matrix":
            value = tril @ tril.mT
        else:  # P = L^{-T} L^{-1}
            k = tril.shape[-1]
            inverse = solve_triangular(tril, eye(k, dtype=tril.dtype, device=tril.device), upper=False)
            value = inverse.mT @ inverse
        value = value.expand(*self._batch_shape, *self._event_shape, *self._event_shape)
        setattr(self, name, value)
        return value

    def expand(self, batch_shape: Sequence[int], _instance: Optional[Distribution] = None) -> Distribution:
        new = object.__new__(type(self)) if _instance is None else _instance
        batch_shape = tuple(batch_shape)
        k = tuple(self._event_shape)
        new.loc = self.loc.expand(*batch_shape, *k)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        for name in MATRICES:
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(*batch_shape, *k, *k))
        Distribution.__init__(new, batch_shape, k, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        r""":math:`\Sigma_{ii} = \sum_j L_{ij}^2`."""
        return self._unbroadcasted_scale_tril.pow(2).sum(-1).expand(*self._batch_shape, *self._event_shape)

    def rsample(self, sample_shape: Sequence[int] = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        eps = randn(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + (self._unbroadcasted_scale_tril @ eps.unsqueeze(-1)).squeeze(-1)

    def log_prob(self, value: Tensor) -> Tensor:
        self._validate_sample(value)
        k = self._event_shape[0]
        squared = mahalanobis(self._unbroadcasted_scale_tril, value - self.loc)
        return -0.5 * (k * math.log(2 * math.pi) + squared) - half_log_det(self._unbroadcasted_scale_tril)

    def entropy(self) -> Tensor:
        r""":math:`\tfrac{k}{2}(1 + \log 2\pi) + \tfrac12\log\det\Sigma`."""
        k = self._event_shape[0]
        value = 0.5 * k * (1.0 + math.log(2 * math.pi)) + half_log_det(self._unbroadcasted_scale_tril)
        return value.expand(*self._batch_shape) if tuple(value.shape) != tuple(self._batch_shape) else value


__all__ = ["MultivariateNormal"]

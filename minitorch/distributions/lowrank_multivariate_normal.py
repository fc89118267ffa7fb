r"""``LowRankMultivariateNormal``: :math:`\mathcal{N}(\mu, \Sigma)` over vectors of :math:`k` coordinates
with :math:`\Sigma = W W^\top + D` for a ``cov_factor`` :math:`W` (:math:`k \times m`) and a positive
diagonal ``cov_diag`` :math:`D`. Only the :math:`m \times m` *capacitance* matrix
:math:`C = I + W^\top D^{-1} W` is factored (:math:`C = L_C L_C^\top`):

.. math:: \Sigma^{-1} = D^{-1} - D^{-1} W C^{-1} W^\top D^{-1} \quad\text{(Woodbury)},\qquad
          \log\det\Sigma = \log\det C + \sum_i \log D_{ii} \quad\text{(determinant lemma)}.

Draws are :math:`\mu + W\varepsilon_W + D^{1/2}\varepsilon_D` with standard normal :math:`\varepsilon_W \in
\mathbb{R}^m`, :math:`\varepsilon_D \in \mathbb{R}^k`, so ``rsample`` carries gradients to all three parameters.
"""

from __future__ import annotations

import math
from typing import Optional, Sequence

from ..creation import eye, randn
from ..linalg import cholesky, solve_triangular
from ..ops.strided import broadcast_tensors
from ..tensor import Tensor
from . import constraints
from .distribution import Distribution
from .multivariate_normal import half_log_det, mahalanobis

LOG_2PI = math.log(2 * math.pi)


def capacitance_tril(cov_factor: Tensor, cov_diag: Tensor) -> Tensor:
    r"""The Cholesky factor :math:`L_C` of :math:`C = I + W^\top D^{-1} W`."""
    rank = cov_factor.shape[-1]
    scaled = cov_factor.mT / cov_diag.unsqueeze(-2)  # W^T D^{-1}
    return cholesky(scaled @ cov_factor + eye(rank, dtype=cov_factor.dtype, device=cov_factor.device))


def lowrank_log_det(cov_diag: Tensor, cap_tril: Tensor) -> Tensor:
    r""":math:`\log\det(W W^\top + D) = 2\sum_j \log (L_C)_{jj} + \sum_i \log D_{ii}`."""
    return 2 * half_log_det(cap_tril) + cov_diag.log().sum(-1)


def woodbury_factor(cov_factor: Tensor, cov_diag: Tensor, cap_tril: Tensor) -> Tensor:
    r""":math:`A = L_C^{-1} W^\top D^{-1}`, so that :math:`\Sigma^{-1} = D^{-1} - A^\top A`."""
    return solve_triangular(cap_tril, cov_factor.mT / cov_diag.unsqueeze(-2), upper=False)


def lowrank_mahalanobis(cov_factor: Tensor, cov_diag: Tensor, diff: Tensor, cap_tril: Tensor) -> Tensor:
    r""":math:`d^\top \Sigma^{-1} d = \sum_i d_i^2 / D_{ii} - \lVert L_C^{-1} W^\top D^{-1} d \rVert^2` (Woodbury)."""
    projected = ((cov_factor.mT / cov_diag.unsqueeze(-2)) @ diff.unsqueeze(-1)).squeeze(-1)
    return (diff.pow(2) / cov_diag).sum(-1) - mahalanobis(cap_tril, projected)


def trace_of_square(matrix: Tensor) -> Tensor:
    r""":math:`\operatorname{tr}(X X^\top) = \sum_{ij} X_{ij}^2` for each matrix of a batch."""
    return matrix.pow(2).sum((-2, -1))


class LowRankMultivariateNormal(Distribution):
    """Gaussian over vectors of ``loc.shape[-1]`` coordinates with covariance ``cov_factor @ cov_factor.mT + diag(cov_diag)``."""

    arg_constraints = {"loc": constraints.real_vector, "cov_factor": constraints.independent(constraints.real, 2),
                       "cov_diag": constraints.independent(constraints.positive, 1)}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc: Tensor, cov_factor: Tensor, cov_diag: Tensor, validate_args: Optional[bool] = None) -> None:
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        event_shape = loc.shape[-1:]
        if cov_factor.dim() < 2:
            raise ValueError("cov_factor must be at least two-dimensional, with optional leading batch dimensions")
        if cov_factor.shape[-2:-1] != event_shape:
            raise ValueError(f"cov_factor must be a batch of matrices with shape {event_shape[0]} x m")
        if cov_diag.shape[-1:] != event_shape:
            raise ValueError(f"cov_diag must be a batch of vectors with shape {event_shape}")
        try:
            loc_, self.cov_factor, cov_diag_ = broadcast_tensors(loc.unsqueeze(-1), cov_factor, cov_diag.unsqueeze(-1))
        except RuntimeError as error:  # shapes that do not broadcast
            raise ValueError(f"Incompatible batch shapes: loc {loc.shape}, cov_factor {cov_factor.shape}, "
                             f"cov_diag {cov_diag.shape}") from error
        self.loc, self.cov_diag = loc_[..., 0], cov_diag_[..., 0]
        self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag = cov_factor, cov_diag
        self._capacitance_tril = capacitance_tril(cov_factor, cov_diag)
        super().__init__(tuple(self.loc.shape[:-1]), tuple(event_shape), validate_args)

    def expand(self, batch_shape: Sequence[int], _instance: Optional[Distribution] = None) -> Distribution:
        new = object.__new__(type(self)) if _instance is None else _instance
        shape = tuple(batch_shape) + tuple(self._event_shape)
        new.loc, new.cov_diag = self.loc.expand(*shape), self.cov_diag.expand(*shape)
        new.cov_factor = self.cov_factor.expand(*shape, self.cov_factor.shape[-1])
        new._unbroadcasted_cov_factor = self._unbroadcasted_cov_factor
        new._unbroadcasted_cov_diag = self._unbroadcasted_cov_diag
        new._capacitance_tril = self._capacitance_tril
        Distribution.__init__(new, batch_shape, self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _matrix_shape(self) -> tuple[int, ...]:
        return tuple(self._batch_shape) + tuple(self._event_shape) * 2

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        r""":math:`\Sigma_{ii} = \sum_j W_{ij}^2 + D_{ii}`."""
        value = self._unbroadcasted_cov_factor.pow(2).sum(-1) + self._unbroadcasted_cov_diag
        return value.expand(*self._batch_shape, *self._event_shape)

    @property
    def covariance_matrix(self) -> Tensor:
        factor = self._unbroadcasted_cov_factor
        return (factor @ factor.mT + self._unbroadcasted_cov_diag.diag_embed()).expand(*self._matrix_shape())

    @property
    def precision_matrix(self) -> Tensor:
        r""":math:`D^{-1} - A^\top A`, :math:`A = L_C^{-1} W^\top D^{-1}` (Woodbury)."""
        diag = self._unbroadcasted_cov_diag
        factor = woodbury_factor(self._unbroadcasted_cov_factor, diag, self._capacitance_tril)
        return (diag.reciprocal().diag_embed() - factor.mT @ factor).expand(*self._matrix_shape())

    @property
    def scale_tril(self) -> Tensor:
        r""":math:`D^{1/2}\,\mathrm{chol}(I + D^{-1/2} W W^\top D^{-1/2})`: the factor of a matrix whose
        eigenvalues are at least 1, which is well conditioned."""
        k = self._event_shape[0]
        root = self._unbroadcasted_cov_diag.sqrt().unsqueeze(-1)
        scaled = self._unbroadcasted_cov_factor / root
        inner = scaled @ scaled.mT + eye(k, dtype=scaled.dtype, device=scaled.device)
        return (root * cholesky(inner)).expand(*self._matrix_shape())

    def rsample(self, sample_shape: Sequence[int] = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        factor_noise = randn(shape[:-1] + (self.cov_factor.shape[-1],), dtype=self.loc.dtype, device=self.loc.device)
        diag_noise = randn(shape, dtype=self.loc.dtype, device=self.loc.device)
        correlated = (self._unbroadcasted_cov_factor @ factor_noise.unsqueeze(-1)).squeeze(-1)
        return self.loc + correlated + self._unbroadcasted_cov_diag.sqrt() * diag_noise

    def _log_det(self) -> Tensor:
        return lowrank_log_det(self._unbroadcasted_cov_diag, self._capacitance_tril)

    def log_prob(self, value: Tensor) -> Tensor:
        r""":math:`-\tfrac12\left(k\log 2\pi + \log\det\Sigma + (x - \mu)^\top\Sigma^{-1}(x - \mu)\right)`."""
        self._validate_sample(value)
        squared = lowrank_mahalanobis(self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag, value - self.loc,
                                      self._capacitance_tril)
        return -0.5 * (self._event_shape[0] * LOG_2PI + self._log_det() + squared)

    def entropy(self) -> Tensor:
        r""":math:`\tfrac12\left(k(1 + \log 2\pi) + \log\det\Sigma\right)`."""
        value = 0.5 * (self._event_shape[0] * (1.0 + LOG_2PI) + self._log_det())
        return value.expand(*self._batch_shape) if tuple(value.shape) != tuple(self._batch_shape) else value


__all__ = ["LowRankMultivariateNormal", "capacitance_tril", "lowrank_log_det", "lowrank_mahalanobis",
           "trace_of_square", "woodbury_factor"]

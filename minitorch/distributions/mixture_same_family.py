r"""``MixtureSameFamily``: a mixture of ``K`` components of one family, weighted by a ``Categorical``.

The rightmost batch dimension of ``component_distribution`` (of size ``K``) indexes the
components; ``mixture_distribution`` gives their weights :math:`\pi_k`. The density is

.. math::
    p(x) = \sum_k \pi_k\, p_k(x), \qquad
    \log p(x) = \operatorname{logsumexp}_k \left(\log \pi_k + \log p_k(x)\right),

(the output layer of a mixture density network). The moments follow from conditioning on the
component :math:`k`: :math:`\mathbb{E}[x] = \sum_k \pi_k \mu_k` and, by the law of total
variance, :math:`\mathrm{Var}[x] = \sum_k \pi_k \sigma_k^2 + \sum_k \pi_k (\mu_k - \mathbb{E}[x])^2`.
Drawing picks a component, then a draw of it; as in PyTorch there is no ``rsample``.
"""

from __future__ import annotations

from typing import Optional, Sequence

from ..autograd.grad_mode import no_grad
from ..nn.functional import log_softmax
from ..tensor import Tensor
from .categorical import Categorical
from .constraints import Constraint
from .distribution import Distribution


class MixtureSameFamilyConstraint(Constraint):
    """The component's ``support``, checked with the component dimension put back into the value."""

    def __init__(self, base_constraint: Constraint) -> None:
        if not isinstance(base_constraint, Constraint):
            raise AssertionError(f"base_constraint must be a Constraint, got {type(base_constraint).__name__}")
        self.base_constraint = base_constraint

    @property
    def is_discrete(self) -> bool:  # type: ignore[override]
        return self.base_constraint.is_discrete

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        return self.base_constraint.event_dim

    def check(self, value: Tensor) -> Tensor:
        result = self.base_constraint.check(value.unsqueeze(-1 - self.event_dim))
        if value.dim() < self.event_dim:
            raise ValueError(f"Expected value.dim() >= {self.event_dim} but got {value.dim()}")
        kept = value.dim() - self.event_dim
        return result.reshape(*result.shape[:kept], -1).all(-1)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.base_constraint!r})"


class MixtureSameFamily(Distribution):
    """A ``Categorical`` choice among the ``K`` distributions of the component's last batch dimension."""

    arg_constraints: dict[str, Constraint] = {}
    has_rsample = False

    def __init__(self, mixture_distribution: Categorical, component_distribution: Distribution,
                 validate_args: Optional[bool] = None) -> None:
        self._mixture_distribution = mixture_distribution
        self._component_distribution = component_distribution
        if not isinstance(mixture_distribution, Categorical):
            raise ValueError(" The Mixture distribution needs to be an "
                             " instance of minitorch.distributions.Categorical")
        if not isinstance(component_distribution, Distribution):
            raise ValueError("The Component distribution needs to be an "
                             "instance of minitorch.distributions.Distribution")
        mixture_batch = mixture_distribution.batch_shape
        component_batch = component_distribution.batch_shape[:-1]
        for size1, size2 in zip(reversed(mixture_batch), reversed(component_batch)):
            if size1 != 1 and size2 != 1 and size1 != size2:
                raise ValueError(f"`mixture_distribution.batch_shape` ({mixture_batch}) is not "
                                 f"compatible with `component_distribution.batch_shape`({component_batch})")
        mixture_components = mixture_distribution.logits.shape[-1]
        component_components = component_distribution.batch_shape[-1]
        if mixture_components != component_components:
            raise ValueError(f"`mixture_distribution component` ({mixture_components}) does not"
                             f" equal `component_distribution.batch_shape[-1]` ({component_components})")
        self._num_component = mixture_components
        self._event_ndims = len(component_distribution.event_shape)
        super().__init__(component_batch, component_distribution.event_shape, validate_args)

    def expand(self, batch_shape: Sequence[int], _instance: Optional[Distribution] = None) -> Distribution:
        batch_shape = tuple(batch_shape)
        new = object.__new__(type(self)) if _instance is None else _instance
        new._component_distribution = self._component_distribution.expand(batch_shape + (self._num_component,))
        new._mixture_distribution = self._mixture_distribution.expand(batch_shape)
        new._num_component = self._num_component
        new._event_ndims = self._event_ndims
        Distribution.__init__(new, batch_shape, new._component_distribution.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def support(self) -> Constraint:  # type: ignore[override]
        return MixtureSameFamilyConstraint(self._component_distribution.support)

    @property
    def mixture_distribution(self) -> Categorical:
        return self._mixture_distribution

    @property
    def component_distribution(self) -> Distribution:
        return self._component_distribution

    def _weights(self) -> Tensor:
        r"""The mixture probabilities :math:`\pi_k` with a trailing 1 per event dimension, so that they
        broadcast against the component's ``(..., K, *event_shape)`` moments."""
        probs = self.mixture_distribution.probs
        return probs.reshape(*probs.shape, *([1] * self._event_ndims))

    @property
    def mean(self) -> Tensor:
        return (self._weights() * self.component_distribution.mean).sum(-1 - self._event_ndims)

    @property
    def variance(self) -> Tensor:
        component_dim = -1 - self._event_ndims
        weights = self._weights()
        mean_of_variances = (weights * self.component_distribution.variance).sum(component_dim)
        deviations = self.component_distribution.mean - self._pad(self.mean)
        variance_of_means = (weights * deviations.pow(2.0)).sum(component_dim)
        return mean_of_variances + variance_of_means

    def cdf(self, value: Tensor) -> Tensor:
        r""":math:`F(x) = \sum_k \pi_k F_k(x)`, where the component has a ``cdf``."""
        component_cdf = self.component_distribution.cdf(self._pad(value))
        return (component_cdf * self.mixture_distribution.probs).sum(-1)

    def log_prob(self, value: Tensor) -> Tensor:
        self._validate_sample(value)
        component_log_prob = self.component_distribution.log_prob(self._pad(value))  # [S, B, K]
        log_weights = log_softmax(self.mixture_distribution.logits, dim=-1)  # [B, K]
        return (component_log_prob + log_weights).logsumexp(-1)  # [S, B]

    def sample(self, sample_shape: Sequence[int] = ()) -> Tensor:
        """A component index from the mixture, then that component's draw (outside the graph)."""
        with no_grad():
            sample_shape = tuple(sample_shape)
            event_shape = tuple(self.event_shape)
            component_dim = len(sample_shape) + len(self.batch_shape)
            choices = self.mixture_distribution.sample(sample_shape)  # [S, B]
            draws = self.component_distribution.sample(sample_shape)  # [S, B, K, E]
            index = choices.reshape(*choices.shape, *([1] * (len(event_shape) + 1)))
            index = index.repeat(*([1] * choices.dim()), 1, *event_shape)
            return draws.gather(component_dim, index).squeeze(component_dim)

    def _pad(self, value: Tensor) -> Tensor:
        """``value`` with a dimension of size 1 where the components are: ``[S, B, 1, E]``."""
        return value.unsqueeze(-1 - self._event_ndims)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(\n  {self.mixture_distribution},\n  {self.component_distribution})"


__all__ = ["MixtureSameFamily", "MixtureSameFamilyConstraint"]

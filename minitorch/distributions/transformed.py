r"""``TransformedDistribution``: the law of :math:`y = f_n(\dots f_1(x))` for :math:`x` from a base.

By the change of variables, with :math:`x = f^{-1}(y)`,

.. math:: \log p_Y(y) = \log p_X(x) - \sum_i \log |\det J_{f_i}(x_{i-1})|,

and a draw is the base's draw pushed through the transforms, so ``rsample`` is reparameterized
when the base's is (SAC's tanh-squashed Gaussian: ``TransformedDistribution(Normal(mu, std),
[TanhTransform(cache_size=1)])``).
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

from ..autograd.grad_mode import no_grad
from ..tensor import Tensor
from . import constraints
from .constraints import Constraint
from .distribution import Distribution, sum_rightmost
from .independent import Independent
from .transforms import ComposeTransform, Transform


class TransformedDistribution(Distribution):
    """``base_distribution`` pushed through ``transforms`` (one or a list, applied in order)."""

    arg_constraints: dict[str, Constraint] = {}

    def __init__(self, base_distribution: Distribution, transforms: Any, validate_args: Optional[bool] = None) -> None:
        if isinstance(transforms, Transform):
            self.transforms = [transforms]
        elif isinstance(transforms, list):
            if not all(isinstance(t, Transform) for t in transforms):
                raise ValueError("transforms must be a Transform or a list of Transforms")
            self.transforms = transforms
        else:
            raise ValueError(f"transforms must be a Transform or list, but was {transforms}")
        base_shape = tuple(base_distribution.batch_shape) + tuple(base_distribution.event_shape)
        base_event_dim = len(base_distribution.event_shape)
        chain = ComposeTransform(self.transforms)
        if len(base_shape) < chain.domain.event_dim:
            raise ValueError(f"base_distribution needs to have shape with size at least {chain.domain.event_dim}, "
                             f"but got {base_distribution.batch_shape + base_distribution.event_shape}.")
        if chain.domain.event_dim > base_event_dim:  # the transforms read more dims as one event
            base_distribution = Independent(base_distribution, chain.domain.event_dim - base_event_dim)
        self.base_dist = base_distribution
        event_dim = max(chain.codomain.event_dim,
                        base_event_dim + chain.codomain.event_dim - chain.domain.event_dim)
        shape = chain.forward_shape(base_shape)
        cut = len(shape) - event_dim
        super().__init__(shape[:cut], shape[cut:], validate_args)

    def expand(self, batch_shape: Sequence[int], _instance: Optional[Distribution] = None) -> Distribution:
        new = Distribution.expand(self, batch_shape, _instance)  # parameters a subclass keeps itself
        shape = tuple(batch_shape) + tuple(self.event_shape)
        for transform in reversed(self.transforms):
            shape = transform.inverse_shape(shape)
        new.base_dist = self.base_dist.expand(shape[: len(shape) - len(self.base_dist.event_shape)])
        return new

    @property
    def has_rsample(self) -> bool:  # type: ignore[override]
        return self.base_dist.has_rsample

    @property
    def support(self) -> Constraint:  # type: ignore[override]
        if not self.transforms:
            return self.base_dist.support
        support = self.transforms[-1].codomain
        extra = len(self.event_shape) - support.event_dim
        return constraints.independent(support, extra) if extra > 0 else support

    def sample(self, sample_shape: Sequence[int] = ()) -> Tensor:
        with no_grad():
            x = self.base_dist.sample(sample_shape)
            for transform in self.transforms:
                x = transform(x)
            return x

    def rsample(self, sample_shape: Sequence[int] = ()) -> Tensor:
        x = self.base_dist.rsample(sample_shape)
        for transform in self.transforms:
            x = transform(x)
        return x

    def log_prob(self, value: Tensor) -> Tensor:
        self._validate_sample(value)
        event_dim = len(self.event_shape)
        total: Any = 0.0
        y = value
        for transform in reversed(self.transforms):
            x = transform.inv(y)
            event_dim += transform.domain.event_dim - transform.codomain.event_dim
            total = total - sum_rightmost(transform.log_abs_det_jacobian(x, y), event_dim - transform.domain.event_dim)
            y = x
        return total + sum_rightmost(self.base_dist.log_prob(y), event_dim - len(self.base_dist.event_shape))

    def _monotonize_cdf(self, value: Tensor) -> Tensor:
        r"""A cdf value of the base as one of :math:`y`: :math:`1 - F` where the chain decreases."""
        sign: Any = 1
        for transform in self.transforms:
            sign = sign * transform.sign
        if isinstance(sign, int) and sign == 1:
            return value
        return sign * (value - 0.5) + 0.5

    def cdf(self, value: Tensor) -> Tensor:
        for transform in reversed(self.transforms):
            value = transform.inv(value)
        if self._validate_args:
            self.base_dist._validate_sample(value)
        return self._monotonize_cdf(self.base_dist.cdf(value))

    def icdf(self, value: Tensor) -> Tensor:
        value = self.base_dist.icdf(self._monotonize_cdf(value))
        for transform in self.transforms:
            value = transform(value)
        return value


__all__ = ["TransformedDistribution"]

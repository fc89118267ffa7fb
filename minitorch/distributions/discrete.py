r"""``OneHotCategorical`` (a category as a one-hot vector) and ``Geometric`` (failures before the
first success, :math:`P(k) = (1 - p)^k p`). Like ``Bernoulli``, ``Geometric`` takes ``probs`` or
``logits`` and computes the other on demand."""

from __future__ import annotations

from typing import Any, Optional, Sequence

from ..autograd.grad_mode import no_grad
from ..creation import eye, rand, zeros_like
from ..nn.functional import binary_cross_entropy_with_logits, one_hot
from ..tensor import Tensor
from ..type_info import finfo
from . import constraints
from .categorical import BinaryParameters, Categorical
from .distribution import Distribution, broadcast_all


class OneHotCategorical(Distribution):
    """A ``Categorical`` whose draws are one-hot vectors of length ``K`` (the event shape ``(K,)``)."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.one_hot
    has_enumerate_support = True

    def __init__(self, probs: Optional[Tensor] = None, logits: Optional[Tensor] = None,
                 validate_args: Optional[bool] = None) -> None:
        self._categorical = Categorical(probs, logits)
        super().__init__(tuple(self._categorical.batch_shape), tuple(self._categorical.param_shape[-1:]), validate_args)

    def expand(self, batch_shape: Sequence[int], _instance: Optional[Distribution] = None) -> Distribution:
        new = object.__new__(type(self)) if _instance is None else _instance
        new._categorical = self._categorical.expand(batch_shape)
        Distribution.__init__(new, batch_shape, self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def probs(self) -> Tensor:
        return self._categorical.probs

    @property
    def logits(self) -> Tensor:
        return self._categorical.logits

    @property
    def param_shape(self) -> Any:
        return self._categorical.param_shape

    @property
    def mean(self) -> Tensor:
        return self._categorical.probs

    @property
    def mode(self) -> Tensor:
        probs = self._categorical.probs
        return one_hot(probs.argmax(-1), probs.shape[-1]).to(probs.dtype)

    @property
    def variance(self) -> Tensor:
        r""":math:`p_k (1 - p_k)`."""
        probs = self._categorical.probs
        return probs * (1 - probs)

    def sample(self, sample_shape: Sequence[int] = ()) -> Tensor:
        probs = self._categorical.probs
        indices = self._categorical.sample(sample_shape)
        return one_hot(indices, probs.shape[-1]).to(probs.dtype)

    def log_prob(self, value: Tensor) -> Tensor:
        self._validate_sample(value)
        return self._categorical.log_prob(value.argmax(-1))

    def entropy(self) -> Tensor:
        return self._categorical.entropy()

    def enumerate_support(self, expand: bool = True) -> Tensor:
        k = self._event_shape[0]
        values = eye(k, dtype=self.probs.dtype, device=self.probs.device)
        values = values.view(k, *((1,) * len(self._batch_shape)), k)
        return values.expand(k, *self._batch_shape, k) if expand else values


class Geometric(BinaryParameters, Distribution):
    r"""Number of failures before the first success of Bernoulli(:math:`p`) trials, :math:`0 < p \le 1`:
    :math:`\log P(k) = k \log(1 - p) + \log p`."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs: Any = None, logits: Any = None, validate_args: Optional[bool] = None) -> None:
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            (self.probs,) = broadcast_all(probs)
            shape = self.probs.shape
        else:
            (self.logits,) = broadcast_all(logits)
            shape = self.logits.shape
        super().__init__(tuple(shape), (), validate_args)
        if self._validate_args and probs is not None:
            valid = self.probs > 0
            if not bool(valid.all().item()):
                raise ValueError(f"Expected parameter probs ({type(self.probs).__name__} of shape {tuple(self.probs.shape)}) "
                                 f"of distribution {self!r} to be positive but found invalid values:\n"
                                 f"{self.probs.detach()[~valid]}")

    @property
    def mean(self) -> Tensor:
        r""":math:`1/p - 1`."""
        return 1.0 / self.probs - 1.0

    @property
    def mode(self) -> Tensor:
        return zeros_like(self.probs)

    @property
    def variance(self) -> Tensor:
        r""":math:`(1/p - 1)/p`."""
        return (1.0 / self.probs - 1.0) / self.probs

    def sample(self, sample_shape: Sequence[int] = ()) -> Tensor:
        r""":math:`\lfloor \log U / \log(1 - p) \rfloor`, :math:`U` uniform on :math:`[\mathrm{tiny}, 1)`."""
        shape = self._extended_shape(sample_shape)
        with no_grad():
            probs = self.probs
            tiny = finfo(probs.dtype).tiny
            u = rand(shape, dtype=probs.dtype, device=probs.device).clamp(min=tiny)
            return (u.log() / (-probs).log1p()).floor()

    def log_prob(self, value: Tensor) -> Tensor:
        self._validate_sample(value)
        value, probs = broadcast_all(value, self.probs)
        certain = probs.masked_fill((probs == 1) & (value == 0), 0.0)  # 0 * log(0) is 0 here
        return value * (-certain).log1p() + self.probs.log()

    def entropy(self) -> Tensor:
        r""":math:`H(\mathrm{Bernoulli}(p)) / p`."""
        return binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none") / self.probs


__all__ = ["Geometric", "OneHotCategorical"]

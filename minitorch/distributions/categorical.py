r"""``Categorical`` and ``Bernoulli``: discrete distributions given by probabilities or logits.

As in PyTorch, either parameter may be given and the other is computed when first asked for
(then it shows in the repr); logits of a probability are :math:`\log p` with :math:`p` kept
inside :math:`[\epsilon, 1 - \epsilon]`, so a zero probability has a finite logit.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

from ..nn.functional import binary_cross_entropy_with_logits, softmax
from ..ops.sampling import multinomial
from ..ops.strided import broadcast_shapes
from ..creation import arange, rand
from ..tensor import Tensor
from ..type_info import finfo
from . import constraints
from .constraints import Constraint
from .distribution import Distribution, as_tensor, broadcast_all


def _clamped(probs: Tensor) -> Tensor:
    eps = finfo(probs.dtype).eps
    return probs.clamp(eps, 1 - eps)


def one_parameter(probs: Any, logits: Any) -> None:
    """PyTorch's error unless exactly one of ``probs`` and ``logits`` is given."""
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")


class Categorical(Distribution):
    """One of ``K`` categories, :math:`P(k) = p_k` (the last dimension of ``probs``/``logits``)."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    has_enumerate_support = True

    def __init__(self, probs: Optional[Tensor] = None, logits: Optional[Tensor] = None,
                 validate_args: Optional[bool] = None) -> None:
        one_parameter(probs, logits)
        source = probs if probs is not None else logits
        if source.dim() < 1:
            raise ValueError("`probs` parameter must be at least one-dimensional." if probs is not None
                             else "`logits` parameter must be at least one-dimensional.")
        if probs is not None:
            self.probs = probs / probs.sum(-1, keepdim=True)
        else:
            self.logits = logits - logits.logsumexp(-1, keepdim=True)
        self._num_events = source.shape[-1]
        super().__init__(tuple(source.shape[:-1]), (), validate_args)

    def __getattr__(self, name: str) -> Any:  # the other parameter, computed once on demand
        if name == "logits" and "probs" in self.__dict__:
            self.logits = _clamped(self.probs).log()
            return self.logits
        if name == "probs" and "logits" in self.__dict__:
            self.probs = softmax(self.logits, -1)
            return self.probs
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    @property
    def param_shape(self) -> Any:
        return self.probs.shape

    @property
    def support(self) -> Constraint:  # type: ignore[override]
        return constraints.integer_interval(0, self._num_events - 1)

    @property
    def mode(self) -> Tensor:
        return self.probs.argmax(-1)

    @property
    def mean(self) -> Tensor:
        return self.probs.new_full(tuple(self.batch_shape), float("nan"))

    @property
    def variance(self) -> Tensor:
        return self.probs.new_full(tuple(self.batch_shape), float("nan"))

    def sample(self, sample_shape: Sequence[int] = ()) -> Tensor:
        flat = self.probs.detach().reshape(-1, self._num_events)
        count = 1
        for size in sample_shape:
            count *= int(size)
        draws = multinomial(flat, count, replacement=True)  # (batch, count)
        return draws.t().reshape(tuple(sample_shape) + tuple(self.batch_shape))

    def log_prob(self, value: Tensor) -> Tensor:
        self._validate_sample(value)
        value = value.long()
        logits = self.logits
        shape = tuple(broadcast_shapes(tuple(value.shape), tuple(logits.shape[:-1])))
        picked = logits.expand(*shape, self._num_events)
        return picked.gather(-1, value.expand(*shape).unsqueeze(-1)).squeeze(-1)

    def entropy(self) -> Tensor:
        r""":math:`-\sum_k p_k \log p_k`, with a logit of :math:`-\infty` (a zero probability) raised to the
        dtype's lowest finite number first, as PyTorch does: its term is then :math:`0`, not NaN."""
        logits = self.logits.clamp(min=finfo(self.logits.dtype).min)
        return -(logits * self.probs).sum(-1)

    def enumerate_support(self, expand: bool = True) -> Tensor:
        values = arange(self._num_events, device=self.probs.device).view((-1,) + (1,) * len(self.batch_shape))
        return values.expand(self._num_events, *self.batch_shape) if expand else values


class BinaryParameters:
    r"""``probs`` :math:`p` or ``logits`` :math:`\log\frac{p}{1 - p}` of a yes/no event (Bernoulli,
    Geometric): whichever was not given is computed from the other on first use, then kept."""

    def __getattr__(self, name: str) -> Any:
        if name == "logits" and "probs" in self.__dict__:
            p = _clamped(self.probs)
            self.logits = p.log() - (-p).log1p()
            return self.logits
        if name == "probs" and "logits" in self.__dict__:
            self.probs = self.logits.sigmoid()
            return self.probs
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")


class Bernoulli(BinaryParameters, Distribution):
    """1 with probability :math:`p`, 0 otherwise."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True

    def __init__(self, probs: Any = None, logits: Any = None, validate_args: Optional[bool] = None) -> None:
        one_parameter(probs, logits)
        if probs is not None:
            self.probs = as_tensor(probs)
            shape = self.probs.shape
        else:
            self.logits = as_tensor(logits)
            shape = self.logits.shape
        super().__init__(tuple(shape), (), validate_args)

    @property
    def mean(self) -> Tensor:
        return self.probs

    @property
    def mode(self) -> Tensor:
        probs = self.probs
        return (probs >= 0.5).to(probs.dtype).masked_fill(probs == 0.5, float("nan"))

    @property
    def variance(self) -> Tensor:
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape: Sequence[int] = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        probs = self.probs.detach().expand(*shape) if shape else self.probs.detach()
        return (rand(shape, dtype=probs.dtype, device=probs.device) < probs).to(probs.dtype)

    def log_prob(self, value: Tensor) -> Tensor:
        self._validate_sample(value)  # before logits are computed: the repr in its message shows what was given
        logits, value = broadcast_all(self.logits, value)  # (32, 1) logits and a (12,) value give (32, 12)
        return -binary_cross_entropy_with_logits(logits, value, reduction="none")

    def entropy(self) -> Tensor:
        return binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")

    def enumerate_support(self, expand: bool = True) -> Tensor:
        given = self.__dict__.get("probs", self.__dict__.get("logits"))  # the other is not computed for this
        values = given.new_tensor([0.0, 1.0]).view((-1,) + (1,) * len(self.batch_shape))
        return values.expand(2, *self.batch_shape) if expand else values


__all__ = ["Bernoulli", "Categorical"]

r"""``Multinomial``: the counts :math:`x = (x_1, \dots, x_K)` of :math:`n` independent draws from
:math:`K` categories of probabilities :math:`p` (given by ``probs`` or ``logits``, normalized over the
last dimension as for ``Categorical``),

.. math:: \log P(x) = \log\Gamma\!\left(\textstyle\sum_k x_k + 1\right) - \sum_k \log\Gamma(x_k + 1)
          + \sum_k x_k \log p_k .

As in PyTorch, ``total_count`` :math:`n` is one Python ``int`` for the whole batch, ``log_prob``
takes :math:`n` from the value (:math:`\sum_k x_k`, which the support only bounds by ``total_count``),
and the entropy sums over the Binomial marginals :math:`x_k \sim \mathrm{Binomial}(n, p_k)`. Draws are
PyTorch's: :math:`n` categorical draws per sample, tallied, outside the graph (no ``rsample``).
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

from ..autograd.grad_mode import no_grad
from ..creation import ones_like, zeros
from ..creation import tensor as make_tensor
from ..tensor import Tensor
from . import constraints
from .binomial import Binomial
from .categorical import Categorical
from .constraints import Constraint
from .distribution import Distribution, broadcast_all

#: PyTorch's error for a ``total_count`` that is not one Python int
INHOMOGENEOUS_COUNT_MESSAGE = "inhomogeneous total_count is not supported"


class Multinomial(Distribution):
    r"""Multinomial with ``total_count`` :math:`n` (an ``int``) and ``probs`` :math:`p` or ``logits``
    :math:`\log p + c` (the categories in the last dimension): mean :math:`np_k`, variance :math:`np_k(1 - p_k)`."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    total_count: int

    def __init__(self, total_count: int = 1, probs: Optional[Tensor] = None, logits: Optional[Tensor] = None,
                 validate_args: Optional[bool] = None) -> None:
        if not isinstance(total_count, int):
            raise NotImplementedError(INHOMOGENEOUS_COUNT_MESSAGE)
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        self._binomial = Binomial(total_count=total_count, probs=self.probs)
        super().__init__(tuple(self._categorical.batch_shape), tuple(self._categorical.param_shape[-1:]), validate_args)

    def expand(self, batch_shape: Sequence[int], _instance: Optional[Distribution] = None) -> Distribution:
        """Unlike PyTorch's, whose expanded copy lacks the Binomial marginals, the copy keeps an ``entropy``."""
        batch_shape = tuple(batch_shape)
        new = object.__new__(type(self)) if _instance is None else _instance
        new.total_count = self.total_count
        new._categorical = self._categorical.expand(batch_shape)
        new._binomial = self._binomial.expand(batch_shape + tuple(self.event_shape))
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def support(self) -> Constraint:  # type: ignore[override]
        return constraints.multinomial(self.total_count)

    @property
    def logits(self) -> Tensor:
        """The normalized log-probabilities, :math:`\\log p_k`."""
        return self._categorical.logits

    @property
    def probs(self) -> Tensor:
        return self._categorical.probs

    @property
    def param_shape(self) -> Any:
        return self._categorical.param_shape

    @property
    def mean(self) -> Tensor:
        return self.probs * self.total_count

    @property
    def variance(self) -> Tensor:
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape: Sequence[int] = ()) -> Tensor:
        """Counts of shape ``sample_shape + batch_shape + (K,)`` in the dtype of ``probs``, outside the
        graph: as PyTorch counts them, ``total_count`` categorical draws per sample, tallied (zeros
        for a ``total_count`` of 0, where PyTorch's ``multinomial`` refuses to draw no samples)."""
        sample_shape = tuple(sample_shape)
        with no_grad():
            if self.total_count == 0:
                return zeros(self._extended_shape(sample_shape), dtype=self.probs.dtype, device=self.probs.device)
            picks = self._categorical.sample((self.total_count,) + sample_shape)
            picks = picks.permute(*range(1, picks.dim()), 0)  # the draws of one sample last
            counts = zeros(self._extended_shape(sample_shape), dtype=picks.dtype, device=picks.device)
            return counts.scatter_add_(-1, picks, ones_like(picks)).type_as(self.probs)

    def log_prob(self, value: Any) -> Tensor:
        r""":math:`\log\Gamma(\sum_k x_k + 1) - \sum_k \log\Gamma(x_k + 1) + \sum_k x_k \log p_k`, with
        :math:`0 \cdot \log 0 = 0` where a logit is :math:`-\infty`."""
        self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        logits = logits.masked_fill((value == 0) & (logits == float("-inf")), 0.0)
        log_factorial_n = (value.sum(-1) + 1).lgamma()
        log_factorial_xs = (value + 1).lgamma().sum(-1)
        return log_factorial_n - log_factorial_xs + (logits * value).sum(-1)

    def entropy(self) -> Tensor:
        r""":math:`n H(p) - \log n! + \sum_k \sum_{j=1}^{n} \binom{n}{j} p_k^j (1 - p_k)^{n - j} \log j!`.

        As in PyTorch, :math:`\log n!` is taken of an integer tensor, so in the default float dtype, and
        :math:`H(p)` is the categorical entropy (finite where a logit is :math:`-\infty`)."""
        count = make_tensor(self.total_count)
        categorical_entropy = self._categorical.entropy()
        support = self._binomial.enumerate_support(expand=False)[1:]
        marginal_probs = self._binomial.log_prob(support).exp()
        weighted = (marginal_probs * (support + 1).lgamma()).sum([0, -1])
        return count * categorical_entropy - (count + 1).lgamma() + weighted


__all__ = ["Multinomial"]

r"""``gumbel_softmax``: a differentiable sample from a categorical distribution.

With :math:`g_i = -\log E_i`, :math:`E_i \sim \mathrm{Exp}(1)` (Gumbel noise), the sample is

.. math:: y = \mathrm{softmax}\big((\ell + g) / \tau\big)

over ``dim``: as :math:`\tau \to 0` it approaches a one-hot vector whose position is drawn with
probabilities :math:`\mathrm{softmax}(\ell)`. With ``hard=True`` the result is that one-hot
vector, and its gradient is the soft sample's (the straight-through estimator):
:math:`y_{\text{hard}} - \mathrm{sg}(y) + y`.
"""

from __future__ import annotations

import warnings

from ...creation import empty_like, zeros_like
from ...tensor import Tensor
from .activation import softmax


def gumbel_softmax(logits: Tensor, tau: float = 1.0, hard: bool = False, eps: float = 1e-10, dim: int = -1) -> Tensor:
    """A soft (or, with ``hard``, one-hot with soft gradients) sample of ``softmax(logits)`` along ``dim``."""
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    noise = -empty_like(logits).exponential_().log()
    soft = softmax((logits + noise) / tau, dim)
    if not hard:
        return soft
    index = soft.max(dim, keepdim=True)[1]
    one_hot = zeros_like(logits).scatter_(dim, index, 1.0)
    return one_hot - soft.detach() + soft

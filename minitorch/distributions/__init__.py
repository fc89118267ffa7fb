"""Probability distributions with PyTorch's names (``torch.distributions``): sampling,
``log_prob`` and ``entropy`` for policy gradients, VAEs and Bayesian layers."""

from .categorical import Bernoulli, Categorical
from .continuous import Normal, Uniform
from .distribution import Distribution

__all__ = ["Bernoulli", "Categorical", "Distribution", "Normal", "Uniform"]

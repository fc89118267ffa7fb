"""Probability distributions with PyTorch's names (``torch.distributions``): sampling,
``log_prob`` and ``entropy`` for policy gradients, VAEs and Bayesian layers; transforms of a
base distribution (:mod:`.transforms`), the sets parameters live in (:mod:`.constraints`), and
closed-form KL divergences (:mod:`.kl`)."""

from . import constraints, kl_pairs, transforms  # noqa: F401 - kl_pairs registers the closed forms
from .binomial import Binomial
from .categorical import Bernoulli, Categorical
from .continuous import Normal, Uniform
from .discrete import Geometric, OneHotCategorical
from .distribution import Distribution
from .exponential import Exponential
from .gamma_family import Beta, Dirichlet, Gamma
from .independent import Independent
from .kl import kl_divergence, register_kl
from .location_scale import Cauchy, Laplace
from .lowrank_multivariate_normal import LowRankMultivariateNormal
from .mixture_same_family import MixtureSameFamily
from .multinomial import Multinomial
from .multivariate_normal import MultivariateNormal
from .poisson import Poisson
from .student_t import StudentT
from .transformed import TransformedDistribution
from .transformed_families import Gumbel, HalfNormal, LogNormal
from .transforms import (
    AbsTransform,
    AffineTransform,
    ComposeTransform,
    ExpTransform,
    PowerTransform,
    SigmoidTransform,
    TanhTransform,
    Transform,
)

__all__ = [
    "AbsTransform", "AffineTransform", "Bernoulli", "Beta", "Binomial", "Categorical", "Cauchy", "ComposeTransform",
    "Dirichlet", "Distribution", "ExpTransform", "Exponential", "Gamma", "Geometric", "Gumbel", "HalfNormal",
    "Independent", "Laplace", "LogNormal", "LowRankMultivariateNormal", "MixtureSameFamily", "Multinomial",
    "MultivariateNormal", "Normal",
    "OneHotCategorical", "Poisson", "PowerTransform", "SigmoidTransform", "StudentT", "TanhTransform", "Transform",
    "TransformedDistribution", "Uniform", "constraints", "kl_divergence", "register_kl", "transforms",
]

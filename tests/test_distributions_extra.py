"""The distributions beyond the first four, ``kl_divergence``, transforms and constraints, against
``torch.distributions``: values in float64 (log_prob, entropy, moments, cdf/icdf, KL), gradients of
log_prob and of losses through ``rsample``, shapes of draws and of ``expand``, PyTorch's errors.

Random streams differ between the libraries by design, so sampling is tested by shape, by the
structure of the reparameterization (the gradient of a draw with respect to ``loc`` is 1) and by
moments over many draws within a few standard errors computed from the distribution's variance.
"""

from __future__ import annotations

import warnings
from types import ModuleType
from typing import Any, Callable

import numpy as np
import pytest

import minitorch
from distribution_oracle import assert_moments_within, compare, f64, same_error

LIBS = ("minitorch", "torch")
#: draws for the moment tests, and how many standard errors a moment may be off
DRAWS = 20000
SIGMAS = 5.0


def both(torch_ref: ModuleType) -> tuple[ModuleType, ModuleType]:
    return minitorch, torch_ref


# --- the distributions, each with parameters of batch shape (2, 3) and a value of that shape -----

LOC = [[0.0, 1.0, -2.0], [0.5, -0.5, 3.0]]
SCALE = [[1.0, 2.0, 0.5], [1.5, 0.3, 4.0]]
POSITIVE_VALUE = [[0.5, 1.5, 0.1], [2.0, 3.5, 0.7]]
REAL_VALUE = [[0.3, -1.5, -2.2], [2.0, 0.0, 5.0]]
PROBS = [[0.2, 0.5, 0.9], [0.05, 0.7, 1.0]]
COV = [[2.0, 0.5, 0.1], [0.5, 1.0, -0.3], [0.1, -0.3, 1.5]]

MAKERS: dict[str, Callable[[ModuleType], Any]] = {
    "exponential": lambda lib: lib.distributions.Exponential(f64(lib, SCALE)),
    "laplace": lambda lib: lib.distributions.Laplace(f64(lib, LOC), f64(lib, SCALE)),
    "cauchy": lambda lib: lib.distributions.Cauchy(f64(lib, LOC), f64(lib, SCALE)),
    "lognormal": lambda lib: lib.distributions.LogNormal(f64(lib, LOC), f64(lib, SCALE)),
    "halfnormal": lambda lib: lib.distributions.HalfNormal(f64(lib, SCALE)),
    "gumbel": lambda lib: lib.distributions.Gumbel(f64(lib, LOC), f64(lib, SCALE)),
    "geometric": lambda lib: lib.distributions.Geometric(f64(lib, PROBS)),
    "geometric_logits": lambda lib: lib.distributions.Geometric(logits=f64(lib, LOC)),
    "onehot": lambda lib: lib.distributions.OneHotCategorical(f64(lib, [[0.2, 0.3, 0.5], [0.6, 0.0, 0.4]])),
    "onehot_logits": lambda lib: lib.distributions.OneHotCategorical(logits=f64(lib, LOC)),
    "independent": lambda lib: lib.distributions.Independent(lib.distributions.Normal(f64(lib, LOC), f64(lib, SCALE)), 1),
    "independent_2": lambda lib: lib.distributions.Independent(lib.distributions.Laplace(f64(lib, LOC), f64(lib, SCALE)), 2),
    "mvn_cov": lambda lib: lib.distributions.MultivariateNormal(f64(lib, LOC), covariance_matrix=f64(lib, COV)),
    "mvn_prec": lambda lib: lib.distributions.MultivariateNormal(f64(lib, LOC[0]), precision_matrix=f64(lib, COV)),
    "mvn_tril": lambda lib: lib.distributions.MultivariateNormal(
        f64(lib, [0.0, 1.0, -1.0]), scale_tril=f64(lib, [[[1.0, 0, 0], [0.5, 2.0, 0], [-0.3, 0.1, 0.7]]] * 2)),
    "mvn_diag": lambda lib: lib.distributions.MultivariateNormal(f64(lib, LOC), lib.diag_embed(f64(lib, SCALE))),
    "tanh_normal": lambda lib: lib.distributions.TransformedDistribution(
        lib.distributions.Normal(f64(lib, LOC), f64(lib, SCALE)),
        [lib.distributions.transforms.TanhTransform(), lib.distributions.transforms.AffineTransform(1.0, 2.0)]),
    "sigmoid_power": lambda lib: lib.distributions.TransformedDistribution(
        lib.distributions.Normal(f64(lib, LOC), f64(lib, SCALE)),
        lib.distributions.transforms.ComposeTransform([lib.distributions.transforms.SigmoidTransform(),
                                                       lib.distributions.transforms.PowerTransform(f64(lib, 2.0))])),
    "affine_event": lambda lib: lib.distributions.TransformedDistribution(
        lib.distributions.Normal(f64(lib, LOC), f64(lib, SCALE)),
        [lib.distributions.transforms.AffineTransform(f64(lib, [1.0, 2.0, 3.0]), f64(lib, [-1.0, 0.5, 2.0]), event_dim=1)]),
    "exp_negated": lambda lib: lib.distributions.TransformedDistribution(
        lib.distributions.Normal(f64(lib, LOC), f64(lib, SCALE)),
        [lib.distributions.transforms.ExpTransform(), lib.distributions.transforms.AffineTransform(0.0, -1.0)]),
    "gamma": lambda lib: lib.distributions.Gamma(f64(lib, SCALE), f64(lib, POSITIVE_VALUE)),
    "beta": lambda lib: lib.distributions.Beta(f64(lib, SCALE), f64(lib, [[0.5, 1.0, 3.0], [0.2, 0.3, 1.0]])),
    "dirichlet": lambda lib: lib.distributions.Dirichlet(f64(lib, [[1.0, 2.0, 0.5], [0.5, 0.3, 0.2], [4.0, 1.5, 1.0]])),
}

#: a value in each distribution's support, shaped batch_shape + event_shape (a sample dim in front for some)
VALUES: dict[str, Callable[[ModuleType], Any]] = {
    "exponential": lambda lib: f64(lib, POSITIVE_VALUE),
    "laplace": lambda lib: f64(lib, REAL_VALUE),
    "cauchy": lambda lib: f64(lib, [REAL_VALUE, POSITIVE_VALUE]),
    "lognormal": lambda lib: f64(lib, POSITIVE_VALUE),
    "halfnormal": lambda lib: f64(lib, POSITIVE_VALUE),
    "gumbel": lambda lib: f64(lib, REAL_VALUE),
    "geometric": lambda lib: f64(lib, [[0.0, 3.0, 1.0], [7.0, 2.0, 0.0]]),
    "geometric_logits": lambda lib: f64(lib, [[0.0, 3.0, 1.0], [7.0, 2.0, 0.0]]),
    "onehot": lambda lib: f64(lib, [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]),
    "onehot_logits": lambda lib: f64(lib, [[[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]], [[0.0, 0.0, 1.0], [0.0, 1.0, 0.0]]]),
    "independent": lambda lib: f64(lib, REAL_VALUE),
    "independent_2": lambda lib: f64(lib, [REAL_VALUE, POSITIVE_VALUE]),
    "mvn_cov": lambda lib: f64(lib, REAL_VALUE),
    "mvn_prec": lambda lib: f64(lib, [REAL_VALUE, POSITIVE_VALUE]),
    "mvn_tril": lambda lib: f64(lib, REAL_VALUE),
    "mvn_diag": lambda lib: f64(lib, REAL_VALUE),
    "tanh_normal": lambda lib: f64(lib, [[0.5, 1.5, -0.9], [2.9, 0.0, 1.0]]),
    "sigmoid_power": lambda lib: f64(lib, [[0.25, 0.5, 0.01], [0.9, 0.3, 0.7]]),
    "affine_event": lambda lib: f64(lib, REAL_VALUE),
    "exp_negated": lambda lib: -f64(lib, POSITIVE_VALUE),
    "gamma": lambda lib: f64(lib, POSITIVE_VALUE),
    "beta": lambda lib: f64(lib, [[0.25, 0.5, 0.01], [0.9, 0.3, 0.7]]),
    "dirichlet": lambda lib: f64(lib, [[0.2, 0.3, 0.5], [0.6, 0.1, 0.3], [0.1, 0.1, 0.8]]),
}
#: those with closed-form cdf/icdf in PyTorch (through the transforms for the transformed ones)
WITH_CDF = ("exponential", "laplace", "cauchy", "lognormal", "halfnormal", "gumbel", "tanh_normal", "exp_negated")
#: those whose entropy PyTorch computes (a TransformedDistribution has none in general)
WITH_ENTROPY = tuple(name for name in MAKERS if name not in ("tanh_normal", "sigmoid_power", "affine_event", "exp_negated"))
WITH_MOMENTS = tuple(name for name in WITH_ENTROPY)
REPARAMETERIZED = ("exponential", "laplace", "cauchy", "lognormal", "halfnormal", "gumbel", "independent", "independent_2",
                   "mvn_cov", "mvn_prec", "mvn_tril", "mvn_diag", "tanh_normal", "sigmoid_power", "affine_event", "exp_negated",
                   "gamma", "beta", "dirichlet")


def _facts(name: str, lib: ModuleType) -> list[Any]:
    d = MAKERS[name](lib)
    value = VALUES[name](lib)
    facts = [d.batch_shape, d.event_shape, d.log_prob(value), repr(d.support).replace("minitorch.", "torch."),
             d.has_rsample]
    if name in WITH_ENTROPY:
        facts += [d.entropy()]
    if name in WITH_MOMENTS:
        facts += [d.mean, d.variance, d.stddev, d.mode]
    if name in WITH_CDF:
        p = f64(lib, [[0.1, 0.5, 0.9], [0.01, 0.3, 0.99]])
        facts += [d.cdf(value), d.icdf(p)]
    return facts


@pytest.mark.parametrize("name", list(MAKERS))
def test_values_match_torch(torch_ref: ModuleType, name: str) -> None:
    compare(torch_ref, lambda lib: _facts(name, lib))


@pytest.mark.parametrize("name", ["mvn_cov", "mvn_prec", "mvn_tril"])
def test_multivariate_normal_matrices_computed_on_demand(torch_ref: ModuleType, name: str) -> None:
    def facts(lib: ModuleType) -> list[Any]:
        d = MAKERS[name](lib)
        return [d.covariance_matrix, d.precision_matrix, d.scale_tril, d.loc]

    compare(torch_ref, facts)


def test_onehot_and_categorical_extras_match_torch(torch_ref: ModuleType) -> None:
    def facts(lib: ModuleType) -> list[Any]:
        o = MAKERS["onehot"](lib)
        c = lib.distributions.Categorical(f64(lib, [[0.2, 0.3, 0.5], [0.6, 0.0, 0.4]]))
        b = lib.distributions.Bernoulli(f64(lib, [0.2, 0.5, 0.7]))
        return [o.probs, o.logits, o.param_shape, o.enumerate_support(), o.enumerate_support(expand=False), c.mode,
                b.mode, b.enumerate_support(), lib.distributions.Normal(f64(lib, LOC), 1.0).mode,
                lib.distributions.Uniform(f64(lib, [0.0, 1.0]), 3.0).icdf(f64(lib, 0.25)),
                repr(lib.distributions.Uniform(0.0, 1.0).support).replace("minitorch.", "torch.")]

    compare(torch_ref, facts)


# --- KL divergences ---------------------------------------------------------------------------

def _kl(p: Callable[[ModuleType], Any], q: Callable[[ModuleType], Any]) -> Callable[[ModuleType], list[Any]]:
    return lambda lib: [lib.distributions.kl_divergence(p(lib), q(lib))]


def _normal(loc: Any, scale: Any) -> Callable[[ModuleType], Any]:
    return lambda lib: lib.distributions.Normal(f64(lib, loc), f64(lib, scale))


def _uniform(low: Any, high: Any) -> Callable[[ModuleType], Any]:
    return lambda lib: lib.distributions.Uniform(f64(lib, low), f64(lib, high))


def _family(cls: str, *params: Any, **keywords: Any) -> Callable[[ModuleType], Any]:
    return lambda lib: getattr(lib.distributions, cls)(*(f64(lib, p) for p in params),
                                                       **{k: f64(lib, v) for k, v in keywords.items()})


KL_CASES: dict[str, Callable[[ModuleType], list[Any]]] = {
    "normal_normal": _kl(_normal(LOC, SCALE), _normal([0.3, -1.0, 2.0], [2.0, 0.5, 1.0])),
    "bernoulli_bernoulli": _kl(_family("Bernoulli", [0.0, 0.3, 1.0, 0.5, 0.2]), _family("Bernoulli", [0.5, 0.6, 1.0, 0.0, 1.0])),
    "bernoulli_logits": _kl(_family("Bernoulli", logits=[-1.0, 2.0]), _family("Bernoulli", logits=[0.5, 0.0])),
    "categorical": _kl(_family("Categorical", [[0.2, 0.3, 0.5], [0.0, 0.5, 0.5], [0.5, 0.5, 0.0]]),
                       _family("Categorical", [[0.1, 0.1, 0.8], [0.3, 0.3, 0.4], [0.0, 0.5, 0.5]])),
    "onehot": _kl(_family("OneHotCategorical", [[0.2, 0.3, 0.5], [0.0, 0.5, 0.5]]), _family("OneHotCategorical", logits=LOC)),
    "uniform_uniform": _kl(_uniform([0.0, -1.0, 0.0], [1.0, 1.0, 2.0]), _uniform([-1.0, -1.0, 0.5], [2.0, 1.0, 3.0])),
    "exponential": _kl(_family("Exponential", SCALE), _family("Exponential", [0.7, 1.3, 5.0])),
    "laplace": _kl(_family("Laplace", LOC, SCALE), _family("Laplace", [0.3, -1.0, 2.0], [2.0, 0.5, 1.0])),
    "cauchy": _kl(_family("Cauchy", LOC, SCALE), _family("Cauchy", [0.3, -1.0, 2.0], [2.0, 0.5, 1.0])),
    "geometric": _kl(_family("Geometric", [0.2, 0.5, 1.0]), _family("Geometric", [0.7, 0.1, 0.3])),
    "halfnormal": _kl(_family("HalfNormal", SCALE), _family("HalfNormal", [2.0, 0.5, 1.0])),
    "lognormal": _kl(_family("LogNormal", LOC, SCALE), _family("LogNormal", [0.3, -1.0, 2.0], [2.0, 0.5, 1.0])),
    "independent": _kl(lambda lib: lib.distributions.Independent(_normal(LOC, SCALE)(lib), 1),
                       lambda lib: lib.distributions.Independent(_normal([0.3, -1.0, 2.0], [2.0, 0.5, 1.0])(lib), 1)),
    "independent_2": _kl(lambda lib: lib.distributions.Independent(_normal(LOC, SCALE)(lib), 2),
                         lambda lib: lib.distributions.Independent(_normal([[0.3, -1.0, 2.0]] * 2, [2.0, 0.5, 1.0])(lib), 2)),
    "mvn_mvn": _kl(_family("MultivariateNormal", LOC, covariance_matrix=COV),
                   _family("MultivariateNormal", [0.3, -1.0, 2.0],
                           scale_tril=[[[1.0, 0, 0], [0.5, 2.0, 0], [-0.3, 0.1, 0.7]]] * 2)),
    "mvn_precision": _kl(_family("MultivariateNormal", [0.0, 1.0, 2.0], precision_matrix=COV),
                         _family("MultivariateNormal", LOC, covariance_matrix=np.diag([1.0, 2.0, 3.0]).tolist())),
    "transformed": _kl(lambda lib: lib.distributions.TransformedDistribution(
        _normal(LOC, SCALE)(lib), [lib.distributions.transforms.TanhTransform()]),
        lambda lib: lib.distributions.TransformedDistribution(
            _normal([0.3, -1.0, 2.0], [2.0, 0.5, 1.0])(lib), [lib.distributions.transforms.TanhTransform()])),
    "normal_laplace": _kl(_normal(LOC, SCALE), _family("Laplace", [0.3, -1.0, 2.0], [2.0, 0.5, 1.0])),
    "laplace_normal": _kl(_family("Laplace", LOC, SCALE), _normal([0.3, -1.0, 2.0], [2.0, 0.5, 1.0])),
    "exponential_normal": _kl(_family("Exponential", SCALE), _normal([0.3, -1.0, 2.0], [2.0, 0.5, 1.0])),
    "uniform_normal": _kl(_uniform([0.0, -1.0, 0.0], [1.0, 1.0, 2.0]), _normal([0.3, -1.0, 2.0], [2.0, 0.5, 1.0])),
    "uniform_exponential": _kl(_uniform([0.0, -1.0, 0.5], [1.0, 1.0, 2.0]), _family("Exponential", [2.0, 0.5, 1.0])),
    "normal_exponential": _kl(_normal(LOC, SCALE), _family("Exponential", [2.0, 0.5, 1.0])),
    "normal_uniform": _kl(_normal(LOC, SCALE), _uniform(-1.0, 1.0)),
    "laplace_exponential": _kl(_family("Laplace", LOC, SCALE), _family("Exponential", [2.0, 0.5, 1.0])),
    "laplace_uniform": _kl(_family("Laplace", LOC, SCALE), _uniform(-1.0, 1.0)),
    "exponential_uniform": _kl(_family("Exponential", SCALE), _uniform(-1.0, 1.0)),
    "gumbel": _kl(_family("Gumbel", LOC, SCALE), _family("Gumbel", [0.3, -1.0, 2.0], [2.0, 0.5, 1.0])),
    "gamma": _kl(_family("Gamma", SCALE, POSITIVE_VALUE), _family("Gamma", [2.0, 0.5, 1.0], [0.3, 1.0, 2.0])),
    "beta": _kl(_family("Beta", SCALE, POSITIVE_VALUE), _family("Beta", [2.0, 0.5, 1.0], [0.3, 1.0, 2.0])),
    "dirichlet": _kl(_family("Dirichlet", SCALE), _family("Dirichlet", [2.0, 0.5, 1.0])),
    "exponential_gamma": _kl(_family("Exponential", SCALE), _family("Gamma", [2.0, 0.5, 1.0], [0.3, 1.0, 2.0])),
    "gamma_exponential": _kl(_family("Gamma", SCALE, POSITIVE_VALUE), _family("Exponential", [2.0, 0.5, 1.0])),
    "normal_gamma": _kl(_normal(LOC, SCALE), _family("Gamma", 1.0, 1.0)),
    "laplace_beta": _kl(_family("Laplace", LOC, SCALE), _family("Beta", 1.0, 1.0)),
}


@pytest.mark.parametrize("name", list(KL_CASES))
def test_kl_divergence_matches_torch(torch_ref: ModuleType, name: str) -> None:
    compare(torch_ref, KL_CASES[name])


def test_kl_gradients_match_torch(torch_ref: ModuleType) -> None:
    def grads(lib: ModuleType) -> list[Any]:
        loc, scale = f64(lib, LOC).requires_grad_(), f64(lib, SCALE).requires_grad_()
        cov = f64(lib, COV).requires_grad_()
        D = lib.distributions
        total = D.kl_divergence(D.Independent(D.Normal(loc, scale), 1), D.Independent(D.Normal(0.0, 1.0).expand((2, 3)), 1)).sum()
        total = total + D.kl_divergence(D.MultivariateNormal(loc, covariance_matrix=cov),
                                        D.MultivariateNormal(f64(lib, [0.0, 0.0, 0.0]), lib.eye(3, dtype=lib.float64))).sum()
        total = total + D.kl_divergence(D.Laplace(loc, scale), D.Laplace(0.0, 2.0)).sum()
        total.backward()
        return [loc.grad, scale.grad, cov.grad]

    compare(torch_ref, grads)


@pytest.mark.parametrize("pair", [("Exponential", "Laplace"), ("Cauchy", "Normal"), ("Geometric", "Bernoulli")])
def test_unregistered_pairs_raise_not_implemented(torch_ref: ModuleType, pair: tuple[str, str]) -> None:
    makers = {"Exponential": _family("Exponential", 1.0), "Laplace": _family("Laplace", 0.0, 1.0),
              "Cauchy": _family("Cauchy", 0.0, 1.0), "Normal": _normal(0.0, 1.0), "Geometric": _family("Geometric", 0.5),
              "Bernoulli": _family("Bernoulli", 0.5)}
    messages = []
    for lib in both(torch_ref):
        with pytest.raises(NotImplementedError) as info:
            lib.distributions.kl_divergence(makers[pair[0]](lib), makers[pair[1]](lib))
        messages.append(str(info.value))
    assert messages[0] == messages[1]


def test_kl_of_transformed_with_different_transforms_raises(torch_ref: ModuleType) -> None:
    for lib in both(torch_ref):
        D = lib.distributions
        with pytest.raises(NotImplementedError):
            D.kl_divergence(D.LogNormal(0.0, 1.0), D.HalfNormal(1.0))
        with pytest.raises(NotImplementedError):
            D.kl_divergence(D.Independent(D.Normal(f64(lib, LOC), 1.0), 1), D.Independent(D.Normal(f64(lib, LOC), 1.0), 2))


@pytest.fixture
def kl_registries(torch_ref: ModuleType) -> Any:
    """The two KL registries, restored after the test (it registers pairs of its own classes)."""
    from minitorch.distributions import kl as ours

    saved = (dict(ours._REGISTRY), dict(torch_ref.distributions.kl._KL_REGISTRY))
    yield
    for registry, memo, old in ((ours._REGISTRY, ours._MEMO, saved[0]),
                                (torch_ref.distributions.kl._KL_REGISTRY, torch_ref.distributions.kl._KL_MEMOIZE, saved[1])):
        registry.clear()
        registry.update(old)
        memo.clear()


def test_register_kl_picks_the_most_specific_pair_and_warns_when_ambiguous(torch_ref: ModuleType, kl_registries: Any) -> None:
    def run(lib: ModuleType) -> list[Any]:
        D = lib.distributions

        class Child(D.Normal):
            pass

        class GrandChild(Child):
            pass

        results = [D.kl_divergence(GrandChild(0.0, 1.0), D.Normal(1.0, 1.0)).item()]  # inherits Normal-Normal
        D.register_kl(Child, D.Normal)(lambda p, q: lib.tensor(1.0))
        D.register_kl(D.Normal, Child)(lambda p, q: lib.tensor(2.0))
        results.append(D.kl_divergence(GrandChild(0.0, 1.0), D.Normal(0.0, 1.0)).item())  # memo cleared: the new pair
        results.append(D.kl_divergence(D.Normal(0.0, 1.0), GrandChild(0.0, 1.0)).item())
        results.append(D.kl_divergence(D.Normal(0.0, 1.0), D.Normal(3.0, 1.0)).item())
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            results.append(D.kl_divergence(Child(0.0, 1.0), GrandChild(0.0, 1.0)).item())  # p's rank first
        results.append([(w.category, str(w.message)) for w in caught])
        D.register_kl(Child, Child)(lambda p, q: lib.tensor(3.0))
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            results.append(D.kl_divergence(GrandChild(0.0, 1.0), GrandChild(0.0, 1.0)).item())
        return results

    ours, theirs = run(minitorch), run(torch_ref)
    assert ours == theirs
    assert ours[5] and ours[5][0][0] is RuntimeWarning


def test_register_kl_rejects_non_distribution_types() -> None:
    with pytest.raises(TypeError, match="Distribution subclass"):
        minitorch.distributions.register_kl(int, minitorch.distributions.Normal)


# --- gradients ------------------------------------------------------------------------------------

GRADIENT_CASES: dict[str, Callable[[ModuleType, Any, Any], Any]] = {
    "exponential": lambda lib, a, b: lib.distributions.Exponential(b),
    "laplace": lambda lib, a, b: lib.distributions.Laplace(a, b),
    "cauchy": lambda lib, a, b: lib.distributions.Cauchy(a, b),
    "lognormal": lambda lib, a, b: lib.distributions.LogNormal(a, b),
    "halfnormal": lambda lib, a, b: lib.distributions.HalfNormal(b),
    "gumbel": lambda lib, a, b: lib.distributions.Gumbel(a, b),
    "geometric": lambda lib, a, b: lib.distributions.Geometric(logits=a + 0.25),
    "onehot": lambda lib, a, b: lib.distributions.OneHotCategorical(logits=a),
    "independent": lambda lib, a, b: lib.distributions.Independent(lib.distributions.Normal(a, b), 1),
    "mvn_diag": lambda lib, a, b: lib.distributions.MultivariateNormal(a, lib.diag_embed(b)),
    "mvn_tril": lambda lib, a, b: lib.distributions.MultivariateNormal(a, scale_tril=lib.diag_embed(b) + f64(lib, [[0, 0, 0], [0.5, 0, 0], [0.1, -0.2, 0]])),
    "mvn_prec": lambda lib, a, b: lib.distributions.MultivariateNormal(a, precision_matrix=lib.diag_embed(b) + 0.1),
    "gamma": lambda lib, a, b: lib.distributions.Gamma(b + 0.25, a.exp()),
    "beta": lambda lib, a, b: lib.distributions.Beta(b + 0.25, a.exp() + 0.25),
    "dirichlet": lambda lib, a, b: lib.distributions.Dirichlet(b * a.exp() + 0.25),
    "tanh_normal": lambda lib, a, b: lib.distributions.TransformedDistribution(
        lib.distributions.Normal(a, b), [lib.distributions.transforms.TanhTransform(),
                                         lib.distributions.transforms.AffineTransform(a.detach(), b)]),
}
GRADIENT_VALUES = {"beta": [[0.25, 0.5, 0.01], [0.9, 0.3, 0.7]], "dirichlet": [[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]],
                   "geometric": [[0.0, 3.0, 1.0], [7.0, 2.0, 0.0]], "onehot": [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]],
                   "tanh_normal": [[0.5, 1.5, -2.1], [1.0, -0.3, 1.7]]}


@pytest.mark.parametrize("name", list(GRADIENT_CASES))
def test_log_prob_and_entropy_gradients_match_torch(torch_ref: ModuleType, name: str) -> None:
    def grads(lib: ModuleType) -> list[Any]:
        a, b = f64(lib, LOC).requires_grad_(), f64(lib, SCALE).requires_grad_()
        d = GRADIENT_CASES[name](lib, a, b)
        value = f64(lib, GRADIENT_VALUES.get(name, POSITIVE_VALUE))
        loss = (d.log_prob(value) * f64(lib, [1.0, -2.0])[(...,) + (None,) * (d.log_prob(value).dim() - 1)]).sum()
        if name != "tanh_normal":
            loss = loss + 0.5 * d.entropy().sum()
        loss.backward()
        return [a.grad if a.grad is not None else lib.zeros(2, 3, dtype=lib.float64),
                b.grad if b.grad is not None else lib.zeros(2, 3, dtype=lib.float64)]

    compare(torch_ref, grads, rtol=1e-9)


def _rsample_grads(d_maker: Callable[[Any, Any], Any], shape: tuple[int, ...] = (50,)) -> tuple[Any, Any, Any, Any, Any]:
    loc = minitorch.tensor(LOC, dtype=minitorch.float64, requires_grad=True)
    scale = minitorch.tensor(SCALE, dtype=minitorch.float64, requires_grad=True)
    d = d_maker(loc, scale)
    x = d.rsample(shape)
    x.sum().backward()
    return d, x.detach(), loc, scale, loc.grad


@pytest.mark.parametrize("family", ["Laplace", "Cauchy", "Gumbel", "Normal"])
def test_rsample_of_location_scale_families_is_loc_plus_scale_times_noise(family: str) -> None:
    """:math:`x = \\mu + \\sigma\\varepsilon`: :math:`\\partial \\sum x / \\partial\\mu = n`, :math:`\\partial/\\partial\\sigma = \\sum \\varepsilon`."""
    d, x, loc, scale, _ = _rsample_grads(lambda a, b: getattr(minitorch.distributions, family)(a, b))
    np.testing.assert_allclose(loc.grad.numpy(), np.full((2, 3), 50.0))
    noise = (x - loc.detach()) / scale.detach()
    np.testing.assert_allclose(scale.grad.numpy(), noise.sum(0).numpy(), rtol=1e-10)
    assert not d.sample((3,)).requires_grad


def test_rsample_of_the_other_families_carries_exact_gradients() -> None:
    D = minitorch.distributions
    rate = minitorch.tensor(SCALE, dtype=minitorch.float64, requires_grad=True)
    x = D.Exponential(rate).rsample((40,))
    x.sum().backward()  # x = e / rate: d x / d rate = -x / rate
    np.testing.assert_allclose(rate.grad.numpy(), (-x.detach() / rate.detach()).sum(0).numpy(), rtol=1e-10)
    assert float(x.min()) >= 0
    d, x, loc, scale, _ = _rsample_grads(lambda a, b: D.LogNormal(a, b))  # x = exp(mu + sigma eps): d/dmu = x
    np.testing.assert_allclose(loc.grad.numpy(), x.sum(0).numpy(), rtol=1e-10)
    d, x, loc, scale, _ = _rsample_grads(lambda a, b: D.HalfNormal(b))  # x = |sigma eps|: d/dsigma = x / sigma
    np.testing.assert_allclose(scale.grad.numpy(), (x / scale.detach()).sum(0).numpy(), rtol=1e-10)
    d, x, loc, scale, _ = _rsample_grads(lambda a, b: D.TransformedDistribution(D.Normal(a, b), D.transforms.TanhTransform()))
    np.testing.assert_allclose(loc.grad.numpy(), (1 - x ** 2).sum(0).numpy(), rtol=1e-8)  # tanh' = 1 - tanh^2
    d, x, loc, scale, _ = _rsample_grads(lambda a, b: D.Independent(D.Normal(a, b), 2))
    np.testing.assert_allclose(loc.grad.numpy(), np.full((2, 3), 50.0))


def test_multivariate_normal_rsample_is_loc_plus_factor_times_noise() -> None:
    loc = minitorch.tensor(LOC, dtype=minitorch.float64, requires_grad=True)
    tril = minitorch.tensor([[1.0, 0, 0], [0.5, 2.0, 0], [-0.3, 0.1, 0.7]], dtype=minitorch.float64, requires_grad=True)
    x = minitorch.distributions.MultivariateNormal(loc, scale_tril=tril).rsample((30,))
    assert tuple(x.shape) == (30, 2, 3)
    (x * minitorch.tensor([1.0, 2.0, 3.0], dtype=minitorch.float64)).sum().backward()
    np.testing.assert_allclose(loc.grad.numpy(), np.tile([1.0, 2.0, 3.0], (2, 1)) * 30)
    eps = np.linalg.solve(tril.detach().numpy(), (x.detach() - loc.detach()).numpy()[..., None])[..., 0]
    expected = np.outer([1.0, 2.0, 3.0], eps.reshape(-1, 3).sum(0))  # d/dL_ij of sum_i w_i L_ij eps_j (every entry)
    np.testing.assert_allclose(tril.grad.numpy(), expected, rtol=1e-9, atol=1e-12)


def test_tanh_squashed_policy_with_cache_inverts_its_own_sample_exactly(torch_ref: ModuleType) -> None:
    """SAC's squashed Gaussian: with ``cache_size=1`` the log-density of a fresh draw uses the
    pre-squash value, so a draw that rounds to ±1 still has a finite log-density."""
    D = minitorch.distributions
    mu = minitorch.tensor([0.0, 30.0], dtype=minitorch.float64, requires_grad=True)
    policy = D.TransformedDistribution(D.Normal(mu, 1.0), [D.transforms.TanhTransform(cache_size=1)])
    action = policy.rsample()
    log_prob = policy.log_prob(action)
    assert np.isfinite(log_prob.detach().numpy()).all() and float(action[1]) == 1.0
    log_prob.sum().backward()
    assert np.isfinite(mu.grad.numpy()).all()
    theirs = torch_ref.distributions.TransformedDistribution(
        torch_ref.distributions.Normal(torch_ref.tensor([0.0, 30.0], dtype=torch_ref.float64), 1.0),
        [torch_ref.distributions.transforms.TanhTransform()])
    np.testing.assert_allclose(log_prob[0].item(), theirs.log_prob(torch_ref.tensor(action.detach().numpy()))[0].item(),
                               rtol=1e-8)


# --- sampling: shapes, expand, moments ------------------------------------------------------------

@pytest.mark.parametrize("name", list(MAKERS))
@pytest.mark.parametrize("sample_shape", [(), (4,), (4, 5)])
def test_sample_shapes(name: str, sample_shape: tuple[int, ...]) -> None:
    d = MAKERS[name](minitorch)
    expected = sample_shape + tuple(d.batch_shape) + tuple(d.event_shape)
    assert tuple(d.sample(sample_shape).shape) == expected
    if name in REPARAMETERIZED:
        assert d.has_rsample and tuple(d.rsample(sample_shape).shape) == expected
    else:
        assert not d.has_rsample
        with pytest.raises(NotImplementedError):
            d.rsample(sample_shape)
    assert bool(d.support.check(d.sample(sample_shape)).all().item())


@pytest.mark.parametrize("name", list(MAKERS))
def test_expand_matches_torch(torch_ref: ModuleType, name: str) -> None:
    def facts(lib: ModuleType) -> list[Any]:
        original = MAKERS[name](lib)
        d = original.expand((4,) + tuple(original.batch_shape))
        value = VALUES[name](lib)  # a new dim where the expanded batch has one more, left of the old batch
        value = value.unsqueeze(value.dim() - len(original.batch_shape) - len(original.event_shape))
        return [d.batch_shape, d.event_shape, d.log_prob(value), tuple(d.sample((5,)).shape), type(d).__name__]

    compare(torch_ref, facts)


def test_expand_keeps_validation_and_rejects_bad_shapes(torch_ref: ModuleType) -> None:
    for lib in both(torch_ref):
        d = lib.distributions.Exponential(f64(lib, [1.0, 2.0])).expand((3, 2))
        with pytest.raises(ValueError):
            d.log_prob(f64(lib, -1.0))
        with pytest.raises(RuntimeError):
            lib.distributions.Exponential(f64(lib, [1.0, 2.0])).expand((3,))


MOMENT_CASES = ["exponential", "laplace", "lognormal_small", "halfnormal", "gumbel", "geometric_small", "onehot",
                "independent", "mvn_cov", "tanh_normal", "gamma", "beta", "dirichlet"]
EXTRA_MAKERS: dict[str, Callable[[ModuleType], Any]] = {
    "lognormal_small": lambda lib: lib.distributions.LogNormal(f64(lib, [0.0, 1.0]), f64(lib, [0.25, 0.5])),
    "geometric_small": lambda lib: lib.distributions.Geometric(f64(lib, [0.2, 0.5, 0.9])),
}


@pytest.mark.parametrize("name", MOMENT_CASES)
def test_sample_mean_and_variance_within_standard_errors(torch_ref: ModuleType, name: str) -> None:
    """The sample mean within ``SIGMAS`` standard errors :math:`\\sqrt{\\mathrm{Var}/n}` of the mean;
    the sample variance within ``SIGMAS`` standard errors :math:`\\sqrt{(m_4 - \\sigma^4)/n}` of it."""
    maker = MAKERS.get(name) or EXTRA_MAKERS[name]
    draws = maker(minitorch).sample((DRAWS,)).numpy()
    if name == "tanh_normal":  # no closed-form moments: PyTorch's cdf says where the median is
        median = torch_ref.distributions.Normal(f64(torch_ref, LOC), f64(torch_ref, SCALE)).mean.tanh() * 2 + 1
        below = (draws < median.numpy()).mean(0)
        assert np.all(np.abs(below - 0.5) < SIGMAS * np.sqrt(0.25 / DRAWS))
        return
    assert_moments_within(draws, maker(torch_ref), SIGMAS, covariance=name == "mvn_cov")


def test_cauchy_draws_follow_its_cdf(torch_ref: ModuleType) -> None:
    """No moments: the fraction of draws below each quartile is within ``SIGMAS`` binomial standard errors."""
    d = MAKERS["cauchy"](minitorch)
    draws = d.sample((DRAWS,))
    for p in (0.25, 0.5, 0.75):
        quantile = MAKERS["cauchy"](torch_ref).icdf(f64(torch_ref, p)).numpy()
        below = (draws.numpy() < quantile).mean(0)
        assert np.all(np.abs(below - p) < SIGMAS * np.sqrt(p * (1 - p) / DRAWS))


def test_draws_come_from_minitorchs_generator() -> None:
    for name in ("exponential", "gumbel", "geometric", "mvn_cov", "laplace", "gamma", "beta", "dirichlet"):
        minitorch.manual_seed(7)
        first = MAKERS[name](minitorch).sample((3,))
        minitorch.manual_seed(7)
        again = MAKERS[name](minitorch).sample((3,))
        assert np.array_equal(first.numpy(), again.numpy())
        assert not np.array_equal(first.numpy(), MAKERS[name](minitorch).sample((3,)).numpy())


# --- transforms and constraints ---------------------------------------------------------------------

TRANSFORMS: dict[str, Callable[[ModuleType], Any]] = {
    "exp": lambda lib: lib.distributions.transforms.ExpTransform(),
    "affine": lambda lib: lib.distributions.transforms.AffineTransform(f64(lib, [1.0, -2.0, 0.5]), f64(lib, [2.0, -0.5, 3.0])),
    "affine_number": lambda lib: lib.distributions.transforms.AffineTransform(1.5, -2.0),
    "sigmoid": lambda lib: lib.distributions.transforms.SigmoidTransform(),
    "tanh": lambda lib: lib.distributions.transforms.TanhTransform(),
    "power": lambda lib: lib.distributions.transforms.PowerTransform(f64(lib, 3.0)),
    "compose": lambda lib: lib.distributions.transforms.ComposeTransform(
        [lib.distributions.transforms.ExpTransform(), lib.distributions.transforms.AffineTransform(0.0, -1.0),
         lib.distributions.transforms.ExpTransform().inv.inv]),
    "inverse": lambda lib: lib.distributions.transforms.SigmoidTransform().inv,
}


@pytest.mark.parametrize("name", list(TRANSFORMS))
def test_transforms_match_torch(torch_ref: ModuleType, name: str) -> None:
    def facts(lib: ModuleType) -> list[Any]:
        t = TRANSFORMS[name](lib)
        x = f64(lib, [[0.3, 0.8, 0.01], [0.6, 0.5, 0.9]]).requires_grad_()  # in every domain, (0, 1) too
        y = t(x)
        ladj = t.log_abs_det_jacobian(x, y)
        if ladj.requires_grad:
            ladj.sum().backward()
        sign = t.sign
        return [y, t.inv(y), ladj, x.grad if x.grad is not None else 0, repr(t.domain), repr(t.codomain), t.bijective,
                sign if isinstance(sign, int) else sign.double(), t.inv.inv == t, t == TRANSFORMS[name](lib)]

    compare(torch_ref, facts)


def test_transform_log_abs_det_jacobian_is_the_log_derivative() -> None:
    """Elementwise :math:`\\log|f'(x)|`, checked against a central difference of :math:`f`."""
    x = minitorch.tensor([[0.3, 0.8, 0.01], [0.6, 0.5, 0.9]], dtype=minitorch.float64)
    h = 1e-6
    for name in ("exp", "affine", "sigmoid", "tanh", "power", "compose", "inverse"):
        t = TRANSFORMS[name](minitorch)
        numeric = ((t(x + h) - t(x - h)) / (2 * h)).abs().log()
        np.testing.assert_allclose(t.log_abs_det_jacobian(x, t(x)).numpy(), numeric.numpy(), rtol=1e-6, atol=1e-6)


def test_cached_transform_returns_the_pre_image_it_saw(torch_ref: ModuleType) -> None:
    t = minitorch.distributions.transforms.TanhTransform(cache_size=1)
    x = minitorch.tensor([0.5, 40.0], dtype=minitorch.float64)
    y = t(x)
    assert t.inv(y) is x and t(x) is y
    uncached = minitorch.distributions.transforms.TanhTransform()
    assert uncached.inv(uncached(x)) is not x
    cached = uncached.with_cache(1)
    assert cached.inv(cached(x)) is x and uncached.with_cache(0) is uncached
    affine = minitorch.distributions.transforms.AffineTransform(1.0, 2.0).with_cache(1)
    assert affine.inv(affine(x)) is x and affine.loc == 1.0
    for lib in both(torch_ref):
        with pytest.raises(ValueError, match="cache_size must be 0 or 1"):
            lib.distributions.transforms.ExpTransform(cache_size=2)


CONSTRAINT_VALUES = [[[0.0, 1.0, 0.0], [0.5, 0.5, 0.0]], [[1.0, 0.0, 0.0], [-1.0, 2.0, 0.0]], [[2.0, 0.0, 0.0], [0.3, 0.3, 0.4]]]
#: PyTorch answers only the symmetry check for a batch holding an asymmetric matrix: these are all symmetric
MATRIX_VALUES = {
    "positive_definite": [[[2.0, 0.5], [0.5, 1.0]], [[1.0, 0.3], [0.3, -1.0]], [[1.0, 0.0], [0.0, 0.0]], [[1.0, 2.0], [2.0, 1.0]]],
    "symmetric": [[[2.0, 0.5], [0.5, 1.0]], [[1.0, 0.3], [0.2, -1.0]], [[1.0, 0.0], [1e-7, 0.0]]],
    "lower_cholesky": [[[2.0, 0.0], [0.5, 1.0]], [[1.0, 0.3], [0.3, 1.0]], [[1.0, 0.0], [0.3, -1.0]], [[1.0, 0.0], [0.0, 0.0]]],
}
CONSTRAINTS = ["real", "positive", "nonnegative", "unit_interval", "simplex", "boolean", "one_hot", "nonnegative_integer",
               "positive_integer", "real_vector", "lower_cholesky", "positive_definite", "symmetric"]


@pytest.mark.parametrize("name", CONSTRAINTS)
def test_constraints_check_and_repr_match_torch(torch_ref: ModuleType, name: str) -> None:
    def facts(lib: ModuleType) -> list[Any]:
        c = getattr(lib.distributions.constraints, name)
        values = f64(lib, MATRIX_VALUES.get(name, CONSTRAINT_VALUES))
        return [c.check(values), repr(c), c.event_dim, c.is_discrete]

    compare(torch_ref, facts)


def test_parameterized_constraints_match_torch(torch_ref: ModuleType) -> None:
    def facts(lib: ModuleType) -> list[Any]:
        c = lib.distributions.constraints
        v = f64(lib, [-1.0, 0.0, 0.5, 1.0, 2.0, 3.0])
        made = [c.interval(0.0, 1.0), c.half_open_interval(0.0, 1.0), c.greater_than(0.5), c.greater_than_eq(0.5),
                c.less_than(1.0), c.integer_interval(0, 2), c.independent(c.positive, 1)]
        return [x for m in made for x in (m.check(v), repr(m), m.event_dim)] + [c.is_dependent(c.dependent),
                                                                                c.is_dependent(c.real)]

    compare(torch_ref, facts)


# --- errors -----------------------------------------------------------------------------------------

BAD_CALLS: dict[str, Callable[[ModuleType], Any]] = {
    "exponential_rate": lambda lib: lib.distributions.Exponential(f64(lib, [1.0, -1.0])),
    "laplace_scale": lambda lib: lib.distributions.Laplace(0.0, f64(lib, 0.0)),
    "cauchy_scale": lambda lib: lib.distributions.Cauchy(f64(lib, [0.0]), -1.0),
    "lognormal_scale": lambda lib: lib.distributions.LogNormal(0.0, f64(lib, -1.0)),
    "halfnormal_scale": lambda lib: lib.distributions.HalfNormal(f64(lib, [1.0, -2.0])),
    "gumbel_scale": lambda lib: lib.distributions.Gumbel(f64(lib, 0.0), f64(lib, -1.0)),
    "geometric_zero": lambda lib: lib.distributions.Geometric(f64(lib, [0.5, 0.0])),
    "geometric_big": lambda lib: lib.distributions.Geometric(f64(lib, [1.5])),
    "geometric_none": lambda lib: lib.distributions.Geometric(),
    "onehot_probs": lambda lib: lib.distributions.OneHotCategorical(f64(lib, [0.5, -0.5])),
    "mvn_loc_dim": lambda lib: lib.distributions.MultivariateNormal(f64(lib, 0.0), f64(lib, [[1.0]])),
    "mvn_two": lambda lib: lib.distributions.MultivariateNormal(f64(lib, [0.0]), f64(lib, [[1.0]]), scale_tril=f64(lib, [[1.0]])),
    "mvn_none": lambda lib: lib.distributions.MultivariateNormal(f64(lib, [0.0])),
    "mvn_cov_dim": lambda lib: lib.distributions.MultivariateNormal(f64(lib, [0.0]), f64(lib, [1.0])),
    "mvn_tril_dim": lambda lib: lib.distributions.MultivariateNormal(f64(lib, [0.0]), scale_tril=f64(lib, [1.0])),
    "mvn_not_pd": lambda lib: lib.distributions.MultivariateNormal(f64(lib, [0.0, 0.0]), f64(lib, [[1.0, 2.0], [2.0, 1.0]])),
    "mvn_not_symmetric": lambda lib: lib.distributions.MultivariateNormal(f64(lib, [0.0, 0.0]), f64(lib, [[1.0, 0.2], [0.0, 1.0]])),
    "mvn_tril_negative": lambda lib: lib.distributions.MultivariateNormal(
        f64(lib, [0.0, 0.0]), scale_tril=f64(lib, [[1.0, 0.0], [0.3, -1.0]])),
    "mvn_tril_upper": lambda lib: lib.distributions.MultivariateNormal(
        f64(lib, [0.0, 0.0]), scale_tril=f64(lib, [[1.0, 0.5], [0.3, 1.0]])),
    "independent_ndims": lambda lib: lib.distributions.Independent(lib.distributions.Normal(f64(lib, [0.0]), 1.0), 2),
    "transformed_list": lambda lib: lib.distributions.TransformedDistribution(lib.distributions.Normal(0.0, 1.0), [1]),
    "transformed_type": lambda lib: lib.distributions.TransformedDistribution(lib.distributions.Normal(0.0, 1.0), "exp"),
    "transformed_event": lambda lib: lib.distributions.TransformedDistribution(
        lib.distributions.Normal(0.0, 1.0), [lib.distributions.transforms.AffineTransform(0.0, 1.0, event_dim=1)]),
    "value_exponential": lambda lib: lib.distributions.Exponential(f64(lib, [1.0, 2.0])).log_prob(f64(lib, [1.0, -1.0])),
    "value_halfnormal": lambda lib: lib.distributions.HalfNormal(f64(lib, [1.0])).log_prob(f64(lib, [-0.5])),
    "value_lognormal": lambda lib: lib.distributions.LogNormal(0.0, 1.0).log_prob(f64(lib, 0.0)),
    "value_geometric": lambda lib: lib.distributions.Geometric(f64(lib, 0.5)).log_prob(f64(lib, 1.5)),
    "value_onehot": lambda lib: lib.distributions.OneHotCategorical(f64(lib, [0.5, 0.5])).log_prob(f64(lib, [1.0, 1.0])),
    "value_event_shape": lambda lib: MAKERS["mvn_cov"](lib).log_prob(f64(lib, [[0.0, 0.0]])),
    "value_broadcast": lambda lib: MAKERS["mvn_cov"](lib).log_prob(f64(lib, [[0.0, 0.0, 0.0]] * 3)),
    "value_not_tensor": lambda lib: lib.distributions.Exponential(f64(lib, 1.0)).log_prob(1.0),
    "value_normal_nan": lambda lib: lib.distributions.Normal(0.0, 1.0).log_prob(f64(lib, float("nan"))),
    "value_independent": lambda lib: lib.distributions.Independent(
        lib.distributions.Exponential(f64(lib, [1.0, 2.0])), 1).log_prob(f64(lib, [1.0, -1.0])),
    "value_uniform": lambda lib: lib.distributions.Uniform(0.0, 1.0).log_prob(f64(lib, 2.0)),
    "value_cdf_exponential": lambda lib: lib.distributions.Exponential(f64(lib, 1.0)).cdf(f64(lib, -1.0)),
    "uniform_low_high": lambda lib: lib.distributions.Uniform(f64(lib, [1.0]), f64(lib, [0.0])),
    "gamma_concentration": lambda lib: lib.distributions.Gamma(f64(lib, [1.0, -1.0]), 1.0),
    "beta_concentration0": lambda lib: lib.distributions.Beta(1.0, f64(lib, [0.0])),
    "dirichlet_dim": lambda lib: lib.distributions.Dirichlet(f64(lib, 1.0)),
    "dirichlet_concentration": lambda lib: lib.distributions.Dirichlet(f64(lib, [1.0, 0.0])),
    "value_beta": lambda lib: lib.distributions.Beta(1.0, 2.0).log_prob(f64(lib, 1.5)),
    "value_dirichlet": lambda lib: lib.distributions.Dirichlet(f64(lib, [1.0, 2.0])).log_prob(f64(lib, [0.5, 0.6])),
}


@pytest.mark.parametrize("name", list(BAD_CALLS))
def test_bad_arguments_raise_torchs_error(torch_ref: ModuleType, name: str) -> None:
    same_error(torch_ref, BAD_CALLS[name])


def test_validation_can_be_turned_off(torch_ref: ModuleType) -> None:
    def values(lib: ModuleType) -> list[Any]:
        d = lib.distributions.Exponential(f64(lib, [1.0, 2.0]), validate_args=False)
        return [d.log_prob(f64(lib, [1.0, -1.0])), lib.distributions.Geometric(f64(lib, 0.0), validate_args=False).probs]

    compare(torch_ref, values)


def test_independent_rejects_enumeration_over_a_product(torch_ref: ModuleType) -> None:
    for lib in both(torch_ref):
        d = lib.distributions.Independent(lib.distributions.Bernoulli(f64(lib, [0.5, 0.2])), 1)
        assert not d.has_enumerate_support
        with pytest.raises(NotImplementedError, match="cartesian product"):
            d.enumerate_support()


def test_gamma_family_gradients_at_concentration_one_match_torch(torch_ref: ModuleType) -> None:
    r""":math:`\partial_\alpha \log p = \log\beta + \log x - \psi(\alpha)`, also at :math:`\alpha = 1`."""
    def grads(lib: ModuleType) -> list[Any]:
        alpha = f64(lib, [1.0, 2.5]).requires_grad_()
        lib.distributions.Gamma(alpha, 2.0).log_prob(f64(lib, [0.3, 1.7])).sum().backward()
        c0 = f64(lib, [1.0, 0.5]).requires_grad_()
        lib.distributions.Beta(2.0, c0).log_prob(f64(lib, [0.3, 0.6])).sum().backward()
        return [alpha.grad, c0.grad]

    compare(torch_ref, grads)


def test_gradients_at_a_logit_of_zero_match_torch(torch_ref: ModuleType) -> None:
    def grads(lib: ModuleType) -> list[Any]:
        logits = f64(lib, [0.0, 1.0]).requires_grad_()
        lib.distributions.Geometric(logits=logits).entropy().sum().backward()
        x = f64(lib, [0.0, 1.0]).requires_grad_()
        lib.distributions.transforms.TanhTransform().log_abs_det_jacobian(x, x.tanh()).sum().backward()
        return [logits.grad, x.grad]

    compare(torch_ref, grads)

"""``StudentT``, ``Poisson``, ``Binomial`` and ``LowRankMultivariateNormal``, and their KL pairs,
against ``torch.distributions``: values in float64 (log_prob, entropy, moments, the matrices, KL),
gradients of log_prob, entropy and KL, gradients through ``rsample`` on the very draws minitorch
made (its noise read back by replaying the generator), shapes of draws and of ``expand``,
PyTorch's errors, and sample moments within a few standard errors.

The gradient of a Student-t draw with respect to ``df`` goes through the implicit gradient of a
Gamma draw, checked against mpmath's incomplete gamma function (to float64 accuracy), against
PyTorch's approximation of it (to that approximation's accuracy) and, as an expectation, against
the derivative of a closed-form moment.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any, Callable

import numpy as np
import pytest

import minitorch
from minitorch.distributions.numpy_draws import standard_gamma
from minitorch.distributions.gamma_reparam import gamma_draw_slope, standard_gamma_rsample
from distribution_oracle import as_torch_text, assert_moments_within, compare, f64, same_error

#: draws for the moment tests, and how many standard errors a moment may be off
DRAWS = 20000
SIGMAS = 5.0
#: PyTorch's closed-form approximation of the Gamma draw's gradient is good to about this (relative)
TORCH_GAMMA_GRAD_RTOL = 5e-3


# --- the distributions, and a value in each one's support ------------------------------------------

DF = [[0.5, 1.5, 3.0], [10.0, 2.0, 1.0]]
LOC = [[0.0, 1.0, -2.0], [0.5, -0.5, 3.0]]
SCALE = [[1.0, 2.0, 0.5], [1.5, 0.3, 4.0]]
RATE = [[0.0, 1.5, 7.0], [0.2, 30.0, 3.0]]
PROBS = [[0.2, 0.5, 0.9], [0.05, 0.7, 1.0]]
COUNTS = [[0.0, 2.0, 3.0], [1.0, 7.0, 0.0]]
FACTOR = [[1.0, 0.0], [0.5, 2.0], [0.1, -0.3]]
DIAG = [1.0, 2.0, 0.5]
BATCHED_FACTOR = [[[1.0], [0.5], [-0.2]], [[0.3], [0.0], [2.0]]]
COV = [[2.0, 0.5, 0.1], [0.5, 1.0, -0.3], [0.1, -0.3, 1.5]]
TRIL = [[1.0, 0.0, 0.0], [0.5, 2.0, 0.0], [-0.3, 0.1, 0.7]]

MAKERS: dict[str, Callable[[ModuleType], Any]] = {
    "student_t": lambda lib: lib.distributions.StudentT(f64(lib, DF), f64(lib, LOC), f64(lib, SCALE)),
    "student_t_df_only": lambda lib: lib.distributions.StudentT(f64(lib, [4.0, 0.8])),
    "student_t_numbers": lambda lib: lib.distributions.StudentT(3.0, f64(lib, [1.0, 2.0]), 2.0),
    "poisson": lambda lib: lib.distributions.Poisson(f64(lib, RATE)),
    "poisson_number": lambda lib: lib.distributions.Poisson(2.5),
    "binomial": lambda lib: lib.distributions.Binomial(f64(lib, [[5.0], [10.0]]), f64(lib, PROBS)),
    "binomial_logits": lambda lib: lib.distributions.Binomial(8, logits=f64(lib, LOC)),
    "binomial_default": lambda lib: lib.distributions.Binomial(probs=f64(lib, [0.3, 0.0])),
    "lowrank": lambda lib: lib.distributions.LowRankMultivariateNormal(f64(lib, LOC), f64(lib, FACTOR), f64(lib, DIAG)),
    "lowrank_batched": lambda lib: lib.distributions.LowRankMultivariateNormal(
        f64(lib, [0.0, 1.0, -1.0]), f64(lib, BATCHED_FACTOR), f64(lib, [[1.0, 0.5, 2.0], [0.3, 1.0, 1.0]])),
}
VALUES: dict[str, Callable[[ModuleType], Any]] = {
    "student_t": lambda lib: f64(lib, [[0.3, -1.5, -2.2], [2.0, 0.0, 5.0]]),
    "student_t_df_only": lambda lib: f64(lib, [[0.3, -1.5], [2.0, 40.0], [0.0, 0.0]]),
    "student_t_numbers": lambda lib: f64(lib, [0.3, 7.0]),
    "poisson": lambda lib: f64(lib, COUNTS),
    "poisson_number": lambda lib: f64(lib, [0.0, 1.0, 4.0]),
    "binomial": lambda lib: f64(lib, [[0.0, 2.0, 5.0], [1.0, 7.0, 10.0]]),
    "binomial_logits": lambda lib: f64(lib, [[[0.0, 2.0, 8.0], [1.0, 7.0, 3.0]]] * 2),
    "binomial_default": lambda lib: f64(lib, [1.0, 0.0]),
    "lowrank": lambda lib: f64(lib, [[[0.3, -1.5, -2.2], [2.0, 0.0, 5.0]], [[0.0, 0.0, 0.0], [1.0, 2.0, 3.0]]]),
    "lowrank_batched": lambda lib: f64(lib, [[0.3, -1.5, 2.0], [1.0, 0.0, -1.0]]),
}
#: PyTorch's Poisson has no entropy, nor a Binomial whose batch mixes counts (tested below)
WITHOUT_ENTROPY = ("poisson", "poisson_number", "binomial")
REPARAMETERIZED = ("student_t", "student_t_df_only", "student_t_numbers", "lowrank", "lowrank_batched")


def _facts(name: str, lib: ModuleType) -> list[Any]:
    d = MAKERS[name](lib)
    facts = [d.batch_shape, d.event_shape, d.log_prob(VALUES[name](lib)), as_torch_text(d.support), d.has_rsample,
             d.has_enumerate_support, d.mean, d.mode, d.variance, d.stddev, as_torch_text(d)]
    if name not in WITHOUT_ENTROPY:
        facts.append(d.entropy())
    return facts


@pytest.mark.parametrize("name", list(MAKERS))
def test_values_match_torch(torch_ref: ModuleType, name: str) -> None:
    compare(torch_ref, lambda lib: _facts(name, lib))


@pytest.mark.parametrize("name", ["lowrank", "lowrank_batched"])
def test_low_rank_matrices_match_torch(torch_ref: ModuleType, name: str) -> None:
    def facts(lib: ModuleType) -> list[Any]:
        d = MAKERS[name](lib)
        return [d.covariance_matrix, d.precision_matrix, d.scale_tril, d.loc, d.cov_factor, d.cov_diag,
                d.precision_matrix @ d.covariance_matrix]

    compare(torch_ref, facts)


def test_low_rank_log_prob_is_the_dense_gaussians(torch_ref: ModuleType) -> None:
    """Woodbury and the determinant lemma give the density of :math:`\\mathcal{N}(\\mu, WW^\\top + D)` itself."""
    d = MAKERS["lowrank"](minitorch)
    dense = minitorch.distributions.MultivariateNormal(d.loc, covariance_matrix=d.covariance_matrix)
    value = VALUES["lowrank"](minitorch)
    np.testing.assert_allclose(d.log_prob(value).numpy(), dense.log_prob(value).numpy(), rtol=1e-12)
    np.testing.assert_allclose(d.entropy().numpy(), dense.entropy().numpy(), rtol=1e-12)


def test_binomial_extras_match_torch(torch_ref: ModuleType) -> None:
    def facts(lib: ModuleType) -> list[Any]:
        b = MAKERS["binomial_logits"](lib)
        p = lib.distributions.Binomial(f64(lib, [4.0, 4.0]), f64(lib, [0.25, 0.5]))
        return [b.enumerate_support(), b.enumerate_support(expand=False), b.param_shape, b.probs, b.logits,
                b.total_count, p.entropy(), p.enumerate_support(), p.logits, p.mode, as_torch_text(p.support), as_torch_text(p)]

    compare(torch_ref, facts)


@pytest.mark.parametrize("method", ["entropy", "enumerate_support"])
def test_binomial_with_mixed_counts_cannot_enumerate(torch_ref: ModuleType, method: str) -> None:
    messages = []
    for lib in (minitorch, torch_ref):
        with pytest.raises(NotImplementedError) as info:
            getattr(MAKERS["binomial"](lib), method)()
        messages.append(str(info.value))
    assert messages[0] == messages[1] == f"Inhomogeneous total count not supported by `{method}`."


@pytest.mark.parametrize("path", ["poisson.Poisson", "binomial.Binomial",
                                  "lowrank_multivariate_normal.LowRankMultivariateNormal"])
def test_pytorchs_module_paths_name_the_classes(torch_ref: ModuleType, path: str) -> None:
    """``from torch.distributions.poisson import Poisson`` works with minitorch in place of torch."""
    module, name = path.split(".")
    for lib in (minitorch, torch_ref):
        assert getattr(importlib.import_module(f"{lib.__name__}.distributions.{module}"), name) is getattr(lib.distributions, name)


def test_poisson_has_no_entropy(torch_ref: ModuleType) -> None:
    for lib in (minitorch, torch_ref):
        with pytest.raises(NotImplementedError):
            MAKERS["poisson"](lib).entropy()


def test_student_t_mean_and_variance_by_degrees_of_freedom(torch_ref: ModuleType) -> None:
    """Mean NaN for :math:`\\nu \\le 1`; variance NaN, then :math:`\\infty` on :math:`(1, 2]`, then :math:`\\sigma^2\\nu/(\\nu - 2)`."""
    def facts(lib: ModuleType) -> list[Any]:
        d = lib.distributions.StudentT(f64(lib, [0.5, 1.0, 1.5, 2.0, 2.5, 50.0]), 1.0, 2.0)
        return [d.mean, d.variance]

    compare(torch_ref, facts)


# --- KL divergences ---------------------------------------------------------------------------------

def _kl(p: Callable[[ModuleType], Any], q: Callable[[ModuleType], Any]) -> Callable[[ModuleType], list[Any]]:
    return lambda lib: [lib.distributions.kl_divergence(p(lib), q(lib))]


def _family(cls: str, *params: Any, **keywords: Any) -> Callable[[ModuleType], Any]:
    return lambda lib: getattr(lib.distributions, cls)(*(f64(lib, p) for p in params),
                                                       **{k: f64(lib, v) for k, v in keywords.items()})


KL_CASES: dict[str, Callable[[ModuleType], list[Any]]] = {
    "poisson_poisson": _kl(_family("Poisson", RATE), _family("Poisson", [0.5, 2.0, 7.0])),
    "binomial_binomial": _kl(_family("Binomial", [[5.0], [10.0]], [0.2, 0.5, 0.9]),
                             _family("Binomial", [[5.0], [3.0]], logits=[0.3, -1.0, 2.0])),
    "binomial_logits": _kl(_family("Binomial", 4.0, logits=LOC), _family("Binomial", 4.0, [0.4, 0.5, 0.99])),
    "lowrank_lowrank": _kl(MAKERS["lowrank"], MAKERS["lowrank_batched"]),
    "lowrank_itself": _kl(MAKERS["lowrank_batched"], MAKERS["lowrank_batched"]),
    "mvn_lowrank": _kl(_family("MultivariateNormal", LOC, covariance_matrix=COV), MAKERS["lowrank_batched"]),
    "lowrank_mvn": _kl(MAKERS["lowrank"], _family("MultivariateNormal", [0.3, -1.0, 2.0], scale_tril=[TRIL] * 2)),
    "lowrank_batched_mvn": _kl(MAKERS["lowrank_batched"], _family("MultivariateNormal", [0.3, -1.0, 2.0], scale_tril=TRIL)),
    "bernoulli_poisson": _kl(_family("Bernoulli", [0.0, 0.3, 1.0]), _family("Poisson", [0.5, 2.0, 7.0])),
    "poisson_bernoulli": _kl(_family("Poisson", RATE), _family("Bernoulli", 0.5)),
    "poisson_binomial": _kl(_family("Poisson", RATE), _family("Binomial", 3.0, 0.5)),
}


@pytest.mark.parametrize("name", list(KL_CASES))
def test_kl_divergence_matches_torch(torch_ref: ModuleType, name: str) -> None:
    compare(torch_ref, KL_CASES[name])


def test_kl_of_a_low_rank_gaussian_is_that_of_its_dense_form() -> None:
    D = minitorch.distributions
    p, q = MAKERS["lowrank"](minitorch), MAKERS["lowrank_batched"](minitorch)
    dense_p = D.MultivariateNormal(p.loc, covariance_matrix=p.covariance_matrix)
    dense_q = D.MultivariateNormal(q.loc, covariance_matrix=q.covariance_matrix)
    expected = D.kl_divergence(dense_p, dense_q).numpy()
    for first, second in ((p, q), (dense_p, q), (p, dense_q)):
        np.testing.assert_allclose(D.kl_divergence(first, second).numpy(), expected, rtol=1e-10)


KL_ERRORS: dict[str, Callable[[ModuleType], Any]] = {
    "binomial_more_trials_in_q": _kl(_family("Binomial", 3.0, 0.5), _family("Binomial", 4.0, 0.5)),
    "lowrank_sizes": _kl(MAKERS["lowrank"], _family("LowRankMultivariateNormal", [0.0, 0.0], [[1.0], [2.0]], [1.0, 1.0])),
    "mvn_lowrank_sizes": _kl(_family("MultivariateNormal", [0.0, 0.0], covariance_matrix=[[1.0, 0.0], [0.0, 1.0]]),
                             MAKERS["lowrank"]),
    "lowrank_mvn_sizes": _kl(MAKERS["lowrank"], _family("MultivariateNormal", [0.0, 0.0], scale_tril=[[1.0, 0.0], [0.0, 1.0]])),
}


@pytest.mark.parametrize("name", list(KL_ERRORS))
def test_kl_errors_match_torch(torch_ref: ModuleType, name: str) -> None:
    kinds, messages = [], []
    for lib in (minitorch, torch_ref):
        with pytest.raises(Exception) as info:
            KL_ERRORS[name](lib)
        kinds.append(info.type)
        messages.append(str(info.value))
    assert kinds[0] is kinds[1] and messages[0] == messages[1]


# --- gradients ----------------------------------------------------------------------------------------

def _weights(lib: ModuleType, shape: tuple[int, ...]) -> Any:
    """Fixed unequal weights, so a gradient summed the wrong way shows."""
    count = int(np.prod(shape)) if shape else 1
    return f64(lib, np.linspace(-1.0, 2.0, count).reshape(shape).tolist())


GRADIENT_CASES: dict[str, Callable[[ModuleType, Any, Any, Any], Any]] = {
    "student_t": lambda lib, a, b, c: lib.distributions.StudentT(c, a, b),
    "poisson": lambda lib, a, b, c: lib.distributions.Poisson(b),
    "binomial_probs": lambda lib, a, b, c: lib.distributions.Binomial(f64(lib, 10.0), (a.sigmoid() + b) / (1 + b)),
    "binomial_logits": lambda lib, a, b, c: lib.distributions.Binomial(10, logits=a * b),  # a logit of exactly 0 at a = 0
    "lowrank": lambda lib, a, b, c: lib.distributions.LowRankMultivariateNormal(
        a, b.transpose(-1, -2)[..., :2] * f64(lib, [[1.0, 0.5]]) + c.mT[..., :2] * 0.1, b[0] + 0.2),
}
#: the entropy's gradient in ``df`` has a difference of trigammas; PyTorch's trigamma is good to about
#: 5e-10 (against mpmath), minitorch's to a few ulp, and the difference magnifies that
GRADIENT_RTOL = {"student_t": 1e-7}
GRADIENT_VALUES = {"student_t": [[0.3, -1.5, -2.2], [2.0, 0.0, 5.0]], "poisson": COUNTS,
                   "binomial_probs": [[0.0, 3.0, 10.0], [7.0, 5.0, 1.0]], "binomial_logits": [[0.0, 3.0, 10.0], [7.0, 5.0, 1.0]],
                   "lowrank": [[0.3, -1.5, -2.2], [2.0, 0.0, 5.0]]}


@pytest.mark.parametrize("name", list(GRADIENT_CASES))
def test_log_prob_and_entropy_gradients_match_torch(torch_ref: ModuleType, name: str) -> None:
    def grads(lib: ModuleType) -> list[Any]:
        a, b = f64(lib, LOC).requires_grad_(), f64(lib, SCALE).requires_grad_()
        c = f64(lib, [[0.5, 1.5, 3.0], [10.0, 2.0, 1.0]]).requires_grad_()
        d = GRADIENT_CASES[name](lib, a, b, c)
        log_prob = d.log_prob(f64(lib, GRADIENT_VALUES[name]))
        loss = (log_prob * _weights(lib, tuple(log_prob.shape))).sum()
        if name != "poisson":
            loss = loss + 0.5 * (d.entropy() * _weights(lib, tuple(d.batch_shape))).sum()
        loss = loss + (d.mean * _weights(lib, tuple(d.mean.shape))).nan_to_num(0.0, 0.0, 0.0).sum()
        loss.backward()
        return [x.grad if x.grad is not None else lib.zeros(2, 3, dtype=lib.float64) for x in (a, b, c)]

    compare(torch_ref, grads, rtol=GRADIENT_RTOL.get(name, 1e-9))


def test_student_t_variance_gradients_skip_undefined_entries(torch_ref: ModuleType) -> None:
    def grads(lib: ModuleType) -> list[Any]:
        df = f64(lib, [0.5, 1.5, 2.0, 3.0, 7.0]).requires_grad_()
        scale = f64(lib, [1.0, 2.0, 3.0, 0.5, 1.5]).requires_grad_()
        variance = lib.distributions.StudentT(df, 0.0, scale).variance
        variance.nan_to_num(0.0, 0.0, 0.0).sum().backward()
        return [df.grad, scale.grad]

    compare(torch_ref, grads)


def test_kl_gradients_match_torch(torch_ref: ModuleType) -> None:
    def grads(lib: ModuleType) -> list[Any]:
        D = lib.distributions
        loc, factor, diag = f64(lib, LOC).requires_grad_(), f64(lib, FACTOR).requires_grad_(), f64(lib, DIAG).requires_grad_()
        rate, probs = f64(lib, [0.5, 2.0, 7.0]).requires_grad_(), f64(lib, [0.2, 0.5, 0.9]).requires_grad_()
        p = D.LowRankMultivariateNormal(loc, factor, diag)
        q = MAKERS["lowrank_batched"](lib)
        dense = D.MultivariateNormal(f64(lib, [0.3, -1.0, 2.0]), scale_tril=f64(lib, TRIL))
        total = (D.kl_divergence(p, q) + D.kl_divergence(q, p) + D.kl_divergence(p, dense) + D.kl_divergence(dense, p)).sum()
        total = total + D.kl_divergence(D.Poisson(rate), D.Poisson(f64(lib, [1.0, 1.0, 3.0]))).sum()
        total = total + D.kl_divergence(D.Binomial(6, probs), D.Binomial(6, f64(lib, [0.4, 0.1, 0.5]))).sum()
        total.backward()
        return [loc.grad, factor.grad, diag.grad, rate.grad, probs.grad]

    compare(torch_ref, grads, rtol=1e-9)


def _replay(seed: int, draw: Callable[[], Any]) -> Any:
    """What ``draw`` gives right after ``manual_seed(seed)``: the noise a sampler made, read back."""
    minitorch.manual_seed(seed)
    return draw()


def test_gamma_draw_slope_matches_mpmath() -> None:
    r""":math:`dz/d\alpha = -\partial_\alpha P(\alpha, z) / p(z; \alpha)`, with mpmath's regularized incomplete
    gamma differentiated numerically at 30 digits; from the lower tail into the upper tail."""
    mpmath = pytest.importorskip("mpmath")
    alpha = np.array([0.01, 0.3, 1.0, 1.0, 2.5, 2.5, 10.0, 200.0, 0.5, 3.0])
    z = np.array([1e-30, 0.2, 0.5, 12.0, 0.01, 9.0, 14.0, 230.0, 3.0, 15.0])
    expected = []
    with mpmath.workdps(30):
        for a, x in zip(alpha, z):
            a, x = mpmath.mpf(float(a)), mpmath.mpf(float(x))
            slope = mpmath.diff(lambda s: mpmath.gammainc(s, 0, x, regularized=True), a)
            density = mpmath.exp(-x) * x ** (a - 1) / mpmath.gamma(a)
            expected.append(float(-slope / density))
    np.testing.assert_allclose(gamma_draw_slope(alpha, z), expected, rtol=1e-9)


def test_gamma_draw_gradient_matches_torchs_approximation(torch_ref: ModuleType) -> None:
    alpha = minitorch.tensor([[0.2, 0.7, 1.0, 3.5, 40.0]] * 200, dtype=minitorch.float64, requires_grad=True)
    z = standard_gamma_rsample(alpha, tuple(alpha.shape))
    z.sum().backward()
    theirs = torch_ref._standard_gamma_grad(torch_ref.tensor(alpha.detach().numpy()), torch_ref.tensor(z.detach().numpy()))
    np.testing.assert_allclose(alpha.grad.numpy(), theirs.numpy(), rtol=TORCH_GAMMA_GRAD_RTOL)


def test_gamma_draw_gradient_is_unbiased() -> None:
    r""":math:`\mathbb{E}[z] = \alpha` and :math:`\mathbb{E}[z^2] = \alpha(\alpha + 1)`: the mean of the
    pathwise gradients :math:`dz/d\alpha` and :math:`2z\,dz/d\alpha` is within ``SIGMAS`` standard errors of 1 and :math:`2\alpha + 1`."""
    values = [0.3, 1.0, 4.0]
    alpha = minitorch.tensor(values, dtype=minitorch.float64, requires_grad=True)
    z = standard_gamma_rsample(alpha, (DRAWS, 3))
    slope = gamma_draw_slope(np.broadcast_to(values, (DRAWS, 3)), z.detach().numpy())
    for pathwise, target in ((slope, np.ones(3)), (2 * z.detach().numpy() * slope, 2 * np.array(values) + 1)):
        assert np.all(np.abs(pathwise.mean(0) - target) <= SIGMAS * pathwise.std(0) / np.sqrt(DRAWS))
    z.sum().backward()
    np.testing.assert_allclose(alpha.grad.numpy(), slope.sum(0), rtol=1e-12)


def test_student_t_rsample_gradients_match_torch_on_the_same_draws(torch_ref: ModuleType) -> None:
    r"""The draw replayed as :math:`\mu + \sigma\varepsilon\sqrt{\nu/(2G)}` in PyTorch, :math:`G` carrying the
    implicit gradient: exact for ``loc`` and ``scale``, and for ``df`` with our slope; within the accuracy
    of PyTorch's approximation with its own."""
    seed, shape = 5, (40, 2, 3)
    df, loc, scale = (minitorch.tensor(v, dtype=minitorch.float64, requires_grad=True) for v in (DF, LOC, SCALE))
    x = _replay(seed, lambda: minitorch.distributions.StudentT(df, loc, scale).rsample((40,)))
    weights = _weights(minitorch, shape)
    (x * weights).sum().backward()

    def replayed() -> tuple[Any, Any]:
        noise = minitorch.randn(shape, dtype=minitorch.float64)
        return noise, standard_gamma(0.5 * df.detach(), shape).clamp(min=np.finfo(np.float64).tiny)

    noise, gamma = (torch_ref.tensor(t.numpy()) for t in _replay(seed, replayed))
    for slope, rtol in ((None, 1e-10), ("torch", TORCH_GAMMA_GRAD_RTOL)):
        t_df, t_loc, t_scale = (f64(torch_ref, v).requires_grad_() for v in (DF, LOC, SCALE))
        alpha = 0.5 * t_df
        dz = (torch_ref._standard_gamma_grad(alpha.detach().expand(shape), gamma) if slope == "torch"
              else torch_ref.tensor(gamma_draw_slope(0.5 * np.array(DF), gamma.numpy())))
        g = gamma + (alpha - alpha.detach()) * dz  # the value G, the gradient dG/dalpha
        t_x = t_loc + t_scale * noise * (2 * g / t_df).rsqrt()
        np.testing.assert_allclose(x.detach().numpy(), t_x.detach().numpy(), rtol=1e-12)
        (t_x * f64(torch_ref, weights.tolist())).sum().backward()
        np.testing.assert_allclose(loc.grad.numpy(), t_loc.grad.numpy(), rtol=1e-12)
        np.testing.assert_allclose(scale.grad.numpy(), t_scale.grad.numpy(), rtol=1e-10)
        np.testing.assert_allclose(df.grad.numpy(), t_df.grad.numpy(), rtol=rtol)


def test_student_t_df_gradient_is_that_of_the_second_moment() -> None:
    r""":math:`\mathbb{E}[x^2] = \nu/(\nu - 2)` for the standard Student t: the mean of the pathwise
    gradients :math:`d(x^2)/d\nu` is within ``SIGMAS`` standard errors of :math:`-2/(\nu - 2)^2`."""
    values = np.array([6.0, 12.0])
    df = minitorch.tensor([values.tolist()] * DRAWS, dtype=minitorch.float64, requires_grad=True)  # one df per draw
    minitorch.distributions.StudentT(df).rsample().pow(2).sum().backward()
    pathwise = df.grad.numpy()
    target = -2 / (values - 2) ** 2
    assert np.all(np.abs(pathwise.mean(0) - target) <= SIGMAS * pathwise.std(0) / np.sqrt(DRAWS))


def test_low_rank_rsample_is_loc_plus_factor_noise_and_diagonal_noise(torch_ref: ModuleType) -> None:
    seed, sample_shape, rank = 3, (30,), 2
    loc, factor, diag = (minitorch.tensor(v, dtype=minitorch.float64, requires_grad=True) for v in (LOC, FACTOR, DIAG))
    x = _replay(seed, lambda: minitorch.distributions.LowRankMultivariateNormal(loc, factor, diag).rsample(sample_shape))
    assert tuple(x.shape) == (30, 2, 3)
    weights = _weights(minitorch, (30, 2, 3))
    (x * weights).sum().backward()
    factor_noise, diag_noise = _replay(seed, lambda: (minitorch.randn(30, 2, rank, dtype=minitorch.float64),
                                                      minitorch.randn(30, 2, 3, dtype=minitorch.float64)))
    t_loc, t_factor, t_diag = (f64(torch_ref, v).requires_grad_() for v in (LOC, FACTOR, DIAG))
    t_x = (t_loc + (t_factor @ torch_ref.tensor(factor_noise.numpy()).unsqueeze(-1)).squeeze(-1)
           + t_diag.sqrt() * torch_ref.tensor(diag_noise.numpy()))
    np.testing.assert_allclose(x.detach().numpy(), t_x.detach().numpy(), rtol=1e-12)
    (t_x * f64(torch_ref, weights.tolist())).sum().backward()
    for ours, theirs in ((loc, t_loc), (factor, t_factor), (diag, t_diag)):
        np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-12)


# --- sampling: shapes, expand, moments -----------------------------------------------------------------

@pytest.mark.parametrize("name", list(MAKERS))
@pytest.mark.parametrize("sample_shape", [(), (4,), (4, 5)])
def test_sample_shapes(name: str, sample_shape: tuple[int, ...]) -> None:
    d = MAKERS[name](minitorch)
    expected = sample_shape + tuple(d.batch_shape) + tuple(d.event_shape)
    drawn = d.sample(sample_shape)
    assert tuple(drawn.shape) == expected and drawn.dtype == d.mean.dtype and not drawn.requires_grad
    assert bool(d.support.check(drawn).all().item())
    if name in REPARAMETERIZED:
        assert d.has_rsample and tuple(d.rsample(sample_shape).shape) == expected
    else:
        assert not d.has_rsample
        with pytest.raises(NotImplementedError):
            d.rsample(sample_shape)


@pytest.mark.parametrize("name", list(MAKERS))
def test_expand_matches_torch(torch_ref: ModuleType, name: str) -> None:
    def facts(lib: ModuleType) -> list[Any]:
        original = MAKERS[name](lib)
        d = original.expand((4,) + tuple(original.batch_shape))
        value = VALUES[name](lib)
        value = value.unsqueeze(value.dim() - len(original.batch_shape) - len(original.event_shape))
        facts = [d.batch_shape, d.event_shape, d.log_prob(value), tuple(d.sample((5,)).shape), type(d).__name__, d.mean,
                 d.variance, d._validate_args]
        if hasattr(d, "param_shape"):
            facts.append(d.param_shape)
        if name not in WITHOUT_ENTROPY:
            facts.append(d.entropy())
        return facts

    compare(torch_ref, facts)


def test_expand_keeps_validation(torch_ref: ModuleType) -> None:
    for lib in (minitorch, torch_ref):
        d = lib.distributions.Poisson(f64(lib, [1.0, 2.0])).expand((3, 2))
        with pytest.raises(ValueError, match="within the support"):
            d.log_prob(f64(lib, [1.0, 0.5]))


MOMENT_CASES: dict[str, Callable[[ModuleType], Any]] = {
    "student_t": lambda lib: lib.distributions.StudentT(f64(lib, [10.0, 12.0, 30.0]), f64(lib, [0.0, 1.0, -2.0]),
                                                        f64(lib, [1.0, 2.0, 0.5])),
    "poisson": lambda lib: lib.distributions.Poisson(f64(lib, [0.0, 0.5, 4.0, 30.0])),
    "binomial": lambda lib: lib.distributions.Binomial(f64(lib, [1.0, 10.0, 40.0, 5.0]), f64(lib, [0.3, 0.5, 0.9, 0.0])),
    "binomial_logits": lambda lib: lib.distributions.Binomial(20, logits=f64(lib, [-3.0, 0.0, 1.5])),
    "lowrank": MAKERS["lowrank_batched"],
}


@pytest.mark.parametrize("name", list(MOMENT_CASES))
def test_sample_mean_and_variance_within_standard_errors(torch_ref: ModuleType, name: str) -> None:
    """The sample mean within ``SIGMAS`` standard errors :math:`\\sqrt{\\mathrm{Var}/n}` of the mean;
    the sample variance within ``SIGMAS`` standard errors :math:`\\sqrt{(m_4 - \\sigma^4)/n}` of it."""
    draws = MOMENT_CASES[name](minitorch).sample((DRAWS,)).numpy()
    assert_moments_within(draws, MOMENT_CASES[name](torch_ref), SIGMAS, covariance=name == "lowrank")


def test_heavy_tailed_student_t_draws_follow_its_cdf() -> None:
    r"""No variance for :math:`\nu \le 2`: the fraction of draws below :math:`\mu \pm \sigma` and :math:`\mu` is
    within ``SIGMAS`` binomial standard errors of :math:`F(t) = 1 - \tfrac12 I_{\nu/(\nu + t^2)}(\nu/2, \tfrac12)`."""
    mpmath = pytest.importorskip("mpmath")
    df, loc, scale = [0.7, 1.5, 2.0], [0.0, 1.0, -2.0], [1.0, 2.0, 0.5]
    d = minitorch.distributions.StudentT(f64(minitorch, df), f64(minitorch, loc), f64(minitorch, scale))
    draws = (d.sample((DRAWS,)).numpy() - np.array(loc)) / np.array(scale)
    for t in (-1.0, 0.0, 1.0):
        tail = [0.5 * float(mpmath.betainc(v / 2, 0.5, 0, v / (v + t * t), regularized=True)) for v in df]
        expected = 1 - np.array(tail) if t > 0 else np.array(tail)
        below = (draws < t).mean(0)
        assert np.all(np.abs(below - expected) < SIGMAS * np.sqrt(expected * (1 - expected) / DRAWS))


def test_draws_come_from_minitorchs_generator() -> None:
    for name in MAKERS:
        minitorch.manual_seed(7)
        first = MAKERS[name](minitorch).sample((3,))
        minitorch.manual_seed(7)
        again = MAKERS[name](minitorch).sample((3,))
        assert np.array_equal(first.numpy(), again.numpy())
        if name not in ("binomial_default",):  # Binomial(1, [0.3, 0]) repeats often
            assert not np.array_equal(first.numpy(), MAKERS[name](minitorch).sample((3,)).numpy())


# --- errors -------------------------------------------------------------------------------------------------

BAD_CALLS: dict[str, Callable[[ModuleType], Any]] = {
    "student_t_df": lambda lib: lib.distributions.StudentT(f64(lib, [1.0, -1.0])),
    "student_t_scale": lambda lib: lib.distributions.StudentT(3.0, 0.0, f64(lib, [0.0])),
    "student_t_loc_nan": lambda lib: lib.distributions.StudentT(3.0, f64(lib, float("nan"))),
    "student_t_value": lambda lib: lib.distributions.StudentT(3.0).log_prob(f64(lib, float("nan"))),
    "student_t_value_number": lambda lib: lib.distributions.StudentT(f64(lib, 3.0)).log_prob(1.0),
    "poisson_rate": lambda lib: lib.distributions.Poisson(f64(lib, [1.0, -0.5])),
    "poisson_value_fraction": lambda lib: lib.distributions.Poisson(f64(lib, [1.0, 2.0])).log_prob(f64(lib, [1.0, 0.5])),
    "poisson_value_negative": lambda lib: lib.distributions.Poisson(f64(lib, 1.0)).log_prob(f64(lib, -1.0)),
    "poisson_value_shape": lambda lib: lib.distributions.Poisson(f64(lib, [1.0, 2.0])).log_prob(f64(lib, [1.0, 2.0, 3.0])),
    "binomial_none": lambda lib: lib.distributions.Binomial(5),
    "binomial_both": lambda lib: lib.distributions.Binomial(5, f64(lib, 0.5), f64(lib, 0.0)),
    "binomial_count_fraction": lambda lib: lib.distributions.Binomial(f64(lib, [5.0, 2.5]), f64(lib, [0.3, 0.5])),
    "binomial_count_negative": lambda lib: lib.distributions.Binomial(f64(lib, -1.0), logits=f64(lib, 0.3)),
    "binomial_probs": lambda lib: lib.distributions.Binomial(3, f64(lib, [0.5, 1.5])),
    "binomial_value_above_count": lambda lib: lib.distributions.Binomial(f64(lib, [5.0, 5.0]), f64(lib, [0.3, 0.5])).log_prob(
        f64(lib, [6.0, 1.0])),
    "binomial_value_fraction": lambda lib: lib.distributions.Binomial(4, logits=f64(lib, [0.3])).log_prob(f64(lib, [1.5])),
    "lowrank_loc_dim": lambda lib: lib.distributions.LowRankMultivariateNormal(f64(lib, 0.0), f64(lib, [[1.0]]), f64(lib, [1.0])),
    "lowrank_factor_dim": lambda lib: lib.distributions.LowRankMultivariateNormal(f64(lib, [0.0]), f64(lib, [1.0]), f64(lib, [1.0])),
    "lowrank_factor_rows": lambda lib: lib.distributions.LowRankMultivariateNormal(f64(lib, [0.0, 0.0]), f64(lib, FACTOR),
                                                                                   f64(lib, [1.0, 1.0])),
    "lowrank_diag_size": lambda lib: lib.distributions.LowRankMultivariateNormal(f64(lib, LOC[0]), f64(lib, FACTOR),
                                                                                 f64(lib, [1.0, 1.0])),
    "lowrank_batches": lambda lib: lib.distributions.LowRankMultivariateNormal(f64(lib, LOC), f64(lib, FACTOR),
                                                                               f64(lib, [DIAG] * 3)),
    "lowrank_diag_negative": lambda lib: lib.distributions.LowRankMultivariateNormal(
        f64(lib, [0.0, 0.0]), f64(lib, [[0.0], [0.0]]), f64(lib, [1.0, -1.0])),
    "lowrank_value_event": lambda lib: MAKERS["lowrank"](lib).log_prob(f64(lib, [0.0, 0.0])),
    "lowrank_value_batch": lambda lib: MAKERS["lowrank"](lib).log_prob(f64(lib, [LOC[0]] * 3)),
}


@pytest.mark.parametrize("name", list(BAD_CALLS))
def test_bad_arguments_raise_torchs_error(torch_ref: ModuleType, name: str) -> None:
    same_error(torch_ref, BAD_CALLS[name])


def test_validation_can_be_turned_off(torch_ref: ModuleType) -> None:
    def values(lib: ModuleType) -> list[Any]:
        D = lib.distributions
        return [D.Poisson(f64(lib, [1.0, 2.0]), validate_args=False).log_prob(f64(lib, [0.5, 3.0])),
                D.Binomial(f64(lib, 3.0), f64(lib, [0.5, 0.2]), validate_args=False).log_prob(f64(lib, [1.5, 2.0])),
                D.StudentT(2.0, 0.0, f64(lib, [-1.0, 2.0]), validate_args=False).log_prob(f64(lib, [0.5, 1.0]))]

    compare(torch_ref, values)


def test_student_t_without_validation_accepts_any_df(torch_ref: ModuleType) -> None:
    """A deliberate difference: PyTorch checks ``df`` in the Chi2 it builds, whose validation follows
    the global default, so ``validate_args=False`` does not stop that check there; here it does."""
    d = minitorch.distributions.StudentT(f64(minitorch, [-1.0, 2.0]), validate_args=False)
    assert d.df.tolist() == [-1.0, 2.0]
    with pytest.raises(ValueError, match="Chi2"):
        torch_ref.distributions.StudentT(f64(torch_ref, [-1.0, 2.0]), validate_args=False)

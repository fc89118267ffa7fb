r"""``rsample`` of ``Gamma``, ``Beta`` and ``Dirichlet``: the draws, their gradients, and PyTorch.

A standard gamma draw :math:`G` carries the implicit gradient :math:`dG/d\alpha` (its quantile held
fixed); ``Gamma`` divides it by the rate, ``Dirichlet`` normalizes the gammas and ``Beta`` is the
first coordinate of the two-category ``Dirichlet``. The draws are read back by replaying
minitorch's generator, and the gradients are checked

- against central differences of the quantile-fixed draws, the quantile inverted with mpmath's
  regularized incomplete gamma at 30 digits (tight);
- against PyTorch on the same draws: ``Gamma`` through ``torch._standard_gamma_grad`` (PyTorch's
  closed-form approximation, to its accuracy); for ``Beta`` and ``Dirichlet`` PyTorch's gradient is
  the conditional expectation of ours given the draw, checked as such by Monte Carlo;
- as expectations: the mean of the pathwise gradients of :math:`f(x)` within a few standard errors
  of the derivative of the closed form of :math:`\mathbb{E}[f(x)]`.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, Callable, Optional

import numpy as np
import pytest

import minitorch
from minitorch.distributions.numpy_draws import standard_gamma
from minitorch.distributions.gamma_reparam import gamma_draw_slope
from distribution_oracle import f64

#: draws for the expectation tests, and how many standard errors a mean may be off
DRAWS = 20000
SIGMAS = 5.0
#: PyTorch's closed-form approximations of the gamma and Dirichlet slopes are good to about this (relative)
TORCH_GRAD_RTOL = 5e-3
#: the digits mpmath works with, and the step of the central differences (its error is about STEP^2)
MP_DIGITS = 30
STEP = 1e-9
#: central differences at 30 digits agree with the float64 series to about this
DIFFERENCE_RTOL = 1e-9
SEED = 11

CONCENTRATION = [[0.7, 2.5, 1.0], [4.0, 0.3, 1.5]]
RATE = [[0.5, 2.0, 1.0], [3.0, 1.5, 0.25]]
CONCENTRATION0 = [[1.5, 0.4, 2.0], [0.8, 3.0, 1.0]]
FAMILIES: dict[str, Callable[[ModuleType, Any, Any], Any]] = {
    "gamma": lambda lib, a, b: lib.distributions.Gamma(a, b),
    "beta": lambda lib, a, b: lib.distributions.Beta(a, b),
    "dirichlet": lambda lib, a, b: lib.distributions.Dirichlet(a),
}
SECOND = {"gamma": RATE, "beta": CONCENTRATION0, "dirichlet": RATE}


def _weights(shape: tuple[int, ...]) -> np.ndarray:
    """Fixed unequal weights, so a gradient summed the wrong way shows."""
    return np.linspace(-1.0, 2.0, int(np.prod(shape))).reshape(shape)


def _replay(seed: int, draw: Callable[[], Any]) -> Any:
    """What ``draw`` gives right after ``manual_seed(seed)``: the gammas a sampler drew, read back."""
    minitorch.manual_seed(seed)
    return draw()


def _params(dtype: Any = minitorch.float64) -> tuple[Any, Any]:
    return (minitorch.tensor(CONCENTRATION, dtype=dtype, requires_grad=True),
            minitorch.tensor(RATE, dtype=dtype, requires_grad=True))


# --- the draws --------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", list(FAMILIES))
def test_has_rsample_and_graph_as_torch(torch_ref: ModuleType, name: str) -> None:
    facts = []
    for lib in (minitorch, torch_ref):
        a, b = f64(lib, CONCENTRATION).requires_grad_(), f64(lib, SECOND[name]).requires_grad_()
        d = FAMILIES[name](lib, a, b)
        x = d.rsample((4,))
        facts.append((d.has_rsample, tuple(x.shape), str(x.dtype).rsplit(".")[-1], x.requires_grad,
                      type(x.grad_fn).__name__, d.sample((4,)).requires_grad))
    assert facts[0] == facts[1]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", list(FAMILIES))
def test_sample_is_rsample_outside_the_graph(name: str, dtype: str) -> None:
    """As in PyTorch, ``sample`` is ``rsample`` under ``no_grad``: the same numbers after the same seed."""
    a, b = (minitorch.tensor(v, dtype=getattr(minitorch, dtype)) for v in (CONCENTRATION, SECOND[name]))
    d = FAMILIES[name](minitorch, a.requires_grad_(), b.requires_grad_())
    drawn = _replay(SEED, lambda: d.sample((5,)))
    again = _replay(SEED, lambda: d.rsample((5,)))
    assert not drawn.requires_grad and again.requires_grad
    assert drawn.dtype == again.dtype == getattr(minitorch, dtype)
    assert np.array_equal(drawn.numpy(), again.detach().numpy())


def test_draws_are_the_gammas_of_the_generator() -> None:
    r"""Gamma :math:`G/\beta`; Dirichlet :math:`G_k/\sum_j G_j` (float64); Beta the first of the Dirichlet of :math:`(a, b)`."""
    D = minitorch.distributions
    a, b = f64(minitorch, CONCENTRATION), f64(minitorch, RATE)
    shape = (5, 2, 3)
    gammas = _replay(SEED, lambda: standard_gamma(a, shape)).numpy()
    np.testing.assert_array_equal(_replay(SEED, lambda: D.Gamma(a, b).rsample((5,))).numpy(), gammas / np.array(RATE))
    np.testing.assert_array_equal(_replay(SEED, lambda: D.Dirichlet(a).rsample((5,))).numpy(),
                                  gammas / gammas.sum(-1, keepdims=True))
    pairs = minitorch.stack([a, b], -1)
    pair_gammas = _replay(SEED, lambda: standard_gamma(pairs, (5, 2, 3, 2))).numpy()
    np.testing.assert_array_equal(_replay(SEED, lambda: D.Beta(a, b).rsample((5,))).numpy(),
                                  pair_gammas[..., 0] / pair_gammas.sum(-1))


def test_float32_dirichlet_is_normalized_in_float64_and_kept_inside_the_simplex(torch_ref: ModuleType) -> None:
    """Gammas of a tiny concentration underflow; as in PyTorch, no coordinate is NaN, 0 or 1, and no Gamma
    draw below the smallest normal number, even divided by a rate above 1."""
    tiny_concentration, large_rate, rows = 1e-3, 4.0, 2000
    for lib in (minitorch, torch_ref):
        lib.manual_seed(SEED)
        x = lib.distributions.Dirichlet(lib.full((rows, 3), tiny_concentration)).sample().numpy()
        info = np.finfo(np.float32)
        assert x.dtype == np.float32 and not np.isnan(x).any()
        assert x.min() == info.tiny and x.max() == np.nextafter(np.float32(1), np.float32(0))
        g = lib.distributions.Gamma(lib.full((rows,), tiny_concentration), large_rate).sample().numpy()
        assert g.min() == info.tiny
    a = minitorch.tensor(CONCENTRATION, dtype=minitorch.float32)
    gammas = _replay(SEED, lambda: standard_gamma(a.double(), (2, 3))).numpy()
    expected = (gammas / gammas.sum(-1, keepdims=True)).astype(np.float32)
    np.testing.assert_array_equal(_replay(SEED, lambda: minitorch.distributions.Dirichlet(a).sample()).numpy(), expected)


# --- gradients at the draws ------------------------------------------------------------------------

def _inverse_gamma_cdf(mpmath: ModuleType, alpha: Any, quantile: Any, start: float) -> Any:
    """:math:`z` with :math:`P(\\alpha, z) = u`, by Newton's method from ``start`` (a nearby root)."""
    return mpmath.findroot(lambda z: mpmath.gammainc(alpha, 0, z, regularized=True) - quantile, mpmath.mpf(start))


def _quantile_fixed_slopes(mpmath: ModuleType, alpha: np.ndarray, gammas: np.ndarray) -> np.ndarray:
    r""":math:`dG/d\alpha` by central differences of :math:`P^{-1}(\alpha \pm h, u)`, :math:`u = P(\alpha, G)`."""
    slopes = []
    with mpmath.workdps(MP_DIGITS):
        for a, z in zip(alpha.ravel(), gammas.ravel()):
            a, step = mpmath.mpf(float(a)), mpmath.mpf(STEP)
            quantile = mpmath.gammainc(a, 0, mpmath.mpf(float(z)), regularized=True)
            up, down = (_inverse_gamma_cdf(mpmath, a + s, quantile, float(z)) for s in (step, -step))
            slopes.append(float((up - down) / (2 * step)))
    return np.array(slopes).reshape(alpha.shape)


def test_gamma_rsample_gradient_is_the_quantile_fixed_derivative() -> None:
    r""":math:`x = G/\beta`: :math:`\partial x/\partial\alpha = (dG/d\alpha)/\beta` with :math:`dG/d\alpha` by central
    differences at 30 digits, and :math:`\partial x/\partial\beta = -x/\beta`."""
    mpmath = pytest.importorskip("mpmath")
    alpha, rate = _params()
    x = _replay(SEED, lambda: minitorch.distributions.Gamma(alpha, rate).rsample())
    weights = _weights((2, 3))
    (x * minitorch.tensor(weights, dtype=minitorch.float64)).sum().backward()
    gammas = x.detach().numpy() * np.array(RATE)
    slopes = _quantile_fixed_slopes(mpmath, np.array(CONCENTRATION), gammas)
    np.testing.assert_allclose(alpha.grad.numpy(), weights * slopes / np.array(RATE), rtol=DIFFERENCE_RTOL)
    np.testing.assert_allclose(rate.grad.numpy(), -weights * x.detach().numpy() / np.array(RATE), rtol=1e-12)


def test_dirichlet_rsample_jacobian_is_that_of_the_normalized_gammas() -> None:
    r""":math:`\partial x_j/\partial\alpha_k = (\delta_{jk} - x_j)\,(dG_k/d\alpha_k)/S`, the slopes by central differences."""
    mpmath = pytest.importorskip("mpmath")
    alpha = minitorch.tensor(CONCENTRATION, dtype=minitorch.float64, requires_grad=True)
    x = _replay(SEED, lambda: minitorch.distributions.Dirichlet(alpha).rsample())
    weights = _weights((2, 3))
    (x * minitorch.tensor(weights, dtype=minitorch.float64)).sum().backward()
    gammas = _replay(SEED, lambda: standard_gamma(alpha.detach(), (2, 3))).numpy()
    total = gammas.sum(-1, keepdims=True)
    draws = gammas / total
    scaled = _quantile_fixed_slopes(mpmath, np.array(CONCENTRATION), gammas) / total
    expected = scaled * (weights - (draws * weights).sum(-1, keepdims=True))
    np.testing.assert_allclose(alpha.grad.numpy(), expected, rtol=DIFFERENCE_RTOL)


def _reparameterized(torch_ref: ModuleType, alpha: Any, gammas: Any, slope: Any) -> Any:
    """The value ``gammas``, whose gradient in ``alpha`` is ``slope`` (elementwise)."""
    return gammas + (alpha - alpha.detach()) * slope


@pytest.mark.parametrize("slope_of", ["ours", "torch"])
def test_gamma_rsample_gradients_match_torch_on_the_same_draws(torch_ref: ModuleType, slope_of: str) -> None:
    """The replayed draw in PyTorch, :math:`G` carrying our slope (exact) or PyTorch's ``_standard_gamma_grad``
    (to its approximation's accuracy); ``sample_shape`` (40,) so the gradient sums over the draws."""
    shape = (40, 2, 3)
    alpha, rate = _params()
    x = _replay(SEED, lambda: minitorch.distributions.Gamma(alpha, rate).rsample((40,)))
    weights = _weights(shape)
    (x * minitorch.tensor(weights, dtype=minitorch.float64)).sum().backward()
    gammas = torch_ref.tensor(_replay(SEED, lambda: standard_gamma(alpha.detach(), shape)).numpy())
    t_alpha, t_rate = f64(torch_ref, CONCENTRATION).requires_grad_(), f64(torch_ref, RATE).requires_grad_()
    expanded = t_alpha.detach().expand(shape)
    slope = (torch_ref._standard_gamma_grad(expanded, gammas) if slope_of == "torch"
             else torch_ref.tensor(gamma_draw_slope(expanded.numpy(), gammas.numpy())))
    t_x = _reparameterized(torch_ref, t_alpha, gammas, slope) / t_rate
    np.testing.assert_allclose(x.detach().numpy(), t_x.detach().numpy(), rtol=1e-15)
    (t_x * torch_ref.tensor(weights)).sum().backward()
    np.testing.assert_allclose(rate.grad.numpy(), t_rate.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(alpha.grad.numpy(), t_alpha.grad.numpy(), rtol=TORCH_GRAD_RTOL if slope_of == "torch" else 1e-12)


@pytest.mark.parametrize("name", ["beta", "dirichlet"])
def test_beta_and_dirichlet_gradients_are_torchs_autograd_of_the_normalized_gammas(torch_ref: ModuleType, name: str) -> None:
    """PyTorch's autograd through :math:`G_k/\\sum_j G_j` (the replayed gammas carrying our slopes) gives ours."""
    shape = (40, 2, 3)
    a, b = (minitorch.tensor(v, dtype=minitorch.float64, requires_grad=True) for v in (CONCENTRATION, CONCENTRATION0))
    x = _replay(SEED, lambda: FAMILIES[name](minitorch, a, b).rsample((40,)))
    weights = _weights(shape)
    (x * minitorch.tensor(weights, dtype=minitorch.float64)).sum().backward()
    t_a, t_b = f64(torch_ref, CONCENTRATION).requires_grad_(), f64(torch_ref, CONCENTRATION0).requires_grad_()
    t_params = torch_ref.stack([t_a, t_b], -1) if name == "beta" else t_a
    gamma_shape = shape + ((2,) if name == "beta" else ())
    params = minitorch.stack([a, b], -1) if name == "beta" else a
    gammas = _replay(SEED, lambda: standard_gamma(params.detach(), gamma_shape)).numpy()
    expanded = t_params.expand(gamma_shape)
    g = _reparameterized(torch_ref, expanded, torch_ref.tensor(gammas),
                         torch_ref.tensor(gamma_draw_slope(expanded.detach().numpy(), gammas)))
    t_x = g / g.sum(-1, keepdim=True)
    t_x = t_x[..., 0] if name == "beta" else t_x
    np.testing.assert_allclose(x.detach().numpy(), t_x.detach().numpy(), rtol=1e-15)
    (t_x * torch_ref.tensor(weights)).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), t_a.grad.numpy(), rtol=1e-12)
    if name == "beta":
        np.testing.assert_allclose(b.grad.numpy(), t_b.grad.numpy(), rtol=1e-12)


def test_dirichlet_slope_given_the_draw_is_torchs_in_expectation(torch_ref: ModuleType) -> None:
    r"""Given :math:`x`, :math:`S \sim \mathrm{Gamma}(\alpha_0, 1)` is independent of it and :math:`G_k = x_k S`:
    the mean over :math:`S` of our :math:`c_k = (dG_k/d\alpha_k)/S` is PyTorch's ``_dirichlet_grad`` (the
    marginal Beta's implicit gradient over :math:`1 - x_k`), within standard errors and PyTorch's accuracy."""
    alpha = np.array([0.7, 2.5, 1.0, 0.3])
    point = np.array([0.15, 0.5, 0.3, 0.05])
    totals = np.random.default_rng(SEED).standard_gamma(alpha.sum(), DRAWS)[:, None]
    scaled = gamma_draw_slope(np.broadcast_to(alpha, (DRAWS, 4)), point * totals) / totals
    theirs = torch_ref._dirichlet_grad(torch_ref.tensor(point), torch_ref.tensor(alpha),
                                       torch_ref.tensor(np.full(4, alpha.sum()))).numpy()
    error = SIGMAS * scaled.std(0) / np.sqrt(DRAWS) + TORCH_GRAD_RTOL * np.abs(theirs)
    assert np.all(np.abs(scaled.mean(0) - theirs) <= error)


def test_beta_slope_given_the_draw_is_the_exact_implicit_gradient() -> None:
    r"""The same for :math:`x \sim \mathrm{Beta}(a, b)` against mpmath: :math:`\mathbb{E}[(1 - x)\,c_1 \mid x]
    = -\partial_a I_x(a, b)/p(x)` and :math:`\mathbb{E}[-x\,c_0 \mid x] = -\partial_b I_x(a, b)/p(x)`."""
    mpmath = pytest.importorskip("mpmath")
    a, b, point = 1.7, 0.6, 0.35
    totals = np.random.default_rng(SEED).standard_gamma(a + b, DRAWS)
    pathwise = np.stack([(1 - point) * gamma_draw_slope(a, point * totals) / totals,
                         -point * gamma_draw_slope(b, (1 - point) * totals) / totals], -1)
    with mpmath.workdps(MP_DIGITS):
        density = point ** (a - 1) * (1 - point) ** (b - 1) / mpmath.beta(a, b)
        exact = [float(-mpmath.diff(lambda s: mpmath.betainc(s, b, 0, point, regularized=True), a) / density),
                 float(-mpmath.diff(lambda s: mpmath.betainc(a, s, 0, point, regularized=True), b) / density)]
    assert np.all(np.abs(pathwise.mean(0) - exact) <= SIGMAS * pathwise.std(0) / np.sqrt(DRAWS))


# --- gradients in expectation -----------------------------------------------------------------------

def _per_draw_gradients(make: Callable[[Any, Any], Any], first: list[float], second: list[float],
                        f: Callable[[Any], Any]) -> tuple[np.ndarray, Optional[np.ndarray]]:
    """The pathwise gradients of :math:`f(x)`, one draw per row of parameters repeated ``DRAWS`` times
    (the second ``None`` where the distribution does not use it)."""
    minitorch.manual_seed(SEED)
    a = minitorch.tensor([first] * DRAWS, dtype=minitorch.float64, requires_grad=True)
    b = minitorch.tensor([second] * DRAWS, dtype=minitorch.float64, requires_grad=True)
    f(make(a, b).rsample()).sum().backward()
    return a.grad.numpy(), None if b.grad is None else b.grad.numpy()


def _within_standard_errors(pathwise: np.ndarray, target: np.ndarray) -> bool:
    return bool(np.all(np.abs(pathwise.mean(0) - target) <= SIGMAS * pathwise.std(0) / np.sqrt(DRAWS)))


def test_gamma_gradients_are_unbiased() -> None:
    r""":math:`\mathbb{E}[x] = \alpha/\beta` and :math:`\mathbb{E}[x^2] = \alpha(\alpha + 1)/\beta^2`."""
    alpha, rate = np.array([0.3, 1.0, 4.0]), np.array([2.0, 0.5, 1.5])
    make = minitorch.distributions.Gamma
    by_alpha, by_rate = _per_draw_gradients(make, alpha.tolist(), rate.tolist(), lambda x: x)
    assert _within_standard_errors(by_alpha, 1 / rate)
    assert _within_standard_errors(by_rate, -alpha / rate ** 2)
    by_alpha, by_rate = _per_draw_gradients(make, alpha.tolist(), rate.tolist(), lambda x: x.pow(2))
    assert _within_standard_errors(by_alpha, (2 * alpha + 1) / rate ** 2)
    assert _within_standard_errors(by_rate, -2 * alpha * (alpha + 1) / rate ** 3)


def test_beta_gradients_are_unbiased() -> None:
    r""":math:`\mathbb{E}[x] = a/(a + b)`: :math:`\partial_a = b/(a + b)^2`, :math:`\partial_b = -a/(a + b)^2`;
    :math:`\mathbb{E}[x^2] = a(a + 1)/(t(t + 1))`, :math:`t = a + b`."""
    a, b = np.array([0.5, 2.0, 5.0]), np.array([1.5, 0.4, 3.0])
    total = a + b
    make = minitorch.distributions.Beta
    by_a, by_b = _per_draw_gradients(make, a.tolist(), b.tolist(), lambda x: x)
    assert _within_standard_errors(by_a, b / total ** 2)
    assert _within_standard_errors(by_b, -a / total ** 2)
    by_a, by_b = _per_draw_gradients(make, a.tolist(), b.tolist(), lambda x: x.pow(2))
    denominator = (total * (total + 1)) ** 2
    assert _within_standard_errors(by_a, ((2 * a + 1) * total * (total + 1) - a * (a + 1) * (2 * total + 1)) / denominator)
    assert _within_standard_errors(by_b, -a * (a + 1) * (2 * total + 1) / denominator)


def test_dirichlet_gradients_are_unbiased() -> None:
    r""":math:`\mathbb{E}[\sum_j w_j x_j^2] = \sum_j w_j \alpha_j(\alpha_j + 1)/(\alpha_0(\alpha_0 + 1))`, differentiated in each
    :math:`\alpha_k`."""
    alpha, weights = np.array([0.4, 1.5, 3.0]), np.array([1.0, -2.0, 0.5])
    total = alpha.sum()
    w = minitorch.tensor(weights.tolist(), dtype=minitorch.float64)
    by_alpha, _ = _per_draw_gradients(lambda a, b: minitorch.distributions.Dirichlet(a), alpha.tolist(), alpha.tolist(),
                                      lambda x: (x.pow(2) * w).sum(-1))
    norm = total * (total + 1)
    moment = (weights * alpha * (alpha + 1)).sum()
    target = weights * (2 * alpha + 1) / norm - moment * (2 * total + 1) / norm ** 2
    assert _within_standard_errors(by_alpha, target)


@pytest.mark.parametrize("name", list(FAMILIES))
def test_float32_gradients(name: str) -> None:
    """Float32 parameters get float32 gradients, equal to the float64 ones to float32 accuracy."""
    grads = []
    for dtype in (minitorch.float32, minitorch.float64):
        a, b = (minitorch.tensor(v, dtype=dtype, requires_grad=True) for v in (CONCENTRATION, SECOND[name]))
        x = _replay(SEED, lambda: FAMILIES[name](minitorch, a, b).rsample((3,)))
        (x * minitorch.tensor(_weights(tuple(x.shape)), dtype=dtype)).sum().backward()
        assert a.grad.dtype == dtype
        grads.append(a.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-4, atol=1e-5)

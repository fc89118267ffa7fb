"""``Multinomial`` against ``torch.distributions.Multinomial``: values in float64 (log_prob, entropy,
moments, the normalized parameters), gradients of log_prob and entropy, shapes of draws and of
``expand``, PyTorch's errors, and the moments of draws within a few standard errors.
"""

from __future__ import annotations

import contextlib
import importlib
import math
from types import ModuleType
from typing import Any, Callable, Iterator

import numpy as np
import pytest

import minitorch
from distribution_oracle import as_torch_text, compare, f64, same_error

#: draws for the moment tests, and how many standard errors a moment may be off
DRAWS = 20000
SIGMAS = 5.0
SEED = 5
#: float32 results may differ by a rounding or two from PyTorch's (another order of summation)
FLOAT32_RTOL = 1e-6

PROBS = [[0.2, 0.3, 0.5, 0.0], [1.0, 1.0, 2.0, 4.0]]  # unnormalized in the second row
LOGITS = [[0.0, -1.0, 2.0, 0.5], [3.0, float("-inf"), 0.0, -2.0]]


MAKERS: dict[str, Callable[[ModuleType], Any]] = {
    "probs": lambda lib: lib.distributions.Multinomial(10, f64(lib, PROBS)),
    "logits": lambda lib: lib.distributions.Multinomial(6, logits=f64(lib, LOGITS)),
    "one_trial": lambda lib: lib.distributions.Multinomial(probs=f64(lib, [0.25, 0.75])),
    "no_trials": lambda lib: lib.distributions.Multinomial(0, f64(lib, [0.5, 0.2, 0.3])),
    "float32": lambda lib: lib.distributions.Multinomial(7, lib.tensor([0.1, 0.2, 0.7])),
}
VALUES: dict[str, Callable[[ModuleType], Any]] = {
    "probs": lambda lib: f64(lib, [[[2.0, 3.0, 5.0, 0.0], [1.0, 1.0, 2.0, 6.0]], [[0.0, 0.0, 4.0, 0.0], [10.0, 0.0, 0.0, 0.0]]]),
    "logits": lambda lib: f64(lib, [[1.0, 2.0, 3.0, 0.0], [2.0, 0.0, 1.0, 3.0]]),
    "one_trial": lambda lib: f64(lib, [[1.0, 0.0], [0.0, 1.0]]),
    "no_trials": lambda lib: f64(lib, [0.0, 0.0, 0.0]),
    "float32": lambda lib: lib.tensor([1.0, 2.0, 4.0]),
}


def _facts(name: str, lib: ModuleType) -> list[Any]:
    d = MAKERS[name](lib)
    return [d.batch_shape, d.event_shape, d.log_prob(VALUES[name](lib)), as_torch_text(d.support), d.has_rsample,
            d.has_enumerate_support, d.mean, d.variance, d.stddev, d.probs, d.logits, d.param_shape, d.total_count,
            as_torch_text(d), d.entropy(), as_torch_text(d._categorical)]


@pytest.mark.parametrize("name", list(MAKERS))
def test_values_match_torch(torch_ref: ModuleType, name: str) -> None:
    compare(torch_ref, lambda lib: _facts(name, lib), rtol=FLOAT32_RTOL if name == "float32" else 1e-10)


@contextlib.contextmanager
def _float64_default(torch_ref: ModuleType) -> Iterator[None]:
    """Both libraries with float64 as the default dtype, float32 again after."""
    for lib in (minitorch, torch_ref):
        lib.set_default_dtype(lib.float64)
    try:
        yield
    finally:
        for lib in (minitorch, torch_ref):
            lib.set_default_dtype(lib.float32)


@pytest.fixture
def float64_default(torch_ref: ModuleType) -> Iterator[None]:
    with _float64_default(torch_ref):
        yield


def _entropy_of_many_trials(lib: ModuleType) -> list[Any]:
    return [lib.distributions.Multinomial(100, f64(lib, [0.1, 0.2, 0.7])).entropy()]


def test_entropy_takes_log_factorial_in_the_default_dtype(torch_ref: ModuleType) -> None:
    r"""PyTorch takes :math:`\log n!` of an integer tensor, so in the default dtype: under a float32 default
    the entropy of float64 parameters carries the float32 rounding of :math:`\log 100!`, in both libraries alike."""
    compare(torch_ref, _entropy_of_many_trials)
    rounded = _entropy_of_many_trials(minitorch)[0].item()
    with _float64_default(torch_ref):
        compare(torch_ref, _entropy_of_many_trials)
        exact = _entropy_of_many_trials(minitorch)[0].item()
    log_factorial = math.lgamma(101)
    assert rounded - exact == pytest.approx(log_factorial - float(np.float32(log_factorial)), rel=1e-6)
    assert rounded != exact


def test_entropy_with_a_logit_of_minus_infinity_matches_torch(torch_ref: ModuleType, float64_default: None) -> None:
    compare(torch_ref, lambda lib: [MAKERS["logits"](lib).entropy(), MAKERS["probs"](lib).entropy()])


def test_entropy_is_the_sum_over_the_support(float64_default: None) -> None:
    r""":math:`-\sum_x P(x)\log P(x)` over every count vector with :math:`\sum_k x_k = n`."""
    count, probs = 4, [0.1, 0.6, 0.3]
    d = minitorch.distributions.Multinomial(count, f64(minitorch, probs))
    vectors = [[i, j, count - i - j] for i in range(count + 1) for j in range(count + 1 - i)]
    log_prob = d.log_prob(f64(minitorch, vectors))
    assert abs(log_prob.exp().sum().item() - 1.0) < 1e-12
    np.testing.assert_allclose(d.entropy().item(), -(log_prob.exp() * log_prob).sum().item(), rtol=1e-12)


@pytest.mark.parametrize("parameter", ["probs", "logits"])
def test_gradients_match_torch(torch_ref: ModuleType, parameter: str) -> None:
    def grads(lib: ModuleType) -> list[Any]:
        given = f64(lib, [[0.2, 0.3, 0.5], [1.0, 0.5, 2.0]] if parameter == "probs" else [[0.0, -1.0, 2.0], [0.3, 0.0, -2.0]])
        given.requires_grad_()
        d = lib.distributions.Multinomial(5, **{parameter: given})
        value = f64(lib, [[1.0, 0.0, 4.0], [2.0, 2.0, 1.0]])
        loss = (d.log_prob(value) * f64(lib, [1.0, -2.0])).sum() + (d.entropy() * f64(lib, [0.5, 1.5])).sum()
        loss = loss + (d.mean * f64(lib, [[1.0, 2.0, -1.0]])).sum() + d.variance.sum()
        loss.backward()
        return [given.grad]

    compare(torch_ref, grads, rtol=1e-9)


def test_gradient_where_a_logit_is_minus_infinity_matches_torch(torch_ref: ModuleType) -> None:
    def grads(lib: ModuleType) -> list[Any]:
        logits = f64(lib, LOGITS).requires_grad_()
        lib.distributions.Multinomial(6, logits=logits).log_prob(VALUES["logits"](lib)).sum().backward()
        return [logits.grad]

    compare(torch_ref, grads)


def test_pytorchs_module_path_names_the_class(torch_ref: ModuleType) -> None:
    """``from torch.distributions.multinomial import Multinomial`` works with minitorch in place of torch."""
    for lib in (minitorch, torch_ref):
        module = importlib.import_module(f"{lib.__name__}.distributions.multinomial")
        assert module.Multinomial is lib.distributions.Multinomial


# --- sampling and expand -------------------------------------------------------------------------------

@pytest.mark.parametrize("name", list(MAKERS))
@pytest.mark.parametrize("sample_shape", [(), (4,), (4, 5)])
def test_sample_shapes_and_support(name: str, sample_shape: tuple[int, ...]) -> None:
    d = MAKERS[name](minitorch)
    expected = sample_shape + tuple(d.batch_shape) + tuple(d.event_shape)
    drawn = d.sample(sample_shape)
    assert tuple(drawn.shape) == expected and drawn.dtype == d.probs.dtype and not drawn.requires_grad
    counts = drawn.numpy()
    assert np.all(counts == np.round(counts)) and np.all(counts >= 0) and np.all(counts.sum(-1) == d.total_count)
    assert bool(d.support.check(drawn).all().item())
    assert not d.has_rsample
    with pytest.raises(NotImplementedError):
        d.rsample(sample_shape)


def test_sample_draws_from_the_generator() -> None:
    """Draws repeat after ``manual_seed``, differ without it, and never pick a category of probability 0."""
    d = MAKERS["probs"](minitorch)
    minitorch.manual_seed(SEED)
    first = d.sample((50,)).numpy()
    minitorch.manual_seed(SEED)
    assert np.array_equal(first, d.sample((50,)).numpy())
    assert not np.array_equal(first, d.sample((50,)).numpy())
    assert np.all(first[..., 0, 3] == 0)


def test_sample_moments_within_standard_errors(torch_ref: ModuleType) -> None:
    r"""Means :math:`np_k`, variances :math:`np_k(1 - p_k)` and covariances :math:`-np_jp_k`, each within
    ``SIGMAS`` standard errors."""
    minitorch.manual_seed(SEED)
    draws = MAKERS["probs"](minitorch).sample((DRAWS,)).numpy()
    reference = MAKERS["probs"](torch_ref)
    mean, var, probs = reference.mean.numpy(), reference.variance.numpy(), reference.probs.numpy()
    assert np.all(np.abs(draws.mean(0) - mean) <= SIGMAS * np.sqrt(var / DRAWS))
    centred = draws - mean
    products = centred[..., :, None] * centred[..., None, :]
    cov = reference.total_count * (np.eye(4) * probs[..., None] - probs[..., :, None] * probs[..., None, :])
    assert np.all(np.abs(products.mean(0) - cov) <= SIGMAS * products.std(0) / np.sqrt(DRAWS) + 1e-12)


def test_expand_matches_torch(torch_ref: ModuleType) -> None:
    def facts(lib: ModuleType) -> list[Any]:
        d = MAKERS["logits"](lib).expand((3, 2))
        return [d.batch_shape, d.event_shape, d.log_prob(VALUES["logits"](lib)), tuple(d.sample((5,)).shape),
                type(d).__name__, d.mean, d.variance, d.probs, d.param_shape, d.total_count, d._validate_args, as_torch_text(d)]

    compare(torch_ref, facts)


def test_expanded_entropy_is_the_entropy_broadcast(torch_ref: ModuleType) -> None:
    """A deliberate difference: PyTorch's expanded Multinomial has no Binomial marginals, so its ``entropy``
    raises ``AttributeError``; here it is the entropy of the original, broadcast."""
    with pytest.raises(AttributeError):
        MAKERS["probs"](torch_ref).expand((3, 2)).entropy()
    expanded = MAKERS["probs"](minitorch).expand((3, 2)).entropy()
    assert tuple(expanded.shape) == (3, 2)
    np.testing.assert_allclose(expanded.numpy(), np.broadcast_to(MAKERS["probs"](torch_ref).entropy().numpy(), (3, 2)),
                               rtol=1e-12)


def test_expand_keeps_validation(torch_ref: ModuleType) -> None:
    for lib in (minitorch, torch_ref):
        d = MAKERS["probs"](lib).expand((3, 2))
        with pytest.raises(ValueError, match="within the support"):
            d.log_prob(f64(lib, [1.0, 2.0, 3.0, 5.0]))


# --- errors --------------------------------------------------------------------------------------------

BAD_CALLS: dict[str, Callable[[ModuleType], Any]] = {
    "count_float": lambda lib: lib.distributions.Multinomial(10.0, f64(lib, [0.2, 0.8])),
    "count_tensor": lambda lib: lib.distributions.Multinomial(lib.tensor([3, 4]), f64(lib, [[0.2, 0.8], [0.5, 0.5]])),
    "count_negative": lambda lib: lib.distributions.Multinomial(-1, f64(lib, [0.2, 0.8])),
    "probs_negative": lambda lib: lib.distributions.Multinomial(3, f64(lib, [0.2, -0.8])),
    "probs_number": lambda lib: lib.distributions.Multinomial(3, f64(lib, 0.5)),
    "logits_number": lambda lib: lib.distributions.Multinomial(3, logits=f64(lib, 0.5)),
    "logits_nan": lambda lib: lib.distributions.Multinomial(3, logits=f64(lib, [0.5, float("nan")])),
    "none": lambda lib: lib.distributions.Multinomial(3),
    "both": lambda lib: lib.distributions.Multinomial(3, f64(lib, [0.5, 0.5]), f64(lib, [0.0, 0.0])),
    "value_sum": lambda lib: MAKERS["probs"](lib).log_prob(f64(lib, [2.0, 3.0, 6.0, 0.0])),
    "value_negative": lambda lib: MAKERS["probs"](lib).log_prob(f64(lib, [2.0, -1.0, 1.0, 0.0])),
    "value_event": lambda lib: MAKERS["probs"](lib).log_prob(f64(lib, [2.0, 3.0, 1.0])),
    "value_batch": lambda lib: MAKERS["probs"](lib).log_prob(f64(lib, [[2.0, 3.0, 1.0, 0.0]] * 3)),
    "value_number": lambda lib: MAKERS["one_trial"](lib).log_prob(1.0),
}


@pytest.mark.parametrize("name", list(BAD_CALLS))
def test_bad_arguments_raise_torchs_error(torch_ref: ModuleType, name: str) -> None:
    same_error(torch_ref, BAD_CALLS[name])

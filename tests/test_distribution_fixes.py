"""Three gaps of ``minitorch.distributions`` found by differential tests, each against PyTorch:

* ``Categorical.entropy`` (and ``OneHotCategorical``'s and ``Multinomial``'s, built on it) is finite
  where a logit is -inf or a probability is 0: PyTorch raises such a logit to the dtype's lowest
  finite number before multiplying by the probability. Values and gradients.
* ``log_prob`` of ``Bernoulli``, ``Geometric``, ``Binomial``, ``Categorical`` and ``OneHotCategorical``
  broadcasts the parameters against the value (``probs`` of shape (32, 1) and a value of shape (12,)
  give (32, 12)), with PyTorch's errors for a value that does not broadcast or lies outside the support.
* ``constraints.multinomial(upper_bound)``: PyTorch's constraint of count vectors, used by ``Multinomial``.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, Callable

import numpy as np
import pytest

import minitorch
from distribution_oracle import as_torch_text, compare, same_error

LIBS = ("minitorch", "torch")
INF = float("inf")


def _tensor(lib: ModuleType, values: Any, dtype: str = "float64", grad: bool = False) -> Any:
    return lib.tensor(values, dtype=getattr(lib, dtype), requires_grad=grad)


# ---------------------------------------------------------------------- 1. entropy at a zero probability

#: logits with -inf entries: in a batch, in a single vector, everywhere but one category, in 3-D
NEG_INF_LOGITS = {
    "batch": [[0.0, -INF, 1.0], [2.0, 0.0, -1.0]],
    "vector": [-INF, 0.5, -2.0, 3.0],
    "one_left": [[-INF, -INF, 0.7], [1.0, -INF, -INF]],
    "three_dims": [[[0.0, -INF], [1.0, 2.0]], [[-INF, 3.0], [-1.0, -INF]]],
}
#: probabilities with exact zeros (normalized or not)
ZERO_PROBS = {
    "batch": [[0.5, 0.0, 0.5], [0.2, 0.3, 0.5]],
    "unnormalized": [0.0, 2.0, 0.0, 6.0],
    "certain": [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]],
}


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", list(NEG_INF_LOGITS))
def test_categorical_entropy_where_a_logit_is_minus_infinity(torch_ref: ModuleType, name: str, dtype: str) -> None:
    def build(lib: ModuleType) -> list[Any]:
        logits = _tensor(lib, NEG_INF_LOGITS[name], dtype, grad=True)
        entropy = lib.distributions.Categorical(logits=logits).entropy()
        # weights of at most 1: the lowest finite logit times 2 would overflow to -inf (then NaN, in both libraries)
        weights = 1 / lib.arange(1, entropy.numel() + 1, dtype=entropy.dtype).reshape(entropy.shape)
        (entropy * weights).sum().backward()
        return [entropy, logits.grad]

    tolerance = 1e-10 if dtype == "float64" else 1e-5
    compare(torch_ref, build, rtol=tolerance, atol=tolerance)
    entropy, grad = build(minitorch)
    assert np.isfinite(entropy.detach().numpy()).all() and np.isfinite(grad.numpy()).all()


@pytest.mark.parametrize("name", list(ZERO_PROBS))
def test_categorical_entropy_where_a_probability_is_zero(torch_ref: ModuleType, name: str) -> None:
    def build(lib: ModuleType) -> list[Any]:
        probs = _tensor(lib, ZERO_PROBS[name], grad=True)
        d = lib.distributions.Categorical(probs=probs)
        entropy = d.entropy()
        entropy.sum().backward()
        return [entropy, probs.grad, d.logits]

    compare(torch_ref, build, rtol=1e-9)


@pytest.mark.parametrize("name", ["batch", "one_left", "three_dims"])
def test_one_hot_categorical_entropy_where_a_logit_is_minus_infinity(torch_ref: ModuleType, name: str) -> None:
    def build(lib: ModuleType) -> list[Any]:
        logits = _tensor(lib, NEG_INF_LOGITS[name], grad=True)
        d = lib.distributions.OneHotCategorical(logits=logits)
        entropy = d.entropy()
        entropy.sum().backward()
        expanded = d.expand((3,) + tuple(d.batch_shape)).entropy()
        return [entropy, logits.grad, expanded]

    compare(torch_ref, build)


@pytest.mark.parametrize("total_count", [1, 2, 5])
@pytest.mark.parametrize("name", ["batch", "vector", "one_left"])
def test_multinomial_entropy_where_a_logit_is_minus_infinity(torch_ref: ModuleType, name: str, total_count: int) -> None:
    """``Multinomial.entropy`` takes the categorical entropy from ``Categorical`` (no local workaround)."""
    def build(lib: ModuleType) -> list[Any]:
        logits = _tensor(lib, NEG_INF_LOGITS[name], grad=True)
        entropy = lib.distributions.Multinomial(total_count, logits=logits).entropy()
        entropy.sum().backward()
        return [entropy, logits.grad]

    compare(torch_ref, build, rtol=1e-9)


def test_kl_between_categoricals_is_unchanged_by_the_clamp(torch_ref: ModuleType) -> None:
    """KL of categoricals with zero probabilities where both have them: finite and PyTorch's."""
    def build(lib: ModuleType) -> list[Any]:
        p = lib.distributions.Categorical(logits=_tensor(lib, [[0.0, -INF, 1.0], [2.0, 0.0, -1.0]]))
        q = lib.distributions.Categorical(logits=_tensor(lib, [[1.0, -INF, 0.0], [0.0, 0.0, 0.0]]))
        return [lib.distributions.kl_divergence(p, q), p.entropy(), p.perplexity()]

    compare(torch_ref, build)


# ---------------------------------------------------------------------- 2. log_prob broadcasts parameters and value

#: (parameter shape, value shape): the value broadcasts against the batch shape, either may be the bigger
SHAPES = [
    ((32, 1), (12,)),
    ((3,), (4, 1)),
    ((2, 1, 3), (4, 3)),
    ((), (5,)),
    ((4, 3), (3,)),
    ((4, 3), (4, 3)),
    ((1,), (2, 2)),
    ((2, 1), (1, 3)),
    ((4, 1), ()),
]


def _parameter(lib: ModuleType, shape: tuple[int, ...], low: float, high: float, seed: int = 0) -> Any:
    values = np.random.default_rng(seed).uniform(low, high, size=shape)
    return lib.tensor(values, dtype=lib.float64, requires_grad=True)


def _counts(lib: ModuleType, shape: tuple[int, ...], high: int, seed: int = 1) -> Any:
    return lib.tensor(np.random.default_rng(seed).integers(0, high + 1, size=shape).astype(np.float64), dtype=lib.float64)


#: name -> (make the distribution from a parameter tensor, the parameter's range, the largest value)
DISTRIBUTIONS: dict[str, tuple[Callable[[ModuleType, Any, bool], Any], tuple[float, float], int]] = {
    "bernoulli_probs": (lambda lib, p, v: lib.distributions.Bernoulli(probs=p, validate_args=v), (0.05, 0.95), 1),
    "bernoulli_logits": (lambda lib, p, v: lib.distributions.Bernoulli(logits=p, validate_args=v), (-3.0, 3.0), 1),
    "geometric_probs": (lambda lib, p, v: lib.distributions.Geometric(probs=p, validate_args=v), (0.05, 0.95), 6),
    "geometric_logits": (lambda lib, p, v: lib.distributions.Geometric(logits=p, validate_args=v), (-3.0, 3.0), 6),
    "binomial_probs": (lambda lib, p, v: lib.distributions.Binomial(7, probs=p, validate_args=v), (0.05, 0.95), 7),
    "binomial_logits": (lambda lib, p, v: lib.distributions.Binomial(7, logits=p, validate_args=v), (-3.0, 3.0), 7),
}


@pytest.mark.parametrize("validate", [True, False])
@pytest.mark.parametrize("shapes", SHAPES, ids=[f"{p}-{v}" for p, v in SHAPES])
@pytest.mark.parametrize("name", list(DISTRIBUTIONS))
def test_log_prob_broadcasts_the_parameter_against_the_value(torch_ref: ModuleType, name: str,
                                                             shapes: tuple[tuple[int, ...], tuple[int, ...]],
                                                             validate: bool) -> None:
    make, (low, high), largest = DISTRIBUTIONS[name]
    parameter_shape, value_shape = shapes

    def build(lib: ModuleType) -> list[Any]:
        parameter = _parameter(lib, parameter_shape, low, high)
        log_prob = make(lib, parameter, validate).log_prob(_counts(lib, value_shape, largest))
        log_prob.sum().backward()
        return [log_prob, parameter.grad]

    compare(torch_ref, build, rtol=1e-9)
    expected = tuple(np.broadcast_shapes(parameter_shape, value_shape))
    assert tuple(build(minitorch)[0].shape) == expected


def test_binomial_log_prob_broadcasts_total_count_parameter_and_value(torch_ref: ModuleType) -> None:
    def build(lib: ModuleType) -> list[Any]:
        probs = _parameter(lib, (3,), 0.1, 0.9)
        total_count = lib.tensor([[4.0], [6.0]], dtype=lib.float64)
        d = lib.distributions.Binomial(total_count, probs=probs)
        log_prob = d.log_prob(_counts(lib, (5, 1, 1), 4))
        log_prob.sum().backward()
        return [log_prob, probs.grad, d.batch_shape]

    compare(torch_ref, build, rtol=1e-9)


@pytest.mark.parametrize("shapes", [((32, 1), (12,)), ((3,), (4, 1)), ((2, 1), (1, 3)), ((), (5,))],
                         ids=["32x1-12", "3-4x1", "2x1-1x3", "scalar-5"])
@pytest.mark.parametrize("parameter", ["probs", "logits"])
def test_categorical_log_prob_broadcasts(torch_ref: ModuleType, shapes: tuple[tuple[int, ...], tuple[int, ...]],
                                         parameter: str) -> None:
    batch_shape, value_shape = shapes

    def build(lib: ModuleType) -> list[Any]:
        given = _parameter(lib, batch_shape + (4,), 0.1, 1.0)
        d = lib.distributions.Categorical(**{parameter: given})
        log_prob = d.log_prob(_counts(lib, value_shape, 3).long())
        log_prob.sum().backward()
        return [log_prob, given.grad]

    compare(torch_ref, build, rtol=1e-9)


def test_one_hot_categorical_log_prob_broadcasts(torch_ref: ModuleType) -> None:
    def build(lib: ModuleType) -> list[Any]:
        probs = _parameter(lib, (5, 1, 3), 0.1, 1.0)
        value = lib.nn.functional.one_hot(lib.tensor([0, 2, 1, 1]), 3).to(lib.float64)
        log_prob = lib.distributions.OneHotCategorical(probs).log_prob(value)
        log_prob.sum().backward()
        return [log_prob, probs.grad]

    compare(torch_ref, build, rtol=1e-9)


def test_bernoulli_log_prob_of_a_number_without_validation(torch_ref: ModuleType) -> None:
    compare(torch_ref, lambda lib: [lib.distributions.Bernoulli(_tensor(lib, [[0.2], [0.7]]), validate_args=False)
                                    .log_prob(1.0)])


#: log_prob calls that PyTorch refuses (with validation on): the error type and message must match
BAD_VALUES: dict[str, Callable[[ModuleType], Any]] = {
    "bernoulli_shape": lambda lib: lib.distributions.Bernoulli(_tensor(lib, [0.2, 0.5, 0.9])).log_prob(_tensor(lib, [1.0] * 5)),
    "bernoulli_shape_2d": lambda lib: lib.distributions.Bernoulli(_tensor(lib, [[0.2]] * 4)).log_prob(_tensor(lib, [[1.0] * 3] * 2)),
    "bernoulli_logits_shape": lambda lib: lib.distributions.Bernoulli(logits=_tensor(lib, [[0.2, 0.1]])).log_prob(
        _tensor(lib, [0.0, 1.0, 1.0])),
    "bernoulli_support": lambda lib: lib.distributions.Bernoulli(_tensor(lib, [[0.2], [0.4]])).log_prob(_tensor(lib, [0.5, 1.0])),
    "bernoulli_number": lambda lib: lib.distributions.Bernoulli(_tensor(lib, [0.2])).log_prob(1.0),
    "geometric_shape": lambda lib: lib.distributions.Geometric(_tensor(lib, [[0.2, 0.5]])).log_prob(_tensor(lib, [1.0, 2.0, 3.0])),
    "geometric_support": lambda lib: lib.distributions.Geometric(_tensor(lib, [[0.2], [0.5]])).log_prob(_tensor(lib, [1.5])),
    "binomial_shape": lambda lib: lib.distributions.Binomial(3, _tensor(lib, [0.2, 0.5])).log_prob(_tensor(lib, [[1.0, 2.0, 3.0]])),
    "binomial_support": lambda lib: lib.distributions.Binomial(3, _tensor(lib, [[0.2], [0.5]])).log_prob(_tensor(lib, [4.0])),
    "categorical_shape": lambda lib: lib.distributions.Categorical(_tensor(lib, [[0.2, 0.8]] * 3)).log_prob(lib.tensor([0, 1])),
    "categorical_support": lambda lib: lib.distributions.Categorical(_tensor(lib, [[0.2, 0.8]] * 3)).log_prob(lib.tensor([2])),
}


@pytest.mark.parametrize("name", list(BAD_VALUES))
def test_bad_values_raise_torchs_error(torch_ref: ModuleType, name: str) -> None:
    same_error(torch_ref, BAD_VALUES[name])


# ---------------------------------------------------------------------- 3. constraints.multinomial


def test_multinomial_constraint_matches_torchs(torch_ref: ModuleType) -> None:
    values = [[2.0, 1.0, 0.0], [3.0, 1.0, 0.0], [1.5, 0.5, 0.0], [-1.0, 2.0, 0.0], [0.0, 0.0, 0.0], [1.0, 1.0, 1.0]]

    def build(lib: ModuleType) -> list[Any]:
        constraint = lib.distributions.constraints.multinomial(3)
        batched = _tensor(lib, [values, values[::-1]])
        return [constraint.check(_tensor(lib, values)), constraint.check(batched), constraint.is_discrete,
                constraint.event_dim, as_torch_text(repr(constraint)), constraint.upper_bound,
                isinstance(constraint, lib.distributions.constraints.Constraint),
                lib.distributions.constraints.multinomial.__name__]

    compare(torch_ref, build)


def test_multinomial_support_is_the_shared_constraint(torch_ref: ModuleType) -> None:
    def build(lib: ModuleType) -> list[Any]:
        support = lib.distributions.Multinomial(4, _tensor(lib, [0.2, 0.3, 0.5])).support
        return [type(support) is lib.distributions.constraints.multinomial, support.upper_bound, as_torch_text(repr(support)),
                support.event_dim, support.is_discrete]

    compare(torch_ref, build)


def test_multinomial_value_outside_the_constraint_raises_torchs_error(torch_ref: ModuleType) -> None:
    message = same_error(torch_ref, lambda lib: lib.distributions.Multinomial(4, _tensor(lib, [0.2, 0.3, 0.5])).log_prob(
        _tensor(lib, [[2.0, 2.0, 1.0], [1.0, 1.0, 1.0]])))
    assert "Multinomial()" in message

"""``MixtureSameFamily`` against ``torch.distributions.MixtureSameFamily``: log_prob, mean,
variance and cdf in float64 for Normal and Independent(Normal) components over batch and event
shapes, gradients of log_prob, ``expand``, the support, the repr and PyTorch's errors.

Random streams differ between the libraries, so draws are tested by shape, by structure (with
well separated, nearly deterministic components every draw must be one of its own batch entry's
component locations, whole vectors at a time) and by moments within a few standard errors of
PyTorch's mean and variance.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, Callable

import numpy as np
import pytest

import minitorch
from distribution_oracle import assert_moments_within, compare, f64, same_error

#: draws for the moment tests, and how many standard errors a moment may be off
DRAWS = 20000
SIGMAS = 5.0

LOGITS = [[0.1, -0.3, 0.7], [1.0, 0.0, -1.0]]
PROBS = [[0.2, 0.5, 0.3], [0.6, 0.1, 0.3]]
LOC = [[-1.0, 0.5, 2.0], [0.0, 1.0, -2.0]]
SCALE = [[1.0, 0.5, 2.0], [0.3, 1.5, 0.7]]
#: values of batch shape (2,), three of them: sample shape (3,)
VALUES = [[0.3, -1.0], [2.0, 0.1], [5.0, -3.0]]
#: a batch of two mixtures of three components over vectors of four coordinates
VECTOR_LOC = (np.arange(24.0).reshape(2, 3, 4) / 5 - 2).tolist()
VECTOR_SCALE = (0.5 + np.arange(24.0).reshape(2, 3, 4) % 5 / 4).tolist()
VECTOR_VALUES = (np.arange(16.0).reshape(2, 2, 4) / 3 - 2).tolist()


def normal_mixture(lib: ModuleType, logits: Any = LOGITS, loc: Any = LOC, scale: Any = SCALE) -> Any:
    d = lib.distributions
    return d.MixtureSameFamily(d.Categorical(logits=f64(lib, logits)), d.Normal(f64(lib, loc), f64(lib, scale)))


def vector_mixture(lib: ModuleType) -> Any:
    d = lib.distributions
    components = d.Independent(d.Normal(f64(lib, VECTOR_LOC), f64(lib, VECTOR_SCALE)), 1)
    return d.MixtureSameFamily(d.Categorical(logits=f64(lib, LOGITS)), components)


#: name -> (the mixture from a library, a value to evaluate it at)
CASES: dict[str, tuple[Callable[[ModuleType], Any], Any]] = {
    "batch": (normal_mixture, VALUES),
    "probs": (lambda lib: lib.distributions.MixtureSameFamily(
        lib.distributions.Categorical(probs=f64(lib, PROBS)), lib.distributions.Normal(f64(lib, LOC), f64(lib, SCALE))),
        VALUES),
    "scalar": (lambda lib: normal_mixture(lib, LOGITS[0], LOC[0], SCALE[0]), [0.3, -1.0, 2.5, 7.0]),
    "shared_weights": (lambda lib: normal_mixture(lib, LOGITS[0]), VALUES),
    "broadcast_weights": (lambda lib: normal_mixture(lib, [LOGITS[1]]), VALUES),
    "deep_batch": (lambda lib: normal_mixture(lib, LOGITS, [LOC, LOC[::-1]], [SCALE, SCALE[::-1]]), VALUES[0]),
    "deep_weights": (lambda lib: normal_mixture(lib, [LOGITS, LOGITS[::-1]], [LOC, LOC[::-1]], [SCALE, SCALE[::-1]]),
                     VALUES[0]),
    "vector": (vector_mixture, VECTOR_VALUES),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_values_and_shapes_as_torch(case: str, torch_ref: ModuleType) -> None:
    make, value = CASES[case]

    def build(lib: ModuleType) -> list[Any]:
        mixture = make(lib)
        return [mixture.batch_shape, mixture.event_shape, mixture.log_prob(f64(lib, value)), mixture.mean,
                mixture.variance, mixture.stddev, mixture.has_rsample, type(mixture).__module__.split(".", 1)[1]]

    compare(torch_ref, build)


@pytest.mark.parametrize("case", sorted(set(CASES) - {"vector"}))
def test_cdf_as_torch(case: str, torch_ref: ModuleType) -> None:
    make, value = CASES[case]
    compare(torch_ref, lambda lib: [make(lib).cdf(f64(lib, value))])


def test_cdf_of_a_component_without_one_raises_as_torch(torch_ref: ModuleType) -> None:
    for lib in (minitorch, torch_ref):
        with pytest.raises(NotImplementedError):
            vector_mixture(lib).cdf(f64(lib, VECTOR_VALUES))


@pytest.mark.parametrize("case", ["batch", "vector"])
def test_log_prob_gradients_as_torch(case: str, torch_ref: ModuleType) -> None:
    """Gradients of a loss of log_prob, mean and variance w.r.t. the logits, locations and scales."""
    loc, scale, values = (LOC, SCALE, VALUES) if case == "batch" else (VECTOR_LOC, VECTOR_SCALE, VECTOR_VALUES)

    def build(lib: ModuleType) -> list[Any]:
        d = lib.distributions
        parameters = [f64(lib, given).requires_grad_() for given in (LOGITS, loc, scale)]
        components = d.Normal(parameters[1], parameters[2])
        if case == "vector":
            components = d.Independent(components, 1)
        mixture = d.MixtureSameFamily(d.Categorical(logits=parameters[0]), components)
        loss = -mixture.log_prob(f64(lib, values)).sum() + (mixture.mean ** 2).sum() + mixture.variance.sum()
        loss.backward()
        return [loss] + [parameter.grad for parameter in parameters]

    compare(torch_ref, build)


def test_expand_as_torch(torch_ref: ModuleType) -> None:
    def build(lib: ModuleType) -> list[Any]:
        expanded = normal_mixture(lib).expand((4, 2))
        vectors = vector_mixture(lib).expand((3, 2))
        return [expanded.batch_shape, expanded.event_shape, expanded.log_prob(f64(lib, VALUES[0])), expanded.mean,
                expanded.variance, expanded.cdf(f64(lib, VALUES[1])), expanded.component_distribution.batch_shape,
                expanded.mixture_distribution.batch_shape, tuple(expanded.sample((5,)).shape),
                vectors.batch_shape, vectors.event_shape, vectors.log_prob(f64(lib, VECTOR_VALUES[0])),
                tuple(vectors.sample((5,)).shape), type(expanded).__name__]

    compare(torch_ref, build)


@pytest.mark.parametrize("case", ["batch", "broadcast_weights", "deep_weights", "probs", "scalar", "vector"])
@pytest.mark.parametrize("sample_shape", [(), (5,), (2, 3)])
def test_sample_shapes_as_torch(case: str, sample_shape: tuple[int, ...], torch_ref: ModuleType) -> None:
    def build(lib: ModuleType) -> list[Any]:
        draws = CASES[case][0](lib).sample(sample_shape)
        return [tuple(draws.shape), str(draws.dtype).rsplit(".")[-1], draws.requires_grad]

    compare(torch_ref, build)


@pytest.mark.parametrize("case", ["deep_batch", "shared_weights"])
def test_sample_with_fewer_mixture_batch_dims_raises_as_torch(case: str, torch_ref: ModuleType) -> None:
    """PyTorch gathers the chosen components with an index of the mixture's batch rank: a mixture
    whose weights are broadcast over more batch dimensions cannot be sampled, in either library."""
    same_error(torch_ref, lambda lib: CASES[case][0](lib).sample((2,)))


def test_sample_is_outside_the_graph_and_there_is_no_rsample(torch_ref: ModuleType) -> None:
    for lib in (minitorch, torch_ref):
        d = lib.distributions
        loc = f64(lib, LOC).requires_grad_()
        mixture = d.MixtureSameFamily(d.Categorical(logits=f64(lib, LOGITS)), d.Normal(loc, f64(lib, SCALE)))
        assert not mixture.sample((3,)).requires_grad and not mixture.has_rsample
        with pytest.raises(NotImplementedError):
            mixture.rsample()


@pytest.mark.parametrize("case", ["batch", "probs", "scalar", "vector"])
def test_sample_moments_within_standard_errors(case: str, torch_ref: ModuleType) -> None:
    minitorch.manual_seed(0)
    make = CASES[case][0]
    draws = make(minitorch).sample((DRAWS,)).numpy()
    assert_moments_within(draws, make(torch_ref), SIGMAS)


def test_each_draw_is_one_whole_component_of_its_own_batch_entry() -> None:
    """Components far apart with a tiny scale: a draw is (nearly) its component's location, all of its
    coordinates from the same component, and each component is picked about as often as its weight."""
    minitorch.manual_seed(0)
    loc = np.arange(24.0).reshape(2, 3, 4) * 10  # batch entry b, component k, coordinate e: 120 b + 40 k + 10 e
    d = minitorch.distributions
    components = d.Independent(d.Normal(f64(minitorch, loc), f64(minitorch, np.full(loc.shape, 1e-6))), 1)
    mixture = d.MixtureSameFamily(d.Categorical(probs=f64(minitorch, PROBS)), components)
    draws = mixture.sample((DRAWS,)).numpy()  # (draws, batch, event)
    distance = np.abs(draws[:, :, None, :] - loc[None]).max(-1)  # (draws, batch, component)
    picked = distance.argmin(-1)
    assert np.all(distance.min(-1) < 1e-3)
    frequency = np.stack([(picked == k).mean(0) for k in range(3)], -1)
    probs = np.array(PROBS)
    assert np.all(np.abs(frequency - probs) <= SIGMAS * np.sqrt(probs * (1 - probs) / DRAWS))


def test_support_as_torch(torch_ref: ModuleType) -> None:
    def build(lib: ModuleType) -> list[Any]:
        d = lib.distributions
        gamma_mixture = d.MixtureSameFamily(d.Categorical(logits=f64(lib, LOGITS)),
                                            d.Gamma(f64(lib, SCALE), f64(lib, SCALE)))
        support = gamma_mixture.support
        vector_support = vector_mixture(lib).support
        intervals = d.MixtureSameFamily(d.Categorical(logits=f64(lib, LOGITS)),
                                        d.Uniform(f64(lib, LOC), f64(lib, LOC) + f64(lib, SCALE) * 3)).support
        return [repr(support), support.event_dim, support.is_discrete, support.check(f64(lib, [[-1.0, 2.0]])),
                repr(vector_support), vector_support.event_dim, vector_support.check(f64(lib, VECTOR_VALUES)),
                intervals.check(f64(lib, [[2.0, 0.5], [0.9, 0.5], [1.9, -1.5]]))]

    compare(torch_ref, build)


def test_repr_as_torch(torch_ref: ModuleType) -> None:
    compare(torch_ref, lambda lib: [repr(vector_mixture(lib)).replace("minitorch.", "torch.")])


ERRORS: dict[str, Callable[[ModuleType], Any]] = {
    "mixture not categorical": lambda lib: lib.distributions.MixtureSameFamily(
        lib.distributions.Normal(f64(lib, LOC), f64(lib, SCALE)), normal_mixture(lib).component_distribution),
    "component not a distribution": lambda lib: lib.distributions.MixtureSameFamily(
        lib.distributions.Categorical(logits=f64(lib, LOGITS)), f64(lib, LOC)),
    "batch shapes": lambda lib: normal_mixture(lib, [LOGITS[0]] * 4),
    "component count": lambda lib: normal_mixture(lib, [row[:2] for row in LOGITS]),
    "value event shape": lambda lib: vector_mixture(lib).log_prob(f64(lib, VALUES)),
    "value not broadcastable": lambda lib: normal_mixture(lib).log_prob(f64(lib, [1.0, 2.0, 3.0])),
    "value not a tensor": lambda lib: normal_mixture(lib).log_prob(0.5),
    "value outside the support": lambda lib: lib.distributions.MixtureSameFamily(
        lib.distributions.Categorical(logits=f64(lib, LOGITS)),
        lib.distributions.Gamma(f64(lib, SCALE), f64(lib, SCALE))).log_prob(f64(lib, [-1.0, 2.0])),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors_as_torch(case: str, torch_ref: ModuleType) -> None:
    same_error(torch_ref, ERRORS[case])


def test_validate_args_false_skips_the_support_check(torch_ref: ModuleType) -> None:
    """Components that do not check their values: the mixture's own check is what raises."""
    def mixture(lib: ModuleType, validate_args: bool) -> Any:
        d = lib.distributions
        components = d.Gamma(f64(lib, SCALE), f64(lib, SCALE), validate_args=False)
        return d.MixtureSameFamily(d.Categorical(logits=f64(lib, LOGITS)), components, validate_args=validate_args)

    outside = [[-1.0, 2.0], [0.5, 1.5]]
    compare(torch_ref, lambda lib: [mixture(lib, False).log_prob(f64(lib, outside))])
    same_error(torch_ref, lambda lib: mixture(lib, True).log_prob(f64(lib, outside)))

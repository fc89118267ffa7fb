"""``minitorch.distributions`` against ``torch.distributions`` (float64 values, shapes, reprs,
gradients of log_prob and entropy) and sampling statistics (frequencies within a few standard
errors: the random streams of the two libraries differ by design)."""

from __future__ import annotations

from types import ModuleType
from typing import Any, Callable

import numpy as np
import pytest

import minitorch

PROBS = [[0.2, 0.3, 0.5], [0.1, 0.0, 0.9]]


def _f64(lib: ModuleType, values: Any) -> Any:
    return lib.tensor(values, dtype=lib.float64)


CASES: dict[str, Callable[[ModuleType], list[Any]]] = {
    "categorical_probs": lambda lib: (lambda c: [c.logits, c.probs, c.entropy(), c.log_prob(lib.tensor([2, 1])), c.mean,
                                                 c.param_shape, c.batch_shape, c.event_shape])(
        lib.distributions.Categorical(probs=_f64(lib, PROBS))),
    "categorical_unnormalized": lambda lib: [lib.distributions.Categorical(probs=_f64(lib, [1.0, 2.0, 5.0])).probs],
    "categorical_logits": lambda lib: (lambda c: [c.probs, c.logits, c.log_prob(lib.tensor([[0, 2], [1, 1]])), c.entropy()])(
        lib.distributions.Categorical(logits=_f64(lib, [1.0, 2.0, 3.0]))),
    "categorical_support": lambda lib: [lib.distributions.Categorical(probs=_f64(lib, PROBS)).enumerate_support()],
    "normal": lambda lib: (lambda n: [n.log_prob(_f64(lib, [0.5, -3.0])), n.entropy(), n.mean, n.stddev, n.variance,
                                      n.cdf(_f64(lib, 0.3)), n.icdf(_f64(lib, 0.975))])(
        lib.distributions.Normal(_f64(lib, [0.0, 1.0]), _f64(lib, [1.0, 2.0]))),
    "normal_numbers": lambda lib: (lambda n: [n.log_prob(lib.tensor(1.0)), n.entropy(), n.batch_shape])(
        lib.distributions.Normal(0.0, 1.0)),
    "bernoulli_probs": lambda lib: (lambda b: [b.log_prob(_f64(lib, [1.0, 0.0])), b.entropy(), b.mean, b.variance, b.logits])(
        lib.distributions.Bernoulli(probs=_f64(lib, [0.3, 0.9]))),
    "bernoulli_logits": lambda lib: (lambda b: [b.probs, b.log_prob(_f64(lib, [0.0, 1.0])), b.entropy()])(
        lib.distributions.Bernoulli(logits=_f64(lib, [-1.0, 2.0]))),
    "uniform": lambda lib: (lambda u: [u.log_prob(_f64(lib, [1.0, 2.5])), u.entropy(), u.mean, u.variance, u.cdf(_f64(lib, 2.0))])(
        lib.distributions.Uniform(_f64(lib, [0.0, 1.0]), 3.0)),
}


def _same(ours: Any, theirs: Any) -> None:
    if hasattr(theirs, "detach"):
        assert tuple(ours.shape) == tuple(theirs.shape)
        assert str(ours.dtype).rsplit(".")[-1] == str(theirs.dtype).rsplit(".")[-1]
        np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-12, atol=1e-15, equal_nan=True)
    else:
        assert tuple(ours) == tuple(theirs)


@pytest.mark.parametrize("name", list(CASES))
def test_values_match_torch(torch_ref: ModuleType, name: str) -> None:
    for ours, theirs in zip(CASES[name](minitorch), CASES[name](torch_ref), strict=True):
        _same(ours, theirs)


def test_repr_lists_the_parameters_computed_so_far(torch_ref: ModuleType) -> None:
    def reprs(lib: ModuleType) -> list[str]:
        c = lib.distributions.Categorical(probs=lib.tensor([0.5, 0.5]))
        first = repr(c)
        c.logits
        return [first, repr(c), repr(lib.distributions.Normal(0.0, 1.0)),
                repr(lib.distributions.Bernoulli(logits=lib.tensor([0.0, 1.0])))]

    assert [r.replace("minitorch.", "torch.") for r in reprs(minitorch)] == reprs(torch_ref)


def test_policy_gradient_and_reparameterized_gradients_match_torch(torch_ref: ModuleType) -> None:
    def grads(lib: ModuleType) -> list[Any]:
        logits = _f64(lib, [0.1, 0.5, -0.3]).requires_grad_()
        d = lib.distributions.Categorical(logits=logits)
        (-(d.log_prob(lib.tensor(1)) * 2.0) - 0.01 * d.entropy()).backward()
        mu, sigma = _f64(lib, [0.3]).requires_grad_(), _f64(lib, [1.5]).requires_grad_()
        normal = lib.distributions.Normal(mu, sigma)
        (normal.log_prob(_f64(lib, [1.0])).sum() + normal.entropy().sum()).backward()
        p = _f64(lib, [0.25]).requires_grad_()
        lib.distributions.Bernoulli(probs=p).log_prob(_f64(lib, [1.0])).sum().backward()
        return [logits.grad, mu.grad, sigma.grad, p.grad]

    for ours, theirs in zip(grads(minitorch), grads(torch_ref)):
        _same(ours, theirs)


def test_rsample_carries_the_gradient_and_sample_does_not() -> None:
    mu = minitorch.tensor([0.5], requires_grad=True)
    normal = minitorch.distributions.Normal(mu, 2.0)
    normal.rsample((10,)).sum().backward()
    assert mu.grad.tolist() == [10.0]  # d/dmu of sum(mu + sigma * eps)
    assert not normal.sample((3,)).requires_grad


def test_sample_shapes_and_frequencies() -> None:
    minitorch.manual_seed(0)
    probs = np.array([0.2, 0.3, 0.5])
    c = minitorch.distributions.Categorical(probs=minitorch.tensor(probs))
    draws = c.sample((4000,))
    assert tuple(draws.shape) == (4000,) and draws.dtype is minitorch.int64
    counts = np.bincount(draws.numpy(), minlength=3)
    expected = probs * 4000
    assert np.all(np.abs(counts - expected) < 4 * np.sqrt(expected * (1 - probs)))  # within 4 standard errors
    batch = minitorch.distributions.Categorical(probs=minitorch.tensor(PROBS)).sample((5, 2))
    assert tuple(batch.shape) == (5, 2, 2) and not (batch[..., 1] == 1).any()  # probability 0 never drawn
    normal = minitorch.distributions.Normal(minitorch.tensor([1.0, -2.0]), minitorch.tensor([0.5, 3.0])).sample((20000,))
    assert tuple(normal.shape) == (20000, 2)
    assert np.all(np.abs(normal.numpy().mean(0) - [1.0, -2.0]) < 4 * np.array([0.5, 3.0]) / np.sqrt(20000))
    np.testing.assert_allclose(normal.numpy().std(0), [0.5, 3.0], rtol=0.05)
    coins = minitorch.distributions.Bernoulli(probs=minitorch.tensor(0.3)).sample((20000,))
    assert abs(coins.numpy().mean() - 0.3) < 4 * np.sqrt(0.21 / 20000)
    low_high = minitorch.distributions.Uniform(2.0, 5.0).sample((1000,)).numpy()
    assert low_high.min() >= 2.0 and low_high.max() < 5.0


def test_invalid_parameters_and_values_raise_torch_errors(torch_ref: ModuleType) -> None:
    calls = [
        lambda lib: lib.distributions.Categorical(probs=lib.tensor([-0.1, 1.1])),
        lambda lib: lib.distributions.Categorical(),
        lambda lib: lib.distributions.Categorical(probs=lib.tensor([0.5, 0.5]), logits=lib.tensor([0.0, 0.0])),
        lambda lib: lib.distributions.Categorical(probs=lib.tensor([[0.5, 0.5]])).log_prob(lib.tensor([2])),
        lambda lib: lib.distributions.Bernoulli(probs=lib.tensor([1.5])),
        lambda lib: lib.distributions.Bernoulli(probs=lib.tensor([0.5])).log_prob(lib.tensor([0.5])),
    ]
    for call in calls:
        messages = []
        for lib in (minitorch, torch_ref):
            with pytest.raises(ValueError) as info:
                call(lib)
            messages.append(str(info.value).replace("minitorch.", "torch."))
        assert messages[0] == messages[1]
    with pytest.raises(ValueError, match="Expected parameter scale"):
        minitorch.distributions.Normal(0.0, -1.0)

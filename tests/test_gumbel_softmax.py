"""``F.gumbel_softmax``: samples follow ``softmax(logits)``, hard samples are one-hot with the
soft sample's gradient (straight-through), as PyTorch's."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
import minitorch.nn.functional as F

LOGITS = [1.0, 2.0, 0.5, -1.0]


def _probabilities() -> np.ndarray:
    e = np.exp(np.array(LOGITS) - max(LOGITS))
    return e / e.sum()


@pytest.mark.parametrize("tau", [0.5, 1.0, 3.0])
def test_hard_samples_are_one_hot_and_drawn_with_softmax_probabilities(tau: float) -> None:
    minitorch.manual_seed(1)
    n = 20000
    samples = F.gumbel_softmax(minitorch.tensor(LOGITS).repeat(n, 1), tau=tau, hard=True).numpy()
    assert set(np.unique(samples)) <= {0.0, 1.0} and np.all(samples.sum(1) == 1.0)
    sigma = np.sqrt(_probabilities() * (1 - _probabilities()) / n)
    assert np.all(np.abs(samples.mean(0) - _probabilities()) < 5 * sigma)  # the argmax ignores tau


def test_soft_samples_lie_on_the_simplex_and_sharpen_as_tau_falls() -> None:
    minitorch.manual_seed(2)
    logits = minitorch.tensor(LOGITS).repeat(2000, 1)
    peaks = []
    for tau in (5.0, 1.0, 0.1):
        soft = F.gumbel_softmax(logits, tau=tau).numpy()
        assert np.all(soft >= 0) and np.allclose(soft.sum(1), 1.0, atol=1e-5)
        peaks.append(soft.max(1).mean())
    assert peaks[0] < peaks[1] < peaks[2] and peaks[2] > 0.95


def test_the_hard_sample_has_the_soft_samples_gradient() -> None:
    weights = minitorch.tensor([[0.3, -1.2, 2.0, 0.7]] * 5)
    grads = []
    for hard in (False, True):
        minitorch.manual_seed(3)  # the same noise for both
        logits = minitorch.tensor([LOGITS] * 5, requires_grad=True)
        (F.gumbel_softmax(logits, tau=0.7, hard=hard, dim=1) * weights).sum().backward()
        grads.append(logits.grad.numpy())
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-6, atol=1e-7)
    assert np.abs(grads[0]).sum() > 0


def test_along_another_dim_and_the_deprecated_eps() -> None:
    minitorch.manual_seed(4)
    sample = F.gumbel_softmax(minitorch.zeros(3, 6), hard=True, dim=0)
    assert sample.shape == (3, 6) and np.all(sample.numpy().sum(0) == 1.0)
    with pytest.warns(UserWarning, match="deprecated"):
        F.gumbel_softmax(minitorch.zeros(2, 2), eps=1e-5)

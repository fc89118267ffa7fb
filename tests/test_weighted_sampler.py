"""WeightedRandomSampler: its draws follow the weights (chi-square goodness of fit, with and without
replacement), a generator makes them reproducible, it feeds a DataLoader; options and errors as torch."""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
import pytest
from layer_helpers import assert_same_error

import minitorch
from minitorch.utils.data import DataLoader, TensorDataset, WeightedRandomSampler

WEIGHTS = [0.5, 2.0, 0.0, 1.0, 4.5]
DRAWS = 20000
#: the chi-square statistic's 99.9% quantile for 3 degrees of freedom (4 categories with weight)
CHI2_999_DF3 = 16.266


def chi_square(counts: Counter, probabilities: np.ndarray, draws: int) -> float:
    observed = np.array([counts.get(i, 0) for i in range(len(probabilities))], dtype=np.float64)
    expected = probabilities * draws
    kept = expected > 0
    assert observed[~kept].sum() == 0, "an index of weight 0 was drawn"
    return float((((observed - expected) ** 2)[kept] / expected[kept]).sum())


def test_draws_with_replacement_follow_the_weights() -> None:
    sampler = WeightedRandomSampler(WEIGHTS, DRAWS, generator=minitorch.Generator().manual_seed(0))
    draws = list(sampler)
    assert len(draws) == len(sampler) == DRAWS and all(isinstance(i, int) for i in draws)
    probabilities = np.array(WEIGHTS) / sum(WEIGHTS)
    assert chi_square(Counter(draws), probabilities, DRAWS) < CHI2_999_DF3


def test_first_draw_without_replacement_follows_the_weights() -> None:
    """Without replacement each pass is a permutation of distinct indices; its first index is
    drawn with probability proportional to the weights."""
    generator = minitorch.Generator().manual_seed(1)
    sampler = WeightedRandomSampler(WEIGHTS, 3, replacement=False, generator=generator)
    passes = [list(sampler) for _ in range(3000)]
    assert all(len(set(p)) == 3 and 2 not in p for p in passes)
    probabilities = np.array(WEIGHTS) / sum(WEIGHTS)
    assert chi_square(Counter(p[0] for p in passes), probabilities, len(passes)) < CHI2_999_DF3


def test_chi_square_rejects_wrong_weights() -> None:
    """The statistic used above does tell distributions apart: uniform draws fail it."""
    sampler = WeightedRandomSampler([1.0, 1.0, 0.0, 1.0, 1.0], DRAWS, generator=minitorch.Generator().manual_seed(0))
    probabilities = np.array(WEIGHTS) / sum(WEIGHTS)
    assert chi_square(Counter(sampler), probabilities, DRAWS) > 100 * CHI2_999_DF3


def test_generator_reproduces_and_global_seed_applies() -> None:
    def draw(seed: int) -> list[int]:
        return list(WeightedRandomSampler(WEIGHTS, 50, generator=minitorch.Generator().manual_seed(seed)))
    assert draw(7) == draw(7) and draw(7) != draw(8)
    minitorch.manual_seed(3)
    first = list(WeightedRandomSampler(WEIGHTS, 50))
    minitorch.manual_seed(3)
    assert list(WeightedRandomSampler(WEIGHTS, 50)) == first


def test_feeds_a_data_loader() -> None:
    data = TensorDataset(minitorch.arange(5))
    sampler = WeightedRandomSampler([0.0, 1.0, 0.0, 1.0, 0.0], 8, generator=minitorch.Generator().manual_seed(0))
    batches = [batch[0].tolist() for batch in DataLoader(data, batch_size=3, sampler=sampler)]
    assert [len(b) for b in batches] == [3, 3, 2]
    assert set(sum(batches, [])) <= {1, 3}


def test_attributes_as_torch(torch_ref: Any) -> None:
    ours = WeightedRandomSampler(minitorch.tensor([1.0, 2.0]), 3, replacement=False)
    theirs = torch_ref.utils.data.WeightedRandomSampler(torch_ref.tensor([1.0, 2.0]), 3, replacement=False)
    assert ours.weights.dtype is minitorch.float64 and theirs.weights.dtype is torch_ref.float64
    assert ours.weights.tolist() == theirs.weights.tolist()
    assert (ours.num_samples, ours.replacement, len(ours)) == (theirs.num_samples, theirs.replacement, len(theirs))


@pytest.mark.parametrize("weights,num_samples,kwargs", [
    ([1, 2], 0, {}), ([1, 2], -1, {}), ([1, 2], 2.0, {}), ([1, 2], True, {}),
    ([1, 2], 3, {"replacement": 1}), ([[1, 2]], 3, {}),
])
def test_option_errors_as_torch(torch_ref: Any, weights: list, num_samples: Any, kwargs: dict) -> None:
    assert_same_error(lambda: WeightedRandomSampler(weights, num_samples, **kwargs),
                      lambda: torch_ref.utils.data.WeightedRandomSampler(weights, num_samples, **kwargs))


def test_too_many_draws_without_replacement(torch_ref: Any) -> None:
    """torch's message, with the numbers added (minitorch's multinomial names them)."""
    with pytest.raises(RuntimeError) as ours:
        list(WeightedRandomSampler([1, 2], 3, replacement=False))
    with pytest.raises(RuntimeError) as theirs:
        list(torch_ref.utils.data.WeightedRandomSampler([1, 2], 3, replacement=False))
    assert str(ours.value) == f"{theirs.value} (num_samples=3, 2 categories)"


@pytest.mark.parametrize("weights,num_samples,replacement", [([1, -2], 3, True), ([0, 0], 3, True)])
def test_draw_errors_as_torch(torch_ref: Any, weights: list, num_samples: int, replacement: bool) -> None:
    assert_same_error(lambda: list(WeightedRandomSampler(weights, num_samples, replacement)),
                      lambda: list(torch_ref.utils.data.WeightedRandomSampler(weights, num_samples, replacement)))

"""Adaptive average pooling is float64-exact: values and gradients equal torch's to 1e-12 relative."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import minitorch

RTOL = 1e-12
CASES = [("adaptive_avg_pool1d", (2, 3, 11), 4), ("adaptive_avg_pool2d", (2, 3, 7, 9), (3, 4)),
         ("adaptive_avg_pool2d", (1, 2, 5, 5), (5, 2))]


@pytest.mark.parametrize("name, shape, output_size", CASES)
def test_adaptive_avg_pool_float64_matches_torch(torch_ref: Any, name: str, shape: tuple[int, ...],
                                                 output_size: Any) -> None:
    data = np.random.default_rng(3).standard_normal(shape)
    upstream = np.random.default_rng(4).standard_normal(
        getattr(torch_ref.nn.functional, name)(torch_ref.tensor(data), output_size).shape)
    theirs = torch_ref.tensor(data, requires_grad=True)
    expected = getattr(torch_ref.nn.functional, name)(theirs, output_size)
    (expected * torch_ref.tensor(upstream)).sum().backward()
    ours = minitorch.tensor(data.tolist(), dtype=minitorch.float64, requires_grad=True)
    value = getattr(minitorch.nn.functional, name)(ours, output_size)
    (value * minitorch.tensor(upstream.tolist(), dtype=minitorch.float64)).sum().backward()
    np.testing.assert_allclose(value.detach().numpy(), expected.detach().numpy(), rtol=RTOL, atol=0)
    np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=RTOL, atol=0)

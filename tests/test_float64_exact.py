"""float64 stays float64: creation from Python floats and adaptive average pooling agree with
PyTorch to 1e-12 relative (both once went through float32 and were off by ~1e-7 / 1e-5)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import minitorch

RTOL = 1e-12
ATOL = 1e-14


@pytest.mark.parametrize("data", [0.1, [0.1, 1 / 3], [[1e-300, 2.0 / 7.0]], [[[np.pi]]]], ids=str)
def test_tensor_from_python_floats_with_dtype_float64_is_exact(torch_ref: Any, data: Any) -> None:
    ours = minitorch.tensor(data, dtype=minitorch.float64).numpy()
    theirs = torch_ref.tensor(data, dtype=torch_ref.float64).numpy()
    np.testing.assert_array_equal(ours, theirs)
    assert minitorch.tensor(data).dtype == minitorch.float32  # without a dtype: the default


CASES_2D = [((2, 3, 7, 9), (3, 4)), ((1, 2, 5, 5), (5, 2)), ((3, 6, 11), (4, None)), ((2, 2, 8, 8), 1),
            ((1, 1, 13, 6), (7, 6))]
CASES_1D = [((2, 3, 10), 4), ((3, 7), 3), ((1, 2, 9), 9), ((2, 2, 5), 1)]


def _compare(torch_ref: Any, name: str, shape: tuple[int, ...], output_size: Any) -> None:
    values = np.random.default_rng(len(shape) * 31 + shape[-1]).standard_normal(shape)
    results = []
    upstream = None
    for lib in (minitorch, torch_ref):
        x = lib.tensor(values, dtype=lib.float64, requires_grad=True)
        out = getattr(lib.nn.functional, name)(x, output_size)
        if upstream is None:
            upstream = np.random.default_rng(5).standard_normal(tuple(out.shape))
        out.backward(lib.tensor(upstream, dtype=lib.float64))
        module_out = getattr(lib.nn, {"adaptive_avg_pool1d": "AdaptiveAvgPool1d",
                                       "adaptive_avg_pool2d": "AdaptiveAvgPool2d"}[name])(output_size)(x)
        results.append((out.detach().numpy(), x.grad.numpy(), module_out.detach().numpy()))
    for ours, theirs in zip(*results):
        assert ours.shape == theirs.shape
        np.testing.assert_allclose(ours, theirs, rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("shape, output_size", CASES_2D, ids=str)
def test_adaptive_avg_pool2d_float64_matches_torch(backend: str, torch_ref: Any, shape: tuple[int, ...],
                                                   output_size: Any) -> None:
    _compare(torch_ref, "adaptive_avg_pool2d", shape, output_size)


@pytest.mark.parametrize("shape, output_size", CASES_1D, ids=str)
def test_adaptive_avg_pool1d_float64_matches_torch(backend: str, torch_ref: Any, shape: tuple[int, ...],
                                                   output_size: Any) -> None:
    _compare(torch_ref, "adaptive_avg_pool1d", shape, output_size)

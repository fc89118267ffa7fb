"""Adaptive max pooling against PyTorch: values, ``return_indices`` and gradients (float64),
the window rule by hand, modules, and PyTorch's error messages."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from layer_helpers import ours, values

import minitorch
import minitorch.nn as nn
import minitorch.nn.functional as F
from minitorch.nn.functional.adaptive_max_pooling import window_bounds

#: (function name, input shape, output_size): shrinking, growing (overlapping windows), None, unbatched
CASES = [
    ("adaptive_max_pool1d", (2, 3, 7), 3),
    ("adaptive_max_pool1d", (3, 10), 4),
    ("adaptive_max_pool1d", (2, 2, 5), 8),
    ("adaptive_max_pool1d", (2, 2, 5), (1,)),
    ("adaptive_max_pool2d", (2, 3, 5, 7), (3, 2)),
    ("adaptive_max_pool2d", (3, 5, 7), (None, 4)),
    ("adaptive_max_pool2d", (2, 2, 4, 4), (6, 5)),
    ("adaptive_max_pool2d", (1, 2, 6, 6), 1),
]


@pytest.mark.parametrize("name,shape,output_size", CASES, ids=[f"{n}-{s}-{o}" for n, s, o in CASES])
def test_adaptive_max_pool_matches_torch(backend: str, torch_ref: Any, name: str, shape, output_size) -> None:
    x = np.random.default_rng(0).standard_normal(shape)
    mx, tx = ours(x, True), torch_ref.tensor(x, requires_grad=True)
    out, where = getattr(F, name)(mx, output_size, return_indices=True)
    expected, expected_where = getattr(torch_ref.nn.functional, name)(tx, output_size, return_indices=True)
    np.testing.assert_array_equal(values(out), values(expected))
    assert where.dtype == minitorch.int64
    np.testing.assert_array_equal(where.numpy(), expected_where.numpy())
    np.testing.assert_array_equal(values(getattr(F, name)(mx, output_size)), values(expected))
    weights = np.random.default_rng(1).standard_normal(tuple(expected.shape))
    (out * ours(weights)).sum().backward()
    (expected * torch_ref.tensor(weights)).sum().backward()
    np.testing.assert_allclose(values(mx.grad), values(tx.grad), rtol=1e-12, atol=0)


def test_window_rule_by_hand() -> None:
    """start = floor(i n / m), stop = ceil((i + 1) n / m): 5 -> 3 overlaps, 7 -> 3 does not."""
    assert window_bounds(5, 3) == [(0, 2), (1, 4), (3, 5)]
    assert window_bounds(7, 3) == [(0, 3), (2, 5), (4, 7)]
    assert window_bounds(2, 4) == [(0, 1), (0, 1), (1, 2), (1, 2)]


def test_maximum_and_its_flat_index_by_hand() -> None:
    x = minitorch.tensor([[[1.0, 9.0, 2.0], [3.0, 4.0, 8.0], [7.0, 5.0, 6.0]]])
    out, where = F.adaptive_max_pool2d(x, 2, return_indices=True)
    np.testing.assert_array_equal(out.numpy(), [[[9.0, 9.0], [7.0, 8.0]]])
    np.testing.assert_array_equal(where.numpy(), [[[1, 1], [6, 5]]])


def test_modules_match_torch(torch_ref: Any) -> None:
    x = np.random.default_rng(2).standard_normal((2, 3, 5, 6))
    for make, arg in (
        (lambda m: m.AdaptiveMaxPool2d((None, 3), return_indices=True), x),
        (lambda m: m.AdaptiveMaxPool2d(2), x),
        (lambda m: m.AdaptiveMaxPool1d(4), x[:, :, 0]),
        (lambda m: m.AdaptiveMaxPool1d(2, True), x[:, :, 0]),
    ):
        mine, ref = make(nn), make(torch_ref.nn)
        assert repr(mine) == repr(ref)
        got, expected = mine(ours(arg)), ref(torch_ref.tensor(arg))
        if isinstance(expected, tuple):
            np.testing.assert_array_equal(got[1].numpy(), expected[1].numpy())
            got, expected = got[0], expected[0]
        np.testing.assert_array_equal(values(got), values(expected))


ERROR_CASES = {
    "1-D rank": lambda F, t: F.adaptive_max_pool1d(t.ones(3), 2),
    "2-D rank": lambda F, t: F.adaptive_max_pool2d(t.ones(3, 3), 2),
    "2-D rank, tuple size": lambda F, t: F.adaptive_max_pool2d(t.ones(3, 7), (2, 3)),
    "1-D negative": lambda F, t: F.adaptive_max_pool1d(t.ones(2, 3, 4), -1),
    "2-D negative": lambda F, t: F.adaptive_max_pool2d(t.ones(2, 3, 4, 4), (2, -3)),
    "1-D two sizes": lambda F, t: F.adaptive_max_pool1d(t.ones(2, 3, 4), (2, 3)),
    "2-D three sizes": lambda F, t: F.adaptive_max_pool2d(t.ones(3, 4, 4), (2, 3, 4)),
    "empty": lambda F, t: F.adaptive_max_pool2d(t.ones(3, 0, 4), (2, 3)),
    "integer": lambda F, t: F.adaptive_max_pool2d(t.ones(1, 2, 3, 3, dtype=t.int64), 2),
    "integer 1-D": lambda F, t: F.adaptive_max_pool1d(t.ones(1, 2, 3, dtype=t.int64), 2),
    "empty 1-D": lambda F, t: F.adaptive_max_pool1d(t.ones(2, 3, 0), 2),
}


def _raised(call: Any) -> BaseException:
    """The exception ``call`` raises, NotImplementedError included (PyTorch's word for an integer input)."""
    with pytest.raises(Exception) as info:
        call()
    return info.value


@pytest.mark.parametrize("case", sorted(ERROR_CASES))
def test_errors_match_torch(torch_ref: Any, case: str) -> None:
    call = ERROR_CASES[case]
    mine, ref = _raised(lambda: call(F, minitorch)), _raised(lambda: call(torch_ref.nn.functional, torch_ref))
    assert (type(mine), str(mine)) == (type(ref), str(ref))


@pytest.mark.skipif(not minitorch.cuda.is_available(), reason="no CUDA device or simulator")
def test_adaptive_max_pool2d_on_cuda_matches_cpu() -> None:
    x_np = np.random.default_rng(3).standard_normal((1, 2, 3, 4))
    results = []
    for device in ("cpu", "cuda"):
        x = minitorch.tensor(x_np, dtype=minitorch.float64, device=device, requires_grad=True)
        out, where = F.adaptive_max_pool2d(x, (2, 3), return_indices=True)
        assert out.device.type == device
        (out * out).sum().backward()
        results.append([out.cpu(), where.cpu(), x.grad.cpu()])
    for mine, ref in zip(*reversed(results)):
        np.testing.assert_array_equal(values(mine), values(ref))

"""BatchNorm1d/2d (5.6): outputs, gradients and running statistics against PyTorch over several
training steps (momentum, ``momentum=None`` cumulative average, ``track_running_stats=False``,
``affine=False``), evaluation mode, buffers, and input-rank errors."""

from __future__ import annotations

import numpy as np
import pytest
from layer_helpers import assert_close, assert_same_error

import minitorch
import minitorch.nn as nn

task = pytest.mark.task("5.6")

CASES = {
    "bn1d_2d_input": ("BatchNorm1d", (5, 3), {}),
    "bn1d_3d_input": ("BatchNorm1d", (4, 3, 2), {"momentum": 0.5}),
    "bn2d": ("BatchNorm2d", (2, 3, 3, 2), {}),
    "bn2d_cumulative": ("BatchNorm2d", (2, 3, 2, 2), {"momentum": None}),
    "bn2d_no_affine": ("BatchNorm2d", (3, 3, 2, 2), {"affine": False, "eps": 1e-3}),
    "bn1d_no_tracking": ("BatchNorm1d", (4, 3), {"track_running_stats": False}),
}


@task
@pytest.mark.parametrize("case", sorted(CASES))
def test_batchnorm_steps_match_torch(backend: str, torch_ref, case: str) -> None:
    name, shape, kwargs = CASES[case]
    mine, ref = getattr(nn, name)(3, **kwargs).double(), getattr(torch_ref.nn, name)(3, **kwargs).double()
    assert repr(mine) == repr(ref)
    assert list(mine.state_dict()) == list(ref.state_dict())
    rng = np.random.default_rng(0)
    for step in range(3):  # three training steps: the running buffers follow torch's exactly
        x = rng.standard_normal(shape) * (step + 1) + step
        mx, tx = minitorch.tensor(x, requires_grad=True), torch_ref.tensor(x, requires_grad=True)
        out, expected = mine(mx), ref(tx)
        assert_close(out, expected)
        g = rng.standard_normal(shape)
        (out * minitorch.tensor(g)).sum().backward()
        (expected * torch_ref.tensor(g)).sum().backward()
        assert_close(mx.grad, tx.grad, what="input gradient")
        for key, value in ref.state_dict().items():
            assert_close(mine.state_dict()[key], value, what=key)
    for (key, p), (_, q) in zip(mine.named_parameters(), ref.named_parameters()):
        assert_close(p.grad, q.grad, what=f"gradient of {key}")
    mine.eval()
    ref.eval()
    x = rng.standard_normal(shape)
    assert_close(mine(minitorch.tensor(x)), ref(torch_ref.tensor(x)))


@task
def test_batchnorm_buffers_and_reset() -> None:
    bn = nn.BatchNorm2d(2)
    assert [k for k, _ in bn.named_buffers()] == ["running_mean", "running_var", "num_batches_tracked"]
    assert bn.num_batches_tracked.dtype is minitorch.int64
    bn(minitorch.randn(2, 2, 3, 3) + 5)
    assert int(bn.num_batches_tracked.item()) == 1
    assert float(bn.running_mean.sum().item()) > 0.5
    bn.reset_running_stats()
    assert bn.running_mean.tolist() == [0.0, 0.0] and bn.running_var.tolist() == [1.0, 1.0]
    bn.eval()
    bn(minitorch.randn(2, 2, 3, 3))
    assert int(bn.num_batches_tracked.item()) == 0  # evaluation never updates the statistics


@task
def test_batchnorm_rank_errors_match_torch(torch_ref) -> None:
    assert_same_error(lambda: nn.BatchNorm2d(4)(minitorch.zeros(3, 8)), lambda: torch_ref.nn.BatchNorm2d(4)(torch_ref.zeros(3, 8)))
    assert_same_error(lambda: nn.BatchNorm1d(4)(minitorch.zeros(3, 4, 5, 6)), lambda: torch_ref.nn.BatchNorm1d(4)(torch_ref.zeros(3, 4, 5, 6)))
    assert_same_error(lambda: nn.BatchNorm1d(4)(minitorch.zeros(1, 4)), lambda: torch_ref.nn.BatchNorm1d(4)(torch_ref.zeros(1, 4)))

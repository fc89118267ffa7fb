"""Instance normalisation (F.instance_norm, InstanceNorm1d/2d): float64 outputs and gradients
against PyTorch, running statistics when tracked, evaluation mode, unbatched input, reprs,
state_dict keys and errors."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
from gradcheck import gradcheck
from layer_helpers import assert_close, assert_same_error, compare_with_torch, ours, theirs, values

import minitorch
import minitorch.nn.functional as F
from minitorch import nn

#: normalising divides by a computed standard deviation: agreement to float64 rounding
TOL = {"atol": 1e-13, "rtol": 1e-12}


def data(shape: tuple[int, ...], seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).normal(2.0, 3.0, size=shape)


@pytest.mark.parametrize("shape", [(2, 3, 5), (2, 3, 4, 5)])
def test_functional_matches_torch(torch_ref, shape: tuple[int, ...]) -> None:
    compare_with_torch(torch_ref, F.instance_norm, torch_ref.nn.functional.instance_norm, [data(shape)], grad=[0],
                       **TOL)


def test_functional_with_weight_and_bias(torch_ref) -> None:
    rng = np.random.default_rng(1)
    x, w, b = data((2, 3, 4, 5)), rng.standard_normal(3), rng.standard_normal(3)
    compare_with_torch(torch_ref, lambda x, w, b: F.instance_norm(x, weight=w, bias=b, eps=1e-3),
                       lambda x, w, b: torch_ref.nn.functional.instance_norm(x, weight=w, bias=b, eps=1e-3),
                       [x, w, b], grad=[0, 1, 2], **TOL)


def test_gradcheck() -> None:
    rng = np.random.default_rng(2)
    x = ours(data((2, 2, 5)), grad=True)
    w, b = ours(rng.standard_normal(2), grad=True), ours(rng.standard_normal(2), grad=True)
    gradcheck(lambda x, w, b: F.instance_norm(x, weight=w, bias=b), x, w, b)


def test_each_sample_channel_is_normalised() -> None:
    out = values(F.instance_norm(ours(data((3, 2, 50)))))
    np.testing.assert_allclose(out.mean(axis=-1), 0.0, atol=1e-12)
    np.testing.assert_allclose(out.var(axis=-1), 1.0, rtol=1e-3)  # eps = 1e-5 against variance 9


def test_running_statistics_follow_torch(torch_ref) -> None:
    x = data((4, 3, 6))
    mean, var = ours(np.zeros(3)), ours(np.ones(3))
    t_mean, t_var = theirs(torch_ref, np.zeros(3)), theirs(torch_ref, np.ones(3))
    for step in range(3):
        batch = x + step
        F.instance_norm(ours(batch), mean, var, momentum=0.3)
        torch_ref.nn.functional.instance_norm(theirs(torch_ref, batch), t_mean, t_var, momentum=0.3)
    assert_close(mean, t_mean, **TOL, what="running_mean")
    assert_close(var, t_var, **TOL, what="running_var")
    evaluated = F.instance_norm(ours(x), mean, var, use_input_stats=False)
    assert_close(evaluated, torch_ref.nn.functional.instance_norm(theirs(torch_ref, x), t_mean, t_var,
                                                                  use_input_stats=False), **TOL)


@pytest.mark.parametrize("cls, shape", [("InstanceNorm1d", (2, 3, 5)), ("InstanceNorm1d", (3, 5)),
                                        ("InstanceNorm2d", (2, 3, 4, 5)), ("InstanceNorm2d", (3, 4, 5))])
@pytest.mark.parametrize("options", [{}, {"affine": True}, {"track_running_stats": True, "momentum": 0.2},
                                     {"affine": True, "track_running_stats": True, "bias": False}])
def test_module_matches_torch(torch_ref, cls: str, shape: tuple[int, ...], options: dict[str, Any]) -> None:
    layer = getattr(nn, cls)(3, dtype=minitorch.float64, **options)
    reference = getattr(torch_ref.nn, cls)(3, dtype=torch_ref.float64, **options)
    assert repr(layer) == repr(reference)
    assert list(layer.state_dict()) == list(reference.state_dict())
    grad = [0]
    compare_with_torch(torch_ref, layer, reference, [data(shape)], grad=grad, **TOL)
    for name, buffer in reference.named_buffers():
        assert_close(getattr(layer, name), buffer, **TOL, what=name)
    if layer.weight is not None:
        assert_close(layer.weight.grad, reference.weight.grad, **TOL, what="weight gradient")
    layer.eval()
    reference.eval()
    compare_with_torch(torch_ref, layer, reference, [data(shape, seed=5)], **TOL)


def test_mismatched_channels_warn_without_affine_and_fail_with_it(torch_ref) -> None:
    x = data((2, 4, 5))
    with pytest.warns(UserWarning, match="input's size at dim=1 does not match num_features"):
        nn.InstanceNorm1d(3)(ours(x))
    assert_same_error(lambda: nn.InstanceNorm1d(3, affine=True)(ours(x)),
                      lambda: torch_ref.nn.InstanceNorm1d(3, affine=True)(theirs(torch_ref, x)))


@pytest.mark.parametrize("call", [
    lambda t, x: t.nn.functional.instance_norm(x[:, :, 0]),
    lambda t, x: t.nn.functional.instance_norm(x[:, :, :1]),
    lambda t, x: t.nn.functional.instance_norm(x, use_input_stats=False),
    lambda t, x: t.nn.InstanceNorm1d(3)(x.unsqueeze(0)),
    lambda t, x: t.nn.InstanceNorm2d(3)(x[0, 0]),
])
def test_errors_match_torch(torch_ref, call: Any) -> None:
    x = data((2, 3, 4))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_same_error(lambda: call(minitorch, ours(x)), lambda: call(torch_ref, theirs(torch_ref, x)))


def test_instance_norm_is_no_batch_norm(torch_ref) -> None:
    """Code that picks out batch-norm layers by class (e.g. for weight decay) must not catch these."""
    for name in ("InstanceNorm1d", "InstanceNorm2d"):
        for other in ("BatchNorm1d", "BatchNorm2d", "InstanceNorm1d", "InstanceNorm2d"):
            expected = issubclass(getattr(torch_ref.nn, name), getattr(torch_ref.nn, other))
            assert issubclass(getattr(nn, name), getattr(nn, other)) == expected
    assert not isinstance(nn.InstanceNorm1d(3), type(nn.BatchNorm1d(3)).__mro__[1])

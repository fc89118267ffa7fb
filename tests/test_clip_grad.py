"""``nn.utils``: gradient clipping and parameter vectors, against PyTorch."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

import minitorch
from minitorch.nn.utils import (
    clip_grad_norm_, clip_grad_value_, get_total_norm, parameters_to_vector, vector_to_parameters,
)

SHAPES = [(3, 4), (5,), (2, 1, 3)]
RTOL = 1e-12
SEED = 11


def _params(lib: Any, with_grads: bool = True) -> list[Any]:
    """Three float64 parameters with gradients, and a fourth without one."""
    rng = np.random.default_rng(SEED)
    params = []
    for shape in SHAPES:
        p = lib.tensor(rng.standard_normal(shape), dtype=lib.float64, requires_grad=True)
        if with_grads:
            p.grad = lib.tensor(rng.standard_normal(shape) * 3, dtype=lib.float64)
        params.append(p)
    params.append(lib.tensor(rng.standard_normal(2), dtype=lib.float64, requires_grad=True))
    return params


def _grads(params: list[Any]) -> list[np.ndarray]:
    return [p.grad.detach().numpy().copy() for p in params if p.grad is not None]


@pytest.mark.task("6.8")
@pytest.mark.parametrize("norm_type", [2.0, 1.0, 3.5, math.inf, -math.inf, 0.0])
@pytest.mark.parametrize("max_norm", [0.5, 1e4])
def test_clip_grad_norm_matches_torch(backend: str, torch_ref: Any, norm_type: float, max_norm: float) -> None:
    ours, theirs = _params(minitorch), _params(torch_ref)
    total = clip_grad_norm_(ours, max_norm, norm_type=norm_type)
    expected = torch_ref.nn.utils.clip_grad_norm_(theirs, max_norm, norm_type=norm_type)
    assert isinstance(total, minitorch.Tensor) and total.dim() == 0
    assert total.item() == pytest.approx(expected.item(), rel=RTOL)
    for got, want in zip(_grads(ours), _grads(theirs)):
        np.testing.assert_allclose(got, want, rtol=RTOL)
    assert ours[-1].grad is None


@pytest.mark.task("6.8")
def test_clip_grad_norm_clips_to_max_norm_and_keeps_direction(backend: str) -> None:
    params = _params(minitorch)
    before = _grads(params)
    clip_grad_norm_(params, 1.0)
    after = _grads(params)
    norm = math.sqrt(sum(float(np.sum(g * g)) for g in after))
    assert norm == pytest.approx(1.0, rel=1e-5)
    ratio = after[0].ravel()[0] / before[0].ravel()[0]
    for old, new in zip(before, after):
        np.testing.assert_allclose(new, old * ratio, rtol=RTOL)


@pytest.mark.task("6.8")
def test_single_tensor_and_empty_list(torch_ref: Any) -> None:
    p = minitorch.tensor([3.0, 4.0], requires_grad=True)
    p.grad = minitorch.tensor([3.0, 4.0])
    assert clip_grad_norm_(p, 10.0).item() == pytest.approx(5.0)
    np.testing.assert_allclose(p.grad.numpy(), [3.0, 4.0], rtol=1e-6)
    empty = clip_grad_norm_([], 1.0)
    assert empty.item() == torch_ref.nn.utils.clip_grad_norm_([], 1.0).item() == 0.0


@pytest.mark.task("6.8")
def test_nonfinite_norm(torch_ref: Any) -> None:
    for lib in (minitorch, torch_ref):
        p = lib.tensor([1.0, 2.0], requires_grad=True)
        p.grad = lib.tensor([float("nan"), 1.0])
        total = lib.nn.utils.clip_grad_norm_([p], 1.0)
        assert math.isnan(total.item())
        with pytest.raises(RuntimeError, match="is non-finite, so it cannot be clipped"):
            lib.nn.utils.clip_grad_norm_([p], 1.0, error_if_nonfinite=True)


@pytest.mark.task("6.8")
def test_get_total_norm_matches_torch(torch_ref: Any) -> None:
    ours = [p.grad for p in _params(minitorch)[:3]]
    theirs = [p.grad for p in _params(torch_ref)[:3]]
    for norm_type in (2.0, math.inf, 1.5):
        assert get_total_norm(ours, norm_type).item() == pytest.approx(
            torch_ref.nn.utils.get_total_norm(theirs, norm_type).item(), rel=RTOL)


@pytest.mark.task("6.8")
@pytest.mark.parametrize("clip_value", [0.5, 2.0, 100.0])
def test_clip_grad_value_matches_torch(backend: str, torch_ref: Any, clip_value: float) -> None:
    ours, theirs = _params(minitorch), _params(torch_ref)
    assert clip_grad_value_(ours, clip_value) is None
    torch_ref.nn.utils.clip_grad_value_(theirs, clip_value)
    for got, want in zip(_grads(ours), _grads(theirs)):
        np.testing.assert_array_equal(got, want)
        assert np.all(np.abs(got) <= clip_value)


def test_parameters_to_vector_and_back(backend: str, torch_ref: Any) -> None:
    params = _params(minitorch, with_grads=False)
    vector = parameters_to_vector(params)
    expected = np.concatenate([p.detach().numpy().ravel() for p in params])
    np.testing.assert_array_equal(vector.detach().numpy(), expected)
    reference = torch_ref.nn.utils.parameters_to_vector(_params(torch_ref, with_grads=False))
    np.testing.assert_array_equal(vector.detach().numpy(), reference.detach().numpy())
    # differentiable: the gradient of sum(2 v) reaches every parameter
    (vector * 2).sum().backward()
    for p in params:
        np.testing.assert_array_equal(p.grad.numpy(), np.full(p.shape, 2.0))

    new_values = minitorch.arange(float(len(expected)), dtype=minitorch.float64)
    vector_to_parameters(new_values, params)
    start = 0
    for p in params:
        np.testing.assert_array_equal(p.detach().numpy().ravel(), np.arange(start, start + p.numel()))
        start += p.numel()
    with pytest.raises(TypeError, match="expected minitorch.Tensor, but got: list"):
        vector_to_parameters([1.0], params)


def test_skip_init_builds_the_module_without_drawing_random_numbers() -> None:
    from minitorch import nn
    from minitorch.nn.utils import skip_init

    minitorch.manual_seed(0)
    expected = minitorch.rand(3).numpy().copy()
    minitorch.manual_seed(0)
    layer = skip_init(nn.Linear, 5, 2, bias=True)
    assert isinstance(layer, nn.Linear)
    assert layer.weight.shape == (2, 5) and layer.bias.shape == (2,)
    np.testing.assert_array_equal(minitorch.rand(3).numpy(), expected)
    # the initialisers work again afterwards
    minitorch.manual_seed(0)
    nn.Linear(5, 2)
    assert not np.array_equal(minitorch.rand(3).numpy(), expected)


def test_skip_init_errors_match_torch(torch_ref: Any) -> None:
    from minitorch import nn

    class NoDevice(nn.Module):
        def __init__(self) -> None:
            super().__init__()

    class TorchNoDevice(torch_ref.nn.Module):
        def __init__(self) -> None:
            super().__init__()

    for skip, module_cls in ((nn.utils.skip_init, NoDevice), (torch_ref.nn.utils.skip_init, TorchNoDevice)):
        with pytest.raises(RuntimeError, match="Module must support a 'device' arg to skip initialization"):
            skip(module_cls)
        with pytest.raises(RuntimeError, match="Expected a Module; got"):
            skip(int)


def test_deprecated_clip_grad_norm_warns_and_clips_like_torch(torch_ref: Any) -> None:
    ours, theirs = _params(minitorch), _params(torch_ref)
    with pytest.warns(FutureWarning, match="deprecated in favor of `torch.nn.utils.clip_grad_norm_`") as caught:
        total = minitorch.nn.utils.clip_grad_norm(ours, 0.5)
    with pytest.warns(FutureWarning) as reference:
        expected = torch_ref.nn.utils.clip_grad_norm(theirs, 0.5)
    assert str(caught[0].message) == str(reference[0].message)
    assert total.item() == pytest.approx(expected.item(), rel=RTOL)
    for got, want in zip(_grads(ours), _grads(theirs)):
        np.testing.assert_allclose(got, want, rtol=RTOL)

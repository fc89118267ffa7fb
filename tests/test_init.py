"""Task 4.6: ``nn.init`` (fans, gains, bounds, in place under no_grad) and Linear's default init."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

import minitorch
from minitorch import nn
from minitorch.nn import init

#: enough samples that the sample std is within a few percent of the target
SAMPLES = (200, 300)
STD_TOLERANCE = 0.05
#: a bound computed in float64 may be exceeded by float32 rounding of the stored values
FLOAT32_SLACK = 1 + 1e-6


@pytest.mark.task("4.6")
@pytest.mark.parametrize(
    "nonlinearity, param",
    [("linear", None), ("conv2d", None), ("sigmoid", None), ("tanh", None), ("relu", None), ("leaky_relu", None),
     ("leaky_relu", 0.2), ("leaky_relu", 3), ("selu", None)],
)
def test_calculate_gain_matches_torch(torch_ref: Any, nonlinearity: str, param: Any) -> None:
    assert init.calculate_gain(nonlinearity, param) == pytest.approx(torch_ref.nn.init.calculate_gain(nonlinearity, param))


@pytest.mark.task("4.6")
@pytest.mark.parametrize("args", [("softmax", None), ("leaky_relu", "x"), ("leaky_relu", True)])
def test_calculate_gain_errors_match_torch(torch_ref: Any, args: tuple) -> None:
    with pytest.raises(ValueError) as mine:
        init.calculate_gain(*args)
    with pytest.raises(ValueError) as reference:
        torch_ref.nn.init.calculate_gain(*args)
    assert str(mine.value) == str(reference.value)


@pytest.mark.task("4.6")
@pytest.mark.parametrize("shape", [(3, 5), (4, 2, 3), (8, 3, 3, 3), (2, 4, 1, 2, 5)])
def test_fan_in_and_fan_out_match_torch(torch_ref: Any, shape: tuple[int, ...]) -> None:
    ours = init._calculate_fan_in_and_fan_out(minitorch.empty(shape))
    assert ours == torch_ref.nn.init._calculate_fan_in_and_fan_out(torch_ref.empty(shape))


@pytest.mark.parametrize("call", [
    lambda lib: lib.nn.init.uniform_(lib.empty(2, 3), 1.0, 0.0),  # from > to
    lambda lib: lib.nn.init.normal_(lib.empty(2, 3), 0.0, -1.0),  # a negative std
    lambda lib: lib.nn.init.uniform_(lib.empty(2, 3, dtype=lib.int64)),  # integers
    lambda lib: lib.nn.init.normal_(lib.empty(2, 3, dtype=lib.int64)),
], ids=["uniform-reversed", "normal-negative-std", "uniform-int", "normal-int"])
def test_uniform_and_normal_refuse_what_torch_refuses(torch_ref: Any, call: Any) -> None:
    """The two are the tensor methods without the graph, so they raise the methods' errors, PyTorch's words."""
    with pytest.raises(Exception) as reference:
        call(torch_ref)
    with pytest.raises(type(reference.value)) as mine:
        call(minitorch)
    assert str(mine.value) == str(reference.value)


@pytest.mark.task("4.6")
def test_fan_errors_match_torch(torch_ref: Any) -> None:
    for ours, theirs in [
        (lambda: init.xavier_uniform_(minitorch.empty(3)), lambda: torch_ref.nn.init.xavier_uniform_(torch_ref.empty(3))),
        (lambda: init.kaiming_normal_(minitorch.empty(3, 3), mode="fan_avg"),
         lambda: torch_ref.nn.init.kaiming_normal_(torch_ref.empty(3, 3), mode="fan_avg")),
        (lambda: init.orthogonal_(minitorch.empty(3)), lambda: torch_ref.nn.init.orthogonal_(torch_ref.empty(3))),
    ]:
        with pytest.raises(ValueError) as mine:
            ours()
        with pytest.raises(ValueError) as reference:
            theirs()
        assert str(mine.value) == str(reference.value)


def _stats(t: minitorch.Tensor) -> tuple[float, float, float]:
    values = t.detach().numpy().astype(np.float64)
    return float(values.std()), float(values.min()), float(values.max())


@pytest.mark.task("4.6")
@pytest.mark.parametrize(
    "scheme, kwargs, std",
    [
        ("kaiming_uniform_", {}, math.sqrt(2.0) / math.sqrt(SAMPLES[1])),  # a=0: leaky slope 0, gain sqrt(2)
        ("kaiming_uniform_", {"a": math.sqrt(5)}, 1 / math.sqrt(3 * SAMPLES[1])),
        ("kaiming_normal_", {"nonlinearity": "relu"}, math.sqrt(2.0 / SAMPLES[1])),
        ("kaiming_normal_", {"mode": "fan_out", "nonlinearity": "relu"}, math.sqrt(2.0 / SAMPLES[0])),
        ("xavier_uniform_", {"gain": 2.0}, 2.0 * math.sqrt(2.0 / sum(SAMPLES))),
        ("xavier_normal_", {}, math.sqrt(2.0 / sum(SAMPLES))),
    ],
)
def test_scaled_schemes_have_the_documented_spread(scheme: str, kwargs: dict, std: float) -> None:
    weight = nn.Parameter(minitorch.empty(SAMPLES))
    out = getattr(init, scheme)(weight, **kwargs)
    assert out is weight and weight.grad_fn is None and weight.requires_grad
    sample_std, low, high = _stats(weight)
    assert sample_std == pytest.approx(std, rel=STD_TOLERANCE)
    if "uniform" in scheme:
        bound = math.sqrt(3.0) * std
        assert -bound * FLOAT32_SLACK <= low and high <= bound * FLOAT32_SLACK
        assert low < -0.9 * bound and high > 0.9 * bound


@pytest.mark.task("4.6")
def test_uniform_normal_constant_in_place() -> None:
    t = nn.Parameter(minitorch.empty(100, 100))
    assert init.uniform_(t, -2.0, 3.0) is t
    _, low, high = _stats(t)
    assert -2.0 <= low < -1.9 and 2.9 < high <= 3.0
    init.normal_(t, 5.0, 0.5)
    assert float(t.detach().mean()) == pytest.approx(5.0, abs=0.02)
    assert _stats(t)[0] == pytest.approx(0.5, rel=STD_TOLERANCE)
    init.constant_(t, 0.25)
    assert set(np.unique(t.detach().numpy())) == {0.25}
    init.ones_(t)
    assert float(t.detach().sum()) == 100 * 100
    init.zeros_(t)
    assert float(t.detach().abs().sum()) == 0.0
    assert t.grad_fn is None and t.is_leaf


@pytest.mark.task("4.6")
def test_init_is_seeded_by_manual_seed() -> None:
    minitorch.manual_seed(3)
    first = init.kaiming_uniform_(minitorch.empty(4, 5)).numpy().copy()
    minitorch.manual_seed(3)
    np.testing.assert_array_equal(init.kaiming_uniform_(minitorch.empty(4, 5)).numpy(), first)


@pytest.mark.task("4.6")
def test_trunc_normal_orthogonal_eye() -> None:
    t = init.trunc_normal_(minitorch.empty(50, 50), mean=0.5, std=1.0, a=0.0, b=1.0)
    values = t.numpy()
    assert values.min() >= 0.0 and values.max() <= 1.0 and values.std() > 0.2
    for shape in [(4, 6), (6, 4), (3, 2, 2)]:
        q = init.orthogonal_(minitorch.empty(shape), gain=2.0).numpy().reshape(shape[0], -1).astype(np.float64)
        gram = q @ q.T if shape[0] <= q.shape[1] else q.T @ q
        np.testing.assert_allclose(gram, 4.0 * np.eye(gram.shape[0]), atol=1e-5)
    np.testing.assert_array_equal(init.eye_(minitorch.empty(2, 3)).numpy(), np.eye(2, 3))


@pytest.mark.task("4.6")
def test_zero_element_kaiming_warns_and_returns_tensor() -> None:
    t = minitorch.empty(0, 3)
    with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
        assert init.kaiming_uniform_(t) is t


@pytest.mark.task("4.6")
def test_linear_default_init_bounds_and_shapes() -> None:
    layer = nn.Linear(400, 30)
    assert layer.weight.shape == (30, 400) and layer.bias.shape == (30,)
    bound = 1 / math.sqrt(400)
    for p in (layer.weight, layer.bias):
        _, low, high = _stats(p)
        assert -bound * FLOAT32_SLACK <= low and high <= bound * FLOAT32_SLACK
    assert _stats(layer.weight)[0] == pytest.approx(bound / math.sqrt(3), rel=STD_TOLERANCE)
    assert nn.Linear(3, 2, bias=False).bias is None
    assert list(nn.Linear(3, 2, bias=False).state_dict()) == ["weight"]


@pytest.mark.task("4.6")
def test_linear_matches_torch_with_the_same_weights(torch_ref: Any, backend: str) -> None:
    ours, theirs = nn.Linear(4, 3), torch_ref.nn.Linear(4, 3)
    with minitorch.no_grad():
        ours.weight.copy_(minitorch.tensor(theirs.weight.detach().numpy()))
        ours.bias.copy_(minitorch.tensor(theirs.bias.detach().numpy()))
    x = np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32)
    mx, tx = minitorch.tensor(x, requires_grad=True), torch_ref.tensor(x, requires_grad=True)
    mine, reference = ours(mx), theirs(tx)
    np.testing.assert_allclose(mine.detach().numpy(), reference.detach().numpy(), rtol=1e-5, atol=1e-6)
    (mine * mine).sum().backward()
    (reference * reference).sum().backward()
    for a, b in [(mx.grad, tx.grad), (ours.weight.grad, theirs.weight.grad), (ours.bias.grad, theirs.bias.grad)]:
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-4, atol=1e-5)
    assert repr(ours) == repr(theirs) and repr(nn.Linear(2, 1, bias=False)) == repr(torch_ref.nn.Linear(2, 1, bias=False))
    # a 1-D input works too
    np.testing.assert_allclose(ours(mx[0]).detach().numpy(), reference[0].detach().numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.task("4.6")
def test_linear_dtype_and_device_kwargs() -> None:
    layer = nn.Linear(3, 2, dtype=minitorch.float64, device="cpu")
    assert layer.weight.dtype == minitorch.float64 and layer.bias.dtype == minitorch.float64
    assert layer.weight.device.type == "cpu"
    out = layer(minitorch.ones(1, 3, dtype=minitorch.float64))
    assert out.dtype == minitorch.float64
    half = nn.Linear(3, 2, dtype=minitorch.float16)
    assert half.weight.dtype == minitorch.float16


@pytest.mark.task("4.6")
def test_identity_ignores_arguments() -> None:
    x = minitorch.ones(2)
    assert nn.Identity(3, key="v")(x) is x
    assert repr(nn.Identity()) == "Identity()"

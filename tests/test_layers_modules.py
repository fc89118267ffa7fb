"""The layer modules: PyTorch's constructor signatures, parameter and buffer names, default
initialization, ``repr``, ``device``/``dtype`` kwargs; and forward/backward against PyTorch
with the same weights loaded into both."""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np
import pytest
from layer_helpers import assert_close, values

import minitorch
import minitorch.nn as nn

layers = pytest.mark.task("5.1")

#: name -> (constructor taking the nn module, input shape, integer inputs' upper bound or None)
LAYERS: dict[str, tuple[Callable[[Any], Any], tuple[int, ...], int | None]] = {
    "Linear": (lambda m: m.Linear(4, 3), (2, 4), None),
    "Conv1d": (lambda m: m.Conv1d(2, 4, 3, stride=2, padding=1), (2, 2, 7), None),
    "Conv2d": (lambda m: m.Conv2d(4, 6, (3, 2), stride=(2, 1), padding=1, dilation=(1, 2), groups=2), (2, 4, 6, 6), None),
    "Conv2d_nobias_same": (lambda m: m.Conv2d(2, 3, 3, padding="same", bias=False), (1, 2, 5, 5), None),
    "Conv2d_reflect": (lambda m: m.Conv2d(2, 3, 3, padding=1, padding_mode="reflect"), (1, 2, 5, 5), None),
    "MaxPool2d": (lambda m: m.MaxPool2d(3, stride=2, padding=1), (2, 2, 6, 6), None),
    "AvgPool2d": (lambda m: m.AvgPool2d(2, count_include_pad=False, padding=1), (2, 2, 5, 5), None),
    "AvgPool1d": (lambda m: m.AvgPool1d(3, 2), (2, 2, 7), None),
    "AdaptiveAvgPool2d": (lambda m: m.AdaptiveAvgPool2d((2, 3)), (2, 2, 5, 7), None),
    "LayerNorm": (lambda m: m.LayerNorm((3, 4)), (2, 3, 4), None),
    "GroupNorm": (lambda m: m.GroupNorm(2, 4), (2, 4, 3), None),
    "ReLU": (lambda m: m.ReLU(), (2, 5), None),
    "LeakyReLU": (lambda m: m.LeakyReLU(0.1), (2, 5), None),
    "GELU": (lambda m: m.GELU(approximate="tanh"), (2, 5), None),
    "SiLU": (lambda m: m.SiLU(), (2, 5), None),
    "Sigmoid": (lambda m: m.Sigmoid(), (2, 5), None),
    "Tanh": (lambda m: m.Tanh(), (2, 5), None),
    "Softmax": (lambda m: m.Softmax(dim=1), (2, 5), None),
    "LogSoftmax": (lambda m: m.LogSoftmax(dim=-1), (2, 5), None),
    "Flatten": (lambda m: m.Flatten(), (2, 3, 2), None),
    "Identity": (lambda m: m.Identity(3, unused=True), (2, 3), None),
    "Embedding": (lambda m: m.Embedding(7, 3, padding_idx=1), (2, 4), 7),
}


def to_minitorch_state(state: dict) -> dict:
    return {k: minitorch.tensor(v.detach().numpy()) for k, v in state.items()}


def build_pair(torch: Any, name: str) -> tuple[Any, Any]:
    """The layer in both frameworks, with PyTorch's initial weights copied into ours."""
    make = LAYERS[name][0]
    torch.manual_seed(0)
    ref = make(torch.nn).double()
    mine = make(nn).double()
    mine.load_state_dict(to_minitorch_state(ref.state_dict()))
    return mine, ref


@layers
@pytest.mark.parametrize("name", sorted(LAYERS))
def test_layer_repr_names_and_shapes_match_torch(torch_ref, name: str) -> None:
    mine, ref = LAYERS[name][0](nn), LAYERS[name][0](torch_ref.nn)
    assert repr(mine) == repr(ref)
    assert [(k, tuple(v.shape)) for k, v in mine.state_dict().items()] == [(k, tuple(v.shape)) for k, v in ref.state_dict().items()]
    assert [k for k, _ in mine.named_parameters()] == [k for k, _ in ref.named_parameters()]


@layers
@pytest.mark.parametrize("name", sorted(LAYERS))
def test_layer_forward_backward_match_torch(backend: str, torch_ref, name: str) -> None:
    _, shape, high = LAYERS[name]
    mine, ref = build_pair(torch_ref, name)
    rng = np.random.default_rng(1)
    if high is None:
        x = rng.standard_normal(shape)
        mx, tx = minitorch.tensor(x, requires_grad=True), torch_ref.tensor(x, requires_grad=True)
    else:
        x = rng.integers(0, high, size=shape)
        mx, tx = minitorch.tensor(x), torch_ref.tensor(x)
    out, expected = mine(mx), ref(tx)
    assert_close(out, expected, atol=1e-10, rtol=1e-7)
    weights = rng.standard_normal(tuple(expected.shape))
    (out * minitorch.tensor(weights)).sum().backward()
    (expected * torch_ref.tensor(weights)).sum().backward()
    if high is None:
        assert_close(mx.grad, tx.grad, atol=1e-10, rtol=1e-7, what="input gradient")
    for (key, p), (_, q) in zip(mine.named_parameters(), ref.named_parameters()):
        assert_close(p.grad, q.grad, atol=1e-10, rtol=1e-7, what=f"gradient of {key}")


@layers
@pytest.mark.parametrize("make,fan_in", [
    (lambda: nn.Conv2d(16, 32, 3), 16 * 9),
    (lambda: nn.Conv1d(8, 64, 5, groups=2), 4 * 5),
    (lambda: nn.Linear(200, 64), 200),
])
def test_default_init_is_kaiming_uniform_with_bias_bound(make, fan_in: int) -> None:
    layer = make()
    bound = 1.0 / math.sqrt(fan_in)  # kaiming_uniform with a = sqrt(5) gives this bound too
    w, b = values(layer.weight), values(layer.bias)
    assert np.all(np.abs(w) <= bound) and np.all(np.abs(b) <= bound)
    assert abs(w.std() - bound / math.sqrt(3)) < 0.1 * bound  # a uniform's standard deviation


@layers
def test_embedding_init_and_padding_row() -> None:
    layer = nn.Embedding(500, 20, padding_idx=3)
    w = values(layer.weight)
    assert np.all(w[3] == 0.0)
    assert abs(w.std() - 1.0) < 0.05 and abs(w.mean()) < 0.05
    out = layer(minitorch.tensor([[3, 4], [3, 3]]))
    out.sum().backward()
    grad = values(layer.weight.grad)
    assert np.all(grad[3] == 0.0) and np.all(grad[4] == 1.0)
    frozen = nn.Embedding.from_pretrained(minitorch.ones(3, 2))
    assert not frozen.weight.requires_grad


@layers
def test_norm_and_attention_init() -> None:
    ln = nn.LayerNorm(6)
    assert values(ln.weight).tolist() == [1.0] * 6 and values(ln.bias).tolist() == [0.0] * 6
    mha = nn.MultiheadAttention(16, 4)
    bound = math.sqrt(6.0 / (16 + 48))  # xavier_uniform of the (48, 16) packed projection
    assert np.all(np.abs(values(mha.in_proj_weight)) <= bound)
    assert np.all(values(mha.in_proj_bias) == 0.0) and np.all(values(mha.out_proj.bias) == 0.0)


@layers
@pytest.mark.parametrize("make", [
    lambda **kw: nn.Conv2d(2, 3, 3, **kw), lambda **kw: nn.Conv1d(2, 3, 3, **kw), lambda **kw: nn.LayerNorm(4, **kw),
    lambda **kw: nn.BatchNorm1d(3, **kw), lambda **kw: nn.Embedding(5, 2, **kw), lambda **kw: nn.MultiheadAttention(4, 2, **kw),
    lambda **kw: nn.GroupNorm(1, 2, **kw),
])
def test_layers_take_device_and_dtype(make) -> None:
    layer = make(device="cpu", dtype=minitorch.float64)
    for name, p in layer.named_parameters():
        assert p.dtype is minitorch.float64, name
        assert p.device.type == "cpu"


@layers
def test_constructor_errors_match_torch(torch_ref) -> None:
    from layer_helpers import assert_same_error

    assert_same_error(lambda: nn.Conv2d(3, 4, 3, groups=2), lambda: torch_ref.nn.Conv2d(3, 4, 3, groups=2))
    assert_same_error(lambda: nn.Conv2d(4, 3, 3, groups=2), lambda: torch_ref.nn.Conv2d(4, 3, 3, groups=2))
    assert_same_error(lambda: nn.Dropout(-0.1), lambda: torch_ref.nn.Dropout(-0.1))
    assert_same_error(lambda: nn.MultiheadAttention(10, 3), lambda: torch_ref.nn.MultiheadAttention(10, 3))
    assert_same_error(lambda: nn.Conv2d(2, 2, 3, stride=2, padding="same"), lambda: torch_ref.nn.Conv2d(2, 2, 3, stride=2, padding="same"))


@layers
def test_dropout_module_follows_train_and_eval() -> None:
    drop = nn.Dropout(0.5)
    x = minitorch.ones(1000)
    assert (values(drop(x)) == 0).any()
    drop.eval()
    assert drop(x) is x


@layers
@pytest.mark.parametrize("name", ["MSELoss", "L1Loss", "SmoothL1Loss", "HuberLoss", "BCEWithLogitsLoss"])
def test_regression_loss_modules_match_torch(torch_ref, name: str) -> None:
    rng = np.random.default_rng(2)
    x, y = rng.standard_normal((3, 4)), rng.uniform(0, 1, (3, 4))
    for reduction in ("mean", "sum", "none"):
        mine = getattr(nn, name)(reduction=reduction)(minitorch.tensor(x), minitorch.tensor(y))
        ref = getattr(torch_ref.nn, name)(reduction=reduction)(torch_ref.tensor(x), torch_ref.tensor(y))
        assert_close(mine, ref)
    assert repr(getattr(nn, name)()) == repr(getattr(torch_ref.nn, name)())


@layers
def test_classification_loss_modules_match_torch(torch_ref) -> None:
    rng = np.random.default_rng(3)
    x, t, w = rng.standard_normal((4, 3)), np.array([0, 2, 1, 2]), np.array([1.0, 2.0, 0.5])
    mine = nn.CrossEntropyLoss(weight=minitorch.tensor(w), ignore_index=1, label_smoothing=0.1)
    ref = torch_ref.nn.CrossEntropyLoss(weight=torch_ref.tensor(w), ignore_index=1, label_smoothing=0.1)
    assert_close(mine(minitorch.tensor(x), minitorch.tensor(t)), ref(torch_ref.tensor(x), torch_ref.tensor(t)))
    assert list(mine.state_dict()) == list(ref.state_dict()) == ["weight"]
    nll, tnll = nn.NLLLoss(reduction="sum"), torch_ref.nn.NLLLoss(reduction="sum")
    assert_close(nll(minitorch.tensor(x), minitorch.tensor(t)), tnll(torch_ref.tensor(x), torch_ref.tensor(t)))
    p = rng.uniform(0.1, 0.9, (4, 3))
    assert_close(nn.BCELoss()(minitorch.tensor(p), minitorch.tensor(p * 0 + 1)), torch_ref.nn.BCELoss()(torch_ref.tensor(p), torch_ref.tensor(p * 0 + 1)))

"""Layers and utilities that classic architectures and PyTorch tutorials use, against PyTorch:
AlexNet's ``LocalResponseNorm``, ShuffleNet's ``ChannelShuffle``, the ``nn.utils.weight_norm``
hook API (and old state dicts into the parametrization) and ``nn.utils.fusion``'s
batch-norm folding.

Every comparison builds the same layer in both libraries from the same NumPy weights and
inputs, and compares outputs, gradients, parameter names and errors.
"""

from __future__ import annotations

import re
import warnings
from types import ModuleType
from typing import Any

import numpy as np
import pytest

import minitorch
from distribution_oracle import same_error

SEED = 7
RTOL, ATOL = 1e-5, 1e-6


def both(torch_ref: ModuleType, array: np.ndarray, grad: bool = False) -> tuple[Any, Any]:
    return (minitorch.tensor(array, requires_grad=grad), torch_ref.tensor(array, requires_grad=grad))


def assert_same(mine: Any, theirs: Any, rtol: float = RTOL, atol: float = ATOL) -> None:
    np.testing.assert_allclose(mine.detach().numpy(), theirs.detach().numpy(), rtol=rtol, atol=atol)


def copy_parameters(source: Any, target: Any) -> None:
    """``source``'s (PyTorch's) parameters and buffers into ``target`` (minitorch's), through NumPy."""
    for name, value in source.state_dict().items():
        target.state_dict()[name].copy_(minitorch.tensor(value.numpy()))


# ---- LocalResponseNorm ----


@pytest.mark.parametrize("shape", [(2, 7, 5), (2, 7, 3, 4), (1, 6, 2, 3, 2), (2, 1, 3, 3)])
@pytest.mark.parametrize("size", [1, 2, 3, 5, 9])
def test_local_response_norm_and_its_gradient_as_torch(torch_ref: ModuleType, shape: tuple[int, ...], size: int) -> None:
    array = np.random.default_rng(SEED).standard_normal(shape).astype(np.float32) * 3
    mine, theirs = both(torch_ref, array, grad=True)
    upstream = np.random.default_rng(SEED + 1).standard_normal(shape).astype(np.float32)
    outputs = []
    for lib, x in ((minitorch, mine), (torch_ref, theirs)):
        y = lib.nn.LocalResponseNorm(size, alpha=0.05, beta=0.75, k=2.0)(x)
        (y * lib.tensor(upstream)).sum().backward()
        outputs.append(y)
    assert_same(*outputs)
    assert_same(mine.grad, theirs.grad)


def test_local_response_norm_by_hand() -> None:
    """One position of a (1, 3, 1) input with size 2: channel c sees channels c-1 and c (zero before the first)."""
    a = np.array([1.0, 2.0, 3.0])
    y = minitorch.nn.functional.local_response_norm(minitorch.tensor(a.reshape(1, 3, 1)), 2, alpha=0.5, beta=1.0, k=1.0)
    window_means = np.array([(0 + 1) / 2, (1 + 4) / 2, (4 + 9) / 2])
    np.testing.assert_allclose(y.numpy().ravel(), a / (1.0 + 0.5 * window_means), rtol=1e-6)


def test_local_response_norm_defaults_repr_and_empty_input(torch_ref: ModuleType) -> None:
    assert repr(minitorch.nn.LocalResponseNorm(5)) == repr(torch_ref.nn.LocalResponseNorm(5))
    empty = minitorch.zeros(0, 3, 4)
    assert minitorch.nn.functional.local_response_norm(empty, 3) is empty  # returned as it is, as PyTorch


def test_local_response_norm_refuses_inputs_below_three_dimensions(torch_ref: ModuleType) -> None:
    texts = []
    for lib in (minitorch, torch_ref):
        with pytest.raises(ValueError) as info:
            lib.nn.functional.local_response_norm(lib.ones(2, 3), 2)
        texts.append(" ".join(str(info.value).split()))  # PyTorch's text has a run of spaces in the middle
    assert texts[0] == texts[1] == "Expected 3D or higher dimensionality input (got 2 dimensions)"


# ---- ChannelShuffle ----


@pytest.mark.parametrize("shape, groups", [((1, 4, 2, 2), 2), ((2, 6, 3), 3), ((2, 6, 2, 1, 2), 2), ((1, 5, 2), 5)])
def test_channel_shuffle_layer_as_torch(torch_ref: ModuleType, shape: tuple[int, ...], groups: int) -> None:
    array = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    mine, theirs = both(torch_ref, array)
    assert np.array_equal(minitorch.nn.ChannelShuffle(groups)(mine).numpy(), torch_ref.nn.ChannelShuffle(groups)(theirs).numpy())
    assert repr(minitorch.nn.ChannelShuffle(groups)) == repr(torch_ref.nn.ChannelShuffle(groups))


def test_channel_shuffle_layer_errors_as_torch(torch_ref: ModuleType) -> None:
    same_error(torch_ref, lambda lib: lib.nn.ChannelShuffle(0)(lib.ones(1, 4, 2)))
    same_error(torch_ref, lambda lib: lib.nn.ChannelShuffle(2)(lib.ones(4, 2)))


# ---- weight_norm, the hook API ----


LAYERS = {
    "linear": (lambda lib: lib.nn.Linear(5, 3), (4, 5)),
    "conv1d": (lambda lib: lib.nn.Conv1d(2, 3, 3), (2, 2, 7)),
    "conv2d": (lambda lib: lib.nn.Conv2d(2, 3, 3, padding=1), (2, 2, 4, 4)),
    "conv_transpose2d": (lambda lib: lib.nn.ConvTranspose2d(3, 2, 3), (2, 3, 4, 4)),
}


def paired_layers(torch_ref: ModuleType, layer: str, **options: Any) -> tuple[Any, Any, Any, Any]:
    """The same layer in both libraries, weight-normalised, and one input batch for each."""
    make, shape = LAYERS[layer]
    theirs = make(torch_ref)
    mine = make(minitorch)
    copy_parameters(theirs, mine)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        torch_ref.nn.utils.weight_norm(theirs, **options)
        minitorch.nn.utils.weight_norm(mine, **options)
    array = np.random.default_rng(SEED).standard_normal(shape).astype(np.float32)
    x_mine, x_theirs = both(torch_ref, array)
    return mine, theirs, x_mine, x_theirs


@pytest.mark.parametrize("layer", sorted(LAYERS))
@pytest.mark.parametrize("dim", [0, 1, None, -1])
def test_weight_norm_hook_forward_and_gradients_as_torch(torch_ref: ModuleType, layer: str, dim: Any) -> None:
    mine, theirs, x_mine, x_theirs = paired_layers(torch_ref, layer, dim=dim)
    assert [name for name, _ in mine.named_parameters()] == [name for name, _ in theirs.named_parameters()]
    for name in ("weight_g", "weight_v"):
        assert tuple(getattr(mine, name).shape) == tuple(getattr(theirs, name).shape)
        assert_same(getattr(mine, name), getattr(theirs, name))
    for module, x in ((mine, x_mine), (theirs, x_theirs)):
        (module(x) ** 2).sum().backward()
    assert_same(mine(x_mine), theirs(x_theirs))
    for name in ("weight_g", "weight_v", "bias"):
        assert_same(getattr(mine, name).grad, getattr(theirs, name).grad, rtol=1e-4, atol=1e-5)


def test_weight_norm_hook_recomputes_the_weight_after_a_step(torch_ref: ModuleType) -> None:
    mine, theirs, x_mine, x_theirs = paired_layers(torch_ref, "linear")
    for lib, module, x in ((minitorch, mine, x_mine), (torch_ref, theirs, x_theirs)):
        optimizer = lib.optim.SGD(module.parameters(), lr=0.5)
        for _ in range(3):
            optimizer.zero_grad()
            module(x).pow(2).mean().backward()
            optimizer.step()
        module(x)
    assert_same(mine.weight, theirs.weight, rtol=1e-4)
    # the weight's length is weight_g, row by row: the norm of each row of weight over weight_g is 1
    rows = np.linalg.norm(mine.weight.detach().numpy(), axis=1)
    np.testing.assert_allclose(rows, np.abs(mine.weight_g.detach().numpy().ravel()), rtol=1e-5)


def test_weight_norm_hook_warns_removes_and_refuses_as_torch(torch_ref: ModuleType) -> None:
    for lib in (minitorch, torch_ref):
        with pytest.warns(FutureWarning, match="parametrizations.weight_norm"):
            lib.nn.utils.weight_norm(lib.nn.Linear(2, 2))
    mine, theirs, x_mine, x_theirs = paired_layers(torch_ref, "conv2d")
    for lib, module in ((minitorch, mine), (torch_ref, theirs)):
        assert lib.nn.utils.remove_weight_norm(module) is module
    assert [name for name, _ in mine.named_parameters()] == [name for name, _ in theirs.named_parameters()]
    assert isinstance(mine.weight, minitorch.nn.Parameter)
    assert_same(mine(x_mine), theirs(x_theirs))

    def remove_twice(lib: ModuleType) -> None:
        layer = lib.nn.Linear(2, 2)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            lib.nn.utils.weight_norm(layer)
        lib.nn.utils.remove_weight_norm(layer)
        lib.nn.utils.remove_weight_norm(layer)

    def register_twice(lib: ModuleType) -> None:
        layer = lib.nn.Linear(2, 2)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            lib.nn.utils.weight_norm(layer)
            lib.nn.utils.weight_norm(layer)

    message = same_error(torch_ref, remove_twice)
    assert message.startswith("weight_norm of 'weight' not found in Linear(")
    assert same_error(torch_ref, register_twice) == "Cannot register two weight_norm hooks on the same parameter weight"


def test_a_hook_api_state_dict_loads_into_the_parametrization_in_both_libraries(torch_ref: ModuleType) -> None:
    """PyTorch's migration path: a checkpoint with weight_g and weight_v (the old API) loads into
    ``parametrizations.weight_norm``; the loaded layers compute what the old one did."""
    import torch.nn.utils.parametrizations  # noqa: F401 - a submodule torch does not import by itself

    old, _, x_mine, x_theirs = paired_layers(torch_ref, "conv1d")
    saved = {name: value.numpy() for name, value in old.state_dict().items()}
    assert sorted(saved) == ["bias", "weight_g", "weight_v"]
    outputs = []
    for lib, x in ((minitorch, x_mine), (torch_ref, x_theirs)):
        layer = lib.nn.utils.parametrizations.weight_norm(LAYERS["conv1d"][0](lib))
        result = layer.load_state_dict({name: lib.tensor(value) for name, value in saved.items()})
        assert list(result.missing_keys) == list(result.unexpected_keys) == []
        outputs.append(layer(x))
    assert_same(*outputs)
    assert_same(outputs[0], old(x_mine))


# ---- fusion ----


def trained_batch_norm(lib: ModuleType, norm: Any, channels_shape: tuple[int, ...], affine_seed: int) -> Any:
    """``norm`` with running statistics and affine weights set from NumPy (the same in both libraries)."""
    rng = np.random.default_rng(affine_seed)
    channels = channels_shape[0]
    with lib.no_grad():
        norm.running_mean.copy_(lib.tensor(rng.standard_normal(channels).astype(np.float32)))
        norm.running_var.copy_(lib.tensor(rng.uniform(0.5, 2.0, channels).astype(np.float32)))
        if norm.weight is not None:
            norm.weight.copy_(lib.tensor(rng.uniform(0.5, 1.5, channels).astype(np.float32)))
            norm.bias.copy_(lib.tensor(rng.standard_normal(channels).astype(np.float32)))
    return norm.eval()


FUSIONS = {
    "conv2d": (lambda lib: lib.nn.Conv2d(3, 4, 3), lambda lib: lib.nn.BatchNorm2d(4), (2, 3, 5, 5), False),
    "conv1d no bias": (lambda lib: lib.nn.Conv1d(3, 4, 3, bias=False), lambda lib: lib.nn.BatchNorm1d(4), (2, 3, 6), False),
    "conv2d, bn without affine": (lambda lib: lib.nn.Conv2d(2, 3, 1), lambda lib: lib.nn.BatchNorm2d(3, affine=False),
                                  (1, 2, 3, 3), False),
    "conv_transpose2d": (lambda lib: lib.nn.ConvTranspose2d(3, 2, 3), lambda lib: lib.nn.BatchNorm2d(2), (2, 3, 4, 4), True),
}


@pytest.mark.parametrize("case", sorted(FUSIONS))
def test_fuse_conv_bn_eval_as_torch_and_as_the_unfused_pair(torch_ref: ModuleType, case: str) -> None:
    import torch.nn.utils.fusion  # noqa: F401

    make_conv, make_norm, shape, transpose = FUSIONS[case]
    convs = [make_conv(torch_ref)]
    convs.append(make_conv(minitorch))
    copy_parameters(convs[0], convs[1])
    array = np.random.default_rng(SEED).standard_normal(shape).astype(np.float32)
    outputs = []
    for lib, conv in ((torch_ref, convs[0]), (minitorch, convs[1])):
        conv.eval()
        norm = trained_batch_norm(lib, make_norm(lib), (conv.out_channels,), SEED + 3)
        fused = lib.nn.utils.fusion.fuse_conv_bn_eval(conv, norm, transpose=transpose)
        x = lib.tensor(array)
        assert fused is not conv and fused.bias is not None
        assert fused.weight.requires_grad and fused.bias.requires_grad == (conv.bias is not None)
        np.testing.assert_allclose(fused(x).detach().numpy(), norm(conv(x)).detach().numpy(), rtol=1e-4, atol=1e-5)
        outputs.append((fused.weight, fused.bias))
    for theirs, mine in zip(outputs[0], outputs[1]):
        assert_same(mine, theirs)


def test_fuse_linear_bn_eval_as_torch(torch_ref: ModuleType) -> None:
    import torch.nn.utils.fusion  # noqa: F401

    linears = [torch_ref.nn.Linear(5, 3), minitorch.nn.Linear(5, 3)]
    copy_parameters(linears[0], linears[1])
    array = np.random.default_rng(SEED).standard_normal((4, 5)).astype(np.float32)
    fused_weights = []
    for lib, linear in ((torch_ref, linears[0]), (minitorch, linears[1])):
        linear.eval()
        norm = trained_batch_norm(lib, lib.nn.BatchNorm1d(3), (3,), SEED + 4)
        fused = lib.nn.utils.fusion.fuse_linear_bn_eval(linear, norm)
        x = lib.tensor(array)
        np.testing.assert_allclose(fused(x).detach().numpy(), norm(linear(x)).detach().numpy(), rtol=1e-5, atol=1e-6)
        fused_weights.append((fused.weight, fused.bias))
    for theirs, mine in zip(*fused_weights):
        assert_same(mine, theirs)


def test_fusion_refuses_training_mode_and_mismatched_features_as_torch(torch_ref: ModuleType) -> None:
    import torch.nn.utils.fusion  # noqa: F401

    assert same_error(torch_ref, lambda lib: lib.nn.utils.fusion.fuse_conv_bn_eval(
        lib.nn.Conv2d(1, 2, 1), lib.nn.BatchNorm2d(2))) == "Fusion only for eval!"
    message = same_error(torch_ref, lambda lib: lib.nn.utils.fusion.fuse_linear_bn_eval(
        lib.nn.Linear(2, 3).eval(), lib.nn.BatchNorm1d(2).eval()))
    assert re.search(r"linear.out_features=3 and bn.num_features=2", message)


def test_fusion_keeps_each_dtype(torch_ref: ModuleType) -> None:
    """A float64 convolution beside a float32 batch norm: PyTorch's fused weight and bias keep the convolution's dtypes."""
    import torch.nn.utils.fusion  # noqa: F401

    dtypes = []
    for lib in (minitorch, torch_ref):
        conv = lib.nn.Conv2d(1, 2, 1).double().eval()
        norm = lib.nn.BatchNorm2d(2).eval()
        fused = lib.nn.utils.fusion.fuse_conv_bn_eval(conv, norm)
        dtypes.append((str(fused.weight.dtype).split(".")[-1], str(fused.bias.dtype).split(".")[-1]))
    assert dtypes[0] == dtypes[1] == ("float64", "float64")

"""The 3-D layers (``Conv3d``, ``ConvTranspose3d``, ``MaxPool3d``, ``AvgPool3d``, ``BatchNorm3d``)
against torch 2.13 in float64: outputs, input and parameter gradients, state_dict keys."""

from __future__ import annotations

from types import ModuleType
from typing import Callable

import numpy as np
import pytest

import minitorch

LAYERS: dict[str, Callable[[ModuleType], "object"]] = {
    "conv": lambda nn: nn.Conv3d(2, 3, (2, 3, 2), stride=(1, 2, 1), padding=1),
    "conv groups dilation": lambda nn: nn.Conv3d(2, 4, 2, dilation=(2, 1, 1), groups=2, bias=False),
    "conv same reflect": lambda nn: nn.Conv3d(2, 2, 3, padding="same", padding_mode="reflect"),
    "transposed": lambda nn: nn.ConvTranspose3d(2, 3, 2, stride=2, padding=(0, 1, 0), output_padding=(1, 0, 0)),
    "max pool": lambda nn: nn.MaxPool3d((2, 2, 3), stride=(1, 2, 2), padding=1),
    "max pool ceil": lambda nn: nn.MaxPool3d(2, ceil_mode=True),
    "avg pool": lambda nn: nn.AvgPool3d(2, stride=1, padding=1, count_include_pad=False),
    "batch norm": lambda nn: nn.BatchNorm3d(2),
}


@pytest.mark.parametrize("name", sorted(LAYERS))
def test_layer_equals_torch(torch_ref: ModuleType, name: str) -> None:
    x = np.random.default_rng(3).normal(size=(2, 2, 4, 5, 6))
    upstream = None
    results = []
    for lib in (minitorch, torch_ref):
        lib.manual_seed(0)
        layer = LAYERS[name](lib.nn).double()
        with lib.no_grad():
            for index, parameter in enumerate(layer.parameters()):  # the same weights in both
                parameter.copy_(lib.tensor(np.random.default_rng(index).normal(size=tuple(parameter.shape))))
        inputs = lib.tensor(x, requires_grad=True)
        out = layer(inputs)
        if upstream is None:
            upstream = np.random.default_rng(9).normal(size=tuple(out.shape))
        (out * lib.tensor(upstream)).sum().backward()
        results.append((out.detach().numpy(), inputs.grad.numpy(), [p.grad.numpy() for p in layer.parameters()],
                        list(layer.state_dict())))
    (out, grad, grads, keys), (t_out, t_grad, t_grads, t_keys) = results
    np.testing.assert_allclose(out, t_out, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(grad, t_grad, rtol=1e-10, atol=1e-12)
    for ours, theirs in zip(grads, t_grads):
        np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12)
    assert keys == t_keys


def test_shape_errors_equal_torch(torch_ref: ModuleType) -> None:
    for lib_call in (lambda lib: lib.nn.Conv3d(2, 3, 2)(lib.zeros(2, 5, 5)),
                     lambda lib: lib.nn.BatchNorm3d(2)(lib.zeros(2, 2, 3, 3))):
        with pytest.raises((RuntimeError, ValueError)) as theirs:
            lib_call(torch_ref)
        with pytest.raises((RuntimeError, ValueError)) as ours:
            lib_call(minitorch)
        assert type(ours.value) is type(theirs.value) and str(ours.value) == str(theirs.value)

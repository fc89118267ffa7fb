"""In-place activations (``nn.ReLU(inplace=True)``, ``F.silu(x, inplace=True)``, ...) record the
activation itself as the tensor's ``grad_fn``, named as PyTorch's in-place overload, and compute
it from the old values: no copy node, and no false "modified by an inplace operation" error in
backward for the activations whose formula reads the input (SiLU, Hardswish, Mish). Found by the
style transfer corpus script. PyTorch is the oracle.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, Callable

import numpy as np
import pytest

import minitorch

Activation = Callable[[ModuleType, Any], Any]

ACTIVATIONS: dict[str, Activation] = {
    "relu": lambda lib, y: lib.nn.functional.relu(y, inplace=True),
    "relu_module": lambda lib, y: lib.nn.ReLU(inplace=True)(y),
    "relu_": lambda lib, y: lib.nn.functional.relu_(y),
    "leaky_relu": lambda lib, y: lib.nn.LeakyReLU(0.1, inplace=True)(y),
    "elu": lambda lib, y: lib.nn.ELU(inplace=True)(y),
    "selu": lambda lib, y: lib.nn.functional.selu(y, inplace=True),
    "celu": lambda lib, y: lib.nn.functional.celu(y, 0.5, inplace=True),
    "hardtanh": lambda lib, y: lib.nn.functional.hardtanh(y, inplace=True),
    "relu6": lambda lib, y: lib.nn.ReLU6(inplace=True)(y),
    "silu": lambda lib, y: lib.nn.SiLU(inplace=True)(y),
    "hardswish": lambda lib, y: lib.nn.Hardswish(inplace=True)(y),
    "mish": lambda lib, y: lib.nn.Mish(inplace=True)(y),
    "threshold": lambda lib, y: lib.nn.functional.threshold(y, 0.5, -1.0, inplace=True),
    "rrelu_eval": lambda lib, y: lib.nn.functional.rrelu(y, training=False, inplace=True),
}

VALUES = [1.5, -2.0, 0.3, 4.0, -0.7]
WEIGHTS = [1.0, 2.0, 3.0, 4.0, 5.0]


def _run(lib: ModuleType, name: str) -> tuple[str, bool, np.ndarray, np.ndarray]:
    x = lib.tensor(VALUES, dtype=lib.float64, requires_grad=True)
    y = x * 1
    out = ACTIVATIONS[name](lib, y)
    node = type(y.grad_fn).__name__
    (out * lib.tensor(WEIGHTS, dtype=lib.float64)).sum().backward()
    return node, out is y, np.asarray(y.tolist()), np.asarray(x.grad.tolist())


@pytest.mark.parametrize("name", list(ACTIVATIONS))
def test_inplace_activation_node_and_gradient_match_torch(name: str, torch_ref: ModuleType) -> None:
    node, same, values, grad = _run(minitorch, name)
    node_ref, same_ref, values_ref, grad_ref = _run(torch_ref, name)
    assert (node, same) == (node_ref, same_ref)
    np.testing.assert_allclose(values, values_ref, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(grad, grad_ref, rtol=1e-12, atol=1e-14)


def test_inplace_relu_prints_its_node(torch_ref: ModuleType) -> None:
    prints = []
    for lib in (minitorch, torch_ref):
        y = lib.tensor([1.0, -1.0], requires_grad=True) * 2
        prints.append(repr(lib.nn.ReLU(inplace=True)(y)))
    assert prints[0] == prints[1]


def test_inplace_activation_without_grad_keeps_the_node(torch_ref: ModuleType) -> None:
    names = []
    for lib in (minitorch, torch_ref):
        y = lib.tensor(VALUES, dtype=lib.float64, requires_grad=True) * 1
        with lib.no_grad():
            lib.nn.functional.leaky_relu(y, 0.1, inplace=True)
        names.append((type(y.grad_fn).__name__, y._version, y.tolist()))
    assert names[0] == names[1]


def test_inplace_activation_on_a_view_matches_torch(torch_ref: ModuleType) -> None:
    results = []
    for lib in (minitorch, torch_ref):
        x = lib.tensor(VALUES, dtype=lib.float64, requires_grad=True)
        y = x * 1
        lib.nn.functional.silu(y[1:4], inplace=True)
        (y * lib.tensor(WEIGHTS, dtype=lib.float64)).sum().backward()
        results.append((type(y.grad_fn).__name__, np.asarray(y.tolist()), np.asarray(x.grad.tolist())))
    (node, values, grad), (node_ref, values_ref, grad_ref) = results
    assert node == node_ref
    np.testing.assert_allclose(values, values_ref, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(grad, grad_ref, rtol=1e-12, atol=1e-14)


def test_inplace_activation_on_a_leaf_is_refused_as_torch(torch_ref: ModuleType) -> None:
    messages = []
    for lib in (minitorch, torch_ref):
        with pytest.raises(RuntimeError) as error:
            lib.nn.functional.silu(lib.tensor(VALUES, requires_grad=True), inplace=True)
        messages.append(str(error.value))
    assert messages[0] == messages[1]

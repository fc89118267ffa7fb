"""What a user's ``autograd.Function`` backward receives and what its gradients become, as in
PyTorch: zeros for an output no gradient reached (``ctx.set_materialize_grads``), and a
gradient of another dtype cast to the input's."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np
import pytest

import minitorch
from torch_oracle import import_torch

torch = import_torch()


def two_outputs(lib: ModuleType, materialize: bool) -> Any:
    class Two(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.set_materialize_grads(materialize)
            return x * 2, x.sin()

        @staticmethod
        def backward(ctx: Any, grad_double: Any, grad_sin: Any) -> Any:
            ctx.seen = (grad_double is None, grad_sin is None)  # what arrived, kept for the test
            total = 0
            if grad_double is not None:
                total = total + grad_double * 2
            if grad_sin is not None:
                total = total + grad_sin * 0.5  # a deliberately simple rule: only the plumbing is tested
            return total

    return Two


@pytest.mark.parametrize("materialize", [True, False])
@pytest.mark.parametrize("used", ["first", "second", "both"])
def test_unreached_outputs_get_zeros_unless_switched_off(materialize: bool, used: str) -> None:
    outcomes = []
    for lib in (minitorch, torch):
        x = lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64, requires_grad=True)
        double, sine = two_outputs(lib, materialize).apply(x)
        loss = {"first": double.sum(), "second": (sine * 3).sum(), "both": double.sum() + sine.sum()}[used]
        loss.backward()
        outcomes.append((double.grad_fn.ctx.seen if lib is minitorch else None, x.grad.tolist()))
    assert outcomes[0][1] == outcomes[1][1]
    expected_none = (used == "second" and not materialize, used == "first" and not materialize)
    assert outcomes[0][0] == expected_none


def test_materialized_zeros_have_the_output_shape_and_dtype() -> None:
    shapes = []

    class Shapes(minitorch.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            return x.sum(0), x.double()

        @staticmethod
        def backward(ctx: Any, grad_sum: Any, grad_double: Any) -> Any:
            shapes.append((tuple(grad_sum.shape), grad_sum.dtype, tuple(grad_double.shape), grad_double.dtype))
            return grad_sum.expand(2, 3) + grad_double.float()

    x = minitorch.ones(2, 3, requires_grad=True)
    Shapes.apply(x)[1].sum().backward()
    assert shapes == [((3,), minitorch.float32, (2, 3), minitorch.float64)]
    np.testing.assert_array_equal(x.grad.numpy(), np.ones((2, 3)))


def float32_backward(lib: ModuleType) -> Any:
    class Float32Backward(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            return x * 3

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            return (grad * 3).float()

    return Float32Backward


def test_a_gradient_of_another_dtype_is_cast_to_the_leaf_and_input_dtype() -> None:
    results = []
    for lib in (minitorch, torch):
        x = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        float32_backward(lib).apply(x).sum().backward()
        (captured,) = lib.autograd.grad(float32_backward(lib).apply(x).sum(), x)
        results.append((str(x.grad.dtype).split(".")[-1], x.grad.tolist(), str(captured.dtype).split(".")[-1]))
    assert results[0] == results[1] == ("float64", [3.0, 3.0], "float64")

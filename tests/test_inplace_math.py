"""The in-place math ops (``x.sin_()``) and the top-level in-place functions (``torch.relu_``),
against PyTorch: values, dtype, gradient through the in-place op, and its grad_fn name."""

from __future__ import annotations

from types import ModuleType

import numpy as np
import pytest

import minitorch
from minitorch.ops.inplace_math import TOP_LEVEL, UNARY

#: inside every op's domain (acosh needs values >= 1: it gets these plus one)
VALUES = [0.3, 0.45, 0.6]
NEEDS_AT_LEAST_ONE = {"acosh", "arccosh"}
#: PyTorch has no derivative for these in place ("the derivative for 'inplace version of acosh'
#: is not implemented"); minitorch has one, checked against the out-of-place op's instead
NO_TORCH_INPLACE_DERIVATIVE = {"asinh", "acosh", "atanh", "arcsinh", "arccosh", "arctanh", "sgn"}


@pytest.mark.parametrize("name", UNARY)
def test_inplace_method_as_torch(name: str, torch_ref: ModuleType) -> None:
    results = []
    for lib in (minitorch, torch_ref):
        start = [v + 1 for v in VALUES] if name in NEEDS_AT_LEAST_ONE else VALUES
        leaf = lib.tensor(start, dtype=lib.float64, requires_grad=True)
        x = leaf * 1
        if lib is torch_ref and name in NO_TORCH_INPLACE_DERIVATIVE:
            x = getattr(x, name)()  # the out-of-place op: its gradient is the oracle
        else:
            assert getattr(x, f"{name}_")() is x
        x.sum().backward()
        # "* 1": PyTorch answers some zero gradients (sgn) with a storage-less zero tensor
        grad = (leaf.grad + lib.zeros_like(leaf)).tolist() if leaf.grad is not None else None
        results.append((x.detach().tolist(), grad, type(x.grad_fn).__name__))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-12)
    if results[1][1] is not None:
        np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-12)
    if name not in NO_TORCH_INPLACE_DERIVATIVE:
        assert results[0][2] == results[1][2]


@pytest.mark.parametrize("name", TOP_LEVEL)
def test_top_level_inplace_function_as_torch(name: str, torch_ref: ModuleType) -> None:
    args = {"fill_": (2.5,)}.get(name, ())
    results = []
    for lib in (minitorch, torch_ref):
        x = lib.tensor(VALUES, dtype=lib.float64) + (1 if name.rstrip("_") in NEEDS_AT_LEAST_ONE else 0)
        assert getattr(lib, name)(x, *args) is x
        results.append(x.tolist())
    np.testing.assert_allclose(results[0], results[1], rtol=1e-12)


def test_inplace_math_keeps_an_integer_dtype_or_refuses_as_torch(torch_ref: ModuleType) -> None:
    messages = []
    for lib in (minitorch, torch_ref):
        x = lib.tensor([1, 2, 3])
        with pytest.raises(RuntimeError) as caught:
            x.sin_()
        messages.append(str(caught.value).replace("minitorch", "torch"))
    assert messages[0] == messages[1]

"""The in-place math ops (``x.sin_()``) and the top-level in-place functions (``torch.relu_``),
against PyTorch: values, dtype, gradient through the in-place op, and its grad_fn name."""

from __future__ import annotations

from types import ModuleType

import numpy as np
import pytest

import minitorch
from minitorch.ops.inplace_math import TOP_LEVEL, UNARY, WITH_OPERANDS

#: inside every op's domain (acosh needs values >= 1: it gets these plus one)
VALUES = [0.3, 0.45, 0.6]
NEEDS_AT_LEAST_ONE = {"acosh", "arccosh"}
#: PyTorch has no derivative for these in place ("the derivative for 'inplace version of acosh'
#: is not implemented"); minitorch has one, checked against the out-of-place op's instead
NO_TORCH_INPLACE_DERIVATIVE = {"asinh", "acosh", "atanh", "arcsinh", "arccosh", "arctanh", "sgn"}
#: digamma's derivative is the trigamma function, which PyTorch computes to about 5e-10 only
GRAD_RTOL = {"digamma": 1e-9}


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
        np.testing.assert_allclose(results[0][1], results[1][1], rtol=GRAD_RTOL.get(name, 1e-12))
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


#: each op's other operands, made in either library (values inside every op's domain)
OPERANDS = {
    "addmv": lambda lib: (lib.tensor([[0.5, 1.0], [2.0, -1.0], [0.25, 0.75]], dtype=lib.float64),
                          lib.tensor([1.5, -0.5], dtype=lib.float64)),
    "addr": lambda lib: (lib.tensor([1.0, 2.0, -1.0], dtype=lib.float64), lib.tensor([-2.0], dtype=lib.float64)),
    "logical_not": lambda lib: (),
    "cumsum": lambda lib: (0,),
    "cumprod": lambda lib: (0,),
    "polygamma": lambda lib: (2,),
    "mvlgamma": lambda lib: (2,),
}
#: not differentiable (PyTorch records no gradient through them; their results compare as values)
NOT_DIFFERENTIABLE = {"logical_not", "heaviside", "eq", "ne", "not_equal", "ge", "gt", "le", "lt", "greater", "greater_equal", "less", "less_equal",
                      "logical_and", "logical_or", "logical_xor", "floor_divide"}


def _operands(lib: ModuleType, name: str) -> tuple:
    if name in OPERANDS:
        return OPERANDS[name](lib)
    return (lib.tensor([0.45, 0.3, 0.9], dtype=lib.float64),)


@pytest.mark.parametrize("name", WITH_OPERANDS)
def test_inplace_method_with_operands_as_torch(name: str, torch_ref: ModuleType) -> None:
    results = []
    for lib in (minitorch, torch_ref):
        leaf = lib.tensor(VALUES, dtype=lib.float64, requires_grad=name not in NOT_DIFFERENTIABLE)
        x = leaf.view(3, 1) * 1 if name == "addr" else leaf * 1  # addr_ adds an outer product: a matrix
        version = x._version
        with (lib.no_grad() if name in NOT_DIFFERENTIABLE else lib.enable_grad()):
            assert getattr(x, f"{name}_")(*_operands(lib, name)) is x
        assert x._version > version and x.dtype == lib.float64
        if leaf.requires_grad:
            (x.view(3) * lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64)).sum().backward()
        results.append((x.detach().tolist(), None if leaf.grad is None else leaf.grad.tolist()))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-12)
    assert (results[0][1] is None) == (results[1][1] is None)
    if results[1][1] is not None:
        np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-12)


@pytest.mark.parametrize("operator", ["//=", "%="])
@pytest.mark.parametrize("dtype", ["int64", "float32"])
def test_augmented_floor_division_and_remainder_write_in_place(operator: str, dtype: str, torch_ref: ModuleType) -> None:
    """``x //= 2`` must change ``x`` for every holder of it, as ``x += 2`` does."""
    results = []
    for lib in (minitorch, torch_ref):
        x = lib.tensor([-7, -2, 5, 9], dtype=getattr(lib, dtype))
        scope = {"y": x}
        exec(f"y {operator} 4", scope)  # noqa: S102 - a fixed statement
        assert scope["y"] is x
        results.append((x.tolist(), str(x.dtype).rsplit(".", 1)[-1], x._version))
    assert results[0] == results[1]

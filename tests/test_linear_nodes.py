"""``F.linear`` records its graph as PyTorch does (``AddmmBackward0`` with the bias, input and a
``TBackward0`` before the weight; ``ViewBackward0`` over it for other than 2-D inputs), with
PyTorch's values and gradients. PyTorch is the oracle."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np
import pytest

import minitorch

SHAPES = [(4, 3), (3,), (2, 4, 3), (2, 1, 2, 3), (0, 3)]


def _run(lib: ModuleType, shape: tuple[int, ...], bias: bool) -> tuple[Any, ...]:
    gen = np.random.default_rng(7)
    flat = gen.standard_normal(int(np.prod(shape))).tolist()
    x = lib.tensor(flat, dtype=lib.float64).reshape(shape).detach().requires_grad_()  # (0, 3) has no list form
    w = lib.tensor(gen.standard_normal((2, 3)).tolist(), dtype=lib.float64, requires_grad=True)
    b = lib.tensor([0.5, -1.5], dtype=lib.float64, requires_grad=True) if bias else None
    out = lib.nn.functional.linear(x, w, b)
    top = out.grad_fn
    wrapped = type(top).__name__ in ("ViewBackward0", "UnsafeViewBackward0", "SqueezeBackward4")
    inner = top.next_functions[0][0] if wrapped else top
    names = (type(top).__name__, type(inner).__name__,
             [None if n is None else type(n).__name__ for n, _ in inner.next_functions])
    (out * lib.arange(out.numel(), dtype=lib.float64).view(out.shape)).sum().backward()
    grads = [np.asarray(t.grad.tolist()) for t in (x, w, b) if t is not None]
    return names, np.asarray(out.tolist()), grads


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_linear_matches_torch(shape: tuple[int, ...], bias: bool, torch_ref: ModuleType) -> None:
    names, out, grads = _run(minitorch, shape, bias)
    names_ref, out_ref, grads_ref = _run(torch_ref, shape, bias)
    if len(shape) == 2 or bias:  # torch's no-bias views are Squeeze/UnsafeView nodes, ours a View
        assert names == names_ref
    else:
        assert names[1:] == names_ref[1:]
    np.testing.assert_allclose(out, out_ref, rtol=1e-12)
    for mine, theirs in zip(grads, grads_ref):
        np.testing.assert_allclose(mine, theirs, rtol=1e-12, atol=1e-14)


def test_a_weight_changed_in_place_before_backward_is_an_error_as_in_torch() -> None:
    layer = minitorch.nn.Linear(3, 2)
    out = layer(minitorch.ones(4, 3, requires_grad=True)).sum()
    with minitorch.no_grad():
        layer.weight.add_(1.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.backward()

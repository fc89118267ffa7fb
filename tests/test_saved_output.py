"""An op that saves its own output for backward (``exp``, ``relu``, ``sigmoid``, ...) keeps it
without a reference cycle through its node, as PyTorch's saved variables do: an output dropped
without a backward is freed at once, not by the next garbage collection. Backward, double
backward and the in-place version check still read it.

Freed-ness is observed with a weak reference while the cyclic garbage collector is off.
"""

from __future__ import annotations

import gc
import weakref
from typing import Callable, Iterator

import numpy as np
import pytest

import minitorch
from gradcheck import gradcheck

OPS: dict[str, Callable[[minitorch.Tensor], minitorch.Tensor]] = {
    "exp": lambda x: x.exp(),
    "relu": lambda x: x.relu(),
    "sigmoid": lambda x: x.sigmoid(),
    "tanh": lambda x: x.tanh(),
    "softmax": lambda x: x.softmax(dim=-1),
    "sqrt": lambda x: (x * x + 1).sqrt(),
}


@pytest.fixture
def collector_off() -> Iterator[None]:
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


@pytest.mark.parametrize("op", OPS.values(), ids=OPS.keys())
def test_an_output_dropped_without_backward_is_freed_at_once(op, collector_off) -> None:
    x = minitorch.randn(4, 5, requires_grad=True)
    out = op(x)
    assert out.grad_fn is not None
    alive = weakref.ref(out)
    node = weakref.ref(out.grad_fn)
    del out
    assert alive() is None and node() is None


@pytest.mark.parametrize("op", OPS.values(), ids=OPS.keys())
def test_gradients_through_a_saved_output_match_central_differences(op) -> None:
    x = minitorch.tensor(np.random.default_rng(3).standard_normal((3, 4)), requires_grad=True)
    gradcheck(op, x, atol=1e-7, rtol=1e-5)


def test_double_backward_runs_through_the_saved_output() -> None:
    """``d/dx exp(x) = exp(x)`` is built from the saved output: its own gradient is ``exp(x)`` again."""
    values = np.array([-1.0, 0.0, 0.5, 2.0])
    x = minitorch.tensor(values, requires_grad=True)
    (first,) = minitorch.autograd.grad(x.exp().sum(), x, create_graph=True)
    assert first.grad_fn is not None
    (second,) = minitorch.autograd.grad(first.sum(), x)
    np.testing.assert_allclose(first.detach().numpy(), np.exp(values), rtol=1e-12)
    np.testing.assert_allclose(second.numpy(), np.exp(values), rtol=1e-12)


def test_a_saved_output_changed_in_place_is_reported_with_its_op() -> None:
    """PyTorch 2.13 names the op that saved the tensor (``Exp``), not the in-place op that
    changed it since (``Add``, the tensor's ``grad_fn`` now)."""
    x = minitorch.tensor([0.5, 1.0, 2.0], requires_grad=True)
    out = x.exp()
    out.add_(1)
    with pytest.raises(RuntimeError, match=r"\[torch.FloatTensor \[3\]\], which is output 0 of Exp, is at version 1; "
                                           r"expected version 0 instead"):
        out.sum().backward()


def test_an_in_place_op_on_a_non_leaf_still_reads_the_tensor_it_wrote(collector_off) -> None:
    """``h.relu_()`` saves its result into ``h``: backward reads ``h``, and a later change to ``h`` is an error."""
    x = minitorch.tensor([-1.0, 0.5, 2.0], requires_grad=True)
    h = x * 2
    h.relu_()
    (h * minitorch.tensor([1.0, 2.0, 3.0])).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 4.0, 6.0])
    h2 = x * 2
    h2.relu_()
    h2.mul_(3)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        h2.sum().backward()

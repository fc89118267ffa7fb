"""Task 10.2: the Linear + ReLU fusion pass. The fused graph's node sequence, submodules and
``state_dict`` keys against ``torch.ao.quantization.quantize_fx.fuse_fx`` on the same model
written for PyTorch; outputs and gradients against the unfused model."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import minitorch
from minitorch import nn
from minitorch.fx import GraphModule, symbolic_trace
from minitorch.fx.passes.fuse_linear_relu import LinearReLU, fuse_linear_relu

pytestmark = pytest.mark.task("10.2")


def _models(lib: Any) -> dict[str, tuple[Any, tuple[int, ...]]]:
    """The same models written against ``lib`` (minitorch or torch), with an input shape."""
    lnn, F = lib.nn, lib.nn.functional

    def stack() -> Any:
        return lnn.Sequential(lnn.Linear(3, 4), lnn.ReLU(), lnn.Linear(4, 4), lnn.ReLU(), lnn.Linear(4, 2))

    class Mixed(lnn.Module):
        """A module ReLU, an F.relu, a Linear read twice (not fused) and a shared ReLU module."""

        def __init__(self) -> None:
            super().__init__()
            self.a, self.b, self.c, self.d = lnn.Linear(3, 4), lnn.Linear(4, 4), lnn.Linear(4, 4), lnn.Linear(4, 2)
            self.act = lnn.ReLU()

        def forward(self, x: Any) -> Any:
            x = self.act(self.a(x))
            x = F.relu(self.b(x))
            y = self.c(x)
            z = self.act(y) + y  # c's output has two users: left alone
            return self.act(self.d(z))

    class NotALinear(lnn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fc, self.act = lnn.Linear(3, 3), lnn.ReLU()

        def forward(self, x: Any) -> Any:
            return self.act(self.fc(x) * 2)  # the ReLU reads a mul, not the Linear

    return {"stack": (stack, (2, 3)), "mixed": (Mixed, (2, 3)), "not_a_linear": (NotALinear, (2, 3))}


def _signature(gm: Any) -> list[tuple[str, str]]:
    """(op, target) per node; functions by name, so minitorch's and torch's compare."""
    return [(n.op, n.target if isinstance(n.target, str) else n.target.__name__) for n in gm.graph.nodes]


def _children(gm: Any) -> dict[str, str]:
    return {name: type(child).__name__ for name, child in gm.named_children()}


@pytest.fixture
def fuse_fx(torch_ref: Any) -> Any:
    from torch.ao.quantization.quantize_fx import fuse_fx

    return fuse_fx


@pytest.mark.parametrize("name", ["stack", "mixed", "not_a_linear"])
def test_fused_graph_matches_torch_fuse_fx(torch_ref: Any, fuse_fx: Any, name: str) -> None:
    ours_factory, _ = _models(minitorch)[name]
    theirs_factory, _ = _models(torch_ref)[name]
    fused, theirs = fuse_linear_relu(ours_factory().eval()), fuse_fx(theirs_factory().eval())
    assert isinstance(fused, GraphModule)
    assert _signature(fused) == _signature(theirs)
    assert _children(fused) == _children(theirs)
    assert list(fused.state_dict()) == list(theirs.state_dict())


def test_the_stack_by_hand() -> None:
    """Two of the three Linears have a ReLU after them; the ReLU modules are gone."""
    fused = fuse_linear_relu(_models(minitorch)["stack"][0]())
    assert _signature(fused) == [("placeholder", "input"), ("call_module", "0"), ("call_module", "2"),
                                 ("call_module", "4"), ("output", "output")]
    assert isinstance(fused.get_submodule("0"), LinearReLU) and isinstance(fused.get_submodule("4"), nn.Linear)
    assert not hasattr(fused, "1") and not hasattr(fused, "3")
    assert "relu" not in fused.code


@pytest.mark.parametrize("name", ["stack", "mixed", "not_a_linear"])
def test_fused_model_computes_the_same_outputs_and_gradients(name: str) -> None:
    factory, shape = _models(minitorch)[name]
    minitorch.manual_seed(0)
    model = factory().double()
    fused = fuse_linear_relu(model)
    x = minitorch.randn(*shape, dtype=minitorch.float64, requires_grad=True)
    expected = model(x)
    expected.sum().backward()
    expected_grad = x.grad.detach().numpy().copy()
    x.grad = None
    got = fused(x)
    got.sum().backward()
    np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(x.grad.detach().numpy(), expected_grad, rtol=1e-12, atol=1e-15)


def test_the_fused_module_holds_the_original_weights_and_the_model_is_untouched() -> None:
    minitorch.manual_seed(0)
    model = _models(minitorch)["stack"][0]()
    before = {key: value.detach().numpy().copy() for key, value in model.state_dict().items()}
    fused = fuse_linear_relu(model)
    np.testing.assert_array_equal(fused.state_dict()["0.0.weight"].detach().numpy(), before["0.weight"])
    np.testing.assert_array_equal(fused.state_dict()["2.0.bias"].detach().numpy(), before["2.bias"])
    assert list(model.state_dict()) == list(before)  # the pass worked on a copy
    assert [type(m).__name__ for m in model.children()] == ["Linear", "ReLU", "Linear", "ReLU", "Linear"]
    assert fused.get_submodule("0.0").weight is not model.get_submodule("0").weight


def test_a_traced_module_is_fused_too_and_fusing_twice_changes_nothing() -> None:
    gm = symbolic_trace(_models(minitorch)["mixed"][0]())
    once = fuse_linear_relu(gm)
    assert _children(once) == {"a": "LinearReLU", "b": "LinearReLU", "c": "Linear", "d": "LinearReLU", "act": "ReLU"}
    twice = fuse_linear_relu(once)
    assert _signature(twice) == _signature(once) and _children(twice) == _children(once)

"""minitorch.fx against torch.fx: same node sequences, same outputs, graph edits, passes."""

from __future__ import annotations

import operator
import time
from typing import Any

import numpy as np
import pytest

import minitorch
from minitorch.fx import GraphModule, Interpreter, TraceError, Transformer, symbolic_trace
from minitorch.fx.passes.fuse_conv_bn import fuse
from minitorch.fx.passes.shape_prop import ShapeProp


def _models(lib: Any) -> dict[str, Any]:
    """The same model classes written against ``lib`` (minitorch or torch)."""
    nn, F = lib.nn, lib.nn.functional

    class MLP(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fc1, self.fc2 = nn.Linear(6, 8), nn.Linear(8, 3)

        def forward(self, x: Any) -> Any:
            return self.fc2(lib.relu(self.fc1(x)))

    class LeNet(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv1, self.conv2 = nn.Conv2d(1, 2, 3), nn.Conv2d(2, 4, 3)
            self.pool = nn.MaxPool2d(2)
            self.fc = nn.Linear(4, 5)

        def forward(self, x: Any) -> Any:
            x = self.pool(F.relu(self.conv1(x)))
            x = F.relu(self.conv2(x))
            x = x.view(x.shape[0], -1)
            return F.log_softmax(self.fc(x), dim=1)

    class ResBlock(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.body = nn.Sequential(nn.Conv2d(2, 2, 3, padding=1), nn.BatchNorm2d(2), nn.ReLU(),
                                      nn.Conv2d(2, 2, 3, padding=1), nn.BatchNorm2d(2))

        def forward(self, x: Any) -> Any:
            return F.relu(self.body(x) + x)

    class Block(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.ln1, self.ln2 = nn.LayerNorm(8), nn.LayerNorm(8)
            self.qkv, self.proj = nn.Linear(8, 24), nn.Linear(8, 8)
            self.mlp = nn.Sequential(nn.Linear(8, 16), nn.GELU(), nn.Linear(16, 8))

        def forward(self, x: Any) -> Any:
            q, k, v = self.qkv(self.ln1(x)).chunk(3, dim=-1)
            att = lib.softmax(q @ k.transpose(-2, -1) / 8 ** 0.5, dim=-1)
            x = x + self.proj(att @ v)
            return x + self.mlp(self.ln2(x))

    return {"mlp": (MLP, (2, 6)), "lenet": (LeNet, (2, 1, 8, 8)), "resblock": (ResBlock, (2, 2, 4, 4)),
            "block": (Block, (2, 3, 8))}


def _signature(gm: Any) -> list[tuple[str, str, str]]:
    def target(t: Any) -> str:
        return t if isinstance(t, str) else t.__name__
    return [(n.op, n.name, target(n.target)) for n in gm.graph.nodes]


@pytest.mark.parametrize("name", ["mlp", "lenet", "resblock", "block"])
def test_trace_matches_torch_and_module(torch_ref: Any, name: str) -> None:
    ours_cls, shape = _models(minitorch)[name]
    theirs_cls, _ = _models(torch_ref)[name]
    model = ours_cls().eval()
    gm = symbolic_trace(model)
    assert _signature(gm) == _signature(torch_ref.fx.symbolic_trace(theirs_cls()))
    gm.graph.lint()
    x = minitorch.randn(*shape, dtype=minitorch.float64)
    model = model.double()
    gm = symbolic_trace(model)
    np.testing.assert_allclose(gm(x).detach().numpy(), model(x).detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(Interpreter(gm).run(x).detach().numpy(), model(x).detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(Transformer(gm).transform()(x).detach().numpy(), model(x).detach().numpy(), rtol=1e-12)


def test_control_flow_raises_trace_error(torch_ref: Any) -> None:
    def f(x: Any) -> Any:
        return x if x.sum() > 0 else -x

    with pytest.raises(torch_ref.fx.proxy.TraceError) as theirs:
        torch_ref.fx.symbolic_trace(f)
    with pytest.raises(TraceError) as ours:
        symbolic_trace(f)
    assert str(ours.value) == str(theirs.value)


def test_replace_relu_by_gelu_changes_output() -> None:
    model = _models(minitorch)["mlp"][0]().double()
    gm = symbolic_trace(model)
    for node in gm.graph.nodes:
        if node.op == "call_function" and node.target.__name__ == "relu":
            with gm.graph.inserting_after(node):
                gelu = gm.graph.call_function(minitorch.nn.functional.gelu, node.args)
            node.replace_all_uses_with(gelu)
            gm.graph.erase_node(node)
    gm.graph.lint()
    gm.recompile()
    assert "gelu" in gm.code
    x = minitorch.randn(3, 6, dtype=minitorch.float64)
    expected = model.fc2(minitorch.nn.functional.gelu(model.fc1(x)))
    np.testing.assert_allclose(gm(x).detach().numpy(), expected.detach().numpy(), rtol=1e-12)


def test_dead_code_and_erase_errors() -> None:
    def f(x: Any) -> Any:
        unused = x * 2  # noqa: F841 - dead on purpose
        return x + 1

    gm = symbolic_trace(f)
    assert [n.name for n in gm.graph.nodes] == ["x", "mul", "add", "output"]
    with pytest.raises(RuntimeError, match="still had 2 users"):
        gm.graph.erase_node(gm.graph.nodes[0])
    assert gm.graph.eliminate_dead_code()
    assert [n.target for n in gm.graph.nodes if n.op == "call_function"] == [operator.add]
    gm.recompile()
    assert float(gm(minitorch.tensor([1.0])).item()) == 2.0


def test_shape_prop_records_shapes() -> None:
    model = _models(minitorch)["lenet"][0]()
    gm = symbolic_trace(model)
    ShapeProp(gm).propagate(minitorch.randn(2, 1, 8, 8))
    shapes = {n.name: tuple(n.meta["tensor_meta"].shape) for n in gm.graph.nodes if "tensor_meta" in n.meta}
    # hand-derived: 8x8 -conv3-> 6x6 -pool2-> 3x3 -conv3-> 1x1
    assert shapes["conv1"] == (2, 2, 6, 6) and shapes["pool"] == (2, 2, 3, 3)
    assert shapes["conv2"] == (2, 4, 1, 1) and shapes["fc"] == (2, 5)


def test_fuse_conv_bn_matches_unfused() -> None:
    model = _models(minitorch)["resblock"][0]()
    for bn in (model.body[1], model.body[4]):  # non-trivial running statistics
        bn.running_mean = minitorch.randn(2)
        bn.running_var = minitorch.rand(2) + 0.5
    model.eval()
    fused = fuse(model)
    assert not any(type(m).__name__ == "BatchNorm2d" for m in fused.modules())
    assert sum(n.op == "call_module" for n in fused.graph.nodes) == 3
    x = minitorch.randn(2, 2, 4, 4)
    np.testing.assert_allclose(fused(x).detach().numpy(), model(x).detach().numpy(), atol=1e-5)


def test_per_node_timing_interpreter() -> None:
    class Timer(Interpreter):
        def __init__(self, module: GraphModule) -> None:
            super().__init__(module)
            self.seconds: dict[str, float] = {}

        def run_node(self, n: Any) -> Any:
            start = time.perf_counter()
            result = super().run_node(n)
            self.seconds[n.name] = time.perf_counter() - start
            return result

    gm = symbolic_trace(_models(minitorch)["mlp"][0]())
    timer = Timer(gm)
    timer.run(minitorch.randn(2, 6))
    assert list(timer.seconds) == [n.name for n in gm.graph.nodes]
    assert all(s >= 0 for s in timer.seconds.values())

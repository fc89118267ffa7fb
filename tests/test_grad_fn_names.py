"""``grad_fn`` names and ``next_functions`` as PyTorch prints them, PyTorch as the oracle."""

from __future__ import annotations

from types import ModuleType
from typing import Any, Callable, Optional

import numpy as np
import pytest

import minitorch

Expression = Callable[[ModuleType, Any, Any], Any]


def _node_name(node: Any) -> Optional[str]:
    """The class name a node prints as (``AccumulateGrad`` for a leaf's), or None."""
    if node is None:
        return None
    name = node.name()
    return name.rsplit("::", 1)[-1]  # PyTorch's C++ nodes carry their namespace in name()


def _graph_names(out: Any) -> tuple[Optional[str], list[Optional[str]]]:
    node = out.grad_fn
    return _node_name(node), [_node_name(n) for n, _ in node.next_functions]


EXPRESSIONS: dict[str, Expression] = {
    "add": lambda lib, w, x: w + 1,
    "mul": lambda lib, w, x: w * w,
    "sub": lambda lib, w, x: w - x,
    "div": lambda lib, w, x: w / 2,
    "neg": lambda lib, w, x: -w,
    "pow": lambda lib, w, x: w**2,
    "exp": lambda lib, w, x: w.exp(),
    "log": lambda lib, w, x: w.log(),
    "sqrt": lambda lib, w, x: w.sqrt(),
    "abs": lambda lib, w, x: w.abs(),
    "sigmoid": lambda lib, w, x: w.sigmoid(),
    "tanh": lambda lib, w, x: w.tanh(),
    "relu": lambda lib, w, x: w.relu(),
    "functional_relu": lambda lib, w, x: lib.nn.functional.relu(w),
    "sum": lambda lib, w, x: w.sum(),
    "sum_dim": lambda lib, w, x: x.sum(1),
    "mean": lambda lib, w, x: w.mean(),
    "mean_dim": lambda lib, w, x: x.mean(1),
    "view": lambda lib, w, x: x.view(3, 2),
    "reshape": lambda lib, w, x: x.reshape(6),
    "flatten": lambda lib, w, x: x.flatten(),
    "t": lambda lib, w, x: x.t(),
    "T": lambda lib, w, x: x.T,
    "permute": lambda lib, w, x: x.permute(1, 0),
    "transpose": lambda lib, w, x: x.transpose(0, 1),
    "expand": lambda lib, w, x: w.expand(2, 3),
    "unsqueeze": lambda lib, w, x: w.unsqueeze(0),
    "squeeze_dim": lambda lib, w, x: w.unsqueeze(0).squeeze(0),
    "squeeze_all": lambda lib, w, x: w.unsqueeze(0).squeeze(),
    "select": lambda lib, w, x: x[0],
    "select_then_full_slice": lambda lib, w, x: x[0, :],
    "slice": lambda lib, w, x: x[:, 1:],
    "full_slice": lambda lib, w, x: x[:],
    "index_none": lambda lib, w, x: x[None],
    "clone": lambda lib, w, x: w.clone(),
    "to_double": lambda lib, w, x: w.double(),
    "mm": lambda lib, w, x: x @ x.t(),
    "log_softmax": lambda lib, w, x: lib.nn.functional.log_softmax(x, 1),
    "softmax": lambda lib, w, x: lib.nn.functional.softmax(x, 1),
    "max": lambda lib, w, x: w.max(),
    "max_dim": lambda lib, w, x: x.max(1)[0],
    "max_dim_keepdim": lambda lib, w, x: x.max(0, keepdim=True)[0],
    "max_dim_of_0d": lambda lib, w, x: w.sum().max(0)[0],
    "min_dim": lambda lib, w, x: x.min(1)[0],
    "amax": lambda lib, w, x: x.amax(1),
    "clamp": lambda lib, w, x: w.clamp(0, 1),
    "maximum": lambda lib, w, x: lib.maximum(w, x),
    "where": lambda lib, w, x: lib.where(w > 0, w, x),
    "cat": lambda lib, w, x: lib.cat([w, w]),
    "gelu": lambda lib, w, x: lib.nn.functional.gelu(w),
    "contiguous": lambda lib, w, x: x.t().contiguous(),
    "inplace_add": lambda lib, w, x: (w * 2).add_(1),
    "inplace_exp": lambda lib, w, x: (w * 2).exp_(),
    "rsqrt": lambda lib, w, x: w.rsqrt(),
    "reciprocal": lambda lib, w, x: w.reciprocal(),
    "square": lambda lib, w, x: w.square(),
    "top_level_rsqrt": lambda lib, w, x: lib.rsqrt(w),
}


@pytest.mark.parametrize("name", list(EXPRESSIONS))
def test_grad_fn_matches_torch(name: str, torch_ref: ModuleType) -> None:
    def run(lib: ModuleType) -> Any:
        w = lib.tensor([0.5, 1.0, 2.0], requires_grad=True)
        x = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
        return _graph_names(EXPRESSIONS[name](lib, w, x))

    assert run(minitorch) == run(torch_ref)


def test_grad_fn_repr_is_torchs() -> None:
    node = (minitorch.ones(2, requires_grad=True) * 2).grad_fn
    assert repr(node) == f"<MulBackward0 object at {hex(id(node))}>"


@pytest.mark.parametrize("name", list(EXPRESSIONS))
def test_grad_fn_type_name_matches_torch(name: str, torch_ref: ModuleType) -> None:
    """Tutorials print ``type(t.grad_fn).__name__``: the node's class carries the name too."""
    def run(lib: ModuleType) -> Any:
        w = lib.tensor([0.5, 1.0, 2.0], requires_grad=True)
        x = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
        node = EXPRESSIONS[name](lib, w, x).grad_fn
        return type(node).__name__, [type(n).__name__ for n, _ in node.next_functions]

    assert run(minitorch) == run(torch_ref)


def test_a_users_function_names_its_node_type_as_torch(torch_ref: ModuleType) -> None:
    def run(lib: ModuleType) -> str:
        class Cube(lib.autograd.Function):
            @staticmethod
            def forward(ctx: Any, x: Any) -> Any:
                return x * x * x

            @staticmethod
            def backward(ctx: Any, grad: Any) -> Any:
                return grad

        return type(Cube.apply(lib.ones(2, requires_grad=True)).grad_fn).__name__

    assert run(minitorch) == run(torch_ref) == "CubeBackward"


def test_a_leaf_node_names_and_prints_as_torch(torch_ref: ModuleType) -> None:
    """``name()`` carries the C++ namespace in PyTorch; the repr does not."""
    seen = []
    for lib in (minitorch, torch_ref):
        node = (lib.ones(2, requires_grad=True) * 2).grad_fn.next_functions[0][0]
        seen.append((node.name(), repr(node).split(" object at ")[0], type(node).__name__))
    assert seen[0] == seen[1]


ACTIVATIONS = {
    "relu6": lambda F, x: F.relu6(x), "elu": lambda F, x: F.elu(x), "selu": lambda F, x: F.selu(x),
    "celu": lambda F, x: F.celu(x), "silu": lambda F, x: F.silu(x), "mish": lambda F, x: F.mish(x),
    "hardtanh": lambda F, x: F.hardtanh(x), "hardsigmoid": lambda F, x: F.hardsigmoid(x),
    "hardswish": lambda F, x: F.hardswish(x), "leaky_relu": lambda F, x: F.leaky_relu(x),
    "softplus": lambda F, x: F.softplus(x), "softshrink": lambda F, x: F.softshrink(x),
    "hardshrink": lambda F, x: F.hardshrink(x), "logsigmoid": lambda F, x: F.logsigmoid(x),
    "glu": lambda F, x: F.glu(x), "threshold": lambda F, x: F.threshold(x, 0.1, 20.0),
    "rrelu": lambda F, x: F.rrelu(x), "prelu": lambda F, x: F.prelu(x, x.new_tensor([0.25])),
}


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activation_nodes_are_named_as_torch(name: str, torch_ref) -> None:
    """Activations built from several ops still show PyTorch's node (``EluBackward0``), not their last op's."""
    names, grads = [], []
    for lib in (minitorch, torch_ref):
        leaf = lib.tensor([[0.5, -1.5, 2.0, -0.2]], dtype=lib.float64, requires_grad=True)
        out = ACTIVATIONS[name](lib.nn.functional, leaf * 1)
        out.sum().backward()
        names.append(type(out.grad_fn).__name__)
        grads.append(leaf.grad.tolist())
    assert names[0] == names[1]
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-6)


def test_rrelu_slopes_stay_in_range_in_training_and_average_in_evaluation() -> None:
    minitorch.manual_seed(0)
    drawn = minitorch.nn.RReLU(0.1, 0.3).train()(minitorch.full((2000,), -1.0, dtype=minitorch.float64))
    assert 0.1 <= -float(drawn.max()) and -float(drawn.min()) <= 0.3
    assert abs(-float(drawn.mean()) - 0.2) < 0.01
    assert minitorch.nn.RReLU(0.1, 0.3).eval()(minitorch.tensor([-2.0, 3.0])).tolist() == pytest.approx([-0.4, 3.0])

"""Task 4.3: train/eval, apply, to/float/double/half, requires_grad_, zero_grad."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import minitorch
from minitorch import nn


class Leaf(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.w = nn.Parameter(minitorch.ones(2, 2))
        self.register_buffer("count", minitorch.zeros(1, dtype=minitorch.int64))
        self.register_buffer("mean", minitorch.zeros(2))

    def forward(self, x: minitorch.Tensor) -> minitorch.Tensor:
        return x @ self.w


class Tree(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.a = Leaf()
        self.b = nn.Sequential(Leaf(), Leaf())

    def forward(self, x: minitorch.Tensor) -> minitorch.Tensor:
        return self.b(self.a(x))


@pytest.mark.task("4.3")
def test_train_and_eval_are_recursive_and_return_self() -> None:
    tree = Tree()
    assert all(m.training for m in tree.modules())
    assert tree.eval() is tree
    assert not any(m.training for m in tree.modules())
    assert tree.train() is tree
    assert all(m.training for m in tree.modules())
    assert tree.train(False) is tree and not tree.b[1].training


@pytest.mark.task("4.3")
def test_train_rejects_non_bool(torch_ref: Any) -> None:
    with pytest.raises(ValueError) as mine:
        Tree().train(1)
    with pytest.raises(ValueError) as reference:
        torch_ref.nn.Linear(1, 1).train(1)
    assert str(mine.value) == str(reference.value)


@pytest.mark.task("4.3")
def test_apply_visits_children_first_like_torch(torch_ref: Any) -> None:
    def visit_order(lib: Any) -> list[str]:
        class Named(lib.nn.Module):
            def __init__(self, name: str, *children: Any) -> None:
                super().__init__()
                self.name = name
                for i, child in enumerate(children):
                    self.add_module(f"c{i}", child)

        root = Named("root", Named("a", Named("a0"), Named("a1")), Named("b"))
        seen: list[str] = []
        assert root.apply(lambda m: seen.append(m.name)) is root
        return seen

    assert visit_order(minitorch) == visit_order(torch_ref) == ["a0", "a1", "a", "b", "root"]


@pytest.mark.task("4.3")
def test_to_dtype_keeps_parameter_identity_and_converts_floats_only() -> None:
    tree = Tree()
    before = list(tree.parameters())
    tree.a.w.grad = minitorch.ones(2, 2)
    assert tree.to(minitorch.float64) is tree
    after = list(tree.parameters())
    assert all(p is q for p, q in zip(before, after))
    assert all(p.dtype == minitorch.float64 and isinstance(p, nn.Parameter) and p.requires_grad for p in after)
    assert tree.a.w.grad.dtype == minitorch.float64
    assert tree.a.mean.dtype == minitorch.float64
    assert tree.a.count.dtype == minitorch.int64  # integer buffers keep their dtype
    out = tree(minitorch.ones(1, 2, dtype=minitorch.float64))
    assert out.dtype == minitorch.float64


@pytest.mark.task("4.3")
@pytest.mark.parametrize(
    "method, dtype",
    [("double", minitorch.float64), ("half", minitorch.float16), ("float", minitorch.float32)],
)
def test_float_double_half(method: str, dtype: Any) -> None:
    tree = Tree().double() if method == "float" else Tree()
    weight = tree.b[0].w
    assert getattr(tree, method)() is tree
    assert tree.b[0].w is weight and weight.dtype == dtype
    assert tree.b[0].mean.dtype == dtype and tree.b[0].count.dtype == minitorch.int64


@pytest.mark.task("4.3")
def test_to_keyword_forms_and_tensor_form() -> None:
    tree = Tree()
    tree.to(dtype=minitorch.float64)
    assert tree.a.w.dtype == minitorch.float64
    tree.to("cpu", minitorch.float32)
    assert tree.a.w.dtype == minitorch.float32 and tree.a.w.device.type == "cpu"
    tree.to(minitorch.zeros(1, dtype=minitorch.float64))
    assert tree.a.w.dtype == minitorch.float64
    tree.to(device="cpu")
    assert tree.a.w.dtype == minitorch.float64
    tree.cpu()
    assert tree.a.w.device.type == "cpu"


@pytest.mark.task("4.3")
def test_to_integer_dtype_raises_like_torch(torch_ref: Any) -> None:
    with pytest.raises(TypeError) as mine:
        Tree().to(minitorch.int64)
    with pytest.raises(TypeError) as reference:
        torch_ref.nn.Linear(1, 1).to(torch_ref.int64)
    assert str(mine.value) == str(reference.value).replace("torch.", "minitorch.")


@pytest.mark.task("4.3")
def test_to_keeps_values_and_parameters_still_train() -> None:
    tree = Tree()
    with minitorch.no_grad():
        tree.a.w.copy_(minitorch.tensor([[1.5, -2.0], [0.25, 3.0]]))
    tree.double()
    np.testing.assert_array_equal(tree.a.w.detach().numpy(), [[1.5, -2.0], [0.25, 3.0]])
    tree(minitorch.ones(1, 2, dtype=minitorch.float64)).sum().backward()
    assert tree.a.w.grad is not None and tree.a.w.grad.dtype == minitorch.float64


@pytest.mark.task("4.3")
def test_requires_grad_freezes_and_unfreezes() -> None:
    tree = Tree()
    assert tree.requires_grad_(False) is tree
    assert not any(p.requires_grad for p in tree.parameters())
    tree.b.requires_grad_()
    assert [p.requires_grad for p in tree.parameters()] == [False, True, True]


@pytest.mark.task("4.3")
def test_zero_grad_to_none_and_to_zeros() -> None:
    tree = Tree()
    tree(minitorch.ones(3, 2)).sum().backward()
    grads = [p.grad for p in tree.parameters()]
    assert all(g is not None for g in grads)
    tree.zero_grad(set_to_none=False)
    assert all(p.grad is g for p, g in zip(tree.parameters(), grads))  # zeroed in place
    assert all(float(p.grad.abs().sum()) == 0.0 for p in tree.parameters())
    tree.zero_grad()
    assert all(p.grad is None for p in tree.parameters())


@pytest.mark.task("4.3")
def test_modal_module_example() -> None:
    class ModalModule(nn.Module):
        def forward(self, x: minitorch.Tensor) -> minitorch.Tensor:
            return x + 1.0 if self.training else x

    m = ModalModule()
    x = minitorch.randn(4)
    np.testing.assert_allclose(m(x).numpy(), x.numpy() + 1.0, rtol=1e-6)
    m.eval()
    np.testing.assert_array_equal(m(x).numpy(), x.numpy())

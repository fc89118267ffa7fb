"""Task 4.2: walking the module tree (named_modules, named_parameters, named_buffers, children, get_*).

The differential tests build the same tree in minitorch and in PyTorch and compare names,
order and repr.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import pytest

import minitorch
from minitorch import nn


def build_tree(lib: Any) -> Any:
    """A tree with shared modules, shared parameters, buffers of every kind and None slots."""
    tnn = lib.nn

    class Block(tnn.Module):
        def __init__(self, width: int) -> None:
            super().__init__()
            self.scale = tnn.Parameter(lib.ones(width))
            self.register_buffer("running", lib.zeros(width))
            self.register_buffer("scratch", lib.zeros(2), persistent=False)
            self.register_buffer("missing", None)
            self.register_parameter("unused", None)
            self.inner = tnn.Linear(width, width)

        def forward(self, x: Any) -> Any:
            return self.inner(x) * self.scale

    class Net(tnn.Module):
        def __init__(self) -> None:
            super().__init__()
            shared = tnn.Linear(3, 3)
            self.stem = tnn.Sequential(OrderedDict([("first", tnn.Linear(2, 3)), ("id", tnn.Identity())]))
            self.blocks = tnn.ModuleList([Block(3), Block(3)])
            self.heads = tnn.ModuleDict({"b": tnn.Linear(3, 1), "a": tnn.Linear(3, 2, bias=False)})
            self.shared_a = shared
            self.shared_b = shared  # the same module twice
            self.tied = tnn.Linear(3, 3)
            self.tied.weight = self.shared_a.weight  # the same parameter in two modules
            self.add_module("nothing", None)
            self.temperature = tnn.Parameter(lib.ones(1))
            self.register_buffer("steps", lib.zeros(1, dtype=lib.int64))

        def forward(self, x: Any) -> Any:
            return x

    return Net()


@pytest.fixture
def trees(torch_ref: Any) -> tuple[Any, Any]:
    return build_tree(minitorch), build_tree(torch_ref)


@pytest.mark.task("4.2")
@pytest.mark.parametrize("remove_duplicate", [True, False])
def test_named_modules_order_matches_torch(trees: tuple[Any, Any], remove_duplicate: bool) -> None:
    ours, theirs = trees
    names = [n for n, _ in ours.named_modules(remove_duplicate=remove_duplicate)]
    assert names == [n for n, _ in theirs.named_modules(remove_duplicate=remove_duplicate)]
    assert "shared_b" not in names if remove_duplicate else "shared_b" in names
    assert [type(m).__name__ for m in ours.modules()] == [type(m).__name__ for m in theirs.modules()]


@pytest.mark.task("4.2")
def test_named_modules_prefix_and_memo(trees: tuple[Any, Any]) -> None:
    ours, theirs = trees
    assert [n for n, _ in ours.named_modules(prefix="model")] == [n for n, _ in theirs.named_modules(prefix="model")]
    assert [n for n, _ in ours.named_modules(prefix="model")][:2] == ["model", "model.stem"]


@pytest.mark.task("4.2")
@pytest.mark.parametrize("recurse", [True, False])
@pytest.mark.parametrize("remove_duplicate", [True, False])
def test_named_parameters_and_buffers_match_torch(trees: tuple[Any, Any], recurse: bool, remove_duplicate: bool) -> None:
    ours, theirs = trees
    kwargs = {"recurse": recurse, "remove_duplicate": remove_duplicate}
    assert [n for n, _ in ours.named_parameters(**kwargs)] == [n for n, _ in theirs.named_parameters(**kwargs)]
    assert [n for n, _ in ours.named_buffers(**kwargs)] == [n for n, _ in theirs.named_buffers(**kwargs)]
    assert [n for n, _ in ours.named_parameters(prefix="p", **kwargs)] == [
        n for n, _ in theirs.named_parameters(prefix="p", **kwargs)
    ]


@pytest.mark.task("4.2")
def test_shared_parameter_yields_once_and_is_the_same_object(trees: tuple[Any, Any]) -> None:
    ours, _ = trees
    params = list(ours.parameters())
    assert len(params) == len({id(p) for p in params})
    assert ours.tied.weight is ours.shared_a.weight
    assert sum(1 for p in params if p is ours.shared_a.weight) == 1
    assert all(isinstance(p, nn.Parameter) for p in params)


@pytest.mark.task("4.2")
def test_children_skip_none_and_duplicates(trees: tuple[Any, Any]) -> None:
    ours, theirs = trees
    assert [n for n, _ in ours.named_children()] == [n for n, _ in theirs.named_children()]
    assert [type(c).__name__ for c in ours.children()] == [type(c).__name__ for c in theirs.children()]


@pytest.mark.task("4.2")
def test_parameters_are_a_fresh_iterator_each_call(trees: tuple[Any, Any]) -> None:
    ours, _ = trees
    first = list(ours.parameters())
    assert list(ours.parameters()) == first or [id(p) for p in ours.parameters()] == [id(p) for p in first]
    assert len(list(ours.parameters(recurse=False))) == 1


@pytest.mark.task("4.2")
def test_get_submodule_parameter_buffer(trees: tuple[Any, Any]) -> None:
    ours, _ = trees
    assert ours.get_submodule("") is ours
    assert ours.get_submodule("blocks.1.inner") is ours.blocks[1].inner
    assert ours.get_parameter("blocks.0.scale") is ours.blocks[0].scale
    assert ours.get_parameter("temperature") is ours.temperature
    assert ours.get_buffer("blocks.1.running") is ours.blocks[1].running
    assert ours.get_buffer("steps") is ours.steps


@pytest.mark.task("4.2")
@pytest.mark.parametrize(
    "call",
    [
        ("get_submodule", "blocks.7"),
        ("get_submodule", "nope"),
        ("get_submodule", "temperature"),
        ("get_submodule", "blocks.0.scale"),
        ("get_parameter", "blocks.0.nope"),
        ("get_parameter", "blocks.0.running"),
        ("get_parameter", "stem"),
        ("get_buffer", "blocks.0.scale"),
        ("get_buffer", "blocks.0.nope"),
        ("get_buffer", "nope.running"),
    ],
)
def test_get_errors_match_torch(trees: tuple[Any, Any], call: tuple[str, str]) -> None:
    ours, theirs = trees
    method, target = call
    with pytest.raises(AttributeError) as mine:
        getattr(ours, method)(target)
    with pytest.raises(AttributeError) as reference:
        getattr(theirs, method)(target)
    assert str(mine.value) == str(reference.value)


@pytest.mark.task("4.2")
def test_repr_of_tree_matches_torch(trees: tuple[Any, Any]) -> None:
    ours, theirs = trees
    assert repr(ours) == repr(theirs)


@pytest.mark.task("4.2")
def test_parameter_count_of_mlp_784_256_10() -> None:
    class MLP(nn.Module):
        def __init__(self, sizes: tuple[int, ...]) -> None:
            super().__init__()
            self.layers = nn.ModuleList([nn.Linear(a, b) for a, b in zip(sizes, sizes[1:])])

        def forward(self, x: minitorch.Tensor) -> minitorch.Tensor:
            for layer in self.layers:
                x = layer(x)
            return x

    model = MLP((784, 256, 10))
    assert sum(p.numel() for p in model.parameters()) == 784 * 256 + 256 + 256 * 10 + 10 == 203530
    assert [n for n, _ in model.named_parameters()] == [
        "layers.0.weight", "layers.0.bias", "layers.1.weight", "layers.1.bias",
    ]


@pytest.mark.task("4.2")
def test_extra_repr_single_and_multi_line(torch_ref: Any) -> None:
    def make(lib: Any, text: str) -> Any:
        class Custom(lib.nn.Module):
            def extra_repr(self) -> str:
                return text

        outer = Custom()
        outer.child = Custom()
        return Custom(), outer

    for text in ["k=3", "a=1\nb=2", ""]:
        for mine, theirs in zip(make(minitorch, text), make(torch_ref, text)):
            assert repr(mine) == repr(theirs)

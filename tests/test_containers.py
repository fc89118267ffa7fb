"""Task 4.5: Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict (compared with PyTorch)."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, Callable

import numpy as np
import pytest

import minitorch
from minitorch import nn


def _affine(lib: Any, scale: float, shift: float) -> Any:
    """A tiny parameter-free module ``x * scale + shift`` of library ``lib``."""

    class Affine(lib.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.scale, self.shift = scale, shift

        def forward(self, x: Any) -> Any:
            return x * self.scale + self.shift

        def extra_repr(self) -> str:
            return f"scale={self.scale}, shift={self.shift}"

    return Affine()


def _layers(lib: Any, count: int = 4) -> list[Any]:
    return [_affine(lib, i + 1.0, -float(i)) for i in range(count)]


@pytest.mark.task("4.5")
def test_sequential_forward_chains_in_order() -> None:
    seq = nn.Sequential(*_layers(minitorch, 3))
    x = minitorch.tensor([1.0, 2.0])
    expected = ((x.numpy() * 1 - 0) * 2 - 1) * 3 - 2
    np.testing.assert_allclose(seq(x).numpy(), expected)
    assert nn.Sequential()(x) is x


@pytest.mark.task("4.5")
def test_sequential_indexing_and_slicing(torch_ref: Any) -> None:
    layers = _layers(minitorch)
    seq = nn.Sequential(*layers)
    assert seq[0] is layers[0] and seq[-1] is layers[-1] and len(seq) == 4
    assert list(seq) == layers
    part = seq[1:3]
    assert type(part) is nn.Sequential and list(part) == layers[1:3]
    assert list(part._modules) == ["1", "2"]
    # the keys of a slice are the original keys, as in PyTorch
    theirs = torch_ref.nn.Sequential(*_layers(torch_ref))
    for key in [slice(1, 3), slice(None, None, -1), slice(None, None, 2)]:
        assert list(seq[key]._modules) == list(theirs[key]._modules)
    for bad in [4, -5]:
        with pytest.raises(IndexError) as mine:
            seq[bad]
        with pytest.raises(IndexError) as reference:
            theirs[bad]
        assert str(mine.value) == str(reference.value)


@pytest.mark.task("4.5")
def test_sequential_ordered_dict_names() -> None:
    a, b = _layers(minitorch, 2)
    seq = nn.Sequential(OrderedDict([("scale", a), ("shift", b)]))
    assert list(seq._modules) == ["scale", "shift"] and seq.scale is a and seq[1] is b


def _mutations() -> list[tuple[str, Callable[[Any, Any], Any]]]:
    return [
        ("append", lambda s, lib: s.append(_affine(lib, 9.0, 9.0))),
        ("insert_middle", lambda s, lib: s.insert(1, _affine(lib, 9.0, 9.0))),
        ("insert_negative", lambda s, lib: s.insert(-1, _affine(lib, 9.0, 9.0))),
        ("insert_end", lambda s, lib: s.insert(len(s), _affine(lib, 9.0, 9.0))),
        ("extend", lambda s, lib: s.extend(_layers(lib, 2))),
        ("delete", lambda s, lib: s.__delitem__(1)),
        ("delete_slice", lambda s, lib: s.__delitem__(slice(0, 2))),
        ("pop", lambda s, lib: s.pop(2)),
        ("setitem", lambda s, lib: s.__setitem__(-1, _affine(lib, 7.0, 7.0))),
        ("add", lambda s, lib: s + lib.nn.Sequential(*_layers(lib, 1))),
        ("iadd", lambda s, lib: s.__iadd__(lib.nn.Sequential(*_layers(lib, 1)))),
        ("mul", lambda s, lib: s * 2),
        ("rmul", lambda s, lib: 2 * s),
    ]


@pytest.mark.task("4.5")
@pytest.mark.parametrize("name, change", _mutations(), ids=[m[0] for m in _mutations()])
def test_sequential_mutations_match_torch(torch_ref: Any, name: str, change: Callable[[Any, Any], Any]) -> None:
    ours, theirs = nn.Sequential(*_layers(minitorch)), torch_ref.nn.Sequential(*_layers(torch_ref))
    mine, reference = change(ours, minitorch), change(theirs, torch_ref)
    assert repr(ours) == repr(theirs)
    if isinstance(reference, torch_ref.nn.Module):
        assert repr(mine) == repr(reference)
    x = [0.5, -1.0]
    np.testing.assert_allclose(ours(minitorch.tensor(x)).numpy(), theirs(torch_ref.tensor(x)).numpy(), rtol=1e-6)


@pytest.mark.task("4.5")
def test_sequential_bad_operands_match_torch(torch_ref: Any) -> None:
    ours, theirs = nn.Sequential(*_layers(minitorch)), torch_ref.nn.Sequential(*_layers(torch_ref))
    for action, error in [(lambda s: s + 3, ValueError), (lambda s: s * 0, ValueError), (lambda s: s.insert(9, s[0]), IndexError)]:
        with pytest.raises(error) as mine:
            action(ours)
        with pytest.raises(error) as reference:
            action(theirs)
        assert str(mine.value) == str(reference.value).replace("torch.nn.modules.container", "minitorch.nn.modules.container")


@pytest.mark.task("4.5")
def test_module_list_api_and_registration(torch_ref: Any) -> None:
    layers = _layers(minitorch)
    ml = nn.ModuleList(layers[:2])
    ml.append(layers[2])
    ml += [layers[3]]
    assert list(ml) == layers and len(ml) == 4 and ml[-1] is layers[3]
    assert list(ml._modules) == ["0", "1", "2", "3"]
    part = ml[1:]
    assert type(part) is nn.ModuleList and list(part) == layers[1:]
    ml.insert(0, _affine(minitorch, 5.0, 5.0))
    assert ml[1] is layers[0] and len(ml) == 5
    popped = ml.pop(0)
    assert popped.scale == 5.0 and list(ml) == layers
    del ml[0]
    assert list(ml._modules) == ["0", "1", "2"] and ml[0] is layers[1]
    ml[0] = layers[0]
    assert ml[0] is layers[0]
    combined = ml + nn.ModuleList([layers[1]])
    assert len(combined) == 4 and combined[3] is layers[1]
    with pytest.raises(TypeError, match="ModuleList.extend should be called with an iterable, but got int"):
        ml.extend(3)
    with pytest.raises(IndexError) as mine:
        ml[10]
    with pytest.raises(IndexError) as reference:
        torch_ref.nn.ModuleList()[10]
    assert str(mine.value) == str(reference.value)


@pytest.mark.task("4.5")
def test_module_list_repr_groups_repeats_like_torch(torch_ref: Any) -> None:
    def build(lib: Any) -> Any:
        same = [lib.nn.Linear(2, 2) for _ in range(3)]
        return lib.nn.Sequential(
            lib.nn.ModuleList([*same, lib.nn.Identity(), lib.nn.Linear(2, 3), lib.nn.Linear(2, 3)]),
            lib.nn.ModuleList(),
            lib.nn.ModuleList([lib.nn.Sequential(lib.nn.Linear(1, 1), lib.nn.Identity())] * 2),
        )

    assert repr(build(minitorch)) == repr(build(torch_ref))


@pytest.mark.task("4.5")
def test_module_dict_api(torch_ref: Any) -> None:
    a, b, c = _layers(minitorch, 3)
    md = nn.ModuleDict({"b": b, "a": a})
    assert list(md.keys()) == ["b", "a"] and md["a"] is a and "a" in md and len(md) == 2
    md["c"] = c
    md.update([("d", a)])
    md.update(OrderedDict(e=b))
    assert list(md) == ["b", "a", "c", "d", "e"]
    assert list(md.values())[2] is c and list(md.items())[0] == ("b", b)
    assert md.pop("b") is b and "b" not in md
    del md["c"]
    assert list(md._modules) == ["a", "d", "e"]
    # a shared module shows up once among the parameters' owners
    assert len(list(md.modules())) == 3
    md.clear()
    assert len(md) == 0
    with pytest.raises(ValueError, match="has length 1; 2 is required"):
        md.update([("x",)])
    theirs = torch_ref.nn.ModuleDict({"b": _affine(torch_ref, 1.0, 0.0), "a": _affine(torch_ref, 2.0, -1.0)})
    ours = nn.ModuleDict({"b": _affine(minitorch, 1.0, 0.0), "a": _affine(minitorch, 2.0, -1.0)})
    assert repr(ours) == repr(theirs)


@pytest.mark.task("4.5")
def test_parameter_list(torch_ref: Any) -> None:
    p = nn.Parameter(minitorch.ones(2))
    plist = nn.ParameterList([p, minitorch.zeros(2, 3, dtype=minitorch.float64)])
    plist.append("not a tensor")
    assert plist[0] is p and isinstance(plist[1], nn.Parameter) and plist[1].requires_grad
    assert plist[2] == "not a tensor" and len(plist) == 3
    assert [n for n, _ in plist.named_parameters()] == ["0", "1"]
    assert len(plist[0:2]) == 2 and plist[0:2][0] is p
    tp = torch_ref.nn.ParameterList([torch_ref.nn.Parameter(torch_ref.ones(2)), torch_ref.zeros(2, 3, dtype=torch_ref.float64)])
    tp.append("not a tensor")
    assert repr(plist) == repr(tp).replace("torch.", "minitorch.")
    with pytest.raises(RuntimeError, match="ParameterList should not be called."):
        plist(1)


@pytest.mark.task("4.5")
def test_parameter_dict(torch_ref: Any) -> None:
    pdict = nn.ParameterDict({"foo": minitorch.ones(3), "bar": nn.Parameter(minitorch.ones(4))})
    assert list(pdict) == ["bar", "foo"]  # a plain dict is added in sorted order, as in PyTorch
    assert isinstance(pdict["foo"], nn.Parameter)
    pdict["count"] = 3
    assert pdict["count"] == 3 and [n for n, _ in pdict.named_parameters()] == ["bar", "foo"]
    ordered = nn.ParameterDict(OrderedDict([("z", minitorch.ones(1)), ("a", minitorch.ones(1))]))
    assert list(ordered.keys()) == ["z", "a"]
    assert pdict.get("nope", 5) == 5 and "bar" in pdict
    assert pdict.pop("count") == 3 and len(pdict) == 2
    theirs = torch_ref.nn.ParameterDict({"foo": torch_ref.ones(3), "bar": torch_ref.nn.Parameter(torch_ref.ones(4))})
    assert repr(pdict) == repr(theirs).replace("torch.", "minitorch.")
    with pytest.raises(TypeError, match="not a string"):
        pdict[3]
    with pytest.raises(RuntimeError, match="ParameterDict should not be called."):
        pdict()

"""PyTorch's legacy tensor types (``torch.FloatTensor`` and friends), compared with PyTorch."""

from __future__ import annotations

from types import ModuleType
from typing import Any, Callable

import pytest

import minitorch

NAMES = ("BoolTensor", "ByteTensor", "IntTensor", "LongTensor", "HalfTensor", "FloatTensor", "DoubleTensor")

CALLS: dict[str, Callable[[Any], Any]] = {
    "data": lambda cls: cls([[1, 0], [3, 4]]),
    "tuple data": lambda cls: cls((1, 2)),
    "sizes": lambda cls: cls(2, 3).shape,
    "one size": lambda cls: cls(4).shape,
    "no argument": lambda cls: cls().shape,
}


def _result(value: Any) -> Any:
    if hasattr(value, "tolist"):
        return str(value.dtype).split(".")[-1], value.tolist()
    return tuple(value)


@pytest.mark.parametrize("call", sorted(CALLS))
@pytest.mark.parametrize("name", NAMES)
def test_constructors_match_torch(name: str, call: str, torch_ref: ModuleType) -> None:
    ours = _result(CALLS[call](getattr(minitorch, name)))
    theirs = _result(CALLS[call](getattr(torch_ref, name)))
    assert ours == theirs  # for sizes, the shape only: PyTorch leaves the values unset


@pytest.mark.parametrize("name", NAMES)
def test_type_and_isinstance_match_torch(name: str, torch_ref: ModuleType) -> None:
    def run(lib: ModuleType) -> Any:
        x = lib.tensor([1.7, -2.2, 0.0])
        legacy = getattr(lib, name)
        converted = x.type(legacy)
        return (str(converted.dtype).split(".")[-1], converted.tolist(), converted.type(),
                isinstance(converted, legacy), isinstance(x, legacy), repr(legacy).replace("minitorch", "torch"))

    assert run(minitorch) == run(torch_ref)


def test_mixed_arguments_are_refused_with_a_clear_error() -> None:
    with pytest.raises(TypeError, match="sizes"):
        minitorch.FloatTensor(2, [1, 2])

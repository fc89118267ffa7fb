"""Bitwise ops of integer and bool tensors (``&``, ``|``, ``^``, ``~``, ``<<``, ``>>``) and their
function and in-place forms, each compared with PyTorch: values, dtype, and the errors for floats.

(Until this file, ``&`` and ``|`` of integer tensors answered a logical and/or in bool: a silent
wrong result where PyTorch computes bits.)"""

from __future__ import annotations

from types import ModuleType
from typing import Any, Callable

import pytest

import minitorch

CASES: dict[str, Callable[[ModuleType], Any]] = {
    "int & int": lambda lib: lib.tensor([5, 3, -4]) & lib.tensor([1, 6, 7]),
    "int | int": lambda lib: lib.tensor([5, 3, -4]) | lib.tensor([1, 6, 7]),
    "int ^ int": lambda lib: lib.tensor([5, 3, -4]) ^ lib.tensor([1, 6, 7]),
    "~int": lambda lib: ~lib.tensor([5, 0, -4]),
    "~bool": lambda lib: ~lib.tensor([True, False]),
    "int << 1": lambda lib: lib.tensor([5, 3, -4]) << 1,
    "int >> 1": lambda lib: lib.tensor([5, 3, -4]) >> 1,
    "number << int": lambda lib: 1 << lib.tensor([5, 3, 0]),
    "bool << number": lambda lib: lib.tensor([True, False]) << 1,
    "int & True": lambda lib: lib.tensor([5, 3]) & True,
    "bool & 1": lambda lib: lib.tensor([True, False]) & 1,
    "bool ^ bool": lambda lib: lib.tensor([True, False]) ^ lib.tensor([True, True]),
    "int32 << 33": lambda lib: lib.tensor([1, 3], dtype=lib.int32) << 33,
    "int32 << 31": lambda lib: lib.tensor([1, 3], dtype=lib.int32) << 31,
    "uint8 << 7": lambda lib: lib.tensor([3, 1], dtype=lib.uint8) << 7,
    "~uint8": lambda lib: ~lib.tensor([3, 0], dtype=lib.uint8),
    "negative >> 70": lambda lib: lib.tensor([-8, 8]) >> 70,
    "shift by -1": lambda lib: lib.tensor([1, -1]) << -1,
    "broadcast": lambda lib: lib.tensor([[12], [10]]) & lib.tensor([4, 8, 2]),
    "method bitwise_and": lambda lib: lib.tensor([5, 3]).bitwise_and(3),
    "torch.bitwise_xor": lambda lib: lib.bitwise_xor(lib.tensor([5, 3]), lib.tensor([1, 6])),
    "torch.bitwise_not": lambda lib: lib.bitwise_not(lib.tensor([0, -1])),
    "bitwise_right_shift": lambda lib: lib.tensor([12, 10]).bitwise_right_shift(lib.tensor([2, 1])),
    "torch.bitwise_left_shift": lambda lib: lib.bitwise_left_shift(lib.tensor([3]), 2),
    "logical_and of ints": lambda lib: lib.tensor([5, 0]).logical_and(lib.tensor([1, 6])),
}


def plain(result: Any) -> tuple[Any, str]:
    return result.tolist(), str(result.dtype).split(".")[-1]


@pytest.mark.parametrize("case", sorted(CASES))
def test_bitwise_as_torch(case: str, torch_ref: ModuleType) -> None:
    assert plain(CASES[case](minitorch)) == plain(CASES[case](torch_ref))


IN_PLACE: dict[str, Callable[[Any, ModuleType], Any]] = {
    "&=": lambda x, lib: x.__iand__(lib.tensor([1, 6, 7])),
    "|=": lambda x, lib: x.__ior__(2),
    "^=": lambda x, lib: x.__ixor__(lib.tensor([1, 1, 1])),
    "<<=": lambda x, lib: x.__ilshift__(2),
    ">>=": lambda x, lib: x.__irshift__(1),
    "bitwise_not_": lambda x, lib: x.bitwise_not_(),
}


@pytest.mark.parametrize("case", sorted(IN_PLACE))
def test_bitwise_in_place_as_torch(case: str, torch_ref: ModuleType) -> None:
    results = []
    for lib in (minitorch, torch_ref):
        x = lib.tensor([5, 3, -4])
        assert IN_PLACE[case](x, lib) is x
        results.append(plain(x))
    assert results[0] == results[1]


@pytest.mark.parametrize("expression", [
    lambda lib: lib.tensor([1.0]) << 1,
    lambda lib: lib.tensor([1.0]) & lib.tensor([1.0]),
    lambda lib: lib.tensor([1, 2]) | lib.tensor([1.5, 2.0]),
    lambda lib: ~lib.tensor([1.0]),
], ids=["float <<", "float &", "int | float", "~float"])
def test_floats_are_refused_with_torch_error(expression: Callable[[ModuleType], Any], torch_ref: ModuleType) -> None:
    errors = []
    for lib in (minitorch, torch_ref):
        with pytest.raises((NotImplementedError, TypeError, RuntimeError)) as caught:
            expression(lib)
        errors.append((type(caught.value).__name__, str(caught.value)))
    assert errors[0] == errors[1]

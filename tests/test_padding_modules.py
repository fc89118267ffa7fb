"""The padding layers (Zero/Constant/Reflection/Replication/CircularPad1d and 2d): outputs and
gradients against PyTorch in float64, reprs, no state, and PyTorch's errors."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from layer_helpers import assert_same_error, compare_with_torch, ours, theirs

from minitorch import nn

#: (layer, its padding argument(s), input shape): int and tuple paddings, batched and unbatched
CASES = [
    ("ZeroPad1d", (2,), (2, 3, 4)), ("ZeroPad1d", ((1, 3),), (3, 4)), ("ZeroPad2d", (1,), (2, 2, 3, 4)),
    ("ZeroPad2d", ((1, 0, 2, 3),), (2, 3, 4)), ("ConstantPad1d", (2, 3.5), (2, 3, 4)),
    ("ConstantPad2d", ((1, 2, 0, 1), -1.0), (2, 2, 3, 4)), ("ReflectionPad1d", (2,), (2, 3, 4)),
    ("ReflectionPad1d", ((3, 1),), (3, 4)), ("ReflectionPad2d", (1,), (2, 2, 3, 4)),
    ("ReflectionPad2d", ((2, 1, 2, 0),), (2, 3, 4)), ("ReplicationPad1d", (3,), (2, 3, 4)),
    ("ReplicationPad2d", ((1, 4, 2, 0),), (2, 2, 3, 4)), ("CircularPad1d", (2,), (2, 3, 4)),
    ("CircularPad1d", ((4, 1),), (3, 4)), ("CircularPad2d", (1,), (2, 2, 3, 4)),
    ("CircularPad2d", ((2, 1, 3, 0),), (2, 3, 4)), ("ZeroPad2d", ((-1, 2, 1, -1),), (2, 3, 4)),
]


@pytest.mark.parametrize("name, args, shape", CASES)
def test_padding_layer_matches_torch(torch_ref, name: str, args: tuple[Any, ...], shape: tuple[int, ...]) -> None:
    x = np.random.default_rng(0).standard_normal(shape)
    compare_with_torch(torch_ref, getattr(nn, name)(*args), getattr(torch_ref.nn, name)(*args), [x], grad=[0],
                       atol=0.0, rtol=1e-15)


@pytest.mark.parametrize("name, args, shape", CASES)
def test_padding_layer_repr_and_state(torch_ref, name: str, args: tuple[Any, ...], shape: tuple[int, ...]) -> None:
    layer, reference = getattr(nn, name)(*args), getattr(torch_ref.nn, name)(*args)
    assert repr(layer) == repr(reference)
    assert layer.padding == reference.padding
    assert list(layer.state_dict()) == [] and list(layer.parameters()) == []


def test_constant_pad_repr_keeps_the_value_as_given(torch_ref) -> None:
    expected = "ConstantPad2d(padding=(1, 1, 1, 1), value=0)"
    assert repr(nn.ConstantPad2d(1, 0)) == repr(torch_ref.nn.ConstantPad2d(1, 0)) == expected


def test_padded_values_by_hand() -> None:
    x = ours(np.array([[[1.0, 2.0, 3.0]]]))
    assert nn.ReflectionPad1d(2)(x).tolist() == [[[3.0, 2.0, 1.0, 2.0, 3.0, 2.0, 1.0]]]
    assert nn.ReplicationPad1d(2)(x).tolist() == [[[1.0, 1.0, 1.0, 2.0, 3.0, 3.0, 3.0]]]
    assert nn.CircularPad1d(2)(x).tolist() == [[[2.0, 3.0, 1.0, 2.0, 3.0, 1.0, 2.0]]]
    assert nn.ConstantPad1d((1, 0), 7.0)(x).tolist() == [[[7.0, 1.0, 2.0, 3.0]]]


@pytest.mark.parametrize("name, args, shape", [
    ("ReflectionPad1d", (3,), (1, 2, 3)),  # the reflection wider than the row
    ("ZeroPad2d", (1,), (4,)),
    ("ZeroPad1d", ((1, 2, 3),), (2, 3)),  # an odd number of amounts
    ("ZeroPad1d", (1.5,), (2, 3)),  # not ints (refused at the call, as by torch)
    ("CircularPad1d", (5,), (1, 2, 3)),  # wrapping around more than once
    ("ReplicationPad1d", ((-3, -1),), (1, 2, 3)),
    ("CircularPad2d", (1,), (5,)),  # the circular layers check the rank themselves
    ("CircularPad1d", (1,), (1, 2, 3, 4)),
])
def test_padding_errors_match_torch(torch_ref, name: str, args: tuple[Any, ...], shape: tuple[int, ...]) -> None:
    x = np.random.default_rng(1).standard_normal(shape)
    assert_same_error(lambda: getattr(nn, name)(*args)(ours(x)),
                      lambda: getattr(torch_ref.nn, name)(*args)(theirs(torch_ref, x)))


@pytest.mark.parametrize("name, shape", [("ReflectionPad1d", (2, 3, 4, 5)), ("ReflectionPad2d", (3, 4))])
def test_wrong_rank_for_a_mode_is_refused_as_by_torch(torch_ref, name: str, shape: tuple[int, ...]) -> None:
    """PyTorch raises NotImplementedError (which the shared error helper reserves for course stubs)."""
    x = np.zeros(shape)
    with pytest.raises(NotImplementedError) as expected:
        getattr(torch_ref.nn, name)(1)(theirs(torch_ref, x))
    with pytest.raises(NotImplementedError) as mine:
        getattr(nn, name)(1)(ours(x))
    assert str(mine.value) == str(expected.value)


def test_class_hierarchy_is_torchs(torch_ref) -> None:
    """``isinstance`` answers as in PyTorch (``ZeroPad1d`` is a ``ConstantPad1d``; a 2d layer is no 1d one)."""
    names = [case[0] for case in CASES] + ["ReplicationPad1d", "CircularPad2d"]
    for a in set(names):
        for b in set(names):
            ours_says = issubclass(getattr(nn, a), getattr(nn, b))
            assert ours_says == issubclass(getattr(torch_ref.nn, a), getattr(torch_ref.nn, b)), (a, b)

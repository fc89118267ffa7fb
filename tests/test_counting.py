"""``bincount`` and ``histc`` against PyTorch (values, dtypes, errors), on every backend."""

from __future__ import annotations

from types import ModuleType
from typing import Any, Callable

import numpy as np
import pytest
from layer_helpers import assert_same_error

import minitorch

CALLS: dict[str, Callable[[ModuleType], Any]] = {
    "counts": lambda lib: lib.bincount(lib.tensor([0, 1, 1, 3, 7, 1])),
    "minlength": lambda lib: lib.bincount(lib.tensor([0, 1, 1]), minlength=6),
    "minlength_below_max": lambda lib: lib.tensor([4, 1]).bincount(minlength=2),
    "empty": lambda lib: lib.bincount(lib.tensor([], dtype=lib.int64)),
    "float_weights": lambda lib: lib.bincount(lib.tensor([0, 1, 1, 3]), weights=lib.tensor([0.5, 1.0, 1.25, 2.0])),
    "double_weights": lambda lib: lib.bincount(lib.tensor([2, 0]), lib.tensor([0.5, 3.0], dtype=lib.float64)),
    "int_weights": lambda lib: lib.bincount(lib.tensor([2, 0, 2]), lib.tensor([1, 2, 3])),
    "uint8": lambda lib: lib.bincount(lib.tensor([3, 3, 0], dtype=lib.uint8)),
    "histc_range": lambda lib: lib.histc(lib.tensor([1.0, 2, 1, 2.5, 4, -1, 10]), bins=4, min=0, max=4),
    "histc_own_range": lambda lib: lib.tensor([1.0, 2, 1, 2.5, 4, -1, 10]).histc(bins=3),
    "histc_constant": lambda lib: lib.histc(lib.tensor([2.0, 2.0]), bins=4),
    "histc_double": lambda lib: lib.histc(lib.linspace(0, 1, 11, dtype=lib.float64), bins=5),
}


@pytest.mark.parametrize("name", list(CALLS))
def test_matches_torch(backend: str, torch_ref: ModuleType, name: str) -> None:
    ours, theirs = CALLS[name](minitorch), CALLS[name](torch_ref)
    assert str(ours.dtype).rsplit(".")[-1] == str(theirs.dtype).rsplit(".")[-1]
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


ERRORS: dict[str, Callable[[ModuleType], Any]] = {
    "negative": lambda lib: lib.bincount(lib.tensor([-1, 2])),
    "two_d": lambda lib: lib.bincount(lib.tensor([[1, 2]])),
    "negative_minlength": lambda lib: lib.bincount(lib.tensor([1]), minlength=-1),
    "weights_length": lambda lib: lib.bincount(lib.tensor([1, 2]), weights=lib.ones(3)),
    "histc_no_bins": lambda lib: lib.histc(lib.tensor([1.0]), bins=0),
    "histc_reversed": lambda lib: lib.histc(lib.tensor([1.0]), min=3, max=1),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_match_torch(torch_ref: ModuleType, name: str) -> None:
    assert_same_error(lambda: ERRORS[name](minitorch), lambda: ERRORS[name](torch_ref))


@pytest.mark.parametrize("call", [lambda lib: lib.bincount(lib.tensor([1.0, 2.0])), lambda lib: lib.histc(lib.tensor([1, 2]))])
def test_unsupported_dtypes_raise_torch_not_implemented(torch_ref: ModuleType, call: Callable[[ModuleType], Any]) -> None:
    """NotImplementedError, as PyTorch (outside assert_same_error, which lets that error through for stubs)."""
    messages = []
    for lib in (minitorch, torch_ref):
        with pytest.raises(NotImplementedError) as info:
            call(lib)
        messages.append(str(info.value))
    assert messages[0] == messages[1]

"""Comparing minitorch's distributions with PyTorch's: one build function runs under both
libraries, and each pair of results must agree in shape, dtype and value (NaN where PyTorch has
NaN), or be the same plain value."""

from __future__ import annotations

from types import ModuleType
from typing import Any, Callable

import numpy as np

import minitorch

#: the default tolerances: float64 results of the same formulas
RTOL = 1e-10
ATOL = 1e-12


def f64(lib: ModuleType, values: Any) -> Any:
    """``values`` as a float64 tensor of ``lib``."""
    return lib.tensor(values, dtype=lib.float64)


def assert_same(ours: Any, theirs: Any, rtol: float = RTOL, atol: float = ATOL) -> None:
    """Same shape, dtype and values for tensors, the same items for tuples and lists (shapes),
    else equal."""
    if hasattr(theirs, "detach"):
        assert tuple(ours.shape) == tuple(theirs.shape)
        assert str(ours.dtype).rsplit(".")[-1] == str(theirs.dtype).rsplit(".")[-1]
        np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=rtol, atol=atol, equal_nan=True)
    elif isinstance(theirs, (tuple, list)) and not hasattr(theirs, "numel"):
        assert tuple(ours) == tuple(theirs)
    else:
        assert ours == theirs


def compare(torch_ref: ModuleType, build: Callable[[ModuleType], list[Any]], rtol: float = RTOL,
            atol: float = ATOL) -> None:
    """``build(minitorch)`` and ``build(torch)`` agree item by item (:func:`assert_same`)."""
    for ours, theirs in zip(build(minitorch), build(torch_ref), strict=True):
        assert_same(ours, theirs, rtol, atol)

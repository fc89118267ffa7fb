"""Comparing minitorch's distributions with PyTorch's: one build function runs under both
libraries, and each pair of results must agree in shape, dtype and value (NaN where PyTorch has
NaN), or be the same plain value."""

from __future__ import annotations

from types import ModuleType
from typing import Any, Callable

import numpy as np
import pytest

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


def as_torch_text(value: Any) -> str:
    """``str(value)`` with minitorch's module name read as PyTorch's (reprs, messages)."""
    return str(value).replace("minitorch.", "torch.")


def same_error(torch_ref: ModuleType, call: Callable[[ModuleType], Any]) -> str:
    """``call(minitorch)`` and ``call(torch)`` raise the same exception type with the same message;
    the message, for further checks."""
    kinds, messages = [], []
    for lib in (minitorch, torch_ref):
        with pytest.raises(Exception) as info:
            call(lib)
        kinds.append(info.type)
        messages.append(as_torch_text(info.value))
    assert kinds[0] is kinds[1]
    assert messages[0] == messages[1]
    return messages[0]


def assert_moments_within(draws: np.ndarray, reference: Any, sigmas: float, covariance: bool = False) -> None:
    """The mean of ``draws`` (the first axis) within ``sigmas`` standard errors
    :math:`\\sqrt{\\mathrm{Var}/n}` of ``reference``'s (a PyTorch distribution), the sample variance
    within ``sigmas`` standard errors :math:`\\sqrt{(m_4 - \\sigma^4)/n}` of its variance, and with
    ``covariance`` the off-diagonal covariances too."""
    count = draws.shape[0]
    mean, var = reference.mean.numpy(), reference.variance.numpy()
    assert np.all(np.abs(draws.mean(0) - mean) <= sigmas * np.sqrt(var / count))  # equal where var is 0
    centred = (draws - mean) ** 2
    fourth = ((draws - mean) ** 4).mean(0)
    assert np.all(np.abs(centred.mean(0) - var) <= sigmas * np.sqrt(np.maximum(fourth - var ** 2, 1e-300) / count))
    if covariance:
        products = (draws - mean)[..., :, None] * (draws - mean)[..., None, :]
        cov = reference.covariance_matrix.numpy()
        assert np.all(np.abs(products.mean(0) - cov) < sigmas * products.std(0) / np.sqrt(count))

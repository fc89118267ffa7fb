"""Run one case under minitorch and under PyTorch, and compare what each gave.

A case is a function of the library module (``lambda lib: lib.ones(2).lerp(...)``). The two
runs must raise the same exception (PyTorch's type, or one of its name, and message) or return the same values: tensors
of one shape, dtype and ``grad_fn`` name, equal to a tolerance (float32 to its rounding), tuples
and lists element by element, anything else by ``==``; and they must warn alike.
"""

from __future__ import annotations

import warnings
from types import ModuleType
from typing import Any, Callable

import numpy as np

import minitorch
from torch_oracle import import_torch

torch = import_torch()

Case = Callable[[ModuleType], Any]
TOL = {"rtol": 1e-12, "atol": 1e-12}
#: float32 results may differ in the last bits (another summation order)
TOL_FLOAT32 = {"rtol": 1e-6, "atol": 1e-7}


def run_case(case: Case, lib: ModuleType) -> tuple[Any, list[str]]:
    """The case's result (or its exception) and the messages of the warnings it raised."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result: Any = case(lib)
        except Exception as error:  # noqa: BLE001 - the error itself is what is compared
            result = error
    return result, [str(w.message) for w in caught]


def as_float64(value: Any) -> np.ndarray:
    """A tensor of either library as a float64 NumPy array."""
    return np.asarray(value.detach().double().tolist() if value.numel() else [], dtype=np.float64)


def check_same(ours: Any, theirs: Any) -> None:
    """Same exception (type name and message), or the same values (see the module's docstring)."""
    if isinstance(theirs, Exception):
        assert isinstance(ours, Exception), f"PyTorch raised {theirs!r}, minitorch returned {ours!r}"
        assert isinstance(ours, type(theirs)) or type(ours).__name__ == type(theirs).__name__
        assert str(ours) == str(theirs)
        return
    assert not isinstance(ours, Exception), f"minitorch raised {ours!r}, PyTorch returned {theirs!r}"
    if isinstance(theirs, (tuple, list)):
        assert isinstance(ours, (tuple, list)) and len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            check_same(a, b)
        return
    if isinstance(theirs, torch.Tensor):
        assert list(ours.shape) == list(theirs.shape)
        assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
        assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__
        tol = TOL_FLOAT32 if theirs.dtype == torch.float32 else TOL
        np.testing.assert_allclose(as_float64(ours), as_float64(theirs), **tol)
        return
    assert ours == theirs


def compare(case: Case) -> None:
    """Run ``case`` under both libraries: the same result (:func:`check_same`) and the same warnings."""
    ours, our_warnings = run_case(case, minitorch)
    theirs, their_warnings = run_case(case, torch)
    check_same(ours, theirs)
    assert our_warnings == their_warnings


# ---- outcomes and values, for tests that compare a call's error or a pair of results ----

#: float64 results of the two libraries agree to a few units in the last place (sums in another order)
RTOL = 1e-12
#: float32 (and 16-bit floats, reduced in float32) agree to a few units in the last place
FLOAT32_RTOL = 1e-5


def outcome(call: Callable[[Any], Any], lib: ModuleType) -> tuple[str, Any]:
    """``("ok", call(lib))``, or the exception's type name and message."""
    try:
        return "ok", call(lib)
    except Exception as error:  # noqa: BLE001 - the error itself is what is compared
        return type(error).__name__, str(error)


def same_errors(call: Callable[[Any], Any]) -> None:
    """Both libraries raise, with one exception type and message."""
    theirs, ours = outcome(call, torch), outcome(call, minitorch)
    assert theirs[0] != "ok"
    assert ours == theirs


def host_values(t: Any) -> np.ndarray:
    """``t``'s values on the host, floats widened to float64 (exactly)."""
    t = t.detach()
    return (t.double() if t.dtype.is_floating_point else t).numpy()


def same_values(ours: Any, theirs: Any, rtol: float = RTOL) -> None:
    """One dtype name and shape, and the same values (NaN where NaN, infinities by sign)."""
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(host_values(ours), host_values(theirs), rtol=rtol, atol=0)

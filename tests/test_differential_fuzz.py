"""Differential fuzzing of about 110 ops against PyTorch, on inputs nobody wrote by hand.

Each op (``differential_cases.OPS``) gets random cases from hypothesis: every dtype, 0-d
tensors, 0-size and size-1 dims, broadcasting, non-contiguous views, Python scalars as
operands, dims negative and out of range, nan/inf/-0.0. The case runs in PyTorch and in
minitorch; they must agree on the exception class (when PyTorch raises) or on every
output's dtype, shape and values (``torch.testing``'s tolerances, nan where nan) and on
the gradient of ``(out * w).sum()`` for float inputs and a random ``w``.

CI runs a few examples per op, derandomized; to hunt for bugs run with many more:
``MINITORCH_FUZZ_EXAMPLES=2000 pytest tests/test_differential_fuzz.py``.
"""

from __future__ import annotations

import os
import warnings
from typing import Any

import numpy as np
import pytest
from differential_cases import OPS, Op, describe, exception_names, flat_outputs, materialize, tolerance
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import minitorch

EXAMPLES = int(os.environ.get("MINITORCH_FUZZ_EXAMPLES", "8"))
HUNTING = "MINITORCH_FUZZ_EXAMPLES" in os.environ
SEED_BOUND = 2**16


class Outcome:
    """What one library did with a case: its outputs and the gradients of its leaves, or its exception."""

    def __init__(self, lib: Any, op: Op, args: list[Any], kwargs: dict[str, Any], seed: int) -> None:
        self.error: list[str] = []
        self.message = ""
        self.outputs: list[Any] = []
        self.grads: list[Any] = []
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                leaves, built_args, built_kwargs = materialize(lib, args, kwargs, op.grad)
                self.outputs = flat_outputs(op.call(lib, *built_args, **built_kwargs))
                self._backward(lib, leaves, seed)
        except Exception as error:  # noqa: BLE001 - any exception is an outcome to compare
            self.error, self.message = exception_names(error), f"{type(error).__name__}: {error}"

    def _backward(self, lib: Any, leaves: list[Any], seed: int) -> None:
        rng = np.random.default_rng(seed)
        differentiable = [out for out in self.outputs if getattr(out, "requires_grad", False)]
        if not leaves or not differentiable:
            return
        loss = sum(
            (out * lib.from_numpy(rng.standard_normal(tuple(out.shape)).astype(out.detach().numpy().dtype))).sum()
            for out in differentiable)
        loss.backward()
        self.grads = [leaf.grad for leaf in leaves]


def _dtype_name(tensor: Any) -> str:
    return str(tensor.dtype).rsplit(".", 1)[-1]


def _compare_tensor(what: str, ours: Any, theirs: Any) -> str | None:
    if not hasattr(ours, "dtype") or not hasattr(ours, "shape"):
        return f"{what}: minitorch gave {type(ours).__name__} {ours!r}, PyTorch a tensor {theirs!r}"
    if _dtype_name(ours) != _dtype_name(theirs):
        return f"{what}: dtype {_dtype_name(ours)} != PyTorch's {_dtype_name(theirs)}"
    if tuple(ours.shape) != tuple(theirs.shape):
        return f"{what}: shape {tuple(ours.shape)} != PyTorch's {tuple(theirs.shape)}"
    a, b = ours.detach().numpy(), theirs.detach().numpy()
    rtol, atol = tolerance(_dtype_name(theirs))
    if a.dtype.kind == "f":
        a64, b64 = a.astype(np.float64), b.astype(np.float64)
        if np.array_equal(a64, b64, equal_nan=True):
            return None
        close = np.isclose(a64, b64, rtol=rtol, atol=atol, equal_nan=True)
    else:
        close = a == b
    if not np.all(close):
        return f"{what}: values {a.tolist()} != PyTorch's {b.tolist()}"
    return None


def _mismatch(op: Op, ours: Outcome, theirs: Outcome) -> str | None:
    """Why minitorch's outcome differs from PyTorch's, or None when they agree."""
    if theirs.error:
        if not ours.error:
            return f"PyTorch raised {theirs.message!r}; minitorch returned {ours.outputs!r}"
        if theirs.error[0] not in ours.error:
            return f"PyTorch raised {theirs.message!r}; minitorch raised {ours.message!r}"
        return None
    if ours.error:
        return f"PyTorch returned {theirs.outputs!r}; minitorch raised {ours.message!r}"
    if len(ours.outputs) != len(theirs.outputs):
        return f"{len(ours.outputs)} outputs != PyTorch's {len(theirs.outputs)}"
    for i, (mine, reference) in enumerate(zip(ours.outputs, theirs.outputs)):
        if i in op.skip:
            continue
        why = (_compare_tensor(f"output {i}", mine, reference) if hasattr(reference, "dtype")
               else None if mine == reference else f"output {i}: {mine!r} != PyTorch's {reference!r}")
        if why:
            return why
    if len(ours.grads) != len(theirs.grads):
        return f"{len(ours.grads)} gradients != PyTorch's {len(theirs.grads)}"
    for i, (mine, reference) in enumerate(zip(ours.grads, theirs.grads)):
        if (mine is None) != (reference is None):
            return f"gradient {i}: {mine!r} != PyTorch's {reference!r}"
        why = None if reference is None else _compare_tensor(f"gradient {i}", mine, reference)
        if why:
            return why
    return None


@pytest.mark.parametrize("name", sorted(OPS))
@settings(max_examples=EXAMPLES, deadline=None, derandomize=not HUNTING, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much,
                                 HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_op_agrees_with_torch(name: str, data: st.DataObject, torch_ref: Any) -> None:
    op = OPS[name]
    args, kwargs = data.draw(op.cases, label="case")
    seed = data.draw(st.integers(0, SEED_BOUND), label="seed of w")
    theirs = Outcome(torch_ref, op, args, kwargs, seed)
    ours = Outcome(minitorch, op, args, kwargs, seed)
    why = _mismatch(op, ours, theirs)
    assert why is None, f"{name}({describe(args, kwargs)}): {why}"

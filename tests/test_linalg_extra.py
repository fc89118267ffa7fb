"""dot, mv, addmm and randperm against PyTorch: values, gradients and error messages."""

from __future__ import annotations

from types import ModuleType
from typing import Any, Callable

import numpy as np
import pytest

import minitorch

from gradcheck import gradcheck

A = [[1.0, -2.0, 0.5], [3.0, 0.25, -1.0]]
V = [0.5, -1.5, 2.0]
W = [2.0, 1.0, -0.5]
C = [[0.1, 0.2], [-0.3, 0.4]]
B = [[1.0, 0.0], [2.0, -1.0], [0.5, 3.0]]

CASES: dict[str, Callable[[Any, Any], Any]] = {
    "dot": lambda lib, t: lib.dot(t(V), t(W)),
    "dot method": lambda lib, t: t(V).dot(t(W)),
    "mv": lambda lib, t: lib.mv(t(A), t(V)),
    "mv method": lambda lib, t: t(A).mv(t(V)),
    "addmm": lambda lib, t: lib.addmm(t(C), t(A), t(B)),
    "addmm scaled": lambda lib, t: lib.addmm(t(C), t(A), t(B), beta=0.5, alpha=-2.0),
    "addmm broadcast": lambda lib, t: lib.addmm(t([1.0, -1.0]), t(A), t(B)),
    "addmm beta 0 ignores nan": lambda lib, t: lib.addmm(t([[float("nan")] * 2] * 2), t(A), t(B), beta=0),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_values_match_torch(case: str, backend: str, torch_ref: ModuleType) -> None:
    ours = CASES[case](minitorch, lambda v: minitorch.tensor(v, dtype=minitorch.float64))
    theirs = CASES[case](torch_ref, lambda v: torch_ref.tensor(v, dtype=torch_ref.float64))
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)
    assert tuple(ours.shape) == tuple(theirs.shape)


@pytest.mark.parametrize("case", ["dot", "mv", "addmm scaled", "addmm broadcast"])
def test_gradients_by_central_differences(case: str, backend: str) -> None:
    def f(*inputs: minitorch.Tensor) -> minitorch.Tensor:
        values = iter(inputs)
        return CASES[case](minitorch, lambda v: next(values))

    shapes = {"dot": (V, W), "mv": (A, V), "addmm scaled": (C, A, B), "addmm broadcast": ([1.0, -1.0], A, B)}[case]
    gradcheck(f, *[minitorch.tensor(v, dtype=minitorch.float64, requires_grad=True) for v in shapes])


ERRORS: dict[str, Callable[[Any], Any]] = {
    "dot of matrices": lambda lib: lib.dot(lib.ones(2, 2), lib.ones(2, 2)),
    "dot of different lengths": lambda lib: lib.dot(lib.ones(2), lib.ones(3)),
    "dot of different dtypes": lambda lib: lib.dot(lib.ones(2), lib.ones(2, dtype=lib.float64)),
    "mv of a vector": lambda lib: lib.mv(lib.ones(2), lib.ones(2)),
    "mv size mismatch": lambda lib: lib.mv(lib.ones(2, 3), lib.ones(2)),
    "randperm negative": lambda lib: lib.randperm(-1),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors_match_torch(case: str, torch_ref: ModuleType) -> None:
    with pytest.raises(RuntimeError) as theirs:
        ERRORS[case](torch_ref)
    with pytest.raises(RuntimeError) as ours:
        ERRORS[case](minitorch)
    assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("n", [0, 1, 7, 100])
def test_randperm_is_a_permutation(n: int) -> None:
    drawn = minitorch.randperm(n)
    assert drawn.dtype is minitorch.int64 and sorted(drawn.tolist()) == list(range(n))


def test_randperm_follows_the_seed_and_a_generator() -> None:
    minitorch.manual_seed(3)
    first = minitorch.randperm(20).tolist()
    minitorch.manual_seed(3)
    assert minitorch.randperm(20).tolist() == first
    generator = minitorch.Generator().manual_seed(5)
    again = minitorch.Generator().manual_seed(5)
    assert minitorch.randperm(20, generator=generator).tolist() == minitorch.randperm(20, generator=again).tolist()
    assert minitorch.randperm(4, dtype=minitorch.float32).dtype is minitorch.float32

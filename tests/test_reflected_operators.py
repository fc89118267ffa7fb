"""A Python number on the left of an operator (``2 - x``, ``2 / x``, ``2 ** x``, ``2 + x``):
values, dtypes, gradients and the recorded graph (node names and edges), against PyTorch."""

from __future__ import annotations

from types import ModuleType
from typing import Any, Callable

import numpy as np
import pytest

import minitorch
from torch_oracle import import_torch

torch = import_torch()

EXPRESSIONS: dict[str, Callable[[Any, ModuleType], Any]] = {
    "2 + x": lambda x, lib: 2 + x,
    "2.5 * x": lambda x, lib: 2.5 * x,
    "2 - x": lambda x, lib: 2 - x,
    "1 - sigmoid": lambda x, lib: 1 - lib.sigmoid(x),
    "2 / x": lambda x, lib: 2 / x,
    "1 / x": lambda x, lib: 1 / x,
    "2 ** x": lambda x, lib: 2 ** x,
    "rsub(x, 3)": lambda x, lib: lib.rsub(x, 3),
    "pow(2, x)": lambda x, lib: lib.pow(2, x),
    "chain": lambda x, lib: (1 - x) / (2 ** x) + 3 * (1 / (x + 4)),
}


def graph(fn: Any, seen: int = 0) -> Any:
    """A node's name and, recursively, its edges (AccumulateGrad and None as leaves)."""
    if fn is None:
        return None
    name = fn.name().replace("torch::autograd::", "")
    if name == "AccumulateGrad" or seen > 6:
        return name
    return (name, tuple(graph(next_fn, seen + 1) for next_fn, _ in fn.next_functions))


@pytest.mark.parametrize("expression", EXPRESSIONS)
def test_graph_values_and_gradients_match_pytorch(expression: str) -> None:
    values = np.array([0.0, 0.5, 1.5, -2.0, 3.0])
    results = []
    for lib in (minitorch, torch):
        x = lib.tensor(values, dtype=lib.float64, requires_grad=True)
        y = EXPRESSIONS[expression](x, lib)
        (g,) = lib.autograd.grad(y.sum(), x, create_graph=True)
        second = lib.autograd.grad(g.sum(), x)[0].numpy() if g.requires_grad else None  # None: a linear op
        results.append((graph(y.grad_fn), y.detach().numpy(), g.detach().numpy(), second))
    ours, theirs = results
    assert ours[0] == theirs[0]
    for mine, reference in zip(ours[1:], theirs[1:]):
        assert (mine is None) == (reference is None)
        if mine is not None:
            np.testing.assert_allclose(mine, reference, rtol=1e-12, atol=0)


@pytest.mark.parametrize("number", [2, 2.5, True])
@pytest.mark.parametrize("dtype", ["int64", "float32", "bool"])
@pytest.mark.parametrize("op", ["-", "/", "**", "+", "*"])
def test_dtypes_and_values_of_reflected_ops_match_pytorch(number: Any, dtype: str, op: str) -> None:
    values = np.array([1, 2, 3]) if dtype != "bool" else np.array([True, False, True])
    outcomes = []
    for lib in (minitorch, torch):
        x = lib.tensor(values, dtype=getattr(lib, dtype if dtype != "bool" else "bool"))
        try:
            y = eval(f"number {op} x", {"number": number, "x": x})  # noqa: S307 - the operator under test
            outcomes.append((str(y.dtype).split(".")[-1], y.tolist()))
        except RuntimeError as error:
            outcomes.append(("RuntimeError", str(error)))
    assert outcomes[0] == outcomes[1]


def test_two_tensors_still_subtract_and_divide_in_order() -> None:
    for lib in (minitorch, torch):
        a = lib.tensor([3.0, 8.0], dtype=lib.float64, requires_grad=True)
        b = lib.tensor([1.0, 2.0], dtype=lib.float64)
        assert (b - a).tolist() == [-2.0, -6.0] and (b / a).tolist() == [1 / 3, 0.25]
        assert (b - a).grad_fn.name() == "SubBackward0"


SUBTRACTIONS_WITH_BOOL = ["b - b", "i - True", "b - 2", "2 - b", "True - f", "f - True", "f.sub_(b)", "i.sub_(True)",
                          "f.sub(b, alpha=2)", "lib.rsub(b, 2)", "lib.sub(f, b)", "f.sub_(b, alpha=3)"]


@pytest.mark.parametrize("expression", SUBTRACTIONS_WITH_BOOL)
def test_subtraction_with_a_bool_operand_is_refused_as_pytorch(expression: str) -> None:
    messages = []
    for lib in (minitorch, torch):
        names = {"lib": lib, "b": lib.tensor([True, False]), "i": lib.tensor([1, 2]), "f": lib.tensor([1.0, 2.0])}
        with pytest.raises(RuntimeError) as caught:
            eval(expression, names)  # noqa: S307 - the expression under test
        messages.append(str(caught.value))
    assert messages[0] == messages[1]

"""PyTorch semantics an earlier helper found outside its files (task h14), each checked against
PyTorch itself.

``t[key] = v`` into an expanded tensor while autograd records; ``masked_fill_`` with a value
tensor that needs a gradient; ``matmul``'s ``out`` dtype; the nodes of a batched ``matmul`` and of
``vdot``; ``linalg.solve_triangular`` on a zero diagonal; the engine's cast of each gradient to
its input's dtype (16-bit graphs).
"""

from __future__ import annotations

import re
import warnings
from typing import Any, Callable

import numpy as np
import pytest

import minitorch
from both_libraries import FLOAT32_RTOL, host_values, outcome, same_errors, same_values

torch = pytest.importorskip("torch")

LIBS = (torch, minitorch)

def _warning_texts(caught: list) -> list[str]:
    """The messages of ``caught`` warnings, without PyTorch's note of the C++ line that raised them."""
    return [re.sub(r" \(Triggered internally at .*\)$", "", str(w.message)) for w in caught]


def _node_name(t: Any) -> Any:
    """``t.grad_fn``'s name without PyTorch's C++ namespace (``torch::autograd::CopySlices``)."""
    return None if t.grad_fn is None else t.grad_fn.name().split("::")[-1]


# ---- item 1: ``y[key] = v`` into an expanded tensor while autograd records


#: (base shape, expanded shape, key, value shape): writes PyTorch makes, refuses forward, or
#: refuses at backward (a gradient for the expanded tensor itself)
SETITEM_CASES = [
    ((1,), (4, 3), lambda lib: lib.tensor([0, 2]), (3,)),
    ((1, 3), (4, 3), lambda lib: lib.tensor([0, 2]), (3,)),
    ((1,), (4, 3), lambda lib: (lib.tensor([0, 2]), lib.tensor([1, 1])), (1,)),
    ((1,), (4, 3), lambda lib: lib.tensor([True, False, True, False]), (3,)),
    ((1,), (4, 3), lambda lib: lib.tensor([[True, False, False]] * 4), (1,)),
    ((1, 3), (2, 4, 3), lambda lib: (0, lib.tensor([0, 2])), (3,)),
    ((1, 3), (2, 4, 3), lambda lib: (slice(None), lib.tensor([1])), (3,)),
    ((1, 3), (2, 4, 3), lambda lib: (Ellipsis, lib.tensor([0, 2])), (2, 4, 2)),
    ((1, 3), (4, 3), lambda lib: 1, (3,)),
    ((1, 3), (4, 3), lambda lib: slice(0, 2), (3,)),
    ((1, 3), (4, 3), lambda lib: (slice(None), 1), (1,)),
    ((4, 1), (4, 3), lambda lib: 1, (1,)),
    ((1,), (4, 3), lambda lib: 1, (3,)),
]


def _expanded_setitem(lib: Any, case: tuple, base_grad: bool, value_grad: bool) -> dict[str, Any]:
    """Everything observable of ``y[key] = x * 2`` into ``y``, an expansion of ``b * 1``:
    the forward's outcome, warnings, values and nodes, then the backward's outcome and gradients."""
    base_shape, shape, key, value_shape = case
    b = lib.full(base_shape, 5.0, requires_grad=base_grad)
    x = lib.arange(1.0, 1.0 + int(np.prod(value_shape)), requires_grad=value_grad)
    y = (b * 1).expand(*shape)
    seen: dict[str, Any] = {}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        forward = outcome(lambda _: y.__setitem__(key(lib), x.reshape(value_shape) * 2), lib)
    seen["forward"] = forward[0] if forward[0] == "ok" else forward
    if forward[0] != "ok":
        return seen
    seen["warnings"] = _warning_texts(caught)
    seen["values"] = y.detach().tolist()
    seen["nodes"] = (_node_name(y), _node_name(y._base))
    weights = lib.arange(float(y.numel())).reshape(shape)
    backward = outcome(lambda _: (y * weights).sum().backward(), lib)
    seen["backward"] = backward[0] if backward[0] == "ok" else backward
    seen["grads"] = [None if t.grad is None else t.grad.tolist() for t in (b, x)]
    return seen


@pytest.mark.parametrize("case", SETITEM_CASES, ids=range(len(SETITEM_CASES)))
@pytest.mark.parametrize(("base_grad", "value_grad"), [(True, True), (False, True), (True, False)])
def test_setitem_into_expanded_tensor_while_recording(case: tuple, base_grad: bool, value_grad: bool) -> None:
    ours = _expanded_setitem(minitorch, case, base_grad, value_grad)
    theirs = _expanded_setitem(torch, case, base_grad, value_grad)
    assert ours == theirs


@pytest.mark.parametrize("key", [
    lambda lib: (slice(None), lib.tensor([0, 2])),
    lambda lib: (0, lib.tensor([0, 2])),
    lambda lib: (Ellipsis, lib.tensor([True, False, True])),
])
def test_setitem_into_expanded_tensor_with_a_mixed_key(key: Callable[[Any], Any]) -> None:
    """No graph: PyTorch's ``index_put_`` into the basic view of the key's ints and slices."""
    def written(lib: Any) -> tuple[list, list[str]]:
        y = lib.arange(3.0).expand(2, 4, 3)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            y[key(lib)] = 7.0
        return y.tolist(), _warning_texts(caught)

    assert written(minitorch) == written(torch)


# ---- item 2: ``masked_fill_`` with a 0-d value tensor that requires grad


@pytest.mark.parametrize("value_dtype", ["float32", "float64"])
@pytest.mark.parametrize("self_grad", [True, False])
def test_masked_fill_gives_the_value_its_gradient(value_dtype: str, self_grad: bool) -> None:
    def filled(lib: Any) -> tuple:
        x = lib.arange(6.0, requires_grad=self_grad)
        value = lib.tensor(2.5, dtype=getattr(lib, value_dtype), requires_grad=True)
        y = (x * 1) if self_grad else x.clone()
        y.masked_fill_(lib.tensor([True, False, True, True, False, False]), value)
        (y * lib.arange(6.0)).sum().backward()
        return y, value.grad, x.grad, _node_name(y)

    ours, theirs = filled(minitorch), filled(torch)
    for mine, reference in zip(ours[:2], theirs[:2]):
        same_values(mine, reference)
    assert (ours[2] is None) == (theirs[2] is None)
    if ours[2] is not None:
        same_values(ours[2], theirs[2])
    assert ours[3] == theirs[3]


@pytest.mark.parametrize("value", [3.0, "tensor"])
def test_masked_fill_node_names(value: Any) -> None:
    def node(lib: Any) -> Any:
        y = lib.arange(4.0, requires_grad=True) * 1
        y.masked_fill_(lib.tensor([True, False, True, False]), lib.tensor(1.5) if value == "tensor" else value)
        return _node_name(y)

    assert node(minitorch) == node(torch)


@pytest.mark.parametrize("base_grad", [False, True, None])
def test_masked_fill_of_expanded_tensor_gives_the_value_its_gradient(base_grad: Any) -> None:
    """``None``: the expanded tensor's base is a leaf outside the graph."""
    def filled(lib: Any) -> dict[str, Any]:
        b = lib.full((1, 3), 2.0, requires_grad=bool(base_grad))
        y = (b if base_grad is None else b * 1).expand(4, 3)
        value = lib.tensor(2.5, requires_grad=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            y.masked_fill_(lib.tensor([[True], [False], [False], [False]]), value)
        seen = {"values": y.tolist(), "node": _node_name(y), "warnings": _warning_texts(caught)}
        seen["backward"] = outcome(lambda _: (y * lib.arange(12.0).reshape(4, 3)).sum().backward(), lib)
        seen["grad"] = None if value.grad is None else value.grad.item()
        return seen

    assert filled(minitorch) == filled(torch)


# ---- item 3: ``matmul``'s ``out`` of another dtype


MATMUL_SHAPES = [((3,), (3,)), ((2, 3), (3, 4)), ((2, 2, 3), (3, 4)), ((3,), (3, 2)), ((2, 3), (3,)),
                 ((2, 2, 3), (2, 3, 4))]


@pytest.mark.parametrize(("a_shape", "b_shape"), MATMUL_SHAPES)
@pytest.mark.parametrize("out_dtype", ["float64", "float16", "int64"])
def test_matmul_refuses_an_out_of_another_dtype(a_shape: tuple, b_shape: tuple, out_dtype: str) -> None:
    same_errors(lambda lib: lib.matmul(lib.ones(a_shape), lib.ones(b_shape),
                                        out=lib.empty(0, dtype=getattr(lib, out_dtype))))


@pytest.mark.parametrize(("a_shape", "b_shape"), MATMUL_SHAPES)
def test_matmul_writes_an_out_of_its_dtype(a_shape: tuple, b_shape: tuple) -> None:
    def product(lib: Any) -> Any:
        a = lib.arange(float(np.prod(a_shape))).reshape(a_shape)
        out = lib.empty(0)
        result = lib.matmul(a, lib.ones(b_shape), out=out)
        assert result is out
        return out

    same_values(product(minitorch), product(torch), FLOAT32_RTOL)


def test_matmul_out_with_a_gradient_is_refused_first() -> None:
    same_errors(lambda lib: lib.matmul(lib.ones(2, 3, requires_grad=True), lib.ones(3, 2),
                                        out=lib.empty(0, dtype=lib.float64)))


# ---- item 4: the node of a batched ``matmul``


NODE_SHAPES = [((3,), (3,)), ((2, 3), (3, 4)), ((3,), (3, 4)), ((2, 3), (3,)), ((5, 2, 3), (3, 4)),
               ((3,), (5, 3, 4)), ((5, 2, 3), (3,)), ((5, 2, 3), (5, 3, 4)), ((5, 2, 3), (1, 3, 4)),
               ((2, 3), (5, 3, 4)), ((2, 3), (2, 5, 3, 4)), ((1, 3), (5, 3, 4)), ((2, 3), (5, 3, 1)),
               ((2, 3), (0, 3, 4)), ((0, 3), (5, 3, 4)), ((7, 1, 2, 3), (5, 3, 4))]


@pytest.mark.parametrize(("a_shape", "b_shape"), NODE_SHAPES)
@pytest.mark.parametrize("grads", [(True, True), (True, False), (False, True)])
def test_matmul_node_names(a_shape: tuple, b_shape: tuple, grads: tuple[bool, bool]) -> None:
    def product(lib: Any) -> tuple:
        a = lib.arange(float(np.prod(a_shape))).reshape(a_shape).requires_grad_(grads[0])
        b = lib.ones(b_shape, requires_grad=grads[1])
        result = lib.matmul(a, b)
        result.sum().backward()
        return _node_name(result), result, [t.grad for t in (a, b) if t.requires_grad]

    ours, theirs = product(minitorch), product(torch)
    assert ours[0] == theirs[0]
    same_values(ours[1], theirs[1], FLOAT32_RTOL)
    for mine, reference in zip(ours[2], theirs[2]):
        same_values(mine, reference, FLOAT32_RTOL)


# ---- item 5: ``vdot``'s node


@pytest.mark.parametrize("call", [lambda lib, a, b: lib.vdot(a, b), lambda lib, a, b: a.vdot(b)])
def test_vdot_node(call: Callable[..., Any]) -> None:
    def product(lib: Any) -> tuple:
        a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        b = lib.tensor([4.0, 5.0, 6.0], requires_grad=True)
        result = call(lib, a, b)
        node = result.grad_fn
        saved = (node._saved_self.tolist(), node._saved_other.tolist())
        result.backward()
        return node.name(), type(node).__name__, saved, result.item(), a.grad.tolist(), b.grad.tolist()

    assert product(minitorch) == product(torch)


@pytest.mark.parametrize(("a", "b"), [((3,), (3,)), ((3,), (4,)), ((2, 3), (3,))])
def test_vdot_errors_and_integers(a: tuple, b: tuple) -> None:
    def product(lib: Any) -> Any:
        return lib.vdot(lib.ones(a, dtype=lib.int64), lib.ones(b, dtype=lib.int64)).tolist()

    assert outcome(product, minitorch) == outcome(product, torch)


# ---- item 6: ``solve_triangular`` on a zero diagonal


#: a lower triangle with a zero on its diagonal (above it: entries the solver must not read)
SINGULAR_LOWER = np.array([[2.0, 9.0, 9.0], [1.0, 0.0, 9.0], [3.0, 4.0, 5.0]])
RHS = np.array([[1.0, 2.0], [0.0, 3.0], [4.0, 5.0]])


@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_solve_triangular_zero_diagonal_gives_inf_and_nan(upper: bool, left: bool, dtype: str) -> None:
    def solved(lib: Any) -> Any:
        A = lib.tensor(SINGULAR_LOWER.T.copy() if upper else SINGULAR_LOWER, dtype=getattr(lib, dtype))
        B = lib.tensor(RHS if left else RHS.T.copy(), dtype=getattr(lib, dtype))
        return lib.linalg.solve_triangular(A, B, upper=upper, left=left)

    same_values(solved(minitorch), solved(torch), FLOAT32_RTOL)


@pytest.mark.parametrize("unitriangular", [False, True])
def test_solve_triangular_of_zeros(unitriangular: bool) -> None:
    def solved(lib: Any) -> Any:
        return lib.linalg.solve_triangular(lib.zeros(3, 3), lib.zeros(3, 2), upper=True, unitriangular=unitriangular)

    same_values(solved(minitorch), solved(torch))


@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("unitriangular", [False, True])
def test_solve_triangular_values_and_gradients(upper: bool, left: bool, unitriangular: bool) -> None:
    """Batches broadcast (``A``'s batch ``(2, 1)``, ``B``'s ``(4,)``); the node is PyTorch's."""
    generator = np.random.default_rng(7)
    matrices = generator.standard_normal((2, 1, 3, 3)) + 3 * np.eye(3)
    rhs = generator.standard_normal((4, 3, 3))

    def solved(lib: Any) -> tuple:
        A, B = lib.tensor(matrices, requires_grad=True), lib.tensor(rhs, requires_grad=True)
        X = lib.linalg.solve_triangular(A, B, upper=upper, left=left, unitriangular=unitriangular)
        (X * lib.tensor(np.arange(X.numel(), dtype=np.float64).reshape(tuple(X.shape)))).sum().backward()
        return X.grad_fn.name(), X, A.grad, B.grad

    ours, theirs = solved(minitorch), solved(torch)
    assert ours[0] == theirs[0]
    for mine, reference in zip(ours[1:], theirs[1:]):
        np.testing.assert_allclose(host_values(mine), host_values(reference), rtol=1e-10, atol=1e-10)


def test_solve_triangular_reads_b_in_a_dtype() -> None:
    def solved(lib: Any) -> tuple:
        A = lib.tensor([[2.0, 7.0, 1.0], [1.0, 3.0, 9.0], [3.0, 4.0, 5.0]], requires_grad=True)
        B = lib.ones(3, 2, dtype=lib.float64, requires_grad=True)
        X = lib.linalg.solve_triangular(A, B, upper=False)
        X.sum().backward()
        return X, A.grad, B.grad

    for mine, reference in zip(solved(minitorch), solved(torch)):
        same_values(mine, reference, FLOAT32_RTOL)


@pytest.mark.parametrize("call", [
    lambda lib: lib.linalg.solve_triangular(lib.ones(3, 3), lib.ones(3), upper=True),
    lambda lib: lib.linalg.solve_triangular(lib.ones(3), lib.ones(3, 2), upper=True),
    lambda lib: lib.linalg.solve_triangular(lib.ones(3, 3), lib.ones(4, 2), upper=True),
    lambda lib: lib.linalg.solve_triangular(lib.ones(3, 3), lib.ones(2, 4), upper=True, left=False),
    lambda lib: lib.linalg.solve_triangular(lib.ones(2, 3), lib.ones(3, 2), upper=True),
    lambda lib: lib.linalg.solve_triangular(lib.ones(3, 3, dtype=lib.int64), lib.ones(3, 2, dtype=lib.int64), upper=True),
    lambda lib: lib.linalg.solve_triangular(lib.ones(3, 3, dtype=lib.float16), lib.ones(3, 2), upper=True),
    lambda lib: lib.linalg.solve_triangular(lib.ones(3, 3, dtype=lib.bfloat16), lib.ones(3, 2), upper=True),
    lambda lib: lib.linalg.solve_triangular(lib.eye(3), lib.ones(3, 2), upper=True, out=lib.empty(0, dtype=lib.float64)),
    lambda lib: lib.linalg.solve_triangular(lib.ones(2, 3, 3), lib.ones(3, 3, 2), upper=True),
])
def test_solve_triangular_errors(call: Callable[[Any], Any]) -> None:
    same_errors(call)


# ---- item 7: each gradient cast to its input's dtype


def _widening_function(lib: Any) -> Any:
    """A custom Function whose backward returns a float32 gradient for a 16-bit input."""

    class Widen(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            return x.float() * 2

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            return grad * 2

    return Widen


@pytest.mark.parametrize("half", ["float16", "bfloat16"])
def test_gradients_reach_16_bit_nodes_in_their_dtype(half: str) -> None:
    def run(lib: Any) -> tuple:
        x = lib.tensor([0.3, -1.7, 2.9], requires_grad=True)
        h = x.to(getattr(lib, half)).sin()
        seen: list[str] = []
        h.register_hook(lambda g: seen.append(str(g.dtype).split(".")[-1]))
        w = h.exp()
        w.register_hook(lambda g: seen.append(str(g.dtype).split(".")[-1]))
        _widening_function(lib).apply(w).sum().backward()
        return seen, x.grad

    ours, theirs = run(minitorch), run(torch)
    assert ours[0] == theirs[0]
    same_values(ours[1], theirs[1], 0)


#: 16-bit graphs of a few ops, summed in float32
HALF_GRAPHS = {
    "exp_mul_sin": lambda lib, h, w: ((h * w).exp() + h.sin()).float().sum(),
    "matmul": lambda lib, h, w: ((h.reshape(2, 2) @ w.reshape(2, 2)).float() * lib.arange(4.0).reshape(2, 2)).sum(),
    "double_pow_mean": lambda lib, h, w: (h * w).double().pow(2).sum().float() + h.mean().float(),
}


@pytest.mark.parametrize("half", ["float16", "bfloat16"])
@pytest.mark.parametrize("graph", sorted(HALF_GRAPHS))
def test_16_bit_graphs(half: str, graph: str) -> None:
    def run(lib: Any) -> tuple:
        dtype = getattr(lib, half)
        x = lib.tensor([0.5, -1.25, 2.0, 1.5], requires_grad=True)
        w = lib.tensor([1.5, 0.25, -0.75, 2.0], dtype=dtype, requires_grad=True)
        HALF_GRAPHS[graph](lib, x.to(dtype), w).backward()
        return x.grad, w.grad

    for mine, reference in zip(run(minitorch), run(torch)):
        same_values(mine, reference, 0)

"""Step 1: scalar autodiff: ``minitorch.autodiff``, ``minitorch.scalar`` and
``minitorch.scalar_functions``.

Expected values are worked out by hand, taken from Python's ``math`` module, or measured
as finite-difference slopes of plain-float reference functions, never from the code
under test. The graph tests use a tiny hand-built graph (:class:`Node`) so that
``topological_sort`` and ``backpropagate`` are graded on their own.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Sequence

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from minitorch.autodiff import Context, backpropagate, central_difference, topological_sort
from minitorch.scalar import Scalar, ScalarHistory
from minitorch.scalar_functions import (
    EQ,
    LT,
    Add,
    Exp,
    Inv,
    Log,
    Mul,
    Neg,
    ReLU,
    ScalarFunction,
    Sigmoid,
)

FAST = settings(max_examples=50, deadline=None)

#: finite-difference step of the test oracle, and how far autodiff may be from its slope
STEP = 1e-6
SLOPE_TOLERANCE = 1e-4
#: range of the upstream derivative d_output fed to backward
upstream = st.floats(min_value=-5, max_value=5, allow_nan=False)
#: stay this far from a kink or a jump so a finite difference does not straddle it
KINK_MARGIN = 1e-3

small = st.floats(min_value=-10, max_value=10, allow_nan=False)
positive = st.floats(min_value=0.1, max_value=10, allow_nan=False)
nonzero = st.one_of(st.floats(min_value=0.5, max_value=10), st.floats(min_value=-10, max_value=-0.5))


def slope(f: Callable[..., float], vals: Sequence[float], arg: int) -> float:
    """Independent oracle: central-difference slope of ``f`` in argument ``arg``."""
    above = [v + STEP if i == arg else v for i, v in enumerate(vals)]
    below = [v - STEP if i == arg else v for i, v in enumerate(vals)]
    return (f(*above) - f(*below)) / (2 * STEP)


def assert_gradients(
    scalar_fn: Callable[..., Scalar],
    reference: Callable[..., float],
    *vals: float,
    d_output: float = 1.0,
) -> None:
    """Backpropagate ``d_output`` through ``scalar_fn`` and compare each input's derivative
    with ``d_output`` times the slope of the plain-float ``reference``."""
    inputs = [Scalar(v) for v in vals]
    out = scalar_fn(*inputs)
    assert out.data == pytest.approx(reference(*vals))
    out.backward(d_output)
    for i, x in enumerate(inputs):
        assert x.derivative == pytest.approx(
            d_output * slope(reference, vals, i), rel=SLOPE_TOLERANCE, abs=SLOPE_TOLERANCE
        ), f"d/d(input {i}) at {vals}"


# ---------------------------------------------------------- task 1.1: central difference


@pytest.mark.task("1.1")
def test_central_difference_by_hand() -> None:
    assert central_difference(lambda x: x * x, 3.0) == pytest.approx(6.0)
    assert central_difference(lambda x: 5 * x + 2, -7.0) == pytest.approx(5.0)
    # f(x, y) = x y^2: df/dx = y^2 = 9, df/dy = 2 x y = 12 at (2, 3)
    assert central_difference(lambda x, y: x * y * y, 2.0, 3.0, arg=0) == pytest.approx(9.0)
    assert central_difference(lambda x, y: x * y * y, 2.0, 3.0, arg=1) == pytest.approx(12.0)


@pytest.mark.task("1.1")
def test_central_difference_is_central_and_uses_epsilon() -> None:
    # x^2 at 0: a central difference is exactly 0 (a one-sided one would give epsilon)
    assert central_difference(lambda x: x * x, 0.0, epsilon=0.1) == 0.0
    # x^3 at 0: ((e^3) - (-e)^3) / (2 e) = e^2 exactly
    assert central_difference(lambda x: x**3, 0.0, epsilon=0.1) == pytest.approx(0.01)


@pytest.mark.task("1.1")
@FAST
@given(small)
def test_central_difference_matches_calculus(x: float) -> None:
    assert central_difference(math.sin, x) == pytest.approx(math.cos(x), abs=SLOPE_TOLERANCE)
    assert central_difference(math.exp, x) == pytest.approx(math.exp(x), rel=SLOPE_TOLERANCE)
    # atan2(x, 1) = atan(x), whose derivative is 1 / (1 + x^2)
    assert central_difference(math.atan2, x, 1.0, arg=0) == pytest.approx(
        1 / (1 + x * x), abs=SLOPE_TOLERANCE
    )


# -------------------------------------------------------------- task 1.2: scalar forward


@pytest.mark.task("1.2")
@FAST
@given(small, nonzero)
def test_operators_match_python(a: float, b: float) -> None:
    x, y = Scalar(a), Scalar(b)
    assert (x + y).data == pytest.approx(a + b)
    assert (x - y).data == pytest.approx(a - b)
    assert (x * y).data == pytest.approx(a * b)
    assert (x / y).data == pytest.approx(a / b)
    assert (-x).data == -a
    assert (x < y).data == float(a < b)
    assert (x > y).data == float(a > b)
    assert (x == y).data == float(a == b)
    assert (x == x).data == 1.0


@pytest.mark.task("1.2")
@FAST
@given(small, nonzero)
def test_operators_mix_with_plain_numbers(a: float, b: float) -> None:
    x = Scalar(b)
    assert (a + x).data == pytest.approx(a + b)
    assert (x + a).data == pytest.approx(b + a)
    assert (a - x).data == pytest.approx(a - b)
    assert (x - a).data == pytest.approx(b - a)
    assert (a * x).data == pytest.approx(a * b)
    assert (a / x).data == pytest.approx(a / b)
    assert (x / 2).data == pytest.approx(b / 2)


@pytest.mark.task("1.2")
@FAST
@given(small, positive)
def test_functions_match_math(a: float, p: float) -> None:
    assert Scalar(a).exp().data == pytest.approx(math.exp(a))
    assert Scalar(a).sigmoid().data == pytest.approx(1 / (1 + math.exp(-a)))
    assert Scalar(a).relu().data == max(a, 0.0)
    assert Scalar(p).log().data == pytest.approx(math.log(p))


@pytest.mark.task("1.2")
def test_scalar_basics() -> None:
    x = Scalar(2.0)
    assert repr(x) == "Scalar(2.0000)"
    assert repr(Scalar(-0.5)) == "Scalar(-0.5000)"
    assert isinstance(Scalar(3).data, float)
    assert x.derivative is None
    assert Scalar(1.0).unique_id != Scalar(1.0).unique_id
    assert Scalar(1.0, name="w").name == "w"
    assert x.is_leaf() and not x.is_constant()


@pytest.mark.task("1.2")
def test_forward_records_history() -> None:
    x, y = Scalar(2.0), Scalar(3.0)
    z = x * y
    assert isinstance(z.history, ScalarHistory)
    assert z.history.last_fn is Mul
    first, second = z.parents
    assert first is x and second is y
    assert not z.is_leaf() and not z.is_constant()
    # a plain number becomes a constant input
    w = x * 4.0
    constant = list(w.parents)[1]
    assert constant.is_constant() and constant.data == 4.0
    # with nothing to differentiate, the result is a constant as well
    assert (Scalar(1.0, history=None) + 2.0).is_constant()


@pytest.mark.task("1.2")
def test_context_saves_values() -> None:
    ctx = Context()
    ctx.save_for_backward(1.0, 2.0)
    assert ctx.saved_values == (1.0, 2.0)
    quiet = Context(no_grad=True)
    quiet.save_for_backward(1.0, 2.0)
    assert quiet.saved_values == ()


# ----------------------------------------------------------------- task 1.3: chain rule


class Shifted(ScalarFunction):
    """Test-only function with a known derivative: f(x, y) = x + y + 10."""

    @staticmethod
    def forward(ctx: Context, x: float, y: float) -> float:
        return x + y + 10

    @staticmethod
    def backward(ctx: Context, d_output: float) -> tuple[float, float]:
        return d_output, d_output


class Product(ScalarFunction):
    """Test-only function with a known derivative: f(x, y) = x y + x."""

    @staticmethod
    def forward(ctx: Context, x: float, y: float) -> float:
        ctx.save_for_backward(x, y)
        return x * y + x

    @staticmethod
    def backward(ctx: Context, d_output: float) -> tuple[float, float]:
        x, y = ctx.saved_values
        return d_output * (y + 1), d_output * x


class Cube(ScalarFunction):
    """Test-only function of one input: f(x) = x^3, returning a bare float from backward."""

    @staticmethod
    def forward(ctx: Context, x: float) -> float:
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx: Context, d_output: float) -> float:
        (x,) = ctx.saved_values
        return d_output * 3 * x * x


@pytest.mark.task("1.3")
def test_chain_rule_pairs_inputs_with_derivatives() -> None:
    x, y = Scalar(2.0), Scalar(3.0)
    z = Product.apply(x, y)
    assert z.data == 8.0
    pairs = list(z.chain_rule(1.5))
    assert len(pairs) == 2
    (p0, d0), (p1, d1) = pairs
    assert p0 is x and d0 == pytest.approx(1.5 * 4.0)
    assert p1 is y and d1 == pytest.approx(1.5 * 2.0)


@pytest.mark.task("1.3")
def test_chain_rule_one_input_and_constants() -> None:
    x = Scalar(2.0)
    ((parent, d),) = list(Cube.apply(x).chain_rule(2.0))
    assert parent is x and d == pytest.approx(2.0 * 3 * 4.0)
    # a constant input still appears, at its place; backpropagate is what skips it
    z = Shifted.apply(x, 5.0)
    assert z.data == 17.0
    (p0, d0), (p1, d1) = list(z.chain_rule(1.0))
    assert p0 is x and d0 == 1.0
    assert p1.is_constant() and p1.data == 5.0 and d1 == 1.0


@pytest.mark.task("1.3")
@FAST
@given(small, small, small)
def test_chain_rule_scales_with_d_output(a: float, b: float, d: float) -> None:
    z = Product.apply(Scalar(a), Scalar(b))
    (_, d0), (_, d1) = list(z.chain_rule(d))
    assert d0 == pytest.approx(d * (b + 1))
    assert d1 == pytest.approx(d * a)


# ------------------------------------------- task 1.4: topological sort, backpropagate


@dataclass(eq=False)
class Node:
    """A hand-built graph node implementing the Variable protocol.

    ``edges`` pairs each parent with the local derivative d(self)/d(parent).
    """

    unique_id: int
    edges: list[tuple[Node, float]] = field(default_factory=list)
    constant: bool = False
    derivative: float | None = None

    def is_leaf(self) -> bool:
        return not self.edges and not self.constant

    def is_constant(self) -> bool:
        return self.constant

    @property
    def parents(self) -> list[Node]:
        return [parent for parent, _ in self.edges]

    def chain_rule(self, d_output: float) -> list[tuple[Node, float]]:
        return [(parent, d_output * local) for parent, local in self.edges]

    def accumulate_derivative(self, x: float) -> None:
        assert self.is_leaf(), "only leaves receive a derivative"
        self.derivative = (self.derivative or 0.0) + x


def diamond() -> dict[str, Node]:
    r"""Leaves a, b, constant c; d = f(a, b), e = g(a, c), out = h(d, e), with local
    derivatives on the edges::

        out --11--> d --2--> a
          \          \--3--> b
           \--13--> e --5--> a
                      \--7--> c (constant)

    so :math:`\partial out / \partial a = 11 \cdot 2 + 13 \cdot 5 = 87` and
    :math:`\partial out / \partial b = 11 \cdot 3 = 33`.
    """
    a, b, c = Node(1), Node(2), Node(3, constant=True)
    d = Node(4, [(a, 2.0), (b, 3.0)])
    e = Node(5, [(a, 5.0), (c, 7.0)])
    out = Node(6, [(d, 11.0), (e, 13.0)])
    return {"a": a, "b": b, "c": c, "d": d, "e": e, "out": out}


@pytest.mark.task("1.4")
def test_topological_sort_orders_children_before_parents() -> None:
    g = diamond()
    order = topological_sort(g["out"])
    ids = [v.unique_id for v in order]
    assert ids[0] == g["out"].unique_id
    assert sorted(ids) == [1, 2, 4, 5, 6], "each non-constant node once, constant c left out"
    position = {node_id: i for i, node_id in enumerate(ids)}
    for node in order:
        for parent in node.parents:
            if not parent.is_constant():
                assert position[node.unique_id] < position[parent.unique_id]


@pytest.mark.task("1.4")
def test_topological_sort_of_a_leaf_and_a_chain() -> None:
    leaf = Node(1)
    assert [v.unique_id for v in topological_sort(leaf)] == [1]
    chain = [Node(1)]
    for i in range(2, 6):
        chain.append(Node(i, [(chain[-1], 1.0)]))
    assert [v.unique_id for v in topological_sort(chain[-1])] == [5, 4, 3, 2, 1]


@pytest.mark.task("1.4")
def test_backpropagate_on_hand_built_graph() -> None:
    g = diamond()
    backpropagate(g["out"], 1.0)
    assert g["a"].derivative == pytest.approx(87.0)
    assert g["b"].derivative == pytest.approx(33.0)
    assert g["c"].derivative is None
    # inner nodes are not leaves: they pass derivatives on but keep none
    assert g["d"].derivative is None and g["e"].derivative is None


@pytest.mark.task("1.4")
def test_backpropagate_scales_and_accumulates() -> None:
    g = diamond()
    backpropagate(g["out"], 2.0)
    assert g["a"].derivative == pytest.approx(2 * 87.0)
    backpropagate(g["out"], 1.0)
    assert g["a"].derivative == pytest.approx(3 * 87.0)


@pytest.mark.task("1.4")
def test_scalar_backward_by_hand() -> None:
    # z = x^2 + x y: dz/dx = 2x + y = 7, dz/dy = x = 2 at (2, 3)
    x, y = Scalar(2.0), Scalar(3.0)
    z = x * x + x * y
    z.backward()
    assert x.derivative == pytest.approx(7.0)
    assert y.derivative == pytest.approx(2.0)


@pytest.mark.task("1.4")
def test_variable_used_twice_accumulates() -> None:
    x = Scalar(3.0)
    (x + x).backward()
    assert x.derivative == pytest.approx(2.0)

    # z = (2x)(3x) = 6x^2: dz/dx = 12x = 24 at x = 2, through a diamond-shaped graph
    x = Scalar(2.0)
    ((x * 2.0) * (x * 3.0)).backward()
    assert x.derivative == pytest.approx(24.0)

    # x^3 at 2: 3x^2 = 12
    x = Scalar(2.0)
    (x * x * x).backward()
    assert x.derivative == pytest.approx(12.0)


@pytest.mark.task("1.4")
def test_backward_accumulates_across_calls_and_skips_constants() -> None:
    x = Scalar(2.0)
    c = Scalar(5.0, history=None)
    z = x * c
    z.backward()
    z.backward(d_output=3.0)
    # like PyTorch's .grad: 5 from the first call plus 3 * 5 from the second
    assert x.derivative == pytest.approx(20.0)
    assert c.derivative is None


@pytest.mark.task("1.4")
def test_backward_of_a_leaf() -> None:
    x = Scalar(4.0)
    x.backward()
    assert x.derivative == 1.0


# ------------------------------------------------------ task 1.5: scalar backward functions


@pytest.mark.task("1.5")
def test_backward_by_hand() -> None:
    cases: list[tuple[Callable[[Scalar], Scalar], float, float]] = [
        (lambda s: Neg.apply(s), 3.0, -1.0),
        (lambda s: Inv.apply(s), 2.0, -0.25),  # -1 / x^2
        (lambda s: Sigmoid.apply(s), 0.0, 0.25),  # sigma(0) (1 - sigma(0))
        (lambda s: ReLU.apply(s), 2.0, 1.0),
        (lambda s: ReLU.apply(s), -2.0, 0.0),
        (lambda s: Exp.apply(s), 0.0, 1.0),
        (lambda s: Log.apply(s), 4.0, 0.25),  # 1 / x
    ]
    for fn, value, expected in cases:
        x = Scalar(value)
        fn(x).backward()
        assert x.derivative == pytest.approx(expected), (fn, value)

    x, y = Scalar(2.0), Scalar(3.0)
    Mul.apply(x, y).backward()
    assert (x.derivative, y.derivative) == pytest.approx((3.0, 2.0))
    x, y = Scalar(2.0), Scalar(3.0)
    Add.apply(x, y).backward()
    assert (x.derivative, y.derivative) == pytest.approx((1.0, 1.0))


def sigmoid_ref(v: float) -> float:
    return 1 / (1 + math.exp(-v))


UNARY = {
    "neg": (lambda s: Neg.apply(s), lambda v: -v, small),
    "inv": (lambda s: Inv.apply(s), lambda v: 1 / v, nonzero),
    "sigmoid": (lambda s: Sigmoid.apply(s), sigmoid_ref, small),
    "relu": (
        lambda s: ReLU.apply(s),
        lambda v: max(v, 0.0),
        small.filter(lambda v: abs(v) > KINK_MARGIN),
    ),
    "exp": (lambda s: Exp.apply(s), math.exp, st.floats(min_value=-5, max_value=5)),
    "log": (lambda s: Log.apply(s), math.log, positive),
}


@pytest.mark.task("1.5")
@pytest.mark.parametrize("name", list(UNARY))
@FAST
@given(data=st.data())
def test_unary_backward_matches_slope(name: str, data: st.DataObject) -> None:
    scalar_fn, reference, domain = UNARY[name]
    assert_gradients(scalar_fn, reference, data.draw(domain), d_output=data.draw(upstream))


BINARY = {
    "add": (lambda s, t: Add.apply(s, t), lambda a, b: a + b),
    "mul": (lambda s, t: Mul.apply(s, t), lambda a, b: a * b),
    "lt": (lambda s, t: LT.apply(s, t), lambda a, b: float(a < b)),
    "eq": (lambda s, t: EQ.apply(s, t), lambda a, b: float(a == b)),
}


@pytest.mark.task("1.5")
@pytest.mark.parametrize("name", list(BINARY))
@FAST
@given(small, small, upstream)
def test_binary_backward_matches_slope(name: str, a: float, b: float, d: float) -> None:
    assume(abs(a - b) > KINK_MARGIN)  # keep lt and eq away from their jump
    scalar_fn, reference = BINARY[name]
    assert_gradients(scalar_fn, reference, a, b, d_output=d)


@pytest.mark.task("1.5")
@FAST
@given(small, nonzero)
def test_operators_backward_match_slope(a: float, b: float) -> None:
    assert_gradients(lambda x, y: x - y, lambda u, v: u - v, a, b)
    assert_gradients(lambda x, y: x / y, lambda u, v: u / v, a, b)
    assert_gradients(lambda x, y: 3.0 / y - x * 2.0, lambda u, v: 3.0 / v - u * 2.0, a, b)


@pytest.mark.task("1.5")
@FAST
@given(st.floats(min_value=-3, max_value=3), positive)
def test_composite_backward_matches_slope(a: float, b: float) -> None:
    def scalar_fn(x: Scalar, y: Scalar) -> Scalar:
        return (x * y + x).sigmoid() + x.exp() / y - y.log() * x + (x * x).relu()

    def reference(u: float, v: float) -> float:
        return sigmoid_ref(u * v + u) + math.exp(u) / v - math.log(v) * u + max(u * u, 0.0)

    assert_gradients(scalar_fn, reference, a, b)

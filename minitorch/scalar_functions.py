r"""Step 1: the differentiable functions a :class:`~minitorch.scalar.Scalar` is built from.

Each function is a class with two static methods side by side:

* ``forward(ctx, *inputs)`` computes the result from plain floats, saving in ``ctx``
  whatever ``backward`` will need;
* ``backward(ctx, d_output)`` is given :math:`d = \frac{\partial \text{out}}{\partial f}`
  and returns :math:`d \cdot \frac{\partial f}{\partial x_i}` for each input :math:`x_i`.

:meth:`ScalarFunction.apply` joins the two to the graph.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Union

from . import operators
from .autodiff import Context

if TYPE_CHECKING:
    from .scalar import Scalar

#: what a function accepts as an input: a Scalar or a plain number
ScalarLike = Union[float, int, "Scalar"]


class ScalarFunction:
    """Base class of the functions in this file; see the module docstring."""

    @staticmethod
    def forward(ctx: Context, *inputs: float) -> float:
        """Compute the result from the input values."""
        raise NotImplementedError

    @staticmethod
    def backward(ctx: Context, d_output: float) -> float | tuple[float, ...]:
        """One derivative per input (a bare float for a function of one input)."""
        raise NotImplementedError

    @classmethod
    def _forward(cls, ctx: Context, *inputs: float) -> float:
        return float(cls.forward(ctx, *inputs))

    @classmethod
    def _backward(cls, ctx: Context, d_output: float) -> tuple[float, ...]:
        derivatives = cls.backward(ctx, d_output)
        if isinstance(derivatives, tuple):
            return derivatives
        return (derivatives,)

    @classmethod
    def apply(cls, *vals: ScalarLike) -> Scalar:
        """Run the function on ``vals`` and record it in the result's history.

        Plain numbers become constant Scalars. When every input is constant there is
        nothing to differentiate, so the result is a constant too.
        """
        # imported here, not at the top: scalar.py imports this module
        from .scalar import Scalar, ScalarHistory

        scalars = tuple(v if isinstance(v, Scalar) else Scalar(v, history=None) for v in vals)
        needs_grad = any(not s.is_constant() for s in scalars)
        ctx = Context(no_grad=not needs_grad)
        result = cls._forward(ctx, *(s.data for s in scalars))
        history = ScalarHistory(cls, ctx, scalars) if needs_grad else None
        return Scalar(result, history=history)


class Add(ScalarFunction):
    r""":math:`f(a, b) = a + b`, so
    :math:`\frac{\partial f}{\partial a} = \frac{\partial f}{\partial b} = 1`."""

    @staticmethod
    def forward(ctx: Context, a: float, b: float) -> float:
        # BEGIN SOLUTION 1.2
        return operators.add(a, b)
        # END SOLUTION

    @staticmethod
    def backward(ctx: Context, d_output: float) -> tuple[float, float]:
        # BEGIN SOLUTION 1.5
        return d_output, d_output
        # END SOLUTION


class Mul(ScalarFunction):
    r""":math:`f(a, b) = a b`, so
    :math:`\frac{\partial f}{\partial a} = b` and :math:`\frac{\partial f}{\partial b} = a`."""

    @staticmethod
    def forward(ctx: Context, a: float, b: float) -> float:
        # BEGIN SOLUTION 1.2
        ctx.save_for_backward(a, b)
        return operators.mul(a, b)
        # END SOLUTION

    @staticmethod
    def backward(ctx: Context, d_output: float) -> tuple[float, float]:
        # BEGIN SOLUTION 1.5
        a, b = ctx.saved_values
        return operators.mul(b, d_output), operators.mul(a, d_output)
        # END SOLUTION


class Inv(ScalarFunction):
    r""":math:`f(a) = \frac{1}{a}`, so :math:`f'(a) = -\frac{1}{a^2}`."""

    @staticmethod
    def forward(ctx: Context, a: float) -> float:
        # BEGIN SOLUTION 1.2
        ctx.save_for_backward(a)
        return operators.inv(a)
        # END SOLUTION

    @staticmethod
    def backward(ctx: Context, d_output: float) -> float:
        # BEGIN SOLUTION 1.5
        (a,) = ctx.saved_values
        return operators.inv_back(a, d_output)
        # END SOLUTION


class Neg(ScalarFunction):
    r""":math:`f(a) = -a`, so :math:`f'(a) = -1`."""

    @staticmethod
    def forward(ctx: Context, a: float) -> float:
        # BEGIN SOLUTION 1.2
        return operators.neg(a)
        # END SOLUTION

    @staticmethod
    def backward(ctx: Context, d_output: float) -> float:
        # BEGIN SOLUTION 1.5
        return operators.neg(d_output)
        # END SOLUTION


class Sigmoid(ScalarFunction):
    r""":math:`f(a) = \sigma(a)`, so :math:`f'(a) = \sigma(a)\,(1 - \sigma(a))`."""

    @staticmethod
    def forward(ctx: Context, a: float) -> float:
        # BEGIN SOLUTION 1.2
        out = operators.sigmoid(a)
        ctx.save_for_backward(out)
        return out
        # END SOLUTION

    @staticmethod
    def backward(ctx: Context, d_output: float) -> float:
        # BEGIN SOLUTION 1.5
        (out,) = ctx.saved_values
        return operators.mul(d_output, operators.mul(out, operators.sub(1.0, out)))
        # END SOLUTION


class ReLU(ScalarFunction):
    r""":math:`f(a) = \max(a, 0)`, so :math:`f'(a) = \mathbb{1}[a > 0]`."""

    @staticmethod
    def forward(ctx: Context, a: float) -> float:
        # BEGIN SOLUTION 1.2
        ctx.save_for_backward(a)
        return operators.relu(a)
        # END SOLUTION

    @staticmethod
    def backward(ctx: Context, d_output: float) -> float:
        # BEGIN SOLUTION 1.5
        (a,) = ctx.saved_values
        return operators.relu_back(a, d_output)
        # END SOLUTION


class Exp(ScalarFunction):
    r""":math:`f(a) = e^a`, so :math:`f'(a) = e^a` (the saved output)."""

    @staticmethod
    def forward(ctx: Context, a: float) -> float:
        # BEGIN SOLUTION 1.2
        out = operators.exp(a)
        ctx.save_for_backward(out)
        return out
        # END SOLUTION

    @staticmethod
    def backward(ctx: Context, d_output: float) -> float:
        # BEGIN SOLUTION 1.5
        (out,) = ctx.saved_values
        return operators.mul(out, d_output)
        # END SOLUTION


class Log(ScalarFunction):
    r""":math:`f(a) = \ln a`, so :math:`f'(a) = \frac{1}{a}`."""

    @staticmethod
    def forward(ctx: Context, a: float) -> float:
        # BEGIN SOLUTION 1.2
        ctx.save_for_backward(a)
        return operators.log(a)
        # END SOLUTION

    @staticmethod
    def backward(ctx: Context, d_output: float) -> float:
        # BEGIN SOLUTION 1.5
        (a,) = ctx.saved_values
        return operators.log_back(a, d_output)
        # END SOLUTION


class LT(ScalarFunction):
    r""":math:`f(a, b) = \mathbb{1}[a < b]`: a step, flat almost everywhere, so both
    derivatives are 0."""

    @staticmethod
    def forward(ctx: Context, a: float, b: float) -> float:
        # BEGIN SOLUTION 1.2
        return float(operators.lt(a, b))
        # END SOLUTION

    @staticmethod
    def backward(ctx: Context, d_output: float) -> tuple[float, float]:
        # BEGIN SOLUTION 1.5
        return 0.0, 0.0
        # END SOLUTION


class EQ(ScalarFunction):
    r""":math:`f(a, b) = \mathbb{1}[a = b]`: flat almost everywhere, so both derivatives are 0."""

    @staticmethod
    def forward(ctx: Context, a: float, b: float) -> float:
        # BEGIN SOLUTION 1.2
        return float(operators.eq(a, b))
        # END SOLUTION

    @staticmethod
    def backward(ctx: Context, d_output: float) -> tuple[float, float]:
        # BEGIN SOLUTION 1.5
        return 0.0, 0.0
        # END SOLUTION

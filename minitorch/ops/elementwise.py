r"""Elementwise ops: forward through the backend's ``map``/``zip``, backward as tensor math.

The unary math methods of ``Tensor`` live here too, next to the Functions they run
(:class:`UnaryMath`, which ``Tensor`` inherits), with the top-level functions
(``minitorch.exp(x)``). Adding a unary op: its scalar body in ``backends/opcodes.py``, its
Function, method and function here, its export in ``minitorch/__init__.py``.

Binary ops receive operands already promoted to one dtype and may broadcast; the engine
sums each gradient back to its input's shape, so the backward rules here are the plain
calculus of one element.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import dtypes
from ..autograd.function import Context, Function
from ..dispatch import empty, map_op, zip_op

if TYPE_CHECKING:  # Tensor inherits UnaryMath from this module: the import runs the other way
    from ..tensor import Tensor

# ---- one operand ----


class Neg(Function):
    r""":math:`f(a) = -a,\quad f'(a) = -1`"""

    @staticmethod
    def forward(ctx: Context, a: Tensor) -> Tensor:
        # BEGIN SOLUTION 2.3
        return map_op("neg", a)
        # END SOLUTION

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> Tensor:
        # BEGIN SOLUTION 2.4
        return -grad
        # END SOLUTION


class Exp(Function):
    r""":math:`f(a) = e^a,\quad f'(a) = e^a` (the saved output)"""

    @staticmethod
    def forward(ctx: Context, a: Tensor) -> Tensor:
        # BEGIN SOLUTION 2.3
        out = map_op("exp", a)
        ctx.save_for_backward(out)
        return out
        # END SOLUTION

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> Tensor:
        # BEGIN SOLUTION 2.4
        (out,) = ctx.saved_tensors
        return grad * out
        # END SOLUTION


class Log(Function):
    r""":math:`f(a) = \ln a,\quad f'(a) = 1/a`"""

    @staticmethod
    def forward(ctx: Context, a: Tensor) -> Tensor:
        # BEGIN SOLUTION 2.3
        ctx.save_for_backward(a)
        return map_op("log", a)
        # END SOLUTION

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> Tensor:
        # BEGIN SOLUTION 2.4
        (a,) = ctx.saved_tensors
        return grad / a
        # END SOLUTION


class Sqrt(Function):
    r""":math:`f(a) = \sqrt a,\quad f'(a) = \frac{1}{2\sqrt a}`"""

    @staticmethod
    def forward(ctx: Context, a: Tensor) -> Tensor:
        out = map_op("sqrt", a)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> Tensor:
        (out,) = ctx.saved_tensors
        return grad / (out * 2)


class Abs(Function):
    r""":math:`f(a) = |a|,\quad f'(a) = \operatorname{sign}(a)` (0 at 0, as PyTorch)"""

    @staticmethod
    def forward(ctx: Context, a: Tensor) -> Tensor:
        ctx.save_for_backward(a)
        return map_op("abs", a)

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> Tensor:
        (a,) = ctx.saved_tensors
        return grad * map_op("sign", a)


class Sigmoid(Function):
    r""":math:`\sigma(a) = \frac{1}{1+e^{-a}},\quad \sigma'(a) = \sigma(a)(1-\sigma(a))`"""

    @staticmethod
    def forward(ctx: Context, a: Tensor) -> Tensor:
        # BEGIN SOLUTION 2.3
        out = map_op("sigmoid", a)
        ctx.save_for_backward(out)
        return out
        # END SOLUTION

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> Tensor:
        # BEGIN SOLUTION 2.4
        (out,) = ctx.saved_tensors
        return grad * out * (1 - out)
        # END SOLUTION


class Tanh(Function):
    r""":math:`f(a) = \tanh a,\quad f'(a) = 1 - \tanh^2 a`"""

    @staticmethod
    def forward(ctx: Context, a: Tensor) -> Tensor:
        out = map_op("tanh", a)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> Tensor:
        (out,) = ctx.saved_tensors
        return grad * (1 - out * out)


class ReLU(Function):
    r""":math:`f(a) = \max(a, 0),\quad f'(a) = \mathbb{1}[a > 0]`"""

    grad_fn_name = "ReluBackward0"

    @staticmethod
    def forward(ctx: Context, a: Tensor) -> Tensor:
        # BEGIN SOLUTION 2.3
        out = map_op("relu", a)
        ctx.save_for_backward(out)
        return out
        # END SOLUTION

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> Tensor:
        # BEGIN SOLUTION 2.4
        (out,) = ctx.saved_tensors
        return grad * (out > 0)
        # END SOLUTION


class Sin(Function):
    r""":math:`f(a) = \sin a,\quad f'(a) = \cos a`"""

    @staticmethod
    def forward(ctx: Context, a: Tensor) -> Tensor:
        ctx.save_for_backward(a)
        return map_op("sin", a)

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> Tensor:
        (a,) = ctx.saved_tensors
        return grad * a.cos()


class Cos(Function):
    r""":math:`f(a) = \cos a,\quad f'(a) = -\sin a`"""

    @staticmethod
    def forward(ctx: Context, a: Tensor) -> Tensor:
        ctx.save_for_backward(a)
        return map_op("cos", a)

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> Tensor:
        (a,) = ctx.saved_tensors
        return -(grad * a.sin())


class Cast(Function):
    """Convert to another dtype; the gradient converts back to the input's dtype."""

    grad_fn_name = "ToCopyBackward0"

    @staticmethod
    def forward(ctx: Context, a: Tensor, dtype: dtypes.dtype) -> Tensor:
        ctx.input_dtype = a.dtype
        return map_op("copy", a, out_dtype=dtype)

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Tensor, None]:
        return grad.to(ctx.input_dtype), None


class Overwrite(Function):
    r"""``old`` overwritten by ``new`` (broadcast to ``old``'s shape, cast to its dtype), as an
    in-place ``fill_``/``copy_`` records it: the result's gradient goes to ``new`` (summed over
    the broadcast), and ``old``, whose values are gone, gets 0."""

    @staticmethod
    def forward(ctx: Context, old: Tensor, new: Tensor) -> Tensor:
        ctx.new_dtype = new.dtype
        out = empty(old.shape, old.dtype, old.device)
        map_op("copy", new, out=out)
        return out

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        zero = None
        if ctx.needs_input_grad[0]:
            zero = empty(grad.shape, grad.dtype, grad.device)
            zero._raw_fill(0)
        return zero, grad.to(ctx.new_dtype) if ctx.needs_input_grad[1] else None


class Clone(Function):
    """A contiguous copy with its own storage; the gradient passes through."""

    @staticmethod
    def forward(ctx: Context, a: Tensor) -> Tensor:
        return map_op("copy", a)

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> Tensor:
        return grad


# ---- two operands (broadcast) ----


class Add(Function):
    r""":math:`f(a, b) = a + b,\quad \partial_a f = \partial_b f = 1`"""

    @staticmethod
    def forward(ctx: Context, a: Tensor, b: Tensor) -> Tensor:
        # BEGIN SOLUTION 2.3
        return zip_op("add", a, b)
        # END SOLUTION

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Tensor, Tensor]:
        # BEGIN SOLUTION 2.4
        return grad, grad
        # END SOLUTION


class Sub(Function):
    r""":math:`f(a, b) = a - b,\quad \partial_a f = 1,\ \partial_b f = -1`"""

    @staticmethod
    def forward(ctx: Context, a: Tensor, b: Tensor) -> Tensor:
        return zip_op("sub", a, b)

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Tensor, Tensor]:
        return grad, -grad


class Mul(Function):
    r""":math:`f(a, b) = ab,\quad \partial_a f = b,\ \partial_b f = a`"""

    @staticmethod
    def forward(ctx: Context, a: Tensor, b: Tensor) -> Tensor:
        # BEGIN SOLUTION 2.3
        # save only what a needed gradient uses, so an in-place change of the other is fine
        ctx.save_for_backward(b if ctx.needs_input_grad[0] else None, a if ctx.needs_input_grad[1] else None)
        return zip_op("mul", a, b)
        # END SOLUTION

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        # BEGIN SOLUTION 2.4
        b, a = ctx.saved_tensors
        return (grad * b if b is not None else None, grad * a if a is not None else None)
        # END SOLUTION


class Div(Function):
    r""":math:`f(a, b) = a / b,\quad \partial_a f = 1/b,\ \partial_b f = -a/b^2`"""

    @staticmethod
    def forward(ctx: Context, a: Tensor, b: Tensor) -> Tensor:
        ctx.save_for_backward(a if ctx.needs_input_grad[1] else None, b)
        return zip_op("div", a, b)

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        a, b = ctx.saved_tensors
        grad_a = grad / b if ctx.needs_input_grad[0] else None
        grad_b = -grad * a / (b * b) if ctx.needs_input_grad[1] else None
        return grad_a, grad_b


class Pow(Function):
    r""":math:`f(a, b) = a^b,\quad \partial_a f = b a^{b-1},\ \partial_b f = a^b \ln a`

    As in PyTorch, :math:`\partial_b f` is taken as 0 where :math:`a = 0` and :math:`b \ge 0`.
    Integers to negative integer powers are what PyTorch makes them: :math:`1` and
    :math:`(-1)^b` for the bases 1 and -1, 0 for any other base (0 included).
    """

    number_args = (1,)

    @staticmethod
    def forward(ctx: Context, a: Tensor, b: Tensor) -> Tensor:
        if a.dtype.is_floating_point or a.dtype is dtypes.bool_:
            out = zip_op("pow", a, b)
        else:  # integers (a and b share the promoted dtype): no kernel ever sees a negative exponent
            negative = b < 0
            out = zip_op("pow", a, b.abs())  # |b| has the parity of b: right for the bases 1 and -1
            out = zip_op("masked", out, ~(negative & (a != 1) & (a != -1)))
        ctx.save_for_backward(a, b, out if ctx.needs_input_grad[1] else None)
        return out

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        a, b, out = ctx.saved_tensors
        grad_a = grad_b = None
        if ctx.needs_input_grad[0]:
            # b * a^(b-1), with the exponent 0 giving 0 even at a = 0
            grad_a = (grad * b * a ** (b - 1)).where(b != 0, 0.0)
        if ctx.needs_input_grad[1]:
            zero_base = (a == 0) & (b >= 0)
            grad_b = (grad * out * a.log()).where(~zero_base, 0.0)
        return grad_a, grad_b


def _shares(loses_a: Tensor, loses_b: Tensor, tie: Tensor, dtype: dtypes.dtype) -> tuple[Tensor, Tensor]:
    """The parts of the gradient for each side of ``maximum``/``minimum``: all of it unless that
    side lost, half on a tie. Where a NaN is involved neither side lost nor tied: both get all
    of it, as in PyTorch."""
    half_tie = tie.to(dtype) * 0.5
    return 1 - loses_a.to(dtype) - half_tie, 1 - loses_b.to(dtype) - half_tie


class Maximum(Function):
    r""":math:`\max(a, b)`: the gradient goes to the larger input, split evenly on ties."""

    @staticmethod
    def forward(ctx: Context, a: Tensor, b: Tensor) -> Tensor:
        ctx.save_for_backward(a, b)
        return zip_op("maximum", a, b)

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Tensor, Tensor]:
        a, b = ctx.saved_tensors
        share_a, share_b = _shares(a < b, a > b, a == b, grad.dtype)
        return grad * share_a, grad * share_b


class Minimum(Function):
    r""":math:`\min(a, b)`: the gradient goes to the smaller input, split evenly on ties."""

    @staticmethod
    def forward(ctx: Context, a: Tensor, b: Tensor) -> Tensor:
        ctx.save_for_backward(a, b)
        return zip_op("minimum", a, b)

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Tensor, Tensor]:
        a, b = ctx.saved_tensors
        share_a, share_b = _shares(a > b, a < b, a == b, grad.dtype)
        return grad * share_a, grad * share_b


class Clamp(Function):
    r""":math:`\min(\max(a, \mathrm{low}), \mathrm{high})` with number bounds (either may be None);
    the gradient passes where :math:`\mathrm{low} \le a \le \mathrm{high}` (bounds included,
    NaN excluded, as in PyTorch)."""

    number_args = (1, 2)

    grad_fn_name = "ClampBackward1"

    @staticmethod
    def forward(ctx: Context, a: Tensor, low: Tensor | None, high: Tensor | None) -> Tensor:
        ctx.save_for_backward(a, low, high)
        out = a  # at least one bound is given, so a new tensor is returned
        if low is not None:
            out = zip_op("maximum", out, low)
        if high is not None:
            out = zip_op("minimum", out, high)
        return out

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Tensor, None, None]:
        a, low, high = ctx.saved_tensors
        inside = (a >= low) if low is not None else None
        if high is not None:
            inside = (a <= high) if inside is None else inside & (a <= high)
        return grad.where(inside, 0.0), None, None


class Where(Function):
    r""":math:`\mathrm{cond} ? a : b`; each side's gradient is ``grad`` where it was chosen, else 0."""

    @staticmethod
    def forward(ctx: Context, condition: Tensor, a: Tensor, b: Tensor) -> Tensor:
        ctx.save_for_backward(condition)
        not_condition = map_op("logical_not", condition)
        return zip_op("add", zip_op("masked", a, condition), zip_op("masked", b, not_condition))

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[None, Tensor | None, Tensor | None]:
        (condition,) = ctx.saved_tensors
        grad_a = grad.where(condition, 0.0) if ctx.needs_input_grad[1] else None
        grad_b = grad.where(~condition, 0.0) if ctx.needs_input_grad[2] else None
        return None, grad_a, grad_b


# ---- the methods of Tensor and the top-level functions ----


def _floating(a: Tensor) -> Tensor:
    """``a``, or its cast to the default float dtype if it holds integers (as PyTorch's float math)."""
    return a if a.dtype.is_floating_point else a.to(dtypes.get_default_dtype())


class UnaryMath:
    """The unary math methods of :class:`~minitorch.tensor.Tensor` (which inherits them)."""

    def exp(self: Tensor) -> Tensor:
        return Exp.apply(_floating(self))

    def log(self: Tensor) -> Tensor:
        return Log.apply(_floating(self))

    def sqrt(self: Tensor) -> Tensor:
        return Sqrt.apply(_floating(self))

    def sigmoid(self: Tensor) -> Tensor:
        return Sigmoid.apply(_floating(self))

    def tanh(self: Tensor) -> Tensor:
        return Tanh.apply(_floating(self))

    def relu(self: Tensor) -> Tensor:
        return ReLU.apply(self)

    def abs(self: Tensor) -> Tensor:  # noqa: A003 - PyTorch's name
        return Abs.apply(self)

    def sin(self: Tensor) -> Tensor:
        return Sin.apply(_floating(self))

    def cos(self: Tensor) -> Tensor:
        return Cos.apply(_floating(self))


def exp(input: Tensor) -> Tensor:  # noqa: A002 - PyTorch's argument name
    return input.exp()


def log(input: Tensor) -> Tensor:  # noqa: A002
    return input.log()


def sqrt(input: Tensor) -> Tensor:  # noqa: A002
    return input.sqrt()


def sigmoid(input: Tensor) -> Tensor:  # noqa: A002
    return input.sigmoid()


def tanh(input: Tensor) -> Tensor:  # noqa: A002
    return input.tanh()


def relu(input: Tensor) -> Tensor:  # noqa: A002
    return input.relu()


def abs(input: Tensor) -> Tensor:  # noqa: A001, A002 - PyTorch's names
    return input.abs()


def sin(input: Tensor) -> Tensor:  # noqa: A002
    return input.sin()


def cos(input: Tensor) -> Tensor:  # noqa: A002
    return input.cos()

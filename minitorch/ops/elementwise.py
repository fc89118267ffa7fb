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

import math
from typing import TYPE_CHECKING

from .. import dtypes
from ..autograd.function import Context, Function, Underivable
from ..dispatch import empty, map_op, zip_op
from ..out_argument import write_out
from .dtype_refusals import refuse_bool, refuse_numbers

#: :math:`2/\sqrt\pi`, the slope of erf at 0
TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
LN_2 = math.log(2.0)
LN_10 = math.log(10.0)

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
        return grad * a.sign()  # recorded (a zero derivative), so a second derivative through it is 0, not an error


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
        return ThresholdBackward.apply(grad, out)  # grad * (out > 0) in one pass
        # END SOLUTION


class ThresholdBackward(Function):
    r"""The gradient of ReLU from its output: :math:`g\,[\mathrm{out} > 0]`, as one selection.

    One kernel (``masked``, ``grad if out != 0 else 0``: a ReLU's output is never negative)
    instead of a comparison, its cast to float and a product, and where the output is 0 the
    gradient is 0 even if ``grad`` is inf or NaN, as PyTorch's ``threshold_backward`` gives.
    Linear in ``grad``, so its own gradient is the same selection (double backward).
    """

    grad_fn_name = "ThresholdBackwardBackward0"

    @staticmethod
    def forward(ctx: Context, grad: Tensor, out: Tensor) -> Tensor:
        ctx.save_for_backward(out)
        return zip_op("masked", grad, out)

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Tensor, None]:
        (out,) = ctx.saved_tensors
        return ThresholdBackward.apply(grad, out), None


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


class Tan(Function):
    r""":math:`f(a) = \tan a,\quad f'(a) = 1 + \tan^2 a` (from the saved output)"""

    @staticmethod
    def forward(ctx: Context, a: Tensor) -> Tensor:
        out = map_op("tan", a)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> Tensor:
        (out,) = ctx.saved_tensors
        return grad * (1 + out * out)


class Asin(Function):
    r""":math:`f(a) = \arcsin a,\quad f'(a) = 1/\sqrt{1 - a^2}`"""

    @staticmethod
    def forward(ctx: Context, a: Tensor) -> Tensor:
        ctx.save_for_backward(a)
        return map_op("asin", a)

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> Tensor:
        (a,) = ctx.saved_tensors
        return grad / (1 - a * a).sqrt()


class Acos(Function):
    r""":math:`f(a) = \arccos a,\quad f'(a) = -1/\sqrt{1 - a^2}`"""

    @staticmethod
    def forward(ctx: Context, a: Tensor) -> Tensor:
        ctx.save_for_backward(a)
        return map_op("acos", a)

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> Tensor:
        (a,) = ctx.saved_tensors
        return -grad / (1 - a * a).sqrt()


class Atan(Function):
    r""":math:`f(a) = \arctan a,\quad f'(a) = 1/(1 + a^2)`"""

    @staticmethod
    def forward(ctx: Context, a: Tensor) -> Tensor:
        ctx.save_for_backward(a)
        return map_op("atan", a)

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> Tensor:
        (a,) = ctx.saved_tensors
        return grad / (1 + a * a)


class Sinh(Function):
    r""":math:`f(a) = \sinh a,\quad f'(a) = \cosh a`"""

    @staticmethod
    def forward(ctx: Context, a: Tensor) -> Tensor:
        ctx.save_for_backward(a)
        return map_op("sinh", a)

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> Tensor:
        (a,) = ctx.saved_tensors
        return grad * a.cosh()


class Cosh(Function):
    r""":math:`f(a) = \cosh a,\quad f'(a) = \sinh a`"""

    @staticmethod
    def forward(ctx: Context, a: Tensor) -> Tensor:
        ctx.save_for_backward(a)
        return map_op("cosh", a)

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> Tensor:
        (a,) = ctx.saved_tensors
        return grad * a.sinh()


class Asinh(Function):
    r""":math:`f(a) = \operatorname{arsinh} a,\quad f'(a) = 1/\sqrt{a^2 + 1}`"""

    @staticmethod
    def forward(ctx: Context, a: Tensor) -> Tensor:
        ctx.save_for_backward(a)
        return map_op("asinh", a)

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> Tensor:
        (a,) = ctx.saved_tensors
        return grad / (a * a + 1).sqrt()


class Acosh(Function):
    r""":math:`f(a) = \operatorname{arcosh} a,\quad f'(a) = 1/\sqrt{(a - 1)(a + 1)}`"""

    @staticmethod
    def forward(ctx: Context, a: Tensor) -> Tensor:
        ctx.save_for_backward(a)
        return map_op("acosh", a)

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> Tensor:
        (a,) = ctx.saved_tensors
        return grad / ((a - 1) * (a + 1)).sqrt()


class Atanh(Function):
    r""":math:`f(a) = \operatorname{artanh} a,\quad f'(a) = 1/(1 - a^2)`"""

    @staticmethod
    def forward(ctx: Context, a: Tensor) -> Tensor:
        ctx.save_for_backward(a)
        return map_op("atanh", a)

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> Tensor:
        (a,) = ctx.saved_tensors
        return grad / (1 - a * a)


class Erf(Function):
    r""":math:`f(a) = \mathrm{erf}\,a = \tfrac{2}{\sqrt\pi}\int_0^a e^{-t^2} dt,\quad f'(a) = \tfrac{2}{\sqrt\pi} e^{-a^2}`"""

    @staticmethod
    def forward(ctx: Context, a: Tensor) -> Tensor:
        ctx.save_for_backward(a)
        return map_op("erf", a)

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> Tensor:
        (a,) = ctx.saved_tensors
        return grad * (-(a * a)).exp() * TWO_OVER_SQRT_PI


class Erfc(Function):
    r""":math:`f(a) = 1 - \mathrm{erf}\,a` (without the cancellation),
    :math:`\quad f'(a) = -\tfrac{2}{\sqrt\pi} e^{-a^2}`"""

    @staticmethod
    def forward(ctx: Context, a: Tensor) -> Tensor:
        ctx.save_for_backward(a)
        return map_op("erfc", a)

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> Tensor:
        (a,) = ctx.saved_tensors
        return grad * (-(a * a)).exp() * -TWO_OVER_SQRT_PI


class Erfinv(Function):
    r""":math:`f = \mathrm{erf}^{-1},\quad f'(a) = \tfrac{\sqrt\pi}{2} e^{f(a)^2}` (from the saved output)"""

    @staticmethod
    def forward(ctx: Context, a: Tensor) -> Tensor:
        out = map_op("erfinv", a)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> Tensor:
        (out,) = ctx.saved_tensors
        return grad * (out * out).exp() * (1 / TWO_OVER_SQRT_PI)


class Log1p(Function):
    r""":math:`f(a) = \ln(1 + a)` (exact for small :math:`a`),\quad f'(a) = 1/(1 + a)`"""

    grad_fn_name = "Log1PBackward0"  # PyTorch capitalises the P

    @staticmethod
    def forward(ctx: Context, a: Tensor) -> Tensor:
        ctx.save_for_backward(a)
        return map_op("log1p", a)

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> Tensor:
        (a,) = ctx.saved_tensors
        return grad / (a + 1)


class Expm1(Function):
    r""":math:`f(a) = e^a - 1` (exact for small :math:`a`),\quad f'(a) = e^a = f(a) + 1`"""

    @staticmethod
    def forward(ctx: Context, a: Tensor) -> Tensor:
        out = map_op("expm1", a)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> Tensor:
        (out,) = ctx.saved_tensors
        return grad * (out + 1)


class Log2(Function):
    r""":math:`f(a) = \log_2 a,\quad f'(a) = 1/(a \ln 2)`"""

    @staticmethod
    def forward(ctx: Context, a: Tensor) -> Tensor:
        ctx.save_for_backward(a)
        return map_op("log2", a)

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> Tensor:
        (a,) = ctx.saved_tensors
        return grad / (a * LN_2)


class Log10(Function):
    r""":math:`f(a) = \log_{10} a,\quad f'(a) = 1/(a \ln 10)`"""

    @staticmethod
    def forward(ctx: Context, a: Tensor) -> Tensor:
        ctx.save_for_backward(a)
        return map_op("log10", a)

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> Tensor:
        (a,) = ctx.saved_tensors
        return grad / (a * LN_10)


class Exp2(Function):
    r""":math:`f(a) = 2^a,\quad f'(a) = 2^a \ln 2` (from the saved output)"""

    @staticmethod
    def forward(ctx: Context, a: Tensor) -> Tensor:
        out = map_op("exp2", a)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> Tensor:
        (out,) = ctx.saved_tensors
        return grad * out * LN_2


class Rsqrt(Function):
    r""":math:`f(a) = a^{-1/2},\quad f'(a) = -\tfrac{1}{2} a^{-3/2} = -\tfrac{1}{2} f(a)^3` (the saved output)"""

    @staticmethod
    def forward(ctx: Context, a: Tensor) -> Tensor:
        out = map_op("rsqrt", a)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> Tensor:
        (out,) = ctx.saved_tensors
        return grad * out * out * out * -0.5


class Reciprocal(Function):
    r""":math:`f(a) = 1 / a,\quad f'(a) = -1 / a^2 = -f(a)^2` (the saved output)"""

    @staticmethod
    def forward(ctx: Context, a: Tensor) -> Tensor:
        out = map_op("reciprocal", a)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> Tensor:
        (out,) = ctx.saved_tensors
        return -(grad * out * out)


class Step(Function):
    r"""A step function (``floor``, ``ceil``, ``round``, ``trunc``): flat between its jumps,
    so its gradient is 0 everywhere, as PyTorch's."""

    @staticmethod
    def forward(ctx: Context, a: Tensor, op: str) -> Tensor:
        ctx.grad_fn_name = f"{op.capitalize()}Backward0"  # PyTorch's node of each: FloorBackward0 ...
        return map_op(op, a)

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Tensor, None]:
        zero = empty(grad.shape, grad.dtype, grad.device)
        zero._raw_fill(0)
        return zero, None


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


def _is_a_square(a: Tensor, b: Tensor) -> bool:
    r"""Whether ``a ** b`` squares a float tensor: ``b`` is the number 2 (a 0-d tensor).

    :math:`a \cdot a` is the correctly rounded square, as ``pow`` is (PyTorch also multiplies).
    """
    return a.dtype.is_floating_point and b.dim() == 0 and b.item() == 2


class Pow(Function):
    r""":math:`f(a, b) = a^b,\quad \partial_a f = b a^{b-1},\ \partial_b f = a^b \ln a`

    As in PyTorch, :math:`\partial_b f` is taken as 0 where :math:`a = 0` and :math:`b \ge 0`.
    Integers to negative integer powers are what PyTorch makes them: :math:`1` and
    :math:`(-1)^b` for the bases 1 and -1, 0 for any other base (0 included).
    """

    number_args = (1,)

    @staticmethod
    def forward(ctx: Context, a: Tensor, b: Tensor) -> Tensor:
        ctx.square = _is_a_square(a, b)
        if ctx.square:  # ``x ** 2``: a multiplication, where ``pow`` is a call per element
            out = zip_op("mul", a, a)
        elif a.dtype.is_floating_point or a.dtype is dtypes.bool_:
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
            if ctx.square:  # 2 a (a ** 1 is a, to the bit)
                grad_a = grad * b * a
            else:  # b * a^(b-1), with the exponent 0 giving 0 even at a = 0
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


class Atan2(Function):
    r""":math:`f(a, b) = \operatorname{atan2}(a, b)`, the angle of the point :math:`(b, a)`;
    :math:`\partial_a f = b / (a^2 + b^2),\ \partial_b f = -a / (a^2 + b^2)`"""

    @staticmethod
    def forward(ctx: Context, a: Tensor, b: Tensor) -> Tensor:
        ctx.save_for_backward(a, b)
        return zip_op("atan2", a, b)

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Tensor, Tensor]:
        a, b = ctx.saved_tensors
        recip = (a * a + b * b).reciprocal()
        recip = recip.masked_fill(recip == math.inf, 0.0)  # at the origin, 0 as in PyTorch (not 0 * inf = nan)
        return grad * b * recip, grad * -a * recip


class Hypot(Function):
    r""":math:`f(a, b) = \sqrt{a^2 + b^2}` (without overflow),
    :math:`\quad \partial_a f = a / f,\ \partial_b f = b / f`"""

    @staticmethod
    def forward(ctx: Context, a: Tensor, b: Tensor) -> Tensor:
        out = zip_op("hypot", a, b)
        ctx.save_for_backward(a, b, out)
        return out

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Tensor, Tensor]:
        a, b, out = ctx.saved_tensors
        scale = grad / out
        return scale * a, scale * b


class Modulo(Function):
    r"""``fmod`` (:math:`a - b\,\mathrm{trunc}(a/b)`, the sign of :math:`a`) or ``remainder``
    (:math:`a - b\,\lfloor a/b \rfloor`, the sign of :math:`b`, Python's ``%``):
    :math:`\partial_a f = 1,\ \partial_b f = -\mathrm{trunc}(a/b)` (or :math:`-\lfloor a/b \rfloor`).
    Integers take the integer kernels; the caller checks their divisors are nonzero."""

    @staticmethod
    def forward(ctx: Context, a: Tensor, b: Tensor, op: str, by_number: bool = False) -> Tensor:
        ctx.op = op
        # PyTorch's nodes: RemainderBackward1 / FmodBackward1 (a tensor divisor), ...Backward0 (a number)
        ctx.grad_fn_name = f"{'Fmod' if op == 'fmod' else 'Remainder'}Backward{0 if by_number else 1}"
        ctx.save_for_backward(a if ctx.needs_input_grad[1] else None, b if ctx.needs_input_grad[1] else None)
        return zip_op(op if a.dtype.is_floating_point else "int_" + op, a, b)

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Tensor, Tensor | None, None, None]:
        a, b = ctx.saved_tensors
        grad_b = None
        if ctx.needs_input_grad[1]:
            # PyTorch's div with a rounding mode: its floor of an infinite quotient is nan, not inf
            grad_b = -grad * a.detach().div(b.detach(), rounding_mode="trunc" if ctx.op == "fmod" else "floor")
        return grad, grad_b, None, None


class ModuloByNumber(Modulo):
    """``tensor % number``: the number gets no edge in ``next_functions``, as in PyTorch."""

    number_args = (1,)


class NumberModulo(Underivable, Modulo):
    """``number % tensor``: PyTorch defines no derivative (``derivative for aten::remainder is not
    implemented``); the number gets no edge."""

    number_args = (0,)


class Where(Function):
    r""":math:`\mathrm{cond} ? a : b`; each side's gradient is ``grad`` where it was chosen, else 0."""

    @staticmethod
    def forward(ctx: Context, condition: Tensor, a: Tensor, b: Tensor) -> Tensor:
        ctx.save_for_backward(condition)
        not_condition = map_op("logical_not", condition)
        # each side -0.0 where not chosen: the sum is the chosen value exactly, a -0.0 included
        return zip_op("add", zip_op("where_part", a, condition), zip_op("where_part", b, not_condition))

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
        if self.dtype is dtypes.bool_:
            raise RuntimeError("Boolean inputs not supported for relu")
        return ReLU.apply(self)

    def abs(self: Tensor) -> Tensor:  # noqa: A003 - PyTorch's name
        refuse_bool("abs_cpu", self.dtype)
        return Abs.apply(self)

    def sin(self: Tensor) -> Tensor:
        return Sin.apply(_floating(self))

    def cos(self: Tensor) -> Tensor:
        return Cos.apply(_floating(self))

    def tan(self: Tensor) -> Tensor:
        return Tan.apply(_floating(self))

    def asin(self: Tensor) -> Tensor:
        return Asin.apply(_floating(self))

    def acos(self: Tensor) -> Tensor:
        return Acos.apply(_floating(self))

    def atan(self: Tensor) -> Tensor:
        return Atan.apply(_floating(self))

    def sinh(self: Tensor) -> Tensor:
        return Sinh.apply(_floating(self))

    def cosh(self: Tensor) -> Tensor:
        return Cosh.apply(_floating(self))

    def asinh(self: Tensor) -> Tensor:
        return Asinh.apply(_floating(self))

    def acosh(self: Tensor) -> Tensor:
        return Acosh.apply(_floating(self))

    def atanh(self: Tensor) -> Tensor:
        return Atanh.apply(_floating(self))

    arcsin, arccos, arctan = asin, acos, atan
    arcsinh, arccosh, arctanh = asinh, acosh, atanh

    def erf(self: Tensor) -> Tensor:
        return Erf.apply(_floating(self))

    def erfc(self: Tensor) -> Tensor:
        return Erfc.apply(_floating(self))

    def erfinv(self: Tensor) -> Tensor:
        return Erfinv.apply(_floating(self))

    def log1p(self: Tensor) -> Tensor:
        return Log1p.apply(_floating(self))

    def expm1(self: Tensor) -> Tensor:
        return Expm1.apply(_floating(self))

    def log2(self: Tensor) -> Tensor:
        return Log2.apply(_floating(self))

    def log10(self: Tensor) -> Tensor:
        return Log10.apply(_floating(self))

    def exp2(self: Tensor) -> Tensor:
        return Exp2.apply(_floating(self))

    def rsqrt(self: Tensor) -> Tensor:
        return Rsqrt.apply(_floating(self))

    def reciprocal(self: Tensor) -> Tensor:
        return Reciprocal.apply(_floating(self))

    def _step(self: Tensor, op: str) -> Tensor:
        """A rounding op (``floor``, ``ceil``, ``round``, ``trunc``); integers are already whole:
        a copy, as PyTorch returns (bools: PyTorch's refusal)."""
        refuse_bool(f"{'trunc' if op == 'fix' else op}_vml_cpu", self.dtype)
        if not self.dtype.is_floating_point:
            return self.clone()
        return Step.apply(self, op)

    def floor(self: Tensor) -> Tensor:
        return self._step("floor")

    def ceil(self: Tensor) -> Tensor:
        return self._step("ceil")

    def trunc(self: Tensor) -> Tensor:
        return self._step("trunc")

    fix = trunc

    def round(self: Tensor, decimals: int = 0) -> Tensor:  # noqa: A003 - PyTorch's name
        r"""To the nearest integer, ties to the even one; with ``decimals`` :math:`d`, as PyTorch:
        :math:`\mathrm{round}(x \cdot 10^d) / 10^d` (:math:`d < 0`: :math:`\mathrm{round}(x / 10^{-d}) \cdot 10^{-d}`)."""
        if decimals == 0:
            return self._step("round")
        if not self.dtype.is_floating_point:
            raise NotImplementedError(f"\"round_cpu\" not implemented for '{dtypes.scalar_type_name(self.dtype)}'")
        if decimals > 0:
            scale = 10.0**decimals
            return (self * scale)._step("round") / scale
        scale = 10.0**-decimals
        return (self / scale)._step("round") * scale

    def frac(self: Tensor) -> Tensor:
        r""":math:`x - \mathrm{trunc}(x)`, with the sign of :math:`x`; gradient 1. Floats only, as PyTorch."""
        if not self.dtype.is_floating_point:
            raise NotImplementedError(f'"frac_cpu" not implemented for \'{dtypes.scalar_type_name(self.dtype)}\'')
        out = self - self.detach().trunc()
        if out.grad_fn is not None:
            out.grad_fn.rename("FracBackward0")
        return out


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


def _into(result: Tensor, out: Tensor | None, name: str) -> Tensor:
    """``result``, or, given ``out=``, written into ``out`` by PyTorch's rules (:func:`~minitorch.out_argument.write_out`)."""
    return write_out(result, out, name)


def tan(input: Tensor, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
    return _into(input.tan(), out, "tan")


def asin(input: Tensor, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
    return _into(input.asin(), out, "asin")


def acos(input: Tensor, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
    return _into(input.acos(), out, "acos")


def atan(input: Tensor, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
    return _into(input.atan(), out, "atan")


def sinh(input: Tensor, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
    return _into(input.sinh(), out, "sinh")


def cosh(input: Tensor, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
    return _into(input.cosh(), out, "cosh")


def asinh(input: Tensor, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
    return _into(input.asinh(), out, "asinh")


def acosh(input: Tensor, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
    return _into(input.acosh(), out, "acosh")


def atanh(input: Tensor, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
    return _into(input.atanh(), out, "atanh")


def erf(input: Tensor, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
    return _into(input.erf(), out, "erf")


def erfc(input: Tensor, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
    return _into(input.erfc(), out, "erfc")


def erfinv(input: Tensor, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
    return _into(input.erfinv(), out, "erfinv")


def log1p(input: Tensor, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
    return _into(input.log1p(), out, "log1p")


def expm1(input: Tensor, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
    return _into(input.expm1(), out, "expm1")


def log2(input: Tensor, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
    return _into(input.log2(), out, "log2")


def log10(input: Tensor, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
    return _into(input.log10(), out, "log10")


def exp2(input: Tensor, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
    return _into(input.exp2(), out, "exp2")


def floor(input: Tensor, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
    return _into(input.floor(), out, "floor")


def ceil(input: Tensor, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
    return _into(input.ceil(), out, "ceil")


def trunc(input: Tensor, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
    return _into(input.trunc(), out, "trunc")


def frac(input: Tensor, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
    return _into(input.frac(), out, "frac")


def round(input: Tensor, *, decimals: int = 0, out: Tensor | None = None) -> Tensor:  # noqa: A001, A002
    return _into(input.round(decimals=decimals), out, "round")


arcsin, arccos, arctan = asin, acos, atan
arcsinh, arccosh, arctanh = asinh, acosh, atanh
fix = trunc


def remainder(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
    # torch.remainder(number, tensor) too, as Python's ``number % tensor``
    result = other.__rmod__(input) if isinstance(input, (int, float)) else input.remainder(other)
    return _into(result, out, "remainder")


def fmod(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
    return _into(input.fmod(other), out, "fmod")


def atan2(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
    refuse_numbers("atan2", input, other)
    return _into(input.atan2(other), out, "atan2")


def arctan2(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
    refuse_numbers("arctan2", input, other)
    return _into(input.atan2(other), out, "arctan2")


def hypot(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
    refuse_numbers("hypot", input, other)
    return _into(input.hypot(other), out, "hypot")



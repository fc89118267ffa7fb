r"""Sums with a scaled second term: ``add(a, b, alpha=)`` (:math:`a + \alpha b`), ``sub`` (:math:`a - \alpha b`)
and ``rsub`` (:math:`b - \alpha a`), each one node as PyTorch records it (``AddBackward0``,
``SubBackward0``, ``RsubBackward0``; ``RsubBackward1`` with a number ``b``, which gets no edge),
not a product node feeding a sum. :func:`check_alpha` gives PyTorch's errors for an ``alpha`` the
result dtype cannot take.

Floats are computed as PyTorch computes them, with one fused multiply-add: :math:`\alpha b + a`
rounded once (:func:`minitorch.dispatch.mul_add_op`), ``alpha`` rounded to the dtype first.
"""

from __future__ import annotations

from numbers import Number
from typing import TYPE_CHECKING, Any

from .. import dtypes
from ..autograd.function import Context, Function
from ..dispatch import mul_add_op, zip_op

if TYPE_CHECKING:  # tensor.py imports this module
    from ..tensor import Tensor

#: the integer range a scalar must fit to become each integer dtype, as PyTorch checks (an unsigned
#: dtype also takes the negatives that wrap into it), with PyTorch's C++ name of the type
INTEGER_RANGES: dict[dtypes.dtype, tuple[int, int, str]] = {
    dtypes.uint8: (-(2**8 - 1), 2**8 - 1, "uint8_t"),
    dtypes.int8: (-(2**7), 2**7 - 1, "int8_t"),
    dtypes.int16: (-(2**15), 2**15 - 1, "int16_t"),
    dtypes.int32: (-(2**31), 2**31 - 1, "int"),
    dtypes.int64: (-(2**63), 2**63 - 1, "int64_t"),
}

#: the Python integers a PyTorch number can hold (an int64, or an unsigned 64-bit value)
SCALAR_RANGE = (-(2**63), 2**64 - 1)


def check_alpha(alpha: Any, result: dtypes.dtype) -> None:
    """PyTorch's errors for an ``alpha`` that a result of dtype ``result`` cannot take."""
    if isinstance(alpha, complex):
        raise RuntimeError("For non-complex input tensors, argument alpha must not be a complex number.")
    if isinstance(alpha, bool):
        if result is not dtypes.bool_:
            raise RuntimeError("Boolean alpha only supported for Boolean results.")
        return
    if isinstance(alpha, int) and not SCALAR_RANGE[0] <= alpha <= SCALAR_RANGE[1]:
        raise OverflowError("int too big to convert")  # PyTorch's numbers are at most 64-bit
    if isinstance(alpha, float) and not result.is_floating_point:
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")
    bounds = INTEGER_RANGES.get(result)
    if bounds is not None and isinstance(alpha, Number) and not bounds[0] <= alpha <= bounds[1]:
        raise RuntimeError(f"value cannot be converted to type {bounds[2]} without overflow")


def _scaled(b: Tensor, alpha: Any) -> Tensor:
    r""":math:`\alpha b` in ``b``'s dtype, off the graph (a forward's arithmetic); a negative ``alpha``
    wraps into an unsigned dtype, as PyTorch's does."""
    if b.dtype is dtypes.uint8:
        alpha %= INTEGER_RANGES[dtypes.uint8][1] + 1
    return zip_op("mul", b, b.new_full((), alpha))


def scaled_sum(a: Tensor, b: Tensor, alpha: Any) -> Tensor:
    r""":math:`a + \alpha b` off the graph: of floats one fused multiply-add, as PyTorch's kernel."""
    if a.dtype.is_floating_point:
        return mul_add_op(b, b.new_full((), alpha), a)
    return zip_op("add", a, _scaled(b, alpha))


class AddScaled(Function):
    r""":math:`a + \alpha b`: :math:`\partial_a = 1,\ \partial_b = \alpha`."""

    grad_fn_name = "AddBackward0"

    @staticmethod
    def forward(ctx: Context, a: Tensor, b: Tensor, alpha: Any) -> Tensor:
        ctx.alpha = alpha
        return scaled_sum(a, b, alpha)

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Tensor, Tensor, None]:
        return grad, grad * ctx.alpha, None


class SubScaled(Function):
    r""":math:`a - \alpha b`: :math:`\partial_a = 1,\ \partial_b = -\alpha`."""

    grad_fn_name = "SubBackward0"

    @staticmethod
    def forward(ctx: Context, a: Tensor, b: Tensor, alpha: Any) -> Tensor:
        ctx.alpha = alpha
        return scaled_sum(a, b, -alpha) if a.dtype.is_floating_point else zip_op("sub", a, _scaled(b, alpha))

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Tensor, Tensor, None]:
        return grad, -grad * ctx.alpha, None


class RsubScaled(Function):
    r""":math:`b - \alpha a` (``rsub(a, b, alpha=)``): :math:`\partial_a = -\alpha,\ \partial_b = 1`."""

    grad_fn_name = "RsubBackward0"

    @staticmethod
    def forward(ctx: Context, a: Tensor, b: Tensor, alpha: Any) -> Tensor:
        ctx.alpha = alpha
        return scaled_sum(b, a, -alpha) if b.dtype.is_floating_point else zip_op("sub", b, _scaled(a, alpha))

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Tensor, Tensor, None]:
        return -grad * ctx.alpha, grad, None


class RsubScaledNumber(RsubScaled):
    r""":math:`s - \alpha a` for a number :math:`s`: the number gets no edge."""

    grad_fn_name = "RsubBackward1"
    number_args = (1,)

r"""Division rounded to a whole number: ``div(rounding_mode='floor'|'trunc')``, ``floor_divide`` (``//``).

Computed by the op table's own bodies, exact as PyTorch's: of floats ``a // b`` is
:math:`(a - \mathrm{fmod}(a, b)) / b` corrected to the floor (``-0.3 // 0.1`` is -4, where
``floor(-0.3 / 0.1)`` is -3), and integers are divided in integer arithmetic (exact for every
int64, never through a float). Recorded as PyTorch records them: ``div`` with a rounding mode
is ``DivBackward2`` with zero gradients; ``floor_divide`` has no derivative, a
``torch::autograd::NotImplemented`` node whose backward raises.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..autograd.function import Context, Function, Underivable
from ..dispatch import map_op, zip_op

if TYPE_CHECKING:  # tensor.py imports this module
    from ..tensor import Tensor

#: the op table's integer quotients, per rounding mode
INTEGER_OPS = {"floor": "int_floor_divide", "trunc": "int_trunc_divide"}


class RoundedDiv(Function):
    r""":math:`\lfloor a / b \rfloor` (``mode='floor'``) or :math:`\mathrm{trunc}(a / b)`, of operands
    of one dtype (a nonzero integer divisor: the caller checks); the gradients are zero."""

    grad_fn_name = "DivBackward2"

    @staticmethod
    def forward(ctx: Context, a: Tensor, b: Tensor, mode: str, op: str) -> Tensor:
        ctx.op = op
        if not a.dtype.is_floating_point:
            return zip_op(INTEGER_OPS[mode], a, b)
        if mode == "floor":
            return zip_op("floor_divide", a, b)
        return map_op("trunc", zip_op("div", a, b))

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Tensor | None, Tensor | None, None, None]:
        zero = grad.new_zeros(grad.shape)
        return (zero if ctx.needs_input_grad[0] else None), (zero if ctx.needs_input_grad[1] else None), None, None


class FloorDivide(Underivable, RoundedDiv):
    """``floor_divide`` (``a // b``, ``number // a``): the floor's values; no derivative. A number
    operand gets no edge, as in PyTorch."""

    number_args = (0, 1)

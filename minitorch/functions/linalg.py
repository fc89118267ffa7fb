r"""Matrix product of batched operands.

For :math:`C = AB`, :math:`\partial L/\partial A = \partial L/\partial C \cdot B^\top` and
:math:`\partial L/\partial B = A^\top \cdot \partial L/\partial C`; batch dimensions that
were broadcast are summed back by the engine.
"""

from __future__ import annotations

from ..autograd.function import Context, Function
from ..dispatch import matmul_op
from ..tensor import Tensor


class MatMul(Function):
    """``a @ b`` for operands of rank >= 2 whose leading (batch) dimensions broadcast."""

    @staticmethod
    def forward(ctx: Context, a: Tensor, b: Tensor) -> Tensor:
        # BEGIN SOLUTION 2.3
        ctx.save_for_backward(b if ctx.needs_input_grad[0] else None, a if ctx.needs_input_grad[1] else None)
        rank = max(a.dim(), b.dim())
        a_aligned = a.view((1,) * (rank - a.dim()) + a.shape)
        b_aligned = b.view((1,) * (rank - b.dim()) + b.shape)
        return matmul_op(a_aligned, b_aligned)
        # END SOLUTION

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        # BEGIN SOLUTION 2.4
        b, a = ctx.saved_tensors
        grad_a = grad @ b.transpose(-1, -2) if b is not None else None
        grad_b = a.transpose(-1, -2) @ grad if a is not None else None
        return grad_a, grad_b
        # END SOLUTION

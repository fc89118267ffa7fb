r"""Matrix product of batched operands.

For :math:`C = AB`, :math:`\partial L/\partial A = \partial L/\partial C \cdot B^\top` and
:math:`\partial L/\partial B = A^\top \cdot \partial L/\partial C`; batch dimensions that
were broadcast are summed back by the engine.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from ..autograd.function import Context, Function
from ..dispatch import map_op, matmul_op, zip_op
from .. import autocast_state, dtypes

if TYPE_CHECKING:  # tensor.py imports this module
    from ..tensor import Tensor


def is_column_major(m: Tensor) -> bool:
    """Whether the matrix ``m`` is the transpose of a contiguous one, as ``weight.t()`` is."""
    data = m._data
    if data.dims != 2:
        return False
    rows, cols = data.shape
    return rows > 1 and cols > 1 and data.strides == (1, rows)


#: neither operand column-major (or no gradient to lay out)
NEITHER = (False, False)


class MatMul(Function):
    """``a @ b`` for operands of rank >= 2 whose leading (batch) dimensions broadcast."""

    @staticmethod
    def forward(ctx: Context, a: Tensor, b: Tensor) -> Tensor:
        # BEGIN SOLUTION 2.3
        ctx.save_for_backward(b if ctx.needs_input_grad[0] else None, a if ctx.needs_input_grad[1] else None)
        if a._data.dims == 2 and b._data.dims == 2:  # two matrices: nothing to align
            ctx.column_major = (is_column_major(a), is_column_major(b)) if True in ctx.needs_input_grad else NEITHER
            return matmul_op(a, b)
        ctx.column_major = NEITHER
        rank = max(a.dim(), b.dim())
        a_aligned = a if a.dim() == rank else a.view((1,) * (rank - a.dim()) + a.shape)
        b_aligned = b if b.dim() == rank else b.view((1,) * (rank - b.dim()) + b.shape)
        return matmul_op(a_aligned, b_aligned)
        # END SOLUTION

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        # BEGIN SOLUTION 2.4
        b, a = ctx.saved_tensors
        # each gradient laid out as its operand (a w.t() gets a row-major w.grad), see Addmm
        a_column_major, b_column_major = ctx.column_major
        grad_a = grad_b = None
        if b is not None:
            grad_a = (b @ grad.t()).t() if a_column_major else grad @ b.transpose(-1, -2)
        if a is not None:
            grad_b = (grad.t() @ a).t() if b_column_major else a.transpose(-1, -2) @ grad
        return grad_a, grad_b
        # END SOLUTION


class Addmm(Function):
    r"""The affine map :math:`y = b + x W^\top` of a batch ``x`` ``(n, in)``, ``W`` ``(out, in)``, ``b`` ``(out,)``.

    The same values as ``x @ W.t() + b``, as one node instead of two (matmul, broadcast add),
    with the bias added into the product in place. Its arguments come in PyTorch's order,
    ``addmm(bias, x, W.t())``, so ``next_functions`` read as PyTorch's: the bias's leaf, the
    input's node, and a ``TBackward0`` before the weight's leaf; without a bias it is
    ``MmBackward0``. The gradients are those of a matmul:

    .. math:: \partial_x = g\,(W^\top)^\top,\qquad \partial_{W^\top} = x^\top g,\qquad \partial_b = \textstyle\sum_i g_i
    """

    @staticmethod
    def forward(ctx: Context, bias: Optional[Tensor], x: Tensor, weight_t: Tensor) -> Tensor:
        if bias is None:
            ctx.grad_fn_name = "MmBackward0"
        ctx.save_for_backward(weight_t if ctx.needs_input_grad[1] else None, x if ctx.needs_input_grad[2] else None)
        ctx.weight_t_column_major = ctx.needs_input_grad[2] and is_column_major(weight_t)
        if bias is not None and x.dtype in dtypes.LOW_PRECISION_FLOATS:
            # PyTorch adds the bias to the float32 product of 16-bit floats and rounds once
            wide = matmul_op(x, weight_t, dtypes.float32)
            return map_op("copy", zip_op("add", wide, bias, out=wide), out_dtype=x.dtype)
        out = matmul_op(x, weight_t)
        return out if bias is None else zip_op("add", out, bias, out=out)

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Tensor | None, Tensor | None, Tensor | None]:
        weight_t, x = ctx.saved_tensors
        grad_bias = grad.sum(0) if ctx.needs_input_grad[0] else None
        grad_x = grad @ weight_t.t() if ctx.needs_input_grad[1] else None
        grad_weight_t = None
        if ctx.needs_input_grad[2]:
            # laid out as weight_t is (PyTorch does the same): for the usual weight.t(), the
            # gradient of the weight comes out row-major like the weight, so accumulating and
            # updating it walk it in order (a transposing copy of 256 x 784 floats: 120 us)
            grad_weight_t = (grad.t() @ x).t() if ctx.weight_t_column_major else x.t() @ grad
        return grad_bias, grad_x, grad_weight_t


def linear(x: Tensor, weight: Tensor, bias: Optional[Tensor] = None) -> Tensor:
    """``x @ weight.t() + bias`` as PyTorch records it: one :class:`Addmm` node for a batch of
    rows, and for any other number of leading dimensions the rows flattened into one batch
    and the result viewed back (``ViewBackward0``), when the operands fit together (one dtype
    and device, matching sizes); the separate ops otherwise, which also give their errors."""
    if autocast_state.ever_enabled:
        x, weight, bias = autocast_state.lower_precision(x, weight, bias)
    fits = (
        x.dim() >= 1 and weight.dim() == 2 and x.shape[-1] == weight.shape[1] and x.dtype is weight.dtype
        and x.device == weight.device
        and (bias is None or (bias.shape == (weight.shape[0],) and bias.dtype is x.dtype and bias.device == x.device))
    )
    if not fits:
        out = x @ weight.t()
        return out + bias if bias is not None else out
    if x.dim() == 2:
        return Addmm.apply(bias, x, weight.t())
    # PyTorch unsqueezes a single row for a plain product, and views it for one with a bias
    rows = x.unsqueeze(0) if x.dim() == 1 and bias is None else x.reshape(-1, x.shape[-1])
    return Addmm.apply(bias, rows, weight.t()).view(*x.shape[:-1], weight.shape[0])

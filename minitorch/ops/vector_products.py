r"""Products with a 1-D operand as PyTorch records them: ``vector @ vector`` is ``dot``
(``DotBackward0``) and ``matrix @ vector`` is ``mv`` (``MvBackward0``), one node each, whose
saved operands read as PyTorch's ``_saved_self`` and ``_saved_tensor`` (dot) or ``_saved_vec``
(mv). For :math:`y = a \cdot b`: :math:`\partial a = g\,b,\ \partial b = g\,a`; for :math:`y = Mv`:
:math:`\partial M = g v^\top,\ \partial v = M^\top g`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from ..autograd.function import Context, Function, Node
from ..dispatch import matmul_op

if TYPE_CHECKING:  # tensor.py imports this module
    from ..tensor import Tensor


def _saved(position: int) -> property:
    """The forward's saved operand at ``position`` (PyTorch's ``grad_fn._saved_<name>``)."""
    return property(lambda node: node.ctx.saved_tensors[position], doc=f"The saved operand {position}.")


#: the node classes, named as PyTorch's, with its ``_saved_*`` attributes
DotNode = type("DotBackward0", (Node,), {"_saved_self": _saved(0), "_saved_tensor": _saved(1)})
MvNode = type("MvBackward0", (Node,), {"_saved_self": _saved(0), "_saved_vec": _saved(1)})


class _SavingOperands(Function):
    """A product that saves both operands and whose node exposes them (``node_class``)."""

    node_class: type[Node] = Node

    @classmethod
    def _node(cls, ctx: Context, args: tuple, needs_input_grad: tuple[bool, ...]) -> Node:
        node = super()._node(ctx, args, needs_input_grad)
        node.__class__ = cls.node_class
        return node


class Dot(_SavingOperands):
    """The inner product of two vectors of one length and dtype (a 0-d tensor)."""

    grad_fn_name = "DotBackward0"
    node_class = DotNode

    @staticmethod
    def forward(ctx: Context, a: Tensor, b: Tensor) -> Tensor:
        ctx.save_for_backward(a, b)
        return matmul_op(a.unsqueeze(0), b.unsqueeze(1)).view(())

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Optional[Tensor], Optional[Tensor]]:
        a, b = ctx.saved_tensors
        return (grad * b if ctx.needs_input_grad[0] else None), (grad * a if ctx.needs_input_grad[1] else None)


class Mv(_SavingOperands):
    """A matrix ``(n, m)`` times a vector ``(m,)``: a vector ``(n,)``."""

    grad_fn_name = "MvBackward0"
    node_class = MvNode

    @staticmethod
    def forward(ctx: Context, matrix: Tensor, vector: Tensor) -> Tensor:
        ctx.save_for_backward(matrix, vector)
        return matmul_op(matrix, vector.unsqueeze(1)).view((matrix.shape[0],))

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Any, Any]:
        matrix, vector = ctx.saved_tensors
        grad_matrix = grad.unsqueeze(1) @ vector.unsqueeze(0) if ctx.needs_input_grad[0] else None
        grad_vector = matrix.t() @ grad if ctx.needs_input_grad[1] else None
        return grad_matrix, grad_vector

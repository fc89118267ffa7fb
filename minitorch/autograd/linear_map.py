r"""A backward that is itself differentiable, for ops whose backward writes raw memory.

The backward of a slice, a window view or an as-strided view scatters the gradient into
zeros with a raw kernel: fast, but unrecorded, so ``grad(..., create_graph=True)`` through such
an op lost its graph (the gradient did not require grad). These backwards are *linear* in the
gradient, :math:`g \mapsto A^\top g` where :math:`A` is the forward view, and the adjoint of
:math:`A^\top` is :math:`A` again. :func:`linear_map` records the raw backward as one node
whose own backward is the forward view: double backward for the price of one node, and only
when a graph is being built (``grad.requires_grad``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from .function import Context, Function

if TYPE_CHECKING:
    from ..tensor import Tensor


class LinearMap(Function):
    """``raw(grad)`` recorded; its gradient is ``adjoint`` of the incoming one."""

    @staticmethod
    def forward(ctx: Context, grad: "Tensor", raw: Callable[["Tensor"], "Tensor"],
                adjoint: Callable[["Tensor"], "Tensor"], name: str) -> "Tensor":
        ctx.adjoint, ctx.grad_fn_name = adjoint, name
        return raw(grad)

    @staticmethod
    def backward(ctx: Context, grad: "Tensor") -> tuple["Tensor", None, None, None]:
        return ctx.adjoint(grad), None, None, None


def linear_map(grad: "Tensor", raw: Callable[["Tensor"], "Tensor"], adjoint: Callable[["Tensor"], "Tensor"],
               name: str) -> "Tensor":
    """``raw(grad)``, recorded with ``adjoint`` as its backward when ``grad`` requires grad
    (``create_graph=True``); the plain raw call otherwise."""
    if not grad.requires_grad:
        return raw(grad)
    return LinearMap.apply(grad, raw, adjoint, name)

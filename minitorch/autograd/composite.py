r"""One graph node for an op written from other ops.

``mse_loss`` is :math:`\mathrm{mean}((x - y)^2)`: three recorded ops, so its ``grad_fn`` would
print as ``MeanBackward0`` and point at a ``PowBackward0``. PyTorch computes it as one op, and
tutorials print ``loss.grad_fn`` and walk ``next_functions`` from it. :func:`composite` runs
the ops on detached copies of the inputs, with grad mode on, and records a single node with
PyTorch's name whose edges go to the real inputs; its backward differentiates the inner graph.

Under ``create_graph=True`` the backward recomputes the ops on the real inputs instead, so the
gradient it returns is itself differentiable with respect to them.
"""

from __future__ import annotations

from typing import Any, Callable

from ..dispatch import tensor_class
from . import grad as differentiate
from .function import Context, Function
from .grad_mode import enable_grad, is_grad_enabled


class Composite(Function):
    """The node of :func:`composite`: forward and backward run ``fn``'s own recorded ops."""

    @staticmethod
    def forward(ctx: Context, name: str, fn: Callable[..., Any], *inputs: Any) -> Any:
        ctx.grad_fn_name = name
        ctx.fn = fn
        ctx.save_for_backward(*[a for a in inputs if _is_tensor(a)])
        ctx.inputs = inputs
        ctx.leaves = [a.detach().requires_grad_() if needs else a
                      for a, needs in zip(inputs, ctx.needs_input_grad[2:])]
        with enable_grad():
            ctx.inner = fn(*ctx.leaves)
        return ctx.inner.detach()

    @staticmethod
    def backward(ctx: Context, grad: Any) -> tuple:
        wanted = [i for i, needs in enumerate(ctx.needs_input_grad[2:]) if needs]
        if is_grad_enabled():  # create_graph: differentiate a graph built on the real inputs
            inputs = list(ctx.inputs)
            saved = iter(ctx.saved_tensors)
            inputs = [next(saved) if _is_tensor(a) else a for a in inputs]
            out = ctx.fn(*inputs)
            found = differentiate(out, [inputs[i] for i in wanted], grad, create_graph=True, allow_unused=True)
        else:
            found = differentiate(ctx.inner, [ctx.leaves[i] for i in wanted], grad, retain_graph=True,
                                  allow_unused=True)
        grads: list[Any] = [None] * len(ctx.inputs)
        for i, value in zip(wanted, found):
            grads[i] = value
        return (None, None, *grads)


def _is_tensor(value: Any) -> bool:
    return isinstance(value, tensor_class())


def composite(name: str, fn: Callable[..., Any], *inputs: Any) -> Any:
    """``fn(*inputs)`` recorded as one node called ``name`` (e.g. ``"MseLossBackward0"``)."""
    if not is_grad_enabled() or not any(_is_tensor(a) and a.requires_grad for a in inputs):
        return fn(*inputs)
    return Composite.apply(name, fn, *inputs)

r"""One graph node for an op written from other ops.

``mse_loss`` is :math:`\mathrm{mean}((x - y)^2)`: three recorded ops, so its ``grad_fn`` would
print as ``MeanBackward0`` and point at a ``PowBackward0``. PyTorch computes it as one op, and
tutorials print ``loss.grad_fn`` and walk ``next_functions`` from it. :func:`composite` runs
the ops on detached copies of the inputs, with grad mode on, and records a single node with
PyTorch's name whose edges go to the real inputs; its backward differentiates the inner graph.

Under ``create_graph=True`` the backward recomputes the ops on the real inputs instead, so the
gradient it returns is itself differentiable with respect to them.

Like PyTorch's node, the composite keeps the tensors its backward formula reads (``saves``: by
default every tensor input) at their versions: changing one in place after the call, or running a
second backward once the graph was freed, is PyTorch's error, not a silently stale gradient.
Where PyTorch defines no derivative of the op's backward (``backward_op``), a gradient taken
with ``create_graph=True`` carries a node whose own backward raises PyTorch's error.
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Sequence

from ..dispatch import tensor_class
from . import grad as differentiate
from . import saved_hooks
from .function import Context, Function, Underivable
from .grad_mode import enable_grad, is_grad_enabled


#: where the op's own inputs start among ``Composite.forward``'s arguments (after name, fn, saves, backward_op)
INPUTS_AT = 4


class Composite(Function):
    """The node of :func:`composite`: forward and backward run ``fn``'s own recorded ops."""

    @staticmethod
    def forward(ctx: Context, name: str, fn: Callable[..., Any], saves: Optional[Sequence[Any]],
                backward_op: Optional[str], *inputs: Any) -> Any:
        ctx.grad_fn_name = name
        ctx.fn = fn
        ctx.backward_op = backward_op
        kept = inputs if saves is None else saves
        ctx.save_for_backward(*[a for a in kept if _is_tensor(a)])
        ctx.inputs = inputs
        ctx.leaves = [a.detach().requires_grad_() if needs else a
                      for a, needs in zip(inputs, ctx.needs_input_grad[INPUTS_AT:])]
        with enable_grad():
            if saved_hooks.usage.threads:  # PyTorch's one op packs only the tensors saved above
                with saved_hooks.suspended():
                    ctx.inner = fn(*ctx.leaves)
            else:
                ctx.inner = fn(*ctx.leaves)
        return ctx.inner.detach()

    @staticmethod
    def backward(ctx: Context, grad: Any) -> tuple:
        wanted = [i for i, needs in enumerate(ctx.needs_input_grad[INPUTS_AT:]) if needs]
        ctx.saved_tensors  # noqa: B018 - PyTorch's errors for a saved tensor changed in place or freed
        if is_grad_enabled() and ctx.backward_op is None:  # create_graph: a graph built on the real inputs
            inputs = list(ctx.inputs)
            out = ctx.fn(*inputs)
            found = differentiate(out, [inputs[i] for i in wanted], grad, create_graph=True, allow_unused=True)
        else:
            found = differentiate(ctx.inner, [ctx.leaves[i] for i in wanted], grad, retain_graph=True,
                                  allow_unused=True)
            if is_grad_enabled():
                found = [_without_derivative(ctx, g, grad) for g in found]
        grads: list[Any] = [None] * len(ctx.inputs)
        for i, value in zip(wanted, found):
            grads[i] = value
        return (None,) * INPUTS_AT + tuple(grads)


class NoSecondDerivative(Underivable):
    """A composite's gradient recorded against the incoming gradient and the op's inputs, as PyTorch's
    ``<op>_backward`` node that has no derivative of its own."""

    @staticmethod
    def forward(ctx: Context, *params: Any, values: Any, op: str) -> Any:
        ctx.op = op
        return values


def _without_derivative(ctx: Context, value: Any, grad: Any) -> Any:
    if value is None:
        return None
    return NoSecondDerivative.apply(grad, *[a for a in ctx.inputs if _is_tensor(a)], values=value.detach(),
                                    op=ctx.backward_op)


def _is_tensor(value: Any) -> bool:
    return isinstance(value, tensor_class())


def composite(name: str, fn: Callable[..., Any], *inputs: Any, saves: Optional[Sequence[Any]] = None,
              backward_op: Optional[str] = None) -> Any:
    """``fn(*inputs)`` recorded as one node called ``name`` (e.g. ``"MseLossBackward0"``).

    ``saves``: the tensors (None entries ignored) PyTorch's node saves for its backward, which
    must not change in place before it runs; every tensor input when not given. ``backward_op``:
    the ATen op of PyTorch's backward (``"multi_margin_loss_backward"``) where it has no derivative.
    """
    if not is_grad_enabled() or not any(_is_tensor(a) and a.requires_grad for a in inputs):
        return fn(*inputs)
    return Composite.apply(name, fn, saves, backward_op, *inputs)

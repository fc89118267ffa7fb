r"""How each op computes its output's tangent while a dual level is open (forward-mode AD).

While :mod:`~minitorch.autograd.forward_ad` has a level open, every ``Function.apply`` runs
:func:`dual_apply`: the op as usual (its forward sees plain tensors, as PyTorch's), then, when
an input carries a tangent, the output's tangent :math:`\dot y = \sum_i J_i \dot x_i` by one of
three rules:

* a custom Function's own ``jvp(ctx, *tangents)`` (PyTorch's protocol; ``ctx.saved_tensors``
  there are the tensors given to ``ctx.save_for_forward``);
* a view of its first input (``view``, ``permute``, indexing, ``split``...): the same view of the
  input's tangent, so the tangent is a view of that tangent too, as PyTorch's;
* any other of minitorch's ops: derived from its ``backward``. The op runs again on fresh leaves,
  one reverse pass gives :math:`g_i(u) = J_i^\top u` for a probe cotangent :math:`u` (with the
  graph kept), and since :math:`\sum_i \langle g_i(u), \dot x_i\rangle = \langle u, J\dot x\rangle`
  is linear in :math:`u`, its gradient with respect to :math:`u` is :math:`J \dot x` (the
  double-backward trick of :func:`minitorch.autograd.functional.jvp`, applied to one op). So
  every op whose backward is itself differentiable has its forward derivative, with no rule
  written twice; an op whose backward is not (it computes on raw data) gets a clear error.

The user's tensors, graph and grad mode are left as they are: the derivation runs on its own
graph. The tangent is differentiable in turn (reverse-over-forward) when a primal or a tangent
requires grad and grad mode is on.
"""

from __future__ import annotations

import re
from typing import Any, Optional

from ..creation import arange, zeros_like
from ..tensor import Tensor
from . import dual_state, saved_hooks
from . import grad as autograd_grad
from .dual_state import set_tangent, suspended, tangent_of
from .custom_function import run as run_custom
from .function import AccumulateGrad, Context, Function, Node, SavedOutput, plain_apply
from .grad_mode import enable_grad, is_grad_enabled

#: the probe cotangent cycles through these many values (not constant, so that a backward computed on raw data
#: shows as non-zero and is caught, however it combines the probe's entries)
_PROBE_PERIOD = 7
_PROBE_SCALE = 0.125
#: the top-level package: its Functions get derived tangents, anyone else's must define ``jvp``
_PACKAGE = __name__.split(".")[0]

Tangents = list[Optional[Tensor]]


def _op_name(cls: type[Function], ctx: Optional[Context] = None) -> str:
    node_name = (ctx is not None and ctx.grad_fn_name) or cls.grad_fn_name or cls.__name__
    return re.sub(r"Backward\d*$", "", node_name)


def _no_forward_derivative(name: str, reason: str) -> NotImplementedError:
    return NotImplementedError(f"Trying to use forward AD with {name} that does not support it because it has not "
                               f"been implemented yet. ({reason})")


def dual_apply(cls: type[Function], *args: Any, **kwargs: Any) -> Any:
    """``Function.apply`` while a dual level is open: the op, and its outputs' tangents."""
    if dual_state.per_thread.suspended:
        return plain_apply(cls, *args, **kwargs)
    tangents = [tangent_of(arg) if isinstance(arg, Tensor) else None for arg in args]
    for key, value in kwargs.items():
        if isinstance(value, Tensor) and tangent_of(value) is not None:
            raise _no_forward_derivative(_op_name(cls), f"the dual tensor is its keyword argument {key!r}")
    if all(tangent is None for tangent in tangents):
        return plain_apply(cls, *args, **kwargs)
    if cls.jvp is not Function.jvp or cls.__module__.split(".")[0] != _PACKAGE:
        with suspended():
            out, ctx = run_custom(cls, args, kwargs)  # what its apply does, handing back ctx for jvp
        found = _custom_tangents(cls, ctx, args, tangents, out)
    else:
        with suspended():
            out = plain_apply(cls, *args, **kwargs)
        found = _view_tangents(cls, args, kwargs, tangents, out)
        if found is None:
            found = _derived_tangents(cls, args, kwargs, tangents, out)
    outputs = out if type(out) is tuple else (out,)
    for output, tangent in zip(outputs, found):
        if tangent is not None and not any(output is arg for arg in args):
            set_tangent(output, tangent)
            _save_with_tangent(output)
    return out


def _save_with_tangent(output: Tensor) -> None:
    """Let the op's backward read ``output`` with its tangent, where the op saved it.

    An op keeps its own output as a :class:`SavedOutput` (its values, no reference to the
    tensor), and backward would read it without a tangent: a derivative of a gradient
    (forward-over-reverse, a Hessian-vector product) would lose that term. The output itself
    is kept instead; the reference cycle it makes (output, node, output) is the garbage
    collector's, and only inside a dual level."""
    node = output.grad_fn
    ctx = node.ctx if node is not None else None
    if ctx is None or not any(type(value) is SavedOutput and value.holds(output) for value in ctx._saved):
        return
    ctx._saved = tuple([output if type(value) is SavedOutput and value.holds(output) else value
                        for value in ctx._saved])


def _custom_tangents(cls: type[Function], ctx: Context, args: tuple, tangents: Tangents, out: Any) -> Tangents:
    """The tangents a custom Function's ``jvp`` gives, checked as PyTorch checks them."""
    given = []
    for arg, tangent in zip(args, tangents):
        if tangent is None and isinstance(arg, Tensor) and arg.dtype.is_floating_point:
            tangent = zeros_like(arg)  # an input without a tangent has a zero one, materialized as PyTorch's
        given.append(tangent)
    saved = ctx._saved_for_forward or ((), ())
    kept = ctx._saved, ctx._saved_versions
    ctx._saved, ctx._saved_versions = saved  # ``saved_tensors`` in jvp: what save_for_forward kept
    try:
        with suspended():
            result = cls.jvp(ctx, *given)
    finally:
        ctx._saved, ctx._saved_versions = kept
    outputs = out if type(out) is tuple else (out,)
    results = result if type(result) is tuple else (result,)
    if len(results) != len(outputs):
        raise RuntimeError(f"Function's jvp returned an invalid number of forward gradients (expected "
                           f"{len(outputs)} but got {len(results)})")
    found: Tangents = []
    for position, (output, tangent) in enumerate(zip(outputs, results)):
        if tangent is not None and not isinstance(tangent, Tensor):
            raise RuntimeError(f"expected Variable or None (got {type(tangent).__name__}) for grad output {position}.")
        if tangent is None or not isinstance(output, Tensor):
            found.append(None)
            continue
        if not output.dtype.is_floating_point or any(output is marked for marked in ctx.non_differentiable):
            raise RuntimeError(f"Function's jvp returned a gradient at position {position}, but  the corresponding "
                               "forward output is not a differentiable Tensor.You should return None at that position "
                               "instead.")  # (PyTorch's spacing)
        check_tangent(output, tangent)
        found.append(tangent)
    return found


def check_tangent(primal: Tensor, tangent: Tensor) -> None:
    """PyTorch's errors for a tangent that cannot be ``primal``'s."""
    if not tangent.dtype.is_floating_point:
        raise ValueError(f"Expected tangent to be floating point or complex, but got: {tangent.dtype}")
    if tangent_of(tangent) is not None:
        level = dual_state.open_level.number if dual_state.open_level is not None else 0
        raise RuntimeError(f"Setting a forward grad that itself has a forward gradient at the same level{level} "
                           "is not supported.")
    if tangent.shape != primal.shape:
        raise RuntimeError("Trying to set a forward gradient that has a different size than that of the original "
                           f"Tensor, this is not supported. Tensor is of size {list(primal.shape)} while the given "
                           f"forward gradient is of size {list(tangent.shape)}.")


def same_layout(a: Tensor, b: Tensor) -> bool:
    """Whether ``a`` and ``b`` lie alike in storages of one size (so a view of one is the same view of the other)."""
    da, db = a._data, b._data
    return (da.shape == db.shape and da.strides == db.strides and da.offset == db.offset
            and len(da.storage) == len(db.storage) and a.device == b.device)


def _view_tangents(cls: type[Function], args: tuple, kwargs: dict, tangents: Tangents, out: Any) -> Optional[Tangents]:
    """For a view of the first input whose tangent lies like it: the same view of that tangent (None otherwise)."""
    first, tangent = args[0], tangents[0]
    if tangent is None or any(t is not None for t in tangents[1:]) or not same_layout(first, tangent):
        return None
    outputs = out if type(out) is tuple else (out,)
    base = first._base if first._base is not None else first
    if not all(isinstance(o, Tensor) and o._base is base for o in outputs):
        return None
    with suspended():
        viewed = plain_apply(cls, tangent, *args[1:], **kwargs)
    views = viewed if type(viewed) is tuple else (viewed,)
    tangent_base = tangent._base if tangent._base is not None else tangent
    if not all(isinstance(view, Tensor) and view._base is tangent_base for view in views):
        return None  # a view only for these values: derive the tangent instead
    return [view if output.dtype.is_floating_point else None for view, output in zip(views, outputs)]


def _probe_like(value: Tensor) -> Tensor:
    """A cotangent shaped like ``value`` that requires grad (its values do not change the result)."""
    count = value.numel()
    pattern = (arange(count, dtype=value.dtype, device=value.device) % _PROBE_PERIOD) * _PROBE_SCALE + 1
    return pattern.reshape(value.shape).requires_grad_(True)


def _reaches(value: Tensor, targets: set[int], stop: set[int]) -> bool:
    """Whether ``value``'s graph reaches a leaf whose id is in ``targets`` (not searching past nodes in ``stop``)."""
    if id(value) in targets:
        return True
    seen: set[int] = set()
    stack: list[Optional[Node]] = [value.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen or id(node) in stop:
            continue
        seen.add(id(node))
        if isinstance(node, AccumulateGrad):
            if id(node.variable) in targets:
                return True
            continue
        stack.extend(next_node for next_node, _ in node.next_functions)
    return False


def _fresh_inputs(args: tuple, tangents: Tangents, create_graph: bool) -> tuple[list[Any], list[tuple[Tensor, Tensor]]]:
    """The op's arguments for its run on a graph of its own, and ``(input, tangent)`` of the dual ones.

    A dual input becomes a fresh leaf, or a view of itself when the tangent is to keep a graph
    back to it; other tensors are detached unless the tangent keeps a graph."""
    fresh: list[Any] = []
    duals: list[tuple[Tensor, Tensor]] = []
    for arg, tangent in zip(args, tangents):
        if tangent is not None:
            leaf = arg.view_as(arg) if create_graph and arg.requires_grad else arg.detach().requires_grad_(True)
            duals.append((leaf, tangent))
            fresh.append(leaf)
        else:
            fresh.append(arg if create_graph or not isinstance(arg, Tensor) else arg.detach())
    return fresh, duals


def _derived_tangents(cls: type[Function], args: tuple, kwargs: dict, tangents: Tangents, out: Any) -> Tangents:
    r"""The tangents of one of minitorch's ops, from its backward (the module docstring's :math:`J \dot x`)."""
    outputs = out if type(out) is tuple else (out,)
    found: Tangents = [None] * len(outputs)
    create_graph = is_grad_enabled() and any(
        value.requires_grad for value in (*args, *tangents) if isinstance(value, Tensor))
    with suspended(), enable_grad(), saved_hooks.suspended():  # the user's saved-tensor hooks see only the op
        fresh, duals = _fresh_inputs(args, tangents, create_graph)
        again = plain_apply(cls, *fresh, **kwargs)
        results = again if type(again) is tuple else (again,)
        chosen = [k for k, value in enumerate(results) if isinstance(value, Tensor) and value.requires_grad
                  and isinstance(outputs[k], Tensor) and outputs[k].dtype.is_floating_point]
        if not chosen:
            return found
        node = results[chosen[0]].grad_fn
        name = _op_name(cls, node.ctx if node is not None else None)
        probes = [_probe_like(results[k]) for k in chosen]
        try:
            transposed = autograd_grad([results[k] for k in chosen], [leaf for leaf, _ in duals], probes,
                                       create_graph=True, allow_unused=True)
        except (RuntimeError, NotImplementedError) as error:
            raise _no_forward_derivative(name, f"its backward failed: {error}") from error
        stop = {id(value.grad_fn) for value in fresh if isinstance(value, Tensor) and value.grad_fn is not None}
        total = _pairing(transposed, [tangent for _, tangent in duals], {id(probe) for probe in probes}, stop, name)
        products: Any = (None,) * len(probes)
        if total is not None:
            try:
                products = autograd_grad(total, probes, create_graph=create_graph, allow_unused=True)
            except (RuntimeError, NotImplementedError) as error:
                raise _no_forward_derivative(name, f"its double backward failed: {error}") from error
        for k, product in zip(chosen, products):
            found[k] = zeros_like(outputs[k]) if product is None else product
    return found


def _pairing(transposed: tuple, tangents: list[Tensor], probes: set[int], stop: set[int],
             name: str) -> Optional[Tensor]:
    r""":math:`\sum_i \langle g_i(u), \dot x_i \rangle`, linear in the probes :math:`u` (None when every term is zero).

    A :math:`g_i` that does not depend on the probes through the graph is either the zeros of
    a constant op (``floor``, ``sign``) or a backward computed on raw values: an error."""
    total = None
    for gradient, tangent in zip(transposed, tangents):
        if gradient is None:
            continue
        if not _reaches(gradient, probes, stop):
            if bool((gradient != 0).any()):
                raise _no_forward_derivative(name, "minitorch derives forward gradients from an op's backward, "
                                                   "and this op's backward is not differentiable")
            continue
        term = (gradient * tangent).sum()
        total = term if total is None else total + term
    return total

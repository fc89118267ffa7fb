r"""A user's ``autograd.Function``: PyTorch's protocol for custom ops ("Extending torch.autograd").

minitorch's own ops run :meth:`Function.apply <minitorch.autograd.function.Function.apply>`,
written for speed and for what they need. A Function class defined outside the package gets,
once, when the class is made (:func:`adopt`), the ``apply`` of this module instead, which adds
what PyTorch promises a custom Function:

* the separate style: a class that overrides ``setup_context`` has ``forward(*args)`` without
  ``ctx``, and ``setup_context(ctx, inputs, output)`` fills ``ctx`` afterwards; the arguments are
  bound to ``forward``'s signature first (defaults filled in), as PyTorch binds them;
* ``ctx.mark_non_differentiable``: those outputs do not require grad;
* ``ctx.mark_dirty``: an input forward changed in place is returned as the output itself, its
  version bumped once more and its history rebased onto this op (a view's base too);
* an input returned as it is (not dirty) comes back as a view of it: the input keeps its own
  ``grad_fn``; changing a view such a Function returned in place is refused, as in PyTorch;
* backward (or ``vjp``) gets one gradient per output: zeros of the output's shape and dtype
  (integer ones too) for an output no gradient reached, None with
  ``ctx.set_materialize_grads(False)`` and for an output that is not a tensor; what it returns
  is checked as PyTorch's engine checks it (how many, one for a non-tensor, shapes);
* inside ``minitorch.func`` transforms, PyTorch's refusals: the Function must use the separate
  style, and under ``vmap`` say ``generate_vmap_rule = True`` or override ``vmap``. minitorch's
  ``vmap`` calls the Function once per slice, so either is enough: a ``vmap`` staticmethod is
  never called.
"""

from __future__ import annotations

import inspect
import warnings
from typing import Any, Callable, Optional

from ..dispatch import empty, tensor_class
from . import dual_state, profiling, transform_levels
from . import function as graph
from .function import CUSTOM_FUNCTION_VIEW, Context, Function, Node, adopt_user_functions
from .grad_mode import per_thread

NEEDS_SETUP_CONTEXT = (
    "In order to use an autograd.Function with functorch transforms (vmap, grad, jvp, jacrev, ...), it must "
    "override the setup_context staticmethod. For more details, please see "
    "https://pytorch.org/docs/main/notes/extending.func.html")
DIRTY_NOT_RETURNED = (
    "Some elements marked as dirty during the forward method were not returned as output. The inputs that are "
    "modified inplace must all be outputs of the Function.")
DIRTY_NOT_INPUT = (
    "ctx.mark_dirty() received a tensor that was not an input. Only input Tensors that have been mutated should be "
    "passed to ctx.mark_dirty().")
_FUNC_NOTES = "For more details, please see https://pytorch.org/docs/main/notes/extending.func.html"

#: ``inspect.Signature`` of each separate-style ``forward`` (made on first use)
_SIGNATURES: dict[Callable[..., Any], inspect.Signature] = {}
#: the node class of each user Function's ``grad_fn`` name (made on first use)
_NODE_TYPES: dict[str, type["CustomNode"]] = {}


def adopt(cls: type[Function]) -> None:
    """Give a user's Function class its ``apply``, chosen here once for the class: whether it
    uses the separate ``setup_context`` style is never asked again per call."""
    separate = cls.setup_context is not Function.setup_context
    cls._separate_setup = separate  # type: ignore[attr-defined]
    cls._apply_alone = staticmethod(_apply_alone)  # type: ignore[attr-defined]
    owner = next(klass for klass in cls.__mro__ if "apply" in klass.__dict__)
    if owner is Function or getattr(owner.__dict__["apply"], "__func__", None) in (_apply, _apply_binding):
        cls.apply = classmethod(_apply_binding if separate else _apply)  # type: ignore[method-assign,assignment]
    # (an apply the user wrote, on this class or one it derives from, stays)


def _apply(cls: type[Function], *args: Any, **kwargs: Any) -> Any:
    """A user's Function's ``apply``: timed by a running profiler, handed to forward AD while a
    dual level is open, else :func:`run`."""
    recorder = profiling.active
    if recorder is not None:
        return recorder.op(cls, args, lambda: _routed(cls, args, kwargs))
    return _routed(cls, args, kwargs)


def _apply_binding(cls: type[Function], *args: Any, **kwargs: Any) -> Any:
    """:func:`_apply` of the separate style: arguments bound to ``forward``'s signature first."""
    args, kwargs = bind_to_forward(cls, args, kwargs)
    return _apply(cls, *args, **kwargs)


def _routed(cls: type[Function], args: tuple, kwargs: dict) -> Any:
    route = graph._dual_route
    if route is not None and not dual_state.per_thread.suspended:
        return route(cls, *args, **kwargs)
    return run(cls, args, kwargs)[0]


def _apply_alone(cls: type[Function], *args: Any, **kwargs: Any) -> Any:
    return run(cls, args, kwargs)[0]


def bind_to_forward(cls: type[Function], args: tuple, kwargs: dict) -> tuple[tuple, dict]:
    """``args`` and ``kwargs`` as ``forward``'s signature binds them, defaults filled in (a keyword
    for a positional parameter becomes positional); PyTorch's ``TypeError`` when they do not fit."""
    forward = cls.forward
    signature = _SIGNATURES.get(forward)
    if signature is None:
        signature = _SIGNATURES.setdefault(forward, inspect.signature(forward))
    bound = signature.bind(*args, **kwargs)
    bound.apply_defaults()
    return bound.args, bound.kwargs


def run(cls: type[Function], args: tuple, kwargs: dict) -> tuple[Any, Context]:
    """Run a user's Function on ``args`` (bound already for the separate style) and record it
    when grad mode is on and a tensor argument requires grad; the result, and the ``ctx``
    (forward AD calls ``jvp`` with it)."""
    if transform_levels.innermost:
        _check_transforms(cls)
    tensor = tensor_class()
    needs = tuple([isinstance(arg, tensor) and arg._requires_grad for arg in args])
    ctx = Context(needs)
    mode = per_thread.grad_mode
    previous = mode.enabled
    record = previous and True in needs
    mode.enabled = False  # what no_grad() does, as in Function.apply
    try:
        if cls._separate_setup:  # type: ignore[attr-defined]
            out = cls.forward(*args, **kwargs)
            cls.setup_context(ctx, args, out)
        else:
            out = cls.forward(ctx, *args, **kwargs)
    finally:
        mode.enabled = previous
    return _finish(cls, ctx, args, kwargs, out, record), ctx


def _check_transforms(cls: type[Function]) -> None:
    """PyTorch's refusals for a Function called inside a function transform of this thread."""
    kinds = transform_levels.open_kinds()
    if not kinds:
        return
    if not cls._separate_setup:  # type: ignore[attr-defined]
        raise RuntimeError(NEEDS_SETUP_CONTEXT)
    if "vmap" in kinds:
        rule = cls.vmap is not Function.vmap
        if cls.generate_vmap_rule and rule:
            raise RuntimeError(f"You tried to vmap over {cls.__name__}, but it has both generate_vmap_rule=True and an "
                               "overridden vmap staticmethod. Please set generate_vmap_rule=False or delete the "
                               f"overridden vmap staticmethod to avoid ambiguity. {_FUNC_NOTES}")
        if not (cls.generate_vmap_rule or rule):
            raise RuntimeError(f"You tried to vmap over {cls.__name__}, but it does not have vmap support. Please "
                               "override and implement the vmap staticmethod or set generate_vmap_rule=True. "
                               f"{_FUNC_NOTES}")


def _marked(values: tuple, what: str) -> dict[int, Any]:
    """The tensors given to ``ctx.mark_dirty`` or ``ctx.mark_non_differentiable``, by id."""
    tensor = tensor_class()
    for position, value in enumerate(values):
        if not isinstance(value, tensor):
            if what == "mark_dirty":
                raise RuntimeError(f"mark_dirty can only accept variables, but argument {position} isn't one "
                                   f"(got {type(value).__name__})")
            raise RuntimeError(f"mark_non_differentiable only accepts variable arguments, but got "
                               f"{type(value).__name__}")
    return {id(value): value for value in values}


def _dirty_of(ctx: Context, outputs: list[Any], inputs: set[int]) -> dict[int, Any]:
    """The tensors given to ``ctx.mark_dirty``, by id, checked: each must be returned, and should
    be an input."""
    dirty = _marked(ctx.dirty_tensors, "mark_dirty")
    for value in dirty.values():
        if not any(output is value for output in outputs):
            raise RuntimeError(DIRTY_NOT_RETURNED)
        if id(value) not in inputs:
            warnings.warn(DIRTY_NOT_INPUT, UserWarning, stacklevel=6)  # the caller of apply
    return dirty


def _finish(cls: type[Function], ctx: Context, args: tuple, kwargs: dict, out: Any, record: bool) -> Any:
    """The forward's result as the caller gets it, as PyTorch wraps a custom Function's outputs:
    a differentiable one gets this call's node (a returned input as a view of it, a dirty input
    rebased); any other is cut from the graph, and a returned input that requires grad is detached."""
    tensor = tensor_class()
    several = type(out) is tuple
    outputs = list(out) if several else [out]
    inputs = {id(arg) for arg in args}
    non_differentiable = _marked(ctx.non_differentiable, "mark_non_differentiable") if ctx.non_differentiable else {}
    dirty = _dirty_of(ctx, outputs, inputs) if ctx.dirty_tensors else {}
    slots = []  # the outputs that get this op's node
    for slot, value in enumerate(outputs):
        if not isinstance(value, tensor):
            continue
        is_input = id(value) in inputs
        returned_input = is_input and id(value) not in dirty
        if not is_input and value._base is not None:
            graph._stand_alone_unless_input_view(value, args, kwargs)
        if record and value._data.dtype.is_floating_point and id(value) not in non_differentiable:
            slots.append(slot)
            if returned_input:  # a view of it: the input keeps its own grad_fn
                outputs[slot] = value._view_of(value._data)
        elif value._requires_grad:  # no gradient flows here: cut from the graph, an input left as it is
            if is_input:
                outputs[slot] = value.detach()
            elif value._base is None:
                value.detach_()
        elif returned_input:
            outputs[slot] = value._view_of(value._data)
    if dirty and record:
        _check_dirty_leaves(dirty, slots, outputs)
    rebased: set[int] = set()  # dirty views whose rebased history bumped their version already
    if slots:
        node = _node(cls, ctx, args, outputs)
        for slot in slots:
            if _attach(outputs[slot], node, slot, id(outputs[slot]) in dirty):
                rebased.add(id(outputs[slot]))
        ctx.keep_outputs_weakly(tuple([outputs[slot] for slot in slots]), node)
    if dirty:
        for value in dirty.values():
            if id(value) not in rebased:
                value._bump_version()
        _refresh_saved_versions(ctx, dirty)
    return tuple(outputs) if several else outputs[0]


def _check_dirty_leaves(dirty: dict[int, Any], slots: list[int], outputs: list[Any]) -> None:
    """PyTorch's errors for a dirty input whose change is recorded: a leaf that requires grad (its
    gradient would be of values that are gone) or a view of one."""
    for slot in slots:
        value = outputs[slot]
        if id(value) not in dirty:
            continue
        if value._requires_grad and value.grad_fn is None:
            raise RuntimeError("a leaf Variable that requires grad has been used in an in-place operation.")
        base = value._base
        if base is not None and base._requires_grad and base.grad_fn is None:
            raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place operation.")


def _attach(value: Any, node: "CustomNode", slot: int, dirty: bool) -> bool:
    """Make ``value`` output ``slot`` of ``node``. A dirty view rebases its base's history too (the
    base's ``CopySlices``, the view's ``AsStridedBackward0``), as any in-place op on a view, which
    bumps its version: True then."""
    if dirty and value._base is not None:
        result = tensor_class()._make(value._data, value._device)  # the new values, with this op's node
        result._set_grad_fn(node)
        result._output_nr = slot
        value._rebase_history(result)
        return True
    value._set_grad_fn(node)
    value._output_nr = slot
    if value._base is not None:  # an input returned, or a view of one: not to be changed in place
        value._multi_output_view = CUSTOM_FUNCTION_VIEW
    return False


def _refresh_saved_versions(ctx: Context, dirty: dict[int, Any]) -> None:
    """A dirty input saved for backward is saved as it is after the op (PyTorch saves at the end of
    ``apply``): its saved version is its version now."""
    saved = ctx._saved
    if not saved:
        return
    ctx._saved_versions = tuple([
        (value.version_counter[0] if type(value) is graph.SavedOutput else value._version)
        if any(graph._is_saved_as(value, d) for d in dirty.values()) else version
        for value, version in zip(saved, ctx._saved_versions)])


def _node(cls: type[Function], ctx: Context, args: tuple, outputs: list[Any]) -> "CustomNode":
    """The ``grad_fn`` of one call: edges as minitorch's ops have them, and what backward's
    gradients are checked against."""
    tensor = tensor_class()
    node = cls._node(ctx, args, ctx.needs_input_grad)
    node.__class__ = custom_node_type(type(node).__name__)
    node.num_outputs = len(outputs)
    node.output_layouts = tuple([(o._data.shape, o._data.dtype, o._device) if isinstance(o, tensor) else None
                                 for o in outputs])
    node.tensor_inputs = tuple([isinstance(arg, tensor) for arg in args])
    return node


class CustomNode(Node):
    """The ``grad_fn`` of a user's Function: fills in the gradients of unreached outputs, calls
    ``backward`` (or ``vjp``) and checks what it returns, as PyTorch's engine does."""

    #: each output's (shape, dtype, device), None where the output is not a tensor
    output_layouts: tuple[Optional[tuple[Any, Any, Any]], ...] = ()
    #: per forward argument, whether it was a tensor
    tensor_inputs: tuple[bool, ...] = ()

    def __repr__(self) -> str:  # a Python class of PyTorch's, with its module
        return f"<{graph.__name__}.{self.name()} object at {hex(id(self))}>"

    def apply(self, *grad: Any) -> tuple[Any, ...]:
        function, ctx = self.function, self.ctx
        assert function is not None and ctx is not None
        if ctx.materialize_grads and any(g is None for g in grad):
            grad = _materialized(grad, self.output_layouts)
        backward = function.backward
        if function.vjp is not Function.vjp:
            if backward is not Function.backward:
                raise RuntimeError("Implementing both 'backward' and 'vjp' for a custom Function is not allowed. "
                                   "You should only implement one of them.")
            backward = function.vjp
        grads = backward(ctx, *grad)
        if not isinstance(grads, tuple):
            grads = (grads,)
        grads = self._checked(grads)
        positions = self.arg_positions
        return grads if positions is None else tuple([grads[i] for i in positions])

    def _checked(self, grads: tuple) -> tuple:
        """``grads`` checked against the forward's arguments (extra trailing Nones dropped)."""
        expected = len(self.tensor_inputs)
        if len(grads) != expected:
            if len(grads) < expected or any(g is not None for g in grads[expected:]):
                raise RuntimeError(f"function {self.name()} returned an incorrect number of gradients (expected "
                                   f"{expected}, got {len(grads)})")
            grads = grads[:expected]
        tensor = tensor_class()
        for position, (grad, is_tensor) in enumerate(zip(grads, self.tensor_inputs)):
            if grad is None:
                continue
            if not is_tensor:
                raise RuntimeError(f"function {self.name()} returned a gradient different than None at position "
                                   f"{position + 1}, but the corresponding forward input was not a Variable")
            if not isinstance(grad, tensor):
                raise RuntimeError(f"expected Variable or None (got {type(grad).__name__})")
        assert self.ctx is not None
        needs = self.ctx.needs_input_grad
        positions = self.arg_positions if self.arg_positions is not None else range(len(grads))
        for position, shape in zip(positions, self.input_shapes):
            grad = grads[position]
            if grad is not None and needs[position] and shape is not None and not _expandable(shape, grad._data.shape):
                raise RuntimeError(f"Function {self.name()} returned an invalid gradient at index {position} - got "
                                   f"{list(grad._data.shape)} but expected shape compatible with {list(shape)}")
        return grads


def _expandable(shape: tuple[int, ...], to: tuple[int, ...]) -> bool:
    """Whether a tensor of ``shape`` broadcasts to ``to`` (a gradient of shape ``to`` sums back to it)."""
    if len(shape) > len(to):
        return False
    return all(size == target or size == 1 for size, target in zip(reversed(shape), reversed(to)))


def _materialized(grads: tuple, layouts: tuple) -> tuple:
    """``grads`` with zeros of each output's layout where no gradient arrived (None)."""
    filled = []
    for grad, layout in zip(grads, layouts):
        if grad is None and layout is not None:
            shape, dtype, device = layout
            grad = empty(shape, dtype, device)
            grad._raw_fill(0)
        filled.append(grad)
    return tuple(filled)


def custom_node_type(name: str) -> type[CustomNode]:
    """The :class:`CustomNode` subclass called ``name`` (``type(grad_fn).__name__`` is PyTorch's)."""
    found = _NODE_TYPES.get(name)
    if found is None:
        found = _NODE_TYPES.setdefault(name, type(name, (CustomNode,), {"__doc__": f"A ``grad_fn`` named {name}."}))
    return found


adopt_user_functions(adopt)

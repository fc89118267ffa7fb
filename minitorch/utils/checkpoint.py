r"""Activation checkpointing: trade compute for memory, as ``torch.utils.checkpoint``.

Backward needs the activations of the forward pass. For a block :math:`y = f(x)` the usual
graph keeps every intermediate of :math:`f` until backward; :func:`checkpoint` keeps only
:math:`x`, and when the gradient :math:`\bar y` arrives it runs :math:`f(x)` again, with
the random state of the first run (the same dropout masks), and backpropagates through that
recomputation: :math:`\bar x = \bar y\,\partial f / \partial x`. Memory for a chain of
:math:`n` blocks in :math:`k` segments (:func:`checkpoint_sequential`) falls from
:math:`O(n)` activations to :math:`O(k + n/k)`, for one extra forward.

Both of PyTorch's flavours are here, and give the same values and gradients as running
without checkpoint:

* ``use_reentrant=True`` (:class:`CheckpointFunction`, the default when ``use_reentrant``
  is not passed, with PyTorch's warning): one node; its backward recomputes and runs a
  backward pass of its own, which adds the gradients of the parameters inside straight into
  their ``.grad``. As PyTorch's, it needs an input that requires grad, takes no keyword
  arguments, and refuses ``autograd.grad`` and ``backward(inputs=...)``.
* ``use_reentrant=False``: keyword arguments, parameters that get gradients even when no
  input requires grad, ``autograd.grad`` and double backward all work.

What differs from PyTorch, and why: PyTorch's ``use_reentrant=False`` keeps the ordinary
graph and only swaps its saved tensors for recomputed ones (saved-tensor hooks, which
this module predates and does not use). Here it is one node instead: the forward runs the function once
with the graph recorded, to find the leaves it reads (the parameters of a module, found by
walking that graph), then drops that graph (so the forward briefly holds one block's
activations, as the recomputation does); the node's edges go to the tensor arguments and
to those leaves, and its backward differentiates the recomputation with
:func:`minitorch.autograd.grad`. So an output's ``grad_fn`` carries the name of the first
output's last op (``AddmmBackward0``) but its ``next_functions`` are those edges; a non-leaf
tensor the function reads from an enclosing scope (not an argument) is differentiated
through to its leaves; ``determinism_check`` compares the outputs of the two runs, not the
saved tensors; ``debug`` and ``early_stop`` are accepted and have no effect (recomputation
always runs the whole function).
"""

from __future__ import annotations

import warnings
from contextlib import contextmanager, nullcontext
from typing import Any, Callable, ContextManager, Iterable, Iterator, Optional, Sequence

from .. import autocast_state
from ..autograd import grad as differentiate
from ..autograd import engine
from ..autograd.function import Context, Function
from ..autograd.grad_mode import enable_grad, is_grad_enabled
from ..creation import zeros_like
from ..dispatch import tensor_class
from ..generator import default_generator_of

__all__ = ["CheckpointError", "CheckpointFunction", "check_backward_validity", "checkpoint", "checkpoint_sequential",
           "detach_variable", "noop_context_fn"]

REENTRANT_DEFAULT_WARNING = (
    "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Starting in PyTorch 2.9, "
    "calling checkpoint without use_reentrant will raise an exception. use_reentrant=False is recommended, but if "
    "you need to preserve the current default behavior, you can pass use_reentrant=True. Refer to docs for more "
    "details on the differences between the two variants."
)
SEQUENTIAL_REENTRANT_DEFAULT_WARNING = (
    "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be passed explicitly. In "
    "version 2.9 we will raise an exception if use_reentrant is not passed. use_reentrant=False is recommended, but "
    "if you need to preserve the current default behavior, you can pass use_reentrant=True. Refer to docs for more "
    "details on the differences between the two variants."
)
NO_INPUT_REQUIRES_GRAD_WARNING = "None of the inputs have requires_grad=True. Gradients will be None"
REENTRANT_PARTIAL_BACKWARD_ERROR = (
    "When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() or passing an `inputs` parameter "
    "to .backward(). To resolve this error, you can either set use_reentrant=False, or call .backward() without "
    "passing the `inputs` argument."
)
NO_OUTPUT_REQUIRES_GRAD_ERROR = "none of output has requires_grad=True, this checkpoint() is not necessary"
REENTRANT_ONLY_DEFAULTS_ERROR = "Passing `context_fn` or `debug` is only supported when use_reentrant=False."
#: ``determinism_check``'s values: compare shape, dtype and device of the recomputed outputs, or nothing
DETERMINISM_CHECKS = ("default", "none")
#: the device types whose random generators and autocast state the recomputation replays
DEVICE_TYPES = ("cpu", "cuda")
#: the name of the non-reentrant node when no output came from an op (the function returned an input)
RECOMPUTE_NODE_NAME = "CheckpointBackward"


class CheckpointError(RuntimeError):
    """The recomputation did not produce what the first run did (PyTorch's class of the same name)."""


def _is_tensor(value: Any) -> bool:
    return isinstance(value, tensor_class())


def noop_context_fn() -> tuple[ContextManager, ContextManager]:
    """The default ``context_fn``: no context around the forward nor around the recomputation."""
    return nullcontext(), nullcontext()


def detach_variable(inputs: tuple[Any, ...]) -> tuple[Any, ...]:
    """Each tensor of ``inputs`` cut from the graph, still requiring grad if it did; the rest as is."""
    if not isinstance(inputs, tuple):
        raise RuntimeError(f"Only tuple of tensors is supported. Got Unsupported input type: {type(inputs).__name__}")
    return tuple(_detached_leaf(value) if _is_tensor(value) else value for value in inputs)


def _detached_leaf(tensor: Any) -> Any:
    return tensor.detach().requires_grad_(tensor.requires_grad)


def check_backward_validity(inputs: Iterable[Any]) -> None:
    """PyTorch's warning when no tensor input requires grad (the reentrant flavour's outputs then do not)."""
    if not any(value.requires_grad for value in inputs if _is_tensor(value)):
        warnings.warn(NO_INPUT_REQUIRES_GRAD_WARNING, stacklevel=2)


class _ForwardState:
    """What the recomputation must see as the first run saw it: the random generators (when
    ``preserve_rng_state``) and autocast, for the cpu and each device of the tensor inputs."""

    def __init__(self, tensors: Sequence[Any], preserve_rng_state: bool) -> None:
        kinds = {"cpu", *(tensor.device.type for tensor in tensors)}
        self.rng_states = self._rng_states(kinds) if preserve_rng_state else {}
        self.autocast = self._autocast()

    @staticmethod
    def _rng_states(kinds: Iterable[str]) -> dict[str, Any]:
        """The state of each device kind's default random generator now."""
        return {kind: default_generator_of(kind).get_state() for kind in kinds}

    @staticmethod
    def _autocast() -> dict[str, tuple[bool, Any]]:
        """Autocast's setting and dtype for each device kind now."""
        return {kind: (autocast_state.is_autocast_enabled(kind), autocast_state.get_autocast_dtype(kind))
                for kind in DEVICE_TYPES}

    @contextmanager
    def replayed(self) -> Iterator[None]:
        """Within the block the forward's state holds; the current one comes back after (``fork_rng``)."""
        current_rng, current_autocast = self._rng_states(self.rng_states), self._autocast()
        self._apply(self.rng_states, self.autocast)
        try:
            yield
        finally:
            self._apply(current_rng, current_autocast)

    @staticmethod
    def _apply(rng_states: dict[str, Any], autocast: dict[str, tuple[bool, Any]]) -> None:
        for kind, state in rng_states.items():
            default_generator_of(kind).set_state(state)
        for kind, (enabled, dtype) in autocast.items():
            autocast_state.set_autocast_enabled(kind, enabled)
            autocast_state.set_autocast_dtype(kind, dtype)


# ---- use_reentrant=True ----

def _backward_is_partial() -> bool:
    """Whether the backward pass running now was asked for some tensors only (``autograd.grad``,
    ``backward(inputs=...)``), as PyTorch asks its engine of the current graph task
    (``_is_checkpoint_valid``)."""
    return engine.innermost_pass_captures()


class CheckpointFunction(Function):
    """The reentrant flavour: forward without a graph; backward recomputes and runs a backward of its own."""

    grad_fn_name = "CheckpointFunctionBackward"  # a Python Function's node in PyTorch: no number

    @staticmethod
    def forward(ctx: Context, run_function: Callable[..., tuple], preserve_rng_state: bool, *args: Any) -> tuple:
        check_backward_validity(args)
        ctx.run_function = run_function
        ctx.state = _ForwardState([a for a in args if _is_tensor(a)], preserve_rng_state)
        ctx.inputs = [None if _is_tensor(a) else a for a in args]  # tensors come back from saved_tensors
        ctx.save_for_backward(*[a for a in args if _is_tensor(a)])
        return run_function(*args)  # Function.apply has turned grad mode off

    @staticmethod
    def backward(ctx: Context, *grad_outputs: Any) -> tuple:
        if _backward_is_partial():
            raise RuntimeError(REENTRANT_PARTIAL_BACKWARD_ERROR)
        saved = iter(ctx.saved_tensors)
        inputs = tuple(next(saved) if value is None else value for value in ctx.inputs)
        with ctx.state.replayed():
            detached = detach_variable(inputs)
            with enable_grad():
                outputs = ctx.run_function(*detached)
        pairs = [(out, grad) for out, grad in zip(outputs, grad_outputs) if _is_tensor(out) and out.requires_grad]
        if not pairs:
            raise RuntimeError(NO_OUTPUT_REQUIRES_GRAD_ERROR)
        # an output no gradient reached counts as a zero gradient, as PyTorch materializes it
        seeds = [zeros_like(out) if grad is None else grad for out, grad in pairs]
        engine.run_backward([out for out, _ in pairs], seeds, retain_graph=False, create_graph=False)
        return (None, None, *[value.grad if _is_tensor(value) else None for value in detached])


def _as_tuple(function: Callable[..., Any], was_tuple: list[bool]) -> Callable[..., tuple]:
    """``function`` returning a tuple (a single result wrapped); ``was_tuple[0]`` says whether it was one."""
    def run(*args: Any) -> tuple:
        result = function(*args)
        was_tuple[0] = isinstance(result, tuple)
        return tuple(result) if was_tuple[0] else (result,)
    return run


def _checkpoint_reentrant(function: Callable[..., Any], preserve_rng_state: bool, args: tuple) -> Any:
    was_tuple = [False]
    outputs = CheckpointFunction.apply(_as_tuple(function, was_tuple), preserve_rng_state, *args)
    return outputs if was_tuple[0] else outputs[0]


# ---- use_reentrant=False ----

def _flatten(value: Any) -> tuple[list[Any], Callable[[list[Any]], Any]]:
    """The leaves of nested tuples, lists and dicts, and how to rebuild ``value`` from new leaves."""
    if isinstance(value, (tuple, list)):
        parts = [_flatten(item) for item in value]
        sizes = [len(leaves) for leaves, _ in parts]

        def rebuild_sequence(leaves: list[Any]) -> Any:
            items, start = [], 0
            for (_, rebuild), size in zip(parts, sizes):
                items.append(rebuild(leaves[start:start + size]))
                start += size
            return type(value)(*items) if hasattr(value, "_fields") else type(value)(items)

        return [leaf for leaves, _ in parts for leaf in leaves], rebuild_sequence
    if isinstance(value, dict):
        keys = list(value)
        values_leaves, rebuild_values = _flatten([value[key] for key in keys])
        return values_leaves, lambda leaves: type(value)(zip(keys, rebuild_values(leaves)))
    return [value], lambda leaves: leaves[0]


def _captured_leaves(outputs: Sequence[Any], arguments: Sequence[Any]) -> list[Any]:
    """The leaf tensors requiring grad that ``outputs`` were computed from, other than ``arguments``
    (a module's parameters, read by the function rather than passed to it), in the order met."""
    own = {id(a) for a in arguments}
    reached = engine.leaves_reached([out._grad_node() for out in outputs if out.requires_grad])
    return [leaf for leaf in reached if id(leaf) not in own]


def _metadata(tensor: Any) -> dict[str, Any]:
    return {"shape": tensor.shape, "dtype": tensor.dtype, "device": tensor.device}


class _Recomputation:
    """One non-reentrant checkpoint: the function, where its tensor arguments go, and the forward's state."""

    def __init__(self, function: Callable[..., Any], args: tuple, kwargs: dict, preserve_rng_state: bool,
                 recompute_context: ContextManager, check_metadata: bool) -> None:
        self.function = function
        self.arguments, self.rebuild_arguments = _flatten((args, kwargs))
        self.tensor_positions = [i for i, value in enumerate(self.arguments) if _is_tensor(value)]
        self.state = _ForwardState([self.arguments[i] for i in self.tensor_positions], preserve_rng_state)
        self.recompute_context = recompute_context
        self.check_metadata = check_metadata
        self.forward_outputs: list[Any] = []
        self.metadata: list[dict[str, Any]] = []

    def tensor_arguments(self) -> list[Any]:
        return [self.arguments[i] for i in self.tensor_positions]

    def run(self, tensors: Sequence[Any]) -> tuple[list[Any], Callable[[list[Any]], Any]]:
        """The function's result on ``tensors`` in place of the tensor arguments, flattened."""
        arguments = list(self.arguments)
        for position, tensor in zip(self.tensor_positions, tensors):
            arguments[position] = tensor
        args, kwargs = self.rebuild_arguments(arguments)
        return _flatten(self.function(*args, **kwargs))

    def recompute(self, tensors: Sequence[Any]) -> list[Any]:
        """The tensor outputs again, under the forward's random and autocast state."""
        with self.state.replayed(), self.recompute_context, enable_grad():
            leaves, _ = self.run(tensors)
        outputs = [leaf for leaf in leaves if _is_tensor(leaf)]
        if self.check_metadata:
            self._check(outputs)
        return outputs

    def _check(self, outputs: list[Any]) -> None:
        if len(outputs) != len(self.metadata):
            raise CheckpointError(
                "torch.utils.checkpoint: A different number of tensors was saved during the original forward and "
                f"recomputation.\nNumber of tensors saved during forward: {len(self.metadata)}\n"
                f"Number of tensors saved during recomputation: {len(outputs)}."
            )
        different = [(i, saved, _metadata(out)) for i, (saved, out) in enumerate(zip(self.metadata, outputs))
                     if saved != _metadata(out)]
        if different:
            listed = "".join(f"tensor at position {i}:\nsaved metadata: {saved}\nrecomputed metadata: {now}\n"
                             for i, saved, now in different)
            raise CheckpointError("torch.utils.checkpoint: Recomputed values for the following tensors have "
                                  f"different metadata than during the forward pass.\n{listed}.")


class _RecomputeFunction(Function):
    """The non-reentrant node: edges to the tensor arguments and the captured leaves; its
    backward differentiates the recomputation with respect to them."""

    @staticmethod
    def forward(ctx: Context, plan: _Recomputation, name: str, *tensors: Any) -> tuple:
        ctx.plan = plan
        ctx.grad_fn_name = name
        ctx.save_for_backward(*tensors)
        outputs, plan.forward_outputs = plan.forward_outputs, []  # the node holds them no longer than apply
        return tuple(outputs)

    @staticmethod
    def backward(ctx: Context, *grad_outputs: Any) -> tuple:
        plan: _Recomputation = ctx.plan
        tensors = list(ctx.saved_tensors)
        count = len(plan.tensor_positions)
        wanted = [i for i, needs in enumerate(ctx.needs_input_grad[2:]) if needs]
        create_graph = is_grad_enabled()
        if create_graph:  # double backward: a graph built on the real inputs, so the gradient is differentiable
            targets = tensors
        else:
            targets = [_detached_leaf(t) for t in tensors[:count]] + tensors[count:]
        outputs = plan.recompute(targets[:count])
        pairs = [(out, grad) for out, grad in zip(outputs, grad_outputs)
                 if grad is not None and out.requires_grad]
        found = differentiate([out for out, _ in pairs], [targets[i] for i in wanted], [grad for _, grad in pairs],
                              retain_graph=True, create_graph=create_graph, allow_unused=True) if pairs else ()
        grads: list[Optional[Any]] = [None] * len(tensors)
        for i, value in zip(wanted, found):
            grads[i] = value
        return (None, None, *grads)


def _checkpoint_non_reentrant(function: Callable[..., Any], preserve_rng_state: bool, args: tuple, kwargs: dict,
                              context_fn: Callable[[], tuple[ContextManager, ContextManager]],
                              determinism_check: str) -> Any:
    if determinism_check not in DETERMINISM_CHECKS:
        raise ValueError(f"determinism_check should be one of {list(DETERMINISM_CHECKS)}, but got {determinism_check}")
    forward_context, recompute_context = context_fn()
    if not is_grad_enabled():  # nothing to differentiate: an ordinary call
        with forward_context:
            return function(*args, **kwargs)
    plan = _Recomputation(function, args, kwargs, preserve_rng_state, recompute_context, determinism_check == "default")
    arguments = [_detached_leaf(t) for t in plan.tensor_arguments()]
    with forward_context:
        leaves, rebuild = plan.run(arguments)
    positions = [i for i, leaf in enumerate(leaves) if _is_tensor(leaf)]
    outputs = [leaves[i] for i in positions]
    if not any(out.requires_grad for out in outputs):
        return rebuild(leaves)
    captured = _captured_leaves(outputs, arguments)
    first = next(out for out in outputs if out.requires_grad)
    name = first.grad_fn.name() if first.grad_fn is not None else RECOMPUTE_NODE_NAME
    plan.metadata = [_metadata(out) for out in outputs]
    plan.forward_outputs = [out.detach() for out in outputs]  # the recorded graph goes: backward recomputes it
    differentiable = [out.requires_grad for out in outputs]
    results = _RecomputeFunction.apply(plan, name, *plan.tensor_arguments(), *captured)
    for position, result, keeps_grad in zip(positions, results, differentiable):
        leaves[position] = result if keeps_grad else result.detach()
    return rebuild(leaves)


# ---- the public functions ----

def checkpoint(function: Callable[..., Any], *args: Any, use_reentrant: Optional[bool] = None,
               context_fn: Callable[[], tuple[ContextManager, ContextManager]] = noop_context_fn,
               determinism_check: str = "default", debug: bool = False, early_stop: bool = True, **kwargs: Any) -> Any:
    """``function(*args, **kwargs)`` without keeping its activations; backward recomputes them.

    ``preserve_rng_state`` (a keyword, default True) replays the random state of the forward
    in the recomputation, so dropout draws the same masks. ``use_reentrant`` picks the
    flavour (see the module docstring); not passing it warns and picks True, as PyTorch 2.13.
    """
    if use_reentrant is None:
        warnings.warn(REENTRANT_DEFAULT_WARNING, stacklevel=2)
        use_reentrant = True
    preserve_rng_state = kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    if use_reentrant:
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError(REENTRANT_ONLY_DEFAULTS_ERROR)
        return _checkpoint_reentrant(function, preserve_rng_state, args)
    return _checkpoint_non_reentrant(function, preserve_rng_state, args, kwargs, context_fn, determinism_check)


def _run_segment(functions: Sequence[Callable[[Any], Any]], start: int, end: int) -> Callable[[Any], Any]:
    """Calls ``functions[start]`` to ``functions[end]`` (inclusive) one after the other."""
    def forward(value: Any) -> Any:
        for index in range(start, end + 1):
            value = functions[index](value)
        return value
    return forward


def checkpoint_sequential(functions: Any, segments: int, input: Any, use_reentrant: Optional[bool] = None,  # noqa: A002
                          **kwargs: Any) -> Any:
    """Run ``functions`` (an ``nn.Sequential`` or a list) in order, in ``segments`` chunks of
    ``len(functions) // segments``; every chunk but the last is checkpointed.

    As PyTorch's: a Sequential gives its distinct children, and ``segments`` larger than the
    number of functions fails (a chunk of size 0).
    """
    if use_reentrant is None:
        warnings.warn(SEQUENTIAL_REENTRANT_DEFAULT_WARNING, stacklevel=2)
        use_reentrant = True
    preserve_rng_state = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    from ..nn import Sequential  # nn is built on utils: imported when first needed

    if isinstance(functions, Sequential):
        functions = list(functions.children())
    segment_size = len(functions) // segments
    end = -1
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        input = checkpoint(_run_segment(functions, start, end), input, use_reentrant=use_reentrant,
                           preserve_rng_state=preserve_rng_state)
    return _run_segment(functions, end + 1, len(functions) - 1)(input)

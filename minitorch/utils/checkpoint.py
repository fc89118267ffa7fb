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
* ``use_reentrant=False``: PyTorch's design. The forward records the ordinary graph under
  saved-tensor hooks (:mod:`minitorch.autograd.saved_hooks`) that keep a small holder in
  place of each tensor an op saves, with its shape, dtype and device. The first saved tensor
  a backward pass reads reruns the function under hooks that fill the holders in order; with
  ``early_stop`` (the default, or :func:`set_checkpoint_early_stop`) the rerun stops as soon
  as the last one is filled, so the ops (and module forward hooks) after the last op that
  saves a tensor do not run again. ``determinism_check="default"`` then compares the
  metadata of the saved tensors of the two runs (a function that saves nothing is never
  rerun); both checks raise :class:`CheckpointError` with PyTorch's text, less its tip about
  ``debug``. Keyword arguments, parameters that get gradients even when no input requires
  grad, ``autograd.grad``, double backward and nested checkpoints all work.

Which tensors an op saves is minitorch's (PyTorch's for the common ops); where it differs,
so do the counts in :class:`CheckpointError`'s text and, for an op that saves nothing in one
library and something in the other, where early stop ends. ``debug`` (and
:func:`set_checkpoint_debug_enabled`) only refuses a ``context_fn`` of one's own, as
PyTorch's does: its log of operators is not kept.
"""

from __future__ import annotations

import itertools
import warnings
import weakref
from collections import defaultdict
from contextlib import contextmanager, nullcontext
from typing import Any, Callable, ContextManager, Iterable, Iterator, Optional, Sequence

from .. import autocast_state
from ..autograd import engine, saved_hooks
from ..autograd.function import Context, Function
from ..autograd.function import _modified_message as modified_message
from ..autograd.grad_mode import enable_grad, is_grad_enabled, no_grad
from ..autograd.saved_hooks import PackedSaved
from ..creation import zeros_like
from ..dispatch import tensor_class
from ..generator import default_generator_of

__all__ = ["CheckpointError", "CheckpointFunction", "check_backward_validity", "checkpoint", "checkpoint_sequential",
           "detach_variable", "noop_context_fn", "set_checkpoint_debug_enabled", "set_checkpoint_early_stop"]

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
FORWARD_CONTEXT_SUPPRESSED_ERROR = (
    "torch.utils.checkpoint: the forward context provided by context_fn suppressed an exception raised during the "
    "checkpointed forward. This is not supported because checkpoint cannot return a value for a failed forward."
)
UNPACKED_TWICE_ERROR = (
    "torch.utils.checkpoint: Unpack is being triggered for a tensor that was already unpacked once. If you are "
    "calling ctx.saved_tensors in backward, make sure to do so only once. Otherwise please open an issue with "
    "details on your use case."
)
#: the device types whose random generators and autocast state the recomputation replays
DEVICE_TYPES = ("cpu", "cuda")


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

class _Overrides:
    """What :func:`set_checkpoint_early_stop` and :func:`set_checkpoint_debug_enabled` set for
    every checkpoint whose forward runs inside them (None: each call's own argument). Global,
    not per thread, as PyTorch's."""

    early_stop: Optional[bool] = None
    debug: Optional[bool] = None


@contextmanager
def set_checkpoint_early_stop(enable: bool) -> Iterator[None]:
    """Whether the non-reentrant checkpoints whose forward runs inside the block stop their
    recomputation once every tensor the forward saved is recomputed (``early_stop``'s default,
    True) or run the whole function again. Only needed around the forward, not the backward."""
    previous, _Overrides.early_stop = _Overrides.early_stop, enable
    try:
        yield
    finally:
        _Overrides.early_stop = previous


@contextmanager
def set_checkpoint_debug_enabled(enabled: Optional[bool]) -> Iterator[None]:
    """``debug`` for every non-reentrant checkpoint run inside the block, whatever it was passed
    (None: each call's own). As PyTorch's, debug mode refuses a ``context_fn`` of one's own;
    otherwise it changes nothing here: PyTorch's debug mode only adds a log of the operators of
    both runs to the text of a :class:`CheckpointError`, which minitorch raises without it."""
    previous, _Overrides.debug = _Overrides.debug, enabled
    try:
        yield
    finally:
        _Overrides.debug = previous


class _StopRecomputation(Exception):
    """Raised by the recomputation's pack hook once every saved tensor is back: ends the rerun."""


class _Handle:
    """The key of one recomputed tensor (one per backward pass), dropped when it is unpacked."""


class _Holder:
    """What the graph keeps for a tensor saved inside the checkpoint: per backward pass, the
    handle of its recomputed value (None once unpacked)."""

    __slots__ = ("handles", "__weakref__")

    def __init__(self) -> None:
        self.handles: dict[int, Optional[_Handle]] = {}


#: each backward pass's number (PyTorch's graph task id), given when a checkpoint first asks
_pass_numbers: "weakref.WeakKeyDictionary[engine.GraphTask, int]" = weakref.WeakKeyDictionary()
_numbers = itertools.count()


def _backward_pass_number() -> int:
    """The number of the backward pass running now; a new one for each unpack outside backward."""
    task = engine.current_graph_task()
    if task is None:
        return next(_numbers)
    number = _pass_numbers.get(task)
    if number is None:
        number = _pass_numbers[task] = next(_numbers)
    return number


def _tensors_in(value: Any) -> Iterator[Any]:
    """The tensors of ``value`` and of the tuples, lists and dicts in it: whose devices' random
    state the recomputation replays."""
    if _is_tensor(value):
        yield value
    elif isinstance(value, (tuple, list)):
        for item in value:
            yield from _tensors_in(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _tensors_in(item)


def _metadata(tensor: Any) -> dict[str, Any]:
    """What ``determinism_check="default"`` compares: shape, dtype and device."""
    return {"shape": tensor.shape, "dtype": tensor.dtype, "device": tensor.device}


def _no_metadata(tensor: Any) -> None:
    """``determinism_check="none"``: nothing to compare (the number of saved tensors still is)."""
    return None


#: ``determinism_check``'s values and what each compares of the saved tensors of the two runs
DETERMINISM_CHECKS: dict[str, Callable[[Any], Any]] = {"default": _metadata, "none": _no_metadata}


class _SavedArgument:
    """A tensor argument kept for the recomputation: packed by the saved-tensor hooks in force
    (an enclosing checkpoint's: its recomputation gives it back), else the tensor itself, which
    must not change in place before backward."""

    __slots__ = ("value", "version")

    def __init__(self, tensor: Any) -> None:
        hooks = saved_hooks.current()
        self.value = tensor if hooks is None else PackedSaved(tensor, hooks, None)
        self.version = tensor._version if hooks is None else None

    def unpack(self) -> Any:
        if isinstance(self.value, PackedSaved):
            return self.value.unpack()
        if self.value._version != self.version:
            raise RuntimeError(modified_message(self.value, self.version, None))
        return self.value


class _Frame:
    """One non-reentrant checkpoint: its arguments, a weak reference to the holder of each tensor
    its forward saved, with their metadata, and per backward pass the recomputed tensors."""

    def __init__(self, recompute: Callable[..., None], early_stop: bool, metadata: Callable[[Any], Any]) -> None:
        self.recompute = recompute
        self.early_stop = early_stop
        self.metadata = metadata
        self.saved_args: list[Any] = []
        self.weak_holders: list[weakref.ref] = []
        self.saved_metadata: list[Any] = []
        self.recomputed: defaultdict[int, weakref.WeakKeyDictionary] = defaultdict(weakref.WeakKeyDictionary)
        self.recompute_counter: defaultdict[int, int] = defaultdict(int)
        self.is_recomputed: defaultdict[int, bool] = defaultdict(bool)
        self.forward_completed = False
        self.ignore_saved_mismatch = False

    def save_inputs(self, args: tuple) -> None:
        self.saved_args = [_SavedArgument(value) if _is_tensor(value) else value for value in args]

    def inputs(self) -> list[Any]:
        return [value.unpack() if isinstance(value, _SavedArgument) else value for value in self.saved_args]

    def pack(self, tensor: Any) -> _Holder:
        """The forward's pack hook: a holder in the graph instead of the tensor."""
        holder = _Holder()
        self.weak_holders.append(weakref.ref(holder))
        with no_grad():
            self.saved_metadata.append(self.metadata(tensor))
        return holder

    def unpack(self, holder: _Holder) -> Any:
        """The forward's unpack hook: the recomputed tensor (the first unpack of a backward pass
        reruns the function), given once per pass."""
        number = _backward_pass_number()
        if not self.is_recomputed[number]:
            arguments = self.inputs()
            try:
                with saved_hooks.installed(_recomputation_hooks(weakref.ref(self), number)), enable_grad():
                    self.recompute(*arguments)
            except _StopRecomputation:
                pass
            self.is_recomputed[number] = True
            self.check_recomputed_tensors_match(number)
        handle = holder.handles[number]
        if handle is None:
            raise CheckpointError(UNPACKED_TWICE_ERROR)
        holder.handles[number] = None
        return self.recomputed[number][handle]

    def check_recomputed_tensors_match(self, number: int) -> None:
        """PyTorch's checks: as many tensors saved by both runs, with equal metadata."""
        if self.ignore_saved_mismatch:
            return
        if len(self.weak_holders) != self.recompute_counter[number]:
            raise CheckpointError(
                "torch.utils.checkpoint: A different number of tensors was saved during the original forward and "
                f"recomputation.\nNumber of tensors saved during forward: {len(self.weak_holders)}\n"
                f"Number of tensors saved during recomputation: {self.recompute_counter[number]}.\n"
            )
        different = []
        for index, weak_holder in enumerate(self.weak_holders):
            holder = weak_holder()
            if holder is None:  # freed by a backward inside the forward
                continue
            recomputed = self.metadata(self.recomputed[number][holder.handles[number]])
            if self.saved_metadata[index] != recomputed:
                different.append((index, self.saved_metadata[index], recomputed))
        if different:
            listed = "".join(f"tensor at position {index}:\nsaved metadata: {saved}\nrecomputed metadata: {now}\n"
                             for index, saved, now in different)
            raise CheckpointError("torch.utils.checkpoint: Recomputed values for the following tensors have "
                                  f"different metadata than during the forward pass.\n{listed}.\n")


def _recomputation_hooks(frame_ref: "weakref.ref[_Frame]", number: int) -> tuple[Callable[[Any], Any],
                                                                                   Callable[[Any], Any]]:
    """The saved-tensor hooks of a recomputation: each saved tensor fills the next holder's
    handle for pass ``number``; with ``early_stop`` the last one ends the rerun."""
    def pack(tensor: Any) -> Any:
        tensor = tensor.detach() if tensor.requires_grad else tensor
        frame = frame_ref()
        assert frame is not None, "a checkpoint recomputes after its graph was freed"
        index = frame.recompute_counter[number]
        frame.recompute_counter[number] += 1
        if index >= len(frame.weak_holders):
            if not frame.forward_completed:  # a backward inside the forward, without early stop
                frame.ignore_saved_mismatch = True
                return tensor
            raise CheckpointError("torch.utils.checkpoint: trying to save more tensors during recomputation than "
                                  "during the original forward pass.\n")
        holder = frame.weak_holders[index]()
        if holder is not None:  # else freed by a backward inside the forward: not needed
            holder.handles[number] = _Handle()
            frame.recomputed[number][holder.handles[number]] = tensor
        if frame.early_stop and frame.recompute_counter[number] == len(frame.weak_holders):
            raise _StopRecomputation
        return tensor  # a backward through the recomputed graph (one inside the function) reads it

    def unpack(tensor: Any) -> Any:
        return tensor

    return pack, unpack


def _checkpoint_non_reentrant(function: Callable[..., Any], preserve_rng_state: bool, args: tuple, kwargs: dict,
                              context_fn: Callable[[], tuple[ContextManager, ContextManager]],
                              determinism_check: str, debug: bool, early_stop: bool) -> Any:
    if (debug if _Overrides.debug is None else _Overrides.debug) and context_fn is not noop_context_fn:
        raise ValueError("debug=True is incompatible with non-default context_fn")
    if determinism_check not in DETERMINISM_CHECKS:
        raise ValueError(f"determinism_check should be one of {list(DETERMINISM_CHECKS)}, but got {determinism_check}")
    forward_context, recompute_context = context_fn()
    if not is_grad_enabled():  # nothing to differentiate: an ordinary call (outside forward_context, as PyTorch)
        return function(*args, **kwargs)
    state = _ForwardState(list(_tensors_in(args)), preserve_rng_state)

    def recompute(*arguments: Any) -> None:
        with state.replayed(), recompute_context:
            function(*arguments, **kwargs)

    frame = _Frame(recompute, early_stop if _Overrides.early_stop is None else _Overrides.early_stop,
                   DETERMINISM_CHECKS[determinism_check])
    frame.save_inputs(args)
    suppressed = False
    with saved_hooks.installed((frame.pack, frame.unpack)), forward_context:
        try:
            result = function(*args, **kwargs)
        except BaseException:
            suppressed = True
            raise
    if suppressed:  # forward_context swallowed the function's exception
        raise RuntimeError(FORWARD_CONTEXT_SUPPRESSED_ERROR)
    frame.forward_completed = True
    return result


# ---- the public functions ----

def checkpoint(function: Callable[..., Any], *args: Any, use_reentrant: Optional[bool] = None,
               context_fn: Callable[[], tuple[ContextManager, ContextManager]] = noop_context_fn,
               determinism_check: str = "default", debug: bool = False, early_stop: bool = True, **kwargs: Any) -> Any:
    """``function(*args, **kwargs)`` without keeping its activations; backward recomputes them.

    ``preserve_rng_state`` (a keyword, default True) replays the random state of the forward
    in the recomputation, so dropout draws the same masks. ``use_reentrant`` picks the
    flavour (see the module docstring); not passing it warns and picks True, as PyTorch 2.13.
    ``early_stop`` (overridden by :func:`set_checkpoint_early_stop`) ends the non-reentrant
    recomputation once every saved tensor is back; ``determinism_check`` ("default" or "none")
    says whether their metadata must match; ``debug`` adds nothing (see the module docstring).
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
    return _checkpoint_non_reentrant(function, preserve_rng_state, args, kwargs, context_fn, determinism_check, debug,
                                     early_stop)


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

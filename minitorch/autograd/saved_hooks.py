r"""Saved-tensor hooks: what an op keeps for backward, packed by the user's function.

Inside ``saved_tensors_hooks(pack_hook, unpack_hook)`` (:mod:`minitorch.autograd.graph`, the
public side) every tensor a *recorded* op saves goes through ``pack_hook`` once the op's node
exists, and the graph keeps whatever it returns (a CPU copy, a NumPy array, a file name); each
read of ``ctx.saved_tensors`` gives it to ``unpack_hook`` and rebuilds the tensor backward
reads, wired to the graph as the saved tensor was (its ``grad_fn``, or its leaf's gradient
accumulator), so a double backward still runs through it.

As in PyTorch: hooks belong to the thread that sets them, the innermost pair wins, hooks run
with grad mode off, a saved tensor that went through hooks is no longer checked for in-place
changes (the packed copy is what backward reads), and ``disable_saved_tensors_hooks`` makes
setting hooks (or disabling while they are set) a ``RuntimeError`` with its message.
"""

from __future__ import annotations

import threading
import weakref
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Callable, Iterator, Optional

from ..dispatch import tensor_class
from .grad_mode import per_thread as grad_per_thread

if TYPE_CHECKING:
    from ..tensor import Tensor
    from .function import Node

PackHook = Callable[["Tensor"], Any]
UnpackHook = Callable[[Any], "Tensor"]
#: one pair of hooks, or None: a suspended level (no hooks inside it)
HookPair = Optional[tuple[PackHook, UnpackHook]]


class HooksUsage:
    """How many threads have hooks set now: a mutable box, so an op that saved tensors tests
    one attribute (zero almost always) before it looks up its thread's hooks."""

    __slots__ = ("threads",)

    def __init__(self) -> None:
        self.threads = 0


#: read by ``Context.keep_outputs_weakly``; the object is never replaced
usage = HooksUsage()
_USAGE_LOCK = threading.Lock()


class _PerThread(threading.local):
    def __init__(self) -> None:
        self.stack: list[HookPair] = []  # the open contexts' hooks, innermost last
        self.disabled_message: Optional[str] = None  # set by disable_saved_tensors_hooks


per_thread = _PerThread()


def _count_thread(change: int) -> None:
    with _USAGE_LOCK:
        usage.threads += change


def push(hooks: HookPair) -> None:
    """Make ``hooks`` this thread's innermost pair (None: no hooks until :func:`pop`)."""
    state = per_thread
    if hooks is not None and state.disabled_message is not None:
        raise RuntimeError(state.disabled_message)
    if not state.stack:
        _count_thread(1)
    state.stack.append(hooks)


def pop() -> None:
    """Drop this thread's innermost pair."""
    stack = per_thread.stack
    stack.pop()
    if not stack:
        _count_thread(-1)


@contextmanager
def installed(hooks: HookPair) -> Iterator[None]:
    """``hooks`` this thread's innermost pair inside the block (``autograd.graph.saved_tensors_hooks``
    in function form, for modules below ``autograd.graph``)."""
    push(hooks)
    try:
        yield
    finally:
        pop()


@contextmanager
def suspended() -> Iterator[None]:
    """No hooks in this thread inside the block (an op's internal graph, which PyTorch's one
    op does not have, saves its tensors as they are)."""
    if not per_thread.stack:
        yield
        return
    push(None)
    try:
        yield
    finally:
        pop()


def current() -> HookPair:
    """This thread's innermost pair of hooks, or None."""
    stack = per_thread.stack
    return stack[-1] if stack else None


def disabled_message() -> Optional[str]:
    """The error message hooks are disabled with in this thread, or None."""
    return per_thread.disabled_message


def set_disabled_message(message: Optional[str]) -> None:
    """Disable hooks in this thread with ``message`` as the error, or enable them (None).
    Disabling while this thread has hooks set is that error (the message stays set)."""
    state = per_thread
    state.disabled_message = message
    if message is not None and any(hooks is not None for hooks in state.stack):
        raise RuntimeError(message)


class PackedSaved:
    """A saved tensor as ``pack_hook`` left it, with what is needed to rebuild the tensor
    backward reads: its shape, dtype and device, and its place in the graph (the node it is an
    output of, weakly when it is the saving op's own output, or its leaf's accumulator)."""

    __slots__ = ("packed", "unpack_hook", "shape", "dtype", "device", "requires_grad", "grad_fn", "node",
                 "output_nr", "accumulator")

    def __init__(self, tensor: "Tensor", hooks: tuple[PackHook, UnpackHook], own_node: Optional["Node"]) -> None:
        pack_hook, self.unpack_hook = hooks
        self.shape, self.dtype, self.device = tensor._data.shape, tensor.dtype, tensor._device
        self.requires_grad, self.output_nr = tensor._requires_grad, tensor._output_nr
        self.grad_fn: Optional["Node"] = None
        self.node: Optional[weakref.ref] = None
        self.accumulator: Optional["Node"] = None
        if own_node is not None:  # no cycle output -> node -> ctx -> this -> node
            self.node = weakref.ref(own_node)
        elif tensor.grad_fn is not None:
            self.grad_fn = tensor.grad_fn
        elif tensor._requires_grad:
            self.accumulator = tensor._grad_node()
        version = tensor._version
        mode = grad_per_thread.grad_mode
        previous, mode.enabled = mode.enabled, False
        try:
            self.packed = pack_hook(tensor)
        finally:
            mode.enabled = previous
        if tensor._version != version:
            raise RuntimeError(
                "A saved tensor pack hook is modifying its input in place. Tensors provided as input to pack hook "
                "cannot be modified by in-place operations as this can lead to unexpected side-effects. Please open "
                "an issue if you need to perform in-place operations on the input to a pack hook."
            )

    def unpack(self) -> "Tensor":
        """``unpack_hook``'s tensor, as a new tensor in the saved one's place in the graph."""
        tensor = tensor_class()
        value = self.unpack_hook(self.packed)
        if not isinstance(value, tensor):
            raise TypeError("Output of saved tensor unpack_hook expected to be a Tensor but got result of type "
                            f"{type(value).__name__}")
        if value._data.shape != self.shape or value._device != self.device:
            raise RuntimeError(
                f"unpack_hook returned a tensor of shape {list(value._data.shape)} on {value._device} for a tensor "
                f"of shape {list(self.shape)} on {self.device} saved for backward: it must return what pack_hook "
                "was given (same values, shape and device)"
            )
        if value.dtype is not self.dtype:  # backward computes in the saved dtype (PyTorch casts its results back)
            value = value.to(self.dtype)
        unpacked = tensor._make(value._data, value._device)
        unpacked._version_counter = value._version_counter
        node = self.grad_fn if self.node is None else self.node()
        if node is not None:
            unpacked.grad_fn, unpacked._requires_grad, unpacked._output_nr = node, True, self.output_nr
        elif self.requires_grad:
            unpacked._requires_grad = True
            unpacked._accumulate_node = self.accumulator
        return unpacked


def pack_saved(saved: tuple, hooks: tuple[PackHook, UnpackHook], outputs: tuple, node: "Node") -> tuple:
    """``saved`` (what ``ctx.save_for_backward`` got) with each tensor packed by ``hooks``;
    ``outputs`` are the recorded op's results, ``node`` their ``grad_fn``.

    A 0-d tensor that stands for a Python number (``x * 2``: made from the number; ``x ** 2``,
    ``clamp(x, 0, 1)``: an argument of the Function's ``number_args`` that ``next_functions``
    leaves out) stays as it is: PyTorch never gives such a wrapped number to ``pack_hook``.
    """
    tensor = tensor_class()
    function = node.function
    has_numbers = function is not None and bool(function.number_args) and node.arg_positions is not None
    packed = []
    for value in saved:
        if isinstance(value, tensor) and not value._wrapped_number and not (
                has_numbers and not value._requires_grad and not value._data.shape):
            own = any(value is output for output in outputs)
            value = PackedSaved(value, hooks, node if own else None)
        packed.append(value)
    return tuple(packed)

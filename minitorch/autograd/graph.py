r"""``minitorch.autograd.graph``: looking at and hooking into the graph backward walks.

* :class:`saved_tensors_hooks`: pack what ops save for backward (to the CPU, to NumPy, to
  disk) and unpack it when backward reads it; :class:`save_on_cpu` is the ready-made pair
  that moves saved tensors to the CPU and back, and :func:`disable_saved_tensors_hooks` turns
  the feature off with an error message of the caller's choosing. The saving side lives in
  :mod:`~minitorch.autograd.saved_hooks`.
* :func:`register_multi_grad_hook`: one hook on the gradients of several tensors, called once
  per backward pass when all of them (``mode="all"``) or the first (``mode="any"``) arrived.
* :class:`Node`: the abstract base that every ``grad_fn`` (and leaf accumulator) is an instance of.
* :func:`get_gradient_edge` / :class:`GradientEdge`: where a tensor's gradient is computed,
  usable as ``inputs`` of :func:`minitorch.autograd.grad`.
* :func:`increment_version`: tell autograd that a tensor was changed in place behind its back.
"""

from __future__ import annotations

import abc
import functools
import threading
import weakref
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Literal, NamedTuple, Optional, Sequence, Union

from .. import accelerator
from ..dispatch import tensor_class
from ..utils.hooks import RemovableHandle
from . import engine, function, saved_hooks
from .saved_hooks import PackHook, UnpackHook

if TYPE_CHECKING:
    from ..tensor import Tensor

__all__ = ["GradientEdge", "Node", "disable_saved_tensors_hooks", "get_gradient_edge", "increment_version",
           "register_multi_grad_hook", "save_on_cpu", "saved_tensors_hooks"]

MULTI_GRAD_HOOK_MODES = ("all", "any")


class Node(abc.ABC):
    """A node of the autograd graph: ``isinstance(t.grad_fn, Node)`` holds for every ``grad_fn``.

    Abstract, as in PyTorch: minitorch's own node class (:class:`minitorch.autograd.function.Node`)
    is registered as a virtual subclass, so its subclasses (one per ``grad_fn`` name, the leaf
    accumulator) count as nodes without inheriting from this class.
    """

    @abc.abstractmethod
    def name(self) -> str:
        """The node's name, e.g. ``MulBackward0``."""

    @property
    @abc.abstractmethod
    def next_functions(self) -> tuple[tuple[Optional["Node"], int], ...]:
        """``(node, output_nr)`` per input the gradient flows to."""

    @property
    @abc.abstractmethod
    def metadata(self) -> dict:
        """A dict for anything to keep with the node."""

    @abc.abstractmethod
    def register_hook(self, fn: Callable[..., Any]) -> RemovableHandle:
        """``fn(grad_inputs, grad_outputs)`` after the node ran."""

    @abc.abstractmethod
    def register_prehook(self, fn: Callable[..., Any]) -> RemovableHandle:
        """``fn(grad_outputs)`` before the node runs."""


Node.register(function.Node)


class GradientEdge(NamedTuple):
    """Where a tensor's gradient is computed: a node and which of its outputs the tensor is."""

    node: Any
    output_nr: int
    #: PyTorch's token that keeps the graph alive; minitorch's node does that itself
    ownership_token: Any = None


def get_gradient_edge(tensor: "Tensor") -> GradientEdge:
    """The edge of ``tensor``'s gradient: ``autograd.grad(loss, get_gradient_edge(x))`` is
    ``autograd.grad(loss, x)``, and keeps working after ``x`` itself is gone."""
    if not tensor.requires_grad:
        raise RuntimeError("It is not possible to get the gradient edge for a Tensor that does not require gradients")
    return GradientEdge(tensor._grad_node(), tensor.output_nr)


def increment_version(tensor: Union["Tensor", Iterable["Tensor"]]) -> None:
    """Bump the version counter of ``tensor`` (or of each tensor of an iterable), as an in-place
    change autograd did not see would: a saved copy of it then fails backward's check."""
    tensor_type = tensor_class()
    tensors = (tensor,) if isinstance(tensor, tensor_type) else tensor
    if not isinstance(tensors, Iterable):
        raise RuntimeError("increment_version expect a Iterable[Tensor] as input")
    tensors = list(tensors)
    for item in tensors:
        if not isinstance(item, tensor_type):
            raise RuntimeError("increment_version expect a Iterable[Tensor] as input")
    for item in tensors:
        item._bump_version()


class saved_tensors_hooks:  # noqa: N801 - PyTorch's name
    """While active in this thread, each tensor a recorded op saves for backward is given to
    ``pack_hook`` and the graph keeps what it returns; backward hands that to ``unpack_hook``,
    which must give back a tensor with the original's values, shape and device.

    Nested blocks: the innermost pair applies. A subclass may pass its own pair to
    ``__init__`` (as :class:`save_on_cpu` does).
    """

    def __init__(self, pack_hook: PackHook, unpack_hook: UnpackHook) -> None:
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self) -> None:
        saved_hooks.push((self.pack_hook, self.unpack_hook))

    def __exit__(self, *exc: object) -> None:
        saved_hooks.pop()


class save_on_cpu(saved_tensors_hooks):  # noqa: N801 - PyTorch's name
    """Saved tensors wait for backward on the CPU and go back to their device when read: trades
    the time of two copies for accelerator memory. A CPU tensor is kept as it is (no copy)
    unless ``pin_memory``, which copies into page-locked memory when an accelerator is present
    and into ordinary memory otherwise, as PyTorch does. ``device_type`` is taken for PyTorch's
    signature: minitorch's one accelerator is CUDA, whatever it names."""

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda") -> None:
        def pack_to_cpu(tensor: "Tensor") -> tuple[Any, "Tensor"]:
            if not pin_memory:
                return tensor.device, tensor.cpu()
            on_cpu = tensor.cpu()
            return tensor.device, (on_cpu.pin_memory() if accelerator.is_available() else on_cpu.clone())

        def unpack_from_cpu(packed: tuple[Any, "Tensor"]) -> "Tensor":
            device, tensor = packed
            return tensor.to(device, non_blocking=pin_memory)

        super().__init__(pack_to_cpu, unpack_from_cpu)


@contextmanager
def disable_saved_tensors_hooks(error_message: str) -> Iterator[None]:
    """Inside the block, setting saved-tensor hooks raises ``RuntimeError(error_message)`` (in
    this thread); so does entering the block while hooks are set."""
    previous = saved_hooks.disabled_message()
    try:
        saved_hooks.set_disabled_message(error_message)
        yield
    finally:
        saved_hooks.set_disabled_message(previous)


class _MultiHandle(RemovableHandle):
    """The handle of :func:`register_multi_grad_hook`: removes the hook from every tensor."""

    def __init__(self, handles: tuple[RemovableHandle, ...]) -> None:  # holds no hooks dict of its own
        self.handles = handles

    def remove(self) -> None:
        for handle in self.handles:
            handle.remove()

    def __getstate__(self) -> tuple[RemovableHandle, ...]:
        return self.handles

    def __setstate__(self, state: tuple[RemovableHandle, ...]) -> None:
        self.handles = state

    def __repr__(self) -> str:
        return f"_MultiHandle(handles={list(self.handles)})"


def _running_pass() -> engine.GraphTask:
    task = engine.current_graph_task()
    if task is None:
        raise AssertionError("expected this hook to be called inside a backward call")
    return task


def _gradient_node(tensor: "Tensor") -> Any:
    if not tensor.requires_grad:
        raise AssertionError("Expected gradient function to be set")
    return tensor._grad_node()


class _PassGradients:
    """What one backward pass has delivered so far to a ``mode="all"`` multi-grad hook."""

    __slots__ = ("expected", "arrived", "grads")

    def __init__(self, expected: int, count: int) -> None:
        self.expected, self.arrived = expected, 0
        self.grads: list[Optional["Tensor"]] = [None] * count


def register_multi_grad_hook(tensors: Sequence["Tensor"], fn: Callable[[Any], None], *,
                             mode: Literal["all", "any"] = "all") -> RemovableHandle:
    """Call ``fn`` once per backward pass with the gradients of ``tensors``.

    ``mode="all"``: once the gradient of every tensor this pass computes has arrived, with the
    list of them (None for a tensor the pass does not reach, or does not need for the tensors
    ``autograd.grad``/``backward(inputs=)`` asked for). ``mode="any"``: with the first gradient
    that arrives. Returns a handle whose ``remove()`` unregisters the hook from every tensor.
    """
    if mode not in MULTI_GRAD_HOOK_MODES:
        raise ValueError(f"Expects mode to be one of {MULTI_GRAD_HOOK_MODES} but got {mode}")
    tensors = tuple(tensors)
    lock = threading.Lock()
    if mode == "all":
        nodes = [_gradient_node(t) for t in tensors]
        passes: "weakref.WeakKeyDictionary[engine.GraphTask, _PassGradients]" = weakref.WeakKeyDictionary()

        def hook_of(index: int) -> Callable[["Tensor"], None]:
            def on_gradient(grad: "Tensor") -> None:
                task = _running_pass()
                with lock:
                    state = passes.get(task)
                    if state is None:
                        expected = sum(1 for node in nodes if task.will_execute(node))
                        state = passes[task] = _PassGradients(expected, len(tensors))
                    state.grads[index] = grad
                    state.arrived += 1
                    complete = state.arrived == state.expected
                    if complete:
                        del passes[task]
                if complete:
                    fn(state.grads)

            return on_gradient

        handles = tuple(t.register_hook(hook_of(i)) for i, t in enumerate(tensors))
    else:
        fired: "weakref.WeakSet[engine.GraphTask]" = weakref.WeakSet()

        @functools.wraps(fn)
        def on_first_gradient(grad: "Tensor") -> None:
            task = _running_pass()
            with lock:
                if task in fired:
                    return
                fired.add(task)
            fn(grad)

        handles = tuple(t.register_hook(on_first_gradient) for t in tensors if t.requires_grad)
    return _MultiHandle(handles)

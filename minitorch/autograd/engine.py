"""Backpropagation over the graph of :class:`~minitorch.autograd.function.Node` objects.

1. Order the nodes so each comes after every node that sends it a gradient
   (a depth-first topological sort from the outputs).
2. Walk that order once: pop the gradient summed so far for a node, run its hooks, call
   its backward, sum each input's gradient back to the input's shape (undoing
   broadcasting), cast it to the input's dtype (as PyTorch's engine does: a 16-bit input gets a
   16-bit gradient), and add it to what that input's node has collected.
3. Leaves (:class:`AccumulateGrad`) add their gradient into ``tensor.grad``.

In anomaly mode (:mod:`~minitorch.autograd.anomaly_mode`) an error in a node's backward is
reported with the forward call that made the node, and a NaN gradient is an error.
"""

from __future__ import annotations

import itertools
import threading
from typing import TYPE_CHECKING, Any, Optional, Sequence

from . import anomaly_mode, profiling
from .anomaly_mode import anomaly
from .function import AccumulateGrad, Node, sole_reference
from .grad_mode import set_grad_enabled

if TYPE_CHECKING:
    from ..tensor import Tensor

#: the dtypes of a node's inputs where it keeps none: no cast (a gradient passes as it comes)
_ANY_DTYPES = itertools.repeat(None)


def topological_order(roots: Sequence[Node]) -> list[Node]:
    """Nodes reachable from ``roots``, each before all the nodes it sends gradients to."""
    # BEGIN SOLUTION 2.5
    order: list[Node] = []
    visited: set[int] = set()
    for root in roots:
        if id(root) in visited:
            continue
        visited.add(id(root))
        # iterative post-order DFS: deep graphs (long RNN-like chains) must not hit the recursion limit
        stack: list[tuple[Node, int]] = [(root, 0)]
        while stack:
            node, child = stack.pop()
            if child < len(node.next_functions):
                stack.append((node, child + 1))
                next_node = node.next_functions[child][0]
                if next_node is not None and id(next_node) not in visited:
                    visited.add(id(next_node))
                    stack.append((next_node, 0))
            else:
                order.append(node)
    order.reverse()
    return order
    # END SOLUTION


def sum_to_shape(grad: "Tensor", shape: tuple[int, ...]) -> "Tensor":
    """Sum a broadcast gradient back to ``shape`` (the input's shape before broadcasting)."""
    # BEGIN SOLUTION 2.5
    if grad.shape == shape:
        return grad
    extra = grad.dim() - len(shape)
    dims = tuple(range(extra)) + tuple(
        extra + d for d, size in enumerate(shape) if size == 1 and grad.shape[extra + d] != 1
    )
    return grad.sum(dim=dims, keepdim=True).reshape(shape) if dims else grad.reshape(shape)
    # END SOLUTION


def leaves_first(order: list[Node]) -> list[Node]:
    """``order`` with each leaf's :class:`AccumulateGrad` moved up to just after the last node
    that sends it a gradient (still a topological order: a leaf sends nothing on).

    A depth-first order can leave the last layer's weights for the very end of backward.
    PyTorch's engine accumulates a leaf as soon as its gradient is complete, and so do we:
    a leaf's hooks (DistributedDataParallel's all-reduce) then run while backward goes on.
    """
    last_sender: dict[int, int] = {}
    for position, node in enumerate(order):
        for next_node, _ in node.next_functions:
            if isinstance(next_node, AccumulateGrad):
                last_sender[id(next_node)] = position
    if not last_sender:
        return order
    due: dict[int, list[Node]] = {}
    for node in order:
        if id(node) in last_sender:
            due.setdefault(last_sender[id(node)], []).append(node)
    reordered: list[Node] = []
    for position, node in enumerate(order):
        if id(node) not in last_sender:
            reordered.append(node)
            reordered.extend(due.get(position, ()))
    return reordered


def _run_tensor_hooks(node: Node, grad: "Tensor") -> "Tensor":
    if node.tensor_pre_hooks:
        for hook in list(node.tensor_pre_hooks.values()):
            result = hook(grad)
            if result is not None:
                grad = result
    if node.retains_grad_hook is not None:
        node.retains_grad_hook(grad)
    return grad


def leaves_reached(roots: Sequence[Node]) -> list["Tensor"]:
    """The leaf tensors whose gradient nodes (:class:`AccumulateGrad`) the graph from ``roots``
    reaches, each once, in the order a depth-first walk meets them: the parameters a result was
    computed from."""
    leaves: dict[int, "Tensor"] = {}
    seen: set[int] = set()
    stack = list(roots)
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, AccumulateGrad):
            leaves.setdefault(id(node.variable), node.variable)
            continue
        stack.extend(next_node for next_node, _ in node.next_functions if next_node is not None)
    return list(leaves.values())


def leading_to(order: list[Node], targets: set[int]) -> set[int]:
    """The ids of the nodes of ``order`` (a topological order) from which a gradient reaches one
    of the nodes ``targets`` (ids), those included: all that a pass capturing them must run."""
    leading: set[int] = set()
    for node in reversed(order):
        if id(node) in targets or any(next_node is not None and id(next_node) in leading
                                      for next_node, _ in node.next_functions):
            leading.add(id(node))
    return leading


class GraphTask:
    """One backward pass running now (PyTorch's graph task): whether it captures the gradients
    of some tensors instead of accumulating them, and the nodes it runs, in order."""

    __slots__ = ("captures", "order", "_runs", "__weakref__")

    def __init__(self, captures: bool) -> None:
        self.captures = captures
        self.order: list[Node] = []
        self._runs: Optional[set[int]] = None

    def will_execute(self, node: Node) -> bool:
        """Whether this pass runs ``node`` (it is reached, and leads to a captured tensor when
        the pass captures): what ``register_multi_grad_hook`` asks."""
        if self._runs is None:
            self._runs = {id(n) for n in self.order}
        return id(node) in self._runs


#: per thread, the backward passes running now (the innermost last)
_passes = threading.local()


def current_graph_task() -> Optional[GraphTask]:
    """The innermost backward pass running on this thread, or None outside backward."""
    running = getattr(_passes, "tasks", None)
    return running[-1] if running else None


def innermost_pass_captures() -> bool:
    """Whether the innermost backward pass running on this thread returns the gradients of some
    tensors instead of accumulating them (``autograd.grad``, ``backward(inputs=...)``); False
    outside backward. What a reentrant checkpoint asks before it runs a backward of its own."""
    task = current_graph_task()
    return task is not None and task.captures


def run_backward(
    outputs: Sequence["Tensor"],
    grad_outputs: Sequence["Tensor"],
    retain_graph: bool,
    create_graph: bool,
    capture: Optional[Sequence[Any]] = None,
) -> Optional[list[Optional["Tensor"]]]:
    """Backpropagate ``grad_outputs`` from ``outputs``.

    Without ``capture`` the gradients accumulate into the leaves' ``.grad``. With it (the
    path of :func:`minitorch.autograd.grad`) no ``.grad`` is touched, only the nodes that lead
    to a captured tensor run (as in PyTorch: other tensors' hooks do not fire), and the
    gradients reaching the captured tensors are returned instead. A captured entry may also
    be a gradient edge ``(node, output_nr)`` (``autograd.graph.get_gradient_edge``).
    A seed of another dtype than its output's is cast to it first, as PyTorch's engine does.
    """
    grad_outputs = [seed if seed._data.dtype is out._data.dtype or not out._data.dtype.is_floating_point
                    else seed.to(out._data.dtype) for out, seed in zip(outputs, grad_outputs)]
    running = getattr(_passes, "tasks", None)
    if running is None:
        running = _passes.tasks = []
    task = GraphTask(capture is not None)
    running.append(task)
    try:
        return _backpropagate(outputs, grad_outputs, retain_graph, create_graph, capture, task)
    finally:
        running.pop()


def _backpropagate(
    outputs: Sequence["Tensor"],
    grad_outputs: Sequence["Tensor"],
    retain_graph: bool,
    create_graph: bool,
    capture: Optional[Sequence[Any]],
    task: GraphTask,
) -> Optional[list[Optional["Tensor"]]]:
    """:func:`run_backward`'s pass itself."""
    roots = [t._grad_node() for t in outputs]
    captured: dict[int, int] = {}
    results: list[Optional["Tensor"]] = []
    if capture is not None:
        for slot, tensor in enumerate(capture):
            if isinstance(tensor, tuple):  # a gradient edge: (node, output_nr, ...)
                target = tensor[0]
            elif not tensor.requires_grad:
                raise RuntimeError("One of the differentiated Tensors does not require grad")
            else:
                target = tensor._grad_node()
            if target.num_outputs != 1:
                raise NotImplementedError("autograd.grad with respect to one output of an op with several "
                                          "outputs (svd, eigh, qr) is not supported; take it with respect to "
                                          "the op's input instead")
            captured[id(target)] = slot
        results = [None] * len(capture)

    pending: dict[int, Any] = {}
    for root, output, grad in zip(roots, outputs, grad_outputs):
        if root.num_outputs == 1:
            pending[id(root)] = pending[id(root)] + grad if id(root) in pending else grad
        else:  # one output of several: its gradient goes into that output's slot
            slots = pending.setdefault(id(root), [None] * root.num_outputs)
            slot = output._output_nr
            slots[slot] = grad if slots[slot] is None else slots[slot] + grad

    anomalous = anomaly.enabled  # read once a pass: one test of a local per node
    checks_nan = anomalous and anomaly.check_nan
    outer_node = anomaly_mode.running_node() if anomalous else None
    node: Optional[Node] = None
    order = leaves_first(topological_order(roots))
    leading: set[int] = set()
    if captured:  # only what leads to a captured tensor runs
        leading = leading_to(order, set(captured))
        order = [n for n in order if id(n) in leading]
    task.order = order
    try:
        with set_grad_enabled(create_graph):
            for node in order:
                grad = pending.pop(id(node), None)
                if grad is None:
                    continue
                if anomalous:  # the parent of the nodes this one's backward makes
                    anomaly_mode.set_running_node(node)
                if node.num_outputs == 1:
                    if node.tensor_pre_hooks or node.retains_grad_hook is not None:
                        grad = _run_tensor_hooks(node, grad)
                    if captured and id(node) in captured:
                        slot = captured[id(node)]
                        results[slot] = grad if results[slot] is None else results[slot] + grad
                        if not any(next_node is not None and id(next_node) in leading
                                   for next_node, _ in node.next_functions):
                            continue  # nothing captured lies beyond it
                    if isinstance(node, AccumulateGrad):
                        if capture is None:
                            # the engine's own gradient (nothing else holds it) may become .grad itself
                            owned = sole_reference(grad)
                            if profiling.active is None:
                                node.accumulate(grad, owned)
                            else:
                                profiling.active.backward("torch::autograd::AccumulateGrad",
                                                          lambda: node.accumulate(grad, owned))
                        continue
                    grad_outputs_tuple: tuple = (grad,)
                else:
                    grad_outputs_tuple = tuple(grad)  # one (possibly None) gradient per output slot
                if node.pre_hooks:
                    for hook in list(node.pre_hooks.values()):
                        replaced = hook(grad_outputs_tuple)
                        if replaced is not None:
                            grad_outputs_tuple = tuple(replaced)
                if profiling.active is None:
                    input_grads = node.apply_grads(grad_outputs_tuple)
                else:  # a profile is being taken: the node's backward becomes an event
                    input_grads = profiling.active.backward(node.name(),
                                                            lambda: node.apply_grads(grad_outputs_tuple))
                if node.post_hooks:
                    for hook in list(node.post_hooks.values()):
                        replaced = hook(input_grads, grad_outputs_tuple)
                        if replaced is not None:
                            input_grads = tuple(replaced)
                if checks_nan:
                    anomaly_mode.check_nan(node, input_grads)
                if not retain_graph:
                    node.release()
                for (next_node, output_nr), shape, dtype, input_grad in zip(
                        node.next_functions, node.input_shapes, node.input_dtypes or _ANY_DTYPES, input_grads):
                    if next_node is None or input_grad is None:
                        continue
                    assert shape is not None
                    if input_grad._data.shape != shape:
                        input_grad = sum_to_shape(input_grad, shape)
                    if dtype is not None and input_grad._data.dtype is not dtype:
                        input_grad = input_grad.to(dtype)  # each input's gradient in its dtype, as PyTorch's engine
                    key = id(next_node)
                    if next_node.num_outputs == 1:
                        pending[key] = pending[key] + input_grad if key in pending else input_grad
                    else:
                        slots = pending.setdefault(key, [None] * next_node.num_outputs)
                        slots[output_nr] = input_grad if slots[output_nr] is None else slots[output_nr] + input_grad
                # only `pending` holds gradients between nodes (see sole_reference above)
                grad = grad_outputs_tuple = input_grads = input_grad = None
    except Exception:
        if anomaly.enabled and node is not None:
            anomaly_mode.report_error(node)
        raise
    finally:
        if anomalous:
            anomaly_mode.set_running_node(outer_node)
    return results if capture is not None else None

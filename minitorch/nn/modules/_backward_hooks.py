r"""Module backward hooks: identity nodes wrapped around a module's inputs and outputs.

A full backward hook needs, once per backward, the gradients with respect to *all* the
module's outputs (``grad_output``) and *all* its inputs (``grad_input``). Calling the module
with backward hooks registered therefore routes its tensors through two identity nodes:

.. code-block:: text

    inputs ──▶ [input group] ──▶ forward(...) ──▶ [output group] ──▶ outputs

Each group is one graph node that receives one gradient per wrapped tensor (a multi-output
node: the engine collects its gradients slot by slot before running it). The output group
runs first in backward: it records ``grad_output`` and calls the backward *pre* hooks, which
may replace it. The input group runs when the gradients reach the inputs: it calls the
backward hooks with ``(module, grad_input, grad_output)``; a returned tuple replaces
``grad_input``. The layers themselves know nothing about hooks.
"""

from __future__ import annotations

import functools
import warnings
from typing import Any, Callable, Optional, Sequence

from ...autograd import is_grad_enabled
from ...autograd.function import Node
from ...creation import zeros_like
from ...tensor import Tensor

HOOK_NODE_NAME = "BackwardHookFunctionBackward"

Grads = tuple[Optional[Tensor], ...]


class _GroupNode(Node):
    """An identity node over several tensors: gradient slot ``i`` goes back to tensor ``i``."""

    def __init__(self, tensors: Sequence[Tensor]) -> None:
        super().__init__(None, None, tuple((t._grad_node(), t._output_nr) for t in tensors), tuple(t.shape for t in tensors))
        self.num_outputs = len(tensors)

    def name(self) -> str:
        return HOOK_NODE_NAME

    def apply_grads(self, grad_outputs: Grads) -> Grads:
        return tuple(grad_outputs)


class _SlotNode(Node):
    """The ``grad_fn`` of one wrapped tensor: hands its gradient to slot ``index`` of a group."""

    def __init__(self, group: _GroupNode, index: int, shape: tuple[int, ...]) -> None:
        super().__init__(None, None, ((group, index),), (shape,))

    def name(self) -> str:
        return HOOK_NODE_NAME

    def apply(self, grad: Tensor) -> Grads:
        return (grad,)


def _pack_with_none(indices: Sequence[int], values: Sequence[Any], size: int) -> tuple:
    """A tuple of ``size`` Nones with ``values`` placed at ``indices``."""
    packed: list[Any] = [None] * size
    for index, value in zip(indices, values):
        packed[index] = value
    return tuple(packed)


class BackwardHook:
    """Sets up the identity nodes for one call of a module and runs its backward hooks."""

    def __init__(self, module: Any, user_hooks: list[Callable], user_pre_hooks: list[Callable]) -> None:
        self.module = module
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.grad_outputs: Optional[tuple] = None
        self.n_inputs = -1
        self.input_tensors_index: Optional[list[int]] = None
        self.n_outputs = -1
        self.output_tensors_index: Optional[list[int]] = None
        self._inputs_without_grad: dict[int, Tensor] = {}

    def _wrap(self, values: tuple) -> tuple[tuple, Optional[list[int]], Optional[_GroupNode], list[int]]:
        """Route the tensors of ``values`` that require grad through one group node.

        Returns the new values, the positions of all tensors, the group (None when no
        gradient will flow) and, per group slot, the index into the tensor positions.
        """
        tensor_index = [i for i, v in enumerate(values) if isinstance(v, Tensor)]
        differentiable = [k for k, i in enumerate(tensor_index) if values[i].requires_grad]
        if not (differentiable and is_grad_enabled()):
            return values, None, None, []
        group = _GroupNode([values[tensor_index[k]] for k in differentiable])
        wrapped = list(values)
        for slot, k in enumerate(differentiable):
            original = values[tensor_index[k]]
            through = original.detach()
            through._set_grad_fn(_SlotNode(group, slot, original.shape))
            wrapped[tensor_index[k]] = through
        return (tuple(wrapped) if type(values) is tuple else type(values)(*wrapped)), tensor_index, group, differentiable

    def setup_input_hook(self, args: tuple) -> tuple:
        """Wrap the positional inputs; the input group's hook calls the backward hooks."""
        new_args, tensor_index, group, slots = self._wrap(args)
        self.n_inputs = len(args)
        self.input_tensors_index = tensor_index
        if group is not None:
            assert tensor_index is not None
            # as in PyTorch, an input tensor that needs no gradient shows up as zeros in grad_input
            self._inputs_without_grad = {k: args[i].detach() for k, i in enumerate(tensor_index) if k not in slots}
            group.register_hook(functools.partial(self._on_grad_input, tensor_index, slots))
        return new_args

    def setup_output_hook(self, result: Any) -> Any:
        """Wrap the output (a tensor or a tuple); the output group's hook records ``grad_output``."""
        is_tuple = isinstance(result, tuple)
        outputs = result if is_tuple else (result,)
        new_outputs, tensor_index, group, slots = self._wrap(outputs)
        self.n_outputs = len(outputs)
        self.output_tensors_index = tensor_index
        if group is not None:
            assert tensor_index is not None
            group.register_hook(functools.partial(self._on_grad_output, tensor_index, slots))
        return new_outputs if is_tuple else new_outputs[0]

    def _on_grad_input(self, tensor_index: list[int], slots: list[int], grad_inputs: Grads, _: Grads) -> Optional[Grads]:
        """The input group ran: call ``hook(module, grad_input, grad_output)``; may replace grad_input."""
        if self.grad_outputs is None:
            # the gradient reached the inputs without passing through the outputs
            return None
        # BEGIN SOLUTION 7.2
        per_tensor: list[Optional[Tensor]] = [None] * len(tensor_index)
        for slot, k in enumerate(slots):
            per_tensor[k] = grad_inputs[slot]
        for k, tensor in self._inputs_without_grad.items():
            per_tensor[k] = zeros_like(tensor)
        result = _pack_with_none(tensor_index, per_tensor, self.n_inputs)
        for hook in self.user_hooks:
            out = hook(self.module, result, self.grad_outputs)
            if out is None:
                continue
            if len(out) != len(result):
                raise RuntimeError(
                    f"Backward hook returned an invalid number of grad_input, got {len(out)}, but expected {len(result)}"
                )
            result = tuple(out)
        self.grad_outputs = None
        return tuple(result[tensor_index[k]] for k in slots)
        # END SOLUTION

    def _on_grad_output(self, tensor_index: list[int], slots: list[int], _: Grads, grad_outputs: Grads) -> Grads:
        """The output group ran: record grad_output and call the backward pre hooks (may replace it)."""
        # BEGIN SOLUTION 7.2
        per_tensor: list[Optional[Tensor]] = [None] * len(tensor_index)
        for slot, k in enumerate(slots):
            per_tensor[k] = grad_outputs[slot]
        self.grad_outputs = _pack_with_none(tensor_index, per_tensor, self.n_outputs)
        for pre_hook in self.user_pre_hooks:
            replaced = pre_hook(self.module, self.grad_outputs)
            if replaced is None:
                continue
            if len(replaced) != len(self.grad_outputs):
                raise RuntimeError(
                    "Backward pre hook returned an invalid number of grad_output, "
                    f"got {len(replaced)}, but expected {len(self.grad_outputs)}"
                )
            self.grad_outputs = tuple(replaced)
        local_grad_outputs = self.grad_outputs
        if self.input_tensors_index is None:
            self._call_hooks_without_input_grads()
        return tuple(local_grad_outputs[tensor_index[k]] for k in slots)
        # END SOLUTION

    def _call_hooks_without_input_grads(self) -> None:
        """No input requires grad: the hooks fire at the outputs with ``grad_input`` all None."""
        if self.user_hooks:
            warnings.warn(
                "Full backward hook is firing when gradients are computed with respect to module outputs "
                "since no inputs require gradients.",
                stacklevel=2,
            )
        grad_inputs = (None,) * self.n_inputs
        for hook in self.user_hooks:
            out = hook(self.module, grad_inputs, self.grad_outputs)
            if out is not None and not (isinstance(out, tuple) and all(g is None for g in out)):
                raise RuntimeError(
                    "Backward hook for Modules where no input requires gradient should always return None "
                    "or None for all gradients."
                )
        self.grad_outputs = None

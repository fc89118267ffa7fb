"""Autograd: the graph of Functions, backpropagation and grad modes."""

from __future__ import annotations

import warnings
from typing import Optional, Sequence, Union

from . import custom_function  # noqa: F401 - makes every user's Function follow PyTorch's protocol
from .anomaly_mode import detect_anomaly, set_detect_anomaly
from .function import Context, Function
from .grad_mode import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled
from .variable import Variable


def grad(outputs: Union["Tensor", Sequence["Tensor"]], inputs: Union["Tensor", Sequence["Tensor"]],  # noqa: F821
         grad_outputs: Optional[Sequence["Tensor"]] = None, retain_graph: Optional[bool] = None,  # noqa: F821
         create_graph: bool = False, only_inputs: bool = True, allow_unused: Optional[bool] = None,
         is_grads_batched: bool = False, materialize_grads: bool = False) -> tuple:
    """Gradients of ``outputs`` with respect to ``inputs``, returned instead of accumulated in ``.grad``.

    ``only_inputs`` is PyTorch's deprecated flag (ignored there too); ``materialize_grads`` gives
    zeros for inputs the outputs do not depend on.
    """
    from ..tensor import Tensor
    from . import engine
    from .graph import GradientEdge

    if not only_inputs:
        warnings.warn("only_inputs argument is deprecated and is ignored now (defaults to True). To accumulate "
                      "gradient for other parts of the graph, please use torch.autograd.backward.", stacklevel=2)
    if is_grads_batched:
        raise NotImplementedError("grad(is_grads_batched=True) is not supported: call grad once per batch entry")
    if allow_unused is False and materialize_grads:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads=True, "
                         "but got: allow_unused=False.")
    allow_unused = bool(allow_unused) or materialize_grads

    outs = [outputs] if isinstance(outputs, Tensor) else list(outputs)
    keys = list(inputs.keys()) if isinstance(inputs, dict) else None  # PyTorch answers a dict with a dict
    if keys is not None:
        inputs = list(inputs.values())
    ins = [inputs] if isinstance(inputs, (Tensor, GradientEdge)) else list(inputs)
    if not ins:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    if grad_outputs is None:
        grad_outputs = [None] * len(outs)
    elif isinstance(grad_outputs, Tensor):
        grad_outputs = [grad_outputs]
    seeds = []
    for index, (out, g) in enumerate(zip(outs, grad_outputs)):
        if not out.requires_grad:
            raise RuntimeError(f"element {index} of tensors does not require grad and does not have a grad_fn")
        if g is None:
            if out.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            from ..creation import ones_like

            g = ones_like(out)
        seeds.append(g)
    retain = create_graph if retain_graph is None else retain_graph
    results = engine.run_backward(outs, seeds, retain, create_graph, capture=ins)
    assert results is not None
    if materialize_grads:
        from ..creation import zeros_like

        if any(value is None and not isinstance(x, Tensor) for value, x in zip(results, ins)):
            raise RuntimeError("materialize_grads cannot be used when the given input is a GradientEdge")
        results = [zeros_like(x, requires_grad=create_graph) if value is None else value
                   for value, x in zip(results, ins)]
    for position, (value, x) in enumerate(zip(results, ins)):
        if value is not None and isinstance(x, Tensor) and value.dtype is not x.dtype and x.dtype.is_floating_point:
            results[position] = value.to(x.dtype)  # a custom backward's dtype, cast as PyTorch's engine does
        if value is None and not allow_unused:
            raise RuntimeError(
                f"The differentiated Tensor at index {position} appears to not have been used in the graph. "
                "Set allow_unused=True if this is the desired behavior."
            )
    if keys is not None:
        return dict(zip(keys, results))
    return tuple(results)


__all__ = ["Context", "Function", "Variable", "detect_anomaly", "enable_grad", "grad", "inference_mode",
           "is_grad_enabled", "no_grad", "set_detect_anomaly", "set_grad_enabled"]

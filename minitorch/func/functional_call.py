"""Calling a module with other tensors in place of its parameters and buffers.

``functional_call(model, {"weight": w}, x)`` runs ``model(x)`` as if ``model.weight`` were ``w``
and puts the module back as it was afterwards, even when the call raises. It is how a module
becomes a function of its parameters, which :func:`~minitorch.func.grad` and
:func:`~minitorch.func.vmap` need: ``grad(lambda p: loss(functional_call(model, p, x)))(params)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Optional, Union

from ..creation import stack
from ..nn.modules.module import Module
from ..nn.modules.normalization import _BatchNorm
from ..nn.utils.stateless import call_reparametrized
from ..tensor import Tensor


def _merged(dicts: Union[dict[str, Tensor], Sequence[dict[str, Tensor]]]) -> dict[str, Tensor]:
    if isinstance(dicts, dict):
        return dicts
    if not isinstance(dicts, Sequence):  # as PyTorch: any sequence (a str is one, of non-dicts)
        raise ValueError(f"Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, "
                         f"but got {type(dicts)}")
    if not all(isinstance(one, dict) for one in dicts):
        raise ValueError("Expected all elements of parameter_and_buffer_dicts to be dictionaries")
    seen: dict[str, int] = {}
    for one in dicts:
        for key in one:
            seen[key] = seen.get(key, 0) + 1
    repeated = [key for key, count in seen.items() if count > 1]
    if repeated:
        raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of functional call is ambiguous")
    return {key: value for one in dicts for key, value in one.items()}


def functional_call(module: Module, parameter_and_buffer_dicts: Union[dict[str, Tensor], Sequence[dict[str, Tensor]]],
                    args: Any = None, kwargs: Optional[dict[str, Any]] = None, *, tie_weights: bool = True,
                    strict: bool = False) -> Any:
    """``module(*args, **kwargs)`` with the named parameters and buffers replaced by the given tensors.

    ``parameter_and_buffer_dicts`` is one dict or a sequence of dicts with distinct keys, named as
    in ``state_dict`` (``"layer1.weight"``); names it leaves out keep the module's own tensors.
    ``args`` that is not a tuple is the one positional argument. With ``tie_weights`` a value
    given for one of two tied names is used for both; with ``strict`` the keys must be exactly
    the module's.
    """
    return call_reparametrized(module, _merged(parameter_and_buffer_dicts), args, kwargs, tie_weights=tie_weights,
                               strict=strict)


def _stacked_leaf(tensors: list[Tensor], name: str) -> Tensor:
    wanted = {tensor.requires_grad for tensor in tensors}
    if len(wanted) > 1:
        raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
    result = stack(tensors)
    return result.detach().requires_grad_() if wanted == {True} else result


def stack_module_state(models: Sequence[Module]) -> tuple[dict[str, Tensor], dict[str, Tensor]]:
    """The parameters and the buffers of ``models`` (of one class) stacked along a new first
    dimension, by name: an ensemble's state for ``vmap(functional_call)``.

    The stacked parameters are new leaves (an optimizer may take them), unrelated to the models'.
    """
    if len(models) == 0:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if len({model.training for model in models}) > 1:
        raise RuntimeError("stack_module_state: Expected all models to have the same training/eval mode.")
    if len({type(model) for model in models}) > 1:
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    parameters = [dict(model.named_parameters()) for model in models]
    buffers = [dict(model.named_buffers()) for model in models]
    return ({name: _stacked_leaf([one[name] for one in parameters], name) for name in parameters[0]},
            {name: _stacked_leaf([one[name] for one in buffers], name) for name in buffers[0]})


def replace_all_batch_norm_modules_(root: Module) -> Module:
    """Make every batch norm in ``root`` use the batch's statistics only (no running statistics),
    in place, so that ``vmap`` over it writes no shared buffer; returns ``root``.

    As PyTorch, a batch norm already not tracking (``track_running_stats`` set False after
    construction) keeps whatever buffers it has, which evaluation mode still uses."""
    for module in root.modules():
        if isinstance(module, _BatchNorm) and module.track_running_stats:
            module.running_mean = None
            module.running_var = None
            module.num_batches_tracked = None
            module.track_running_stats = False
    return root

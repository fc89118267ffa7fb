"""``Optimizer``: the base every update rule shares (param groups, state, ``state_dict``).

An optimizer holds a list of *param groups*: dicts with a ``"params"`` list and the options
(``lr``, ``momentum``, ...) for those parameters; options a group does not name come from
the optimizer's ``defaults``. ``state`` maps each parameter to a dict of its running
buffers (momentum, moment estimates, step count). A subclass writes one method,
:meth:`Optimizer._update`, the rule for a single parameter; :meth:`Optimizer.step` calls it
for every parameter that has a gradient, in place and under ``no_grad``::

    opt = minitorch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    opt.zero_grad()
    loss_fn(model(x), y).backward()
    opt.step()
"""

from __future__ import annotations

import copy
import warnings
from collections import defaultdict
from typing import Any, Callable, Iterable, Optional, Union

from ..autograd import enable_grad, no_grad
from ..tensor import Tensor

ParamGroup = dict[str, Any]
ParamsT = Union[Iterable[Tensor], Iterable[ParamGroup]]
StateDict = dict[str, Any]
#: state entries copied as they are by ``load_state_dict`` (never cast to the parameter's dtype)
UNCAST_STATE_KEYS = ("step",)


class _RequiredParameter:
    """Marks an option every param group must give (it has no default)."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()


def _typename(value: Any) -> str:
    if isinstance(value, Tensor):
        return "minitorch.Tensor"
    module = type(value).__module__
    return type(value).__name__ if module == "builtins" else f"{module}.{type(value).__qualname__}"


class Optimizer:
    """Base class: param groups with per-group options, per-parameter ``state``, ``step``."""

    def __init__(self, params: ParamsT, defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        self.state: defaultdict[Tensor, dict[str, Any]] = defaultdict(dict)
        self.param_groups: list[ParamGroup] = []
        if isinstance(params, Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or dicts, "
                f"but got {_typename(params)}"
            )
        groups = list(params)
        if len(groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    def __repr__(self) -> str:
        lines = [type(self).__name__ + " ("]
        for index, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {index}")
            lines.extend(f"    {key}: {group[key]}" for key in sorted(group) if key != "params")
        lines.append(")")
        return "\n".join(lines)

    # ---- param groups ----

    def add_param_group(self, param_group: ParamGroup) -> None:
        """Add a group of parameters with its own options (the rest taken from ``defaults``)."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {_typename(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, (set, frozenset)):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but the ordering of "
                "tensors in sets will change between runs. Please use a list instead."
            )
        else:
            params = list(params)
        for param in params:
            if not isinstance(param, Tensor):
                raise TypeError(f"optimizer can only optimize Tensors, but one of the params is {_typename(param)}")
            if not param.is_leaf:
                raise ValueError("can't optimize a non-leaf Tensor")
        group = dict(param_group, params=params)
        for name, default in self.defaults.items():
            if default is required and name not in group:
                raise ValueError(f"parameter group didn't specify a value of required optimization parameter {name}")
            group.setdefault(name, default)
        if len({id(p) for p in params}) != len(params):
            warnings.warn(
                "optimizer contains a parameter group with duplicate parameters; "
                "in future, this will cause an error",
                stacklevel=3,
            )
        seen = {id(p) for existing in self.param_groups for p in existing["params"]}
        if any(id(p) in seen for p in params):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(group)

    # ---- gradients and the update ----

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Forget every parameter's gradient: ``None`` (default) or a tensor of zeros."""
        for group in self.param_groups:
            for param in group["params"]:
                if param.grad is None:
                    continue
                if set_to_none:
                    param.grad = None
                else:
                    grad = param.grad
                    if grad.grad_fn is not None:
                        grad.detach_()
                    else:
                        grad.requires_grad_(False)
                    with no_grad():
                        grad.zero_()

    def step(self, closure: Optional[Callable[[], Any]] = None) -> Any:
        """One update of every parameter that has a gradient; returns ``closure()`` if given.

        ``closure`` re-evaluates the model and returns the loss (it runs with gradients on,
        before the update).
        """
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        with no_grad():
            for group in self.param_groups:
                for param in group["params"]:
                    if param.grad is not None:
                        state = self.state[param]
                        self._update(param, param.grad.detach(), state, group)
                        if not state:  # a rule that keeps nothing (SGD without momentum) leaves no entry, as PyTorch's
                            del self.state[param]
        return loss

    def _update(self, param: Tensor, grad: Tensor, state: dict[str, Any], group: ParamGroup) -> None:
        """Update ``param`` in place from its ``grad``, its ``state`` and its group's options."""
        raise NotImplementedError(f"{type(self).__name__} does not implement an update rule")

    # ---- checkpoints ----

    def state_dict(self) -> StateDict:
        """``{"state": {index: buffers}, "param_groups": [options with "params": [indices]]}``.

        Parameters are numbered in the order the groups list them, so the dict holds no
        tensor identities and loads into a new optimizer over equally shaped parameters.
        The state's tensors are the optimizer's own (not copies), as in PyTorch.
        """
        # BEGIN SOLUTION 6.5
        index_of: dict[int, int] = {}
        groups = []
        for group in self.param_groups:
            packed = {key: value for key, value in group.items() if key != "params"}
            for param in group["params"]:
                index_of.setdefault(id(param), len(index_of))
            packed["params"] = [index_of[id(param)] for param in group["params"]]
            groups.append(packed)
        state = {index_of[id(param)]: value for param, value in self.state.items() if id(param) in index_of}
        return {"state": state, "param_groups": groups}
        # END SOLUTION

    def load_state_dict(self, state_dict: StateDict) -> None:
        """Restore options and state saved by :meth:`state_dict` (copied; cast to each parameter's dtype)."""
        # BEGIN SOLUTION 6.5
        saved_groups = state_dict["param_groups"]
        if len(saved_groups) != len(self.param_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        for group, saved in zip(self.param_groups, saved_groups):
            if len(group["params"]) != len(saved["params"]):
                raise ValueError(
                    "loaded state dict contains a parameter group that doesn't match the size of optimizer's group"
                )
        param_of = {
            index: param
            for group, saved in zip(self.param_groups, saved_groups)
            for index, param in zip(saved["params"], group["params"])
        }
        self.state = defaultdict(dict)
        for index, buffers in state_dict["state"].items():
            if index in param_of:
                param = param_of[index]
                self.state[param] = {key: _cast_state(key, value, param) for key, value in buffers.items()}
        # options a checkpoint from another version lacks keep this optimizer's defaults
        self.param_groups = [
            {**self.defaults, **copy.deepcopy({key: value for key, value in saved.items() if key != "params"}),
             "params": group["params"]}
            for group, saved in zip(self.param_groups, saved_groups)
        ]
        # END SOLUTION


def _cast_state(key: str, value: Any, param: Tensor) -> Any:
    """A copy of a saved state entry on ``param``'s device (and dtype, for float buffers)."""
    if not isinstance(value, Tensor):
        return copy.deepcopy(value)
    value = value.detach()
    if key in UNCAST_STATE_KEYS or not param.is_floating_point() or not value.is_floating_point():
        return value.to(param.device).clone()
    return value.to(device=param.device, dtype=param.dtype).clone()


__all__ = ["Optimizer", "ParamsT", "required"]

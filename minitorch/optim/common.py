"""Pieces every update rule shares: option checks, PyTorch's flags, the step count, the
gradient's direction and weight decay."""

from __future__ import annotations

from typing import Any

from ..creation import tensor
from ..tensor import Tensor
from .optimizer import ParamGroup

#: how PyTorch's messages name each option that must not be negative
OPTION_LABELS = {
    "lr": "learning rate",
    "eps": "epsilon value",
    "weight_decay": "weight_decay value",
    "momentum": "momentum value",
    "alpha": "alpha value",
    "lr_decay": "lr_decay value",
    "initial_accumulator_value": "initial_accumulator_value value",
    "momentum_decay": "momentum_decay value",
}


def check_non_negative(**options: float) -> None:
    """Raise ``ValueError`` for the first negative option, worded as PyTorch words it."""
    for name, value in options.items():
        if not 0.0 <= value:
            raise ValueError(f"Invalid {OPTION_LABELS[name]}: {value}")


def check_betas(betas: tuple[float, float]) -> None:
    """Each beta must lie in ``[0, 1)``."""
    for index, beta in enumerate(betas):
        if not 0.0 <= beta < 1.0:
            raise ValueError(f"Invalid beta parameter at index {index}: {beta}")


def check_flags(name: str, differentiable: bool) -> None:
    """``foreach``, ``fused`` and ``capturable`` only choose PyTorch's kernels (minitorch has one
    way to run a step, with the same result), so they are kept as options; a differentiable
    step, recorded by autograd, is not supported."""
    if differentiable:
        raise ValueError(f"{name}: differentiable=True is not supported by minitorch (steps run under no_grad)")


def next_step(state: dict[str, Any]) -> int:
    """Count one more step in ``state["step"]`` (a float32 0-d tensor, as PyTorch keeps it)."""
    if "step" not in state:
        state["step"] = tensor(0.0)
    state["step"].add_(1)
    return int(state["step"].item())


def directed(grad: Tensor, group: ParamGroup) -> Tensor:
    """The gradient to descend: negated when the group ``maximize``\\ s."""
    return -grad if group["maximize"] else grad


def decayed(param: Tensor, grad: Tensor, group: ParamGroup) -> Tensor:
    r"""Apply ``weight_decay`` :math:`\lambda`: coupled, :math:`g + \lambda\theta` (returned), or
    with ``decoupled_weight_decay``, :math:`\theta \leftarrow (1 - \gamma\lambda)\theta` in place."""
    weight_decay = group.get("weight_decay", 0)
    if weight_decay == 0:
        return grad
    if group.get("decoupled_weight_decay", False):
        param.mul_(1 - group["lr"] * weight_decay)
        return grad
    return grad + weight_decay * param

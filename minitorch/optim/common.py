"""Pieces every update rule shares: option checks, PyTorch's flags, the step count, the
gradient's direction and weight decay."""

from __future__ import annotations

from typing import Any

from ..creation import tensor, zeros_like
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
    return grad.add(param, alpha=weight_decay)  # one fused multiply-add, as PyTorch's


def initial_state(state: dict[str, Any], param: Tensor, *buffers: str, **scalars: float) -> None:
    """Fill an empty ``state`` in PyTorch's order: the step count, then the named 0-d
    ``scalars`` (tensors of the default float dtype), then ``buffers`` of zeros like ``param``.
    A state that holds anything already (a step taken, a checkpoint loaded) is left alone."""
    if state:
        return
    state["step"] = tensor(0.0)
    for name, value in scalars.items():
        state[name] = tensor(float(value))
    for name in buffers:
        state[name] = zeros_like(param)


def step_gradient(param: Tensor, grad: Tensor, state: dict[str, Any], group: ParamGroup) -> tuple[Tensor, int]:
    """Count the step and return the gradient to use, directed and weight-decayed, with the
    step number: the first thing most update rules do."""
    grad = directed(grad, group)
    step = next_step(state)
    return decayed(param, grad, group), step


def update_moments(exp_avg: Tensor, exp_avg_sq: Tensor, grad: Tensor, betas: tuple[float, float]) -> None:
    r"""Adam's running moments, in place:
    :math:`m_t = \beta_1 m_{t-1} + (1-\beta_1) g_t` and :math:`v_t = \beta_2 v_{t-1} + (1-\beta_2) g_t^2`."""
    beta1, beta2 = betas
    exp_avg.lerp_(grad, 1 - beta1)
    exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)

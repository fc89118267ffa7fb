"""Stochastic gradient descent with momentum, dampening, Nesterov momentum and weight decay."""

from __future__ import annotations

from typing import Any, Optional

from ..autograd.grad_mode import is_grad_enabled
from ..backends.base import SgdStep
from ..creation import empty_like
from ..optim_dispatch import fused_update_fits, sgd_step_op
from ..tensor import Tensor
from .common import check_flags, check_non_negative, decayed, directed
from .optimizer import Optimizer, ParamGroup, ParamsT

DEFAULT_LR = 1e-3


def fused_sgd_fits(param: Tensor, grad: Tensor, state: dict[str, Any], group: ParamGroup) -> bool:
    """Whether :func:`fused_sgd` can take this step: under ``no_grad``, as :meth:`Optimizer.step` runs
    it, and on operands the kernel takes (:func:`minitorch.optim_dispatch.fused_update_fits`)."""
    if is_grad_enabled():
        return False
    buffer = state.get("momentum_buffer") if group["momentum"] != 0 else None
    if buffer is not None and not isinstance(buffer, Tensor):
        return False
    return fused_update_fits(param, grad, () if buffer is None else (buffer,))


def fused_sgd(param: Tensor, grad: Tensor, state: dict[str, Any], group: ParamGroup) -> None:
    """The update of :meth:`SGD._update` by the backend's fused kernel: one pass over the parameter
    (and its momentum buffer, made at the first step) instead of two to five tensor ops, with the
    same results, bit for bit."""
    momentum = group["momentum"]
    buffer = state.get("momentum_buffer") if momentum != 0 else None
    first = momentum != 0 and buffer is None
    if first:
        buffer = state["momentum_buffer"] = empty_like(param)  # the kernel fills it with the first direction
    step = SgdStep(lr=group["lr"], momentum=momentum, dampening=group["dampening"],
                   weight_decay=group["weight_decay"], nesterov=group["nesterov"], maximize=group["maximize"],
                   first=first)
    sgd_step_op(param, grad, buffer, step)


class SGD(Optimizer):
    r"""Gradient descent, optionally with (Nesterov) momentum.

    With :math:`g_t` the gradient (negated when ``maximize``) plus ``weight_decay`` times
    the parameter, and momentum :math:`\mu`:

    .. math::
        b_1 = g_1,\qquad b_t = \mu\, b_{t-1} + (1 - \tau)\, g_t,\qquad
        \theta_t = \theta_{t-1} - \gamma \cdot
        \begin{cases} g_t + \mu\, b_t & \text{Nesterov} \\ b_t & \text{otherwise} \end{cases}

    where :math:`\tau` is ``dampening`` and :math:`\gamma` the learning rate; without
    momentum the step is :math:`\gamma g_t`. The buffer :math:`b` lives in
    ``state[p]["momentum_buffer"]``.
    """

    def __init__(self, params: ParamsT, lr: float = DEFAULT_LR, momentum: float = 0, dampening: float = 0,
                 weight_decay: float = 0, nesterov: bool = False, *, maximize: bool = False,
                 foreach: Optional[bool] = None, differentiable: bool = False, fused: Optional[bool] = None) -> None:
        check_non_negative(lr=lr, momentum=momentum, weight_decay=weight_decay)
        check_flags(type(self).__name__, differentiable)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        defaults = {"lr": lr, "momentum": momentum, "dampening": dampening, "weight_decay": weight_decay,
                    "nesterov": nesterov, "maximize": maximize, "foreach": foreach,
                    "differentiable": differentiable, "fused": fused}
        super().__init__(params, defaults)

    def _update(self, param: Tensor, grad: Tensor, state: dict[str, Any], group: ParamGroup) -> None:
        # BEGIN SOLUTION 6.1
        if fused_sgd_fits(param, grad, state, group):  # the backend's one-pass kernel: the same arithmetic
            fused_sgd(param, grad, state, group)
            return
        grad = decayed(param, directed(grad, group), group)
        momentum = group["momentum"]
        if momentum != 0:
            buffer = state.get("momentum_buffer")
            if buffer is None:
                buffer = grad.clone()
                state["momentum_buffer"] = buffer
            else:
                buffer.mul_(momentum).add_(grad, alpha=1 - group["dampening"])
            grad = grad.add(buffer, alpha=momentum) if group["nesterov"] else buffer
        param.add_(grad, alpha=-group["lr"])
        # END SOLUTION

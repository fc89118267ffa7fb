"""Stochastic gradient descent with momentum, dampening, Nesterov momentum and weight decay."""

from __future__ import annotations

from typing import Any, Optional

from ..tensor import Tensor
from .common import check_flags, check_non_negative, decayed, directed
from .optimizer import Optimizer, ParamGroup, ParamsT

DEFAULT_LR = 1e-3


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
        grad = decayed(param, directed(grad, group), group)
        momentum = group["momentum"]
        if momentum != 0:
            buffer = state.get("momentum_buffer")
            if buffer is None:
                buffer = grad.clone()
                state["momentum_buffer"] = buffer
            else:
                buffer.mul_(momentum).add_(grad, alpha=1 - group["dampening"])
            grad = grad + momentum * buffer if group["nesterov"] else buffer
        param.add_(grad, alpha=-group["lr"])
        # END SOLUTION

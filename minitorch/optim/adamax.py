r"""Adamax: Adam with the second moment replaced by a running infinity norm.

.. math:: m_t = \beta_1 m_{t-1} + (1-\beta_1) g_t,\quad
   u_t = \max(\beta_2 u_{t-1}, |g_t| + \epsilon),\quad
   \theta_t = \theta_{t-1} - \frac{\gamma}{1-\beta_1^t}\,\frac{m_t}{u_t}
"""

from __future__ import annotations

from typing import Any, Optional

from ..creation import tensor, zeros_like
from ..tensor import Tensor
from .adam import DEFAULT_BETAS, DEFAULT_EPS, check_adam_options, next_step
from .optimizer import Optimizer, ParamGroup, ParamsT, implementation_options

DEFAULT_LR = 2e-3


class Adamax(Optimizer):
    """Adamax (Kingma and Ba, 2015, section 7), with PyTorch's options."""

    def __init__(self, params: ParamsT, lr: float = DEFAULT_LR, betas: tuple[float, float] = DEFAULT_BETAS,
                 eps: float = DEFAULT_EPS, weight_decay: float = 0, foreach: Optional[bool] = None, *,
                 maximize: bool = False, differentiable: bool = False, capturable: bool = False) -> None:
        check_adam_options(lr, betas, eps, weight_decay)
        defaults = {"lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": weight_decay, "foreach": foreach,
                    "maximize": maximize,
                    **implementation_options("Adamax", differentiable=differentiable, capturable=capturable)}
        super().__init__(params, defaults)

    def _update(self, param: Tensor, grad: Tensor, state: dict[str, Any], group: ParamGroup) -> None:
        if not state:
            state["step"] = tensor(0.0)
            state["exp_avg"] = zeros_like(param)
            state["exp_inf"] = zeros_like(param)
        beta1, beta2 = group["betas"]
        if group["maximize"]:
            grad = -grad
        step = next_step(state)
        if group["weight_decay"] != 0:
            grad = grad + group["weight_decay"] * param
        state["exp_avg"].mul_(beta1).add_(grad, alpha=1 - beta1)
        state["exp_inf"].copy_((state["exp_inf"] * beta2).maximum(grad.abs() + group["eps"]))
        param.sub_(state["exp_avg"] / state["exp_inf"], alpha=group["lr"] / (1 - beta1**step))

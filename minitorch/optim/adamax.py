"""Adamax: Adam with the second moment replaced by a running infinity norm."""

from __future__ import annotations

from typing import Any, Optional

from ..tensor import Tensor
from .adam import DEFAULT_BETAS, DEFAULT_EPS
from .common import check_betas, check_flags, check_non_negative, initial_state, step_gradient
from .optimizer import Optimizer, ParamGroup, ParamsT

DEFAULT_LR = 2e-3


class Adamax(Optimizer):
    r"""Adamax (Kingma and Ba, 2015, section 7).

    .. math::
        m_t = \beta_1 m_{t-1} + (1-\beta_1) g_t,\qquad u_t = \max(\beta_2 u_{t-1}, |g_t| + \epsilon),\qquad
        \theta_t = \theta_{t-1} - \frac{\gamma}{1-\beta_1^t} \frac{m_t}{u_t}

    The tensor ops are PyTorch's (``lerp_``, ``addcdiv_``), in its order, so the steps are too.
    """

    def __init__(self, params: ParamsT, lr: float = DEFAULT_LR, betas: tuple[float, float] = DEFAULT_BETAS,
                 eps: float = DEFAULT_EPS, weight_decay: float = 0, foreach: Optional[bool] = None, *,
                 maximize: bool = False, differentiable: bool = False, capturable: bool = False) -> None:
        check_non_negative(lr=lr, eps=eps)
        check_betas(betas)
        check_non_negative(weight_decay=weight_decay)
        check_flags(type(self).__name__, differentiable)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable, "capturable": capturable}
        super().__init__(params, defaults)

    def _update(self, param: Tensor, grad: Tensor, state: dict[str, Any], group: ParamGroup) -> None:
        initial_state(state, param, "exp_avg", "exp_inf")
        beta1, beta2 = group["betas"]
        grad, step = step_gradient(param, grad, state, group)
        exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]
        exp_avg.lerp_(grad, 1 - beta1)
        exp_inf.copy_(exp_inf.mul_(beta2).maximum(grad.abs().add_(group["eps"])))
        param.addcdiv_(exp_avg, exp_inf, value=-(group["lr"] / (1 - beta1**step)))

"""RAdam: Adam whose adaptive step is switched on only once its variance is tractable."""

from __future__ import annotations

from typing import Any, Optional

from ..tensor import Tensor
from .adam import DEFAULT_BETAS, DEFAULT_EPS, DEFAULT_LR
from .common import check_betas, check_flags, check_non_negative, initial_state, step_gradient, update_moments
from .optimizer import Optimizer, ParamGroup, ParamsT

#: the adaptive step is used once the approximated SMA length :math:`\rho_t` exceeds this
TRACTABLE_LENGTH = 5.0
#: square roots of Python floats are taken as PyTorch takes them, ``x ** 0.5`` (C's ``pow``)
HALF = 0.5


class RAdam(Optimizer):
    r"""RAdam (Liu et al., 2020).

    With :math:`\rho_\infty = 2/(1-\beta_2) - 1` and
    :math:`\rho_t = \rho_\infty - 2t\beta_2^t/(1-\beta_2^t)`, the step is
    :math:`\gamma\,\hat m_t\, r_t \sqrt{1-\beta_2^t}/(\sqrt{v_t}+\epsilon)` when
    :math:`\rho_t > 5`, with the rectification
    :math:`r_t = \sqrt{\frac{(\rho_t-4)(\rho_t-2)\rho_\infty}{(\rho_\infty-4)(\rho_\infty-2)\rho_t}}`,
    and plain momentum :math:`\gamma\,\hat m_t` before; :math:`\hat m_t = m_t/(1-\beta_1^t)`.
    The tensor ops are PyTorch's, in its order (the product left to right), so the steps are too.
    """

    def __init__(self, params: ParamsT, lr: float = DEFAULT_LR, betas: tuple[float, float] = DEFAULT_BETAS,
                 eps: float = DEFAULT_EPS, weight_decay: float = 0, decoupled_weight_decay: bool = False, *,
                 foreach: Optional[bool] = None, maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False) -> None:
        check_non_negative(lr=lr, eps=eps)
        check_betas(betas)
        check_non_negative(weight_decay=weight_decay)
        check_flags(type(self).__name__, differentiable)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay, "maximize": maximize,
                    "foreach": foreach, "capturable": capturable, "decoupled_weight_decay": decoupled_weight_decay,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def _update(self, param: Tensor, grad: Tensor, state: dict[str, Any], group: ParamGroup) -> None:
        initial_state(state, param, "exp_avg", "exp_avg_sq")
        lr, (beta1, beta2) = group["lr"], group["betas"]
        grad, step = step_gradient(param, grad, state, group)
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        update_moments(exp_avg, exp_avg_sq, grad, group["betas"])
        bias_correction1, bias_correction2 = 1 - beta1**step, 1 - beta2**step
        corrected_avg = exp_avg / bias_correction1
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * step * (beta2**step) / bias_correction2
        if rho_t > TRACTABLE_LENGTH:
            rectification = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** HALF
            adaptive = (bias_correction2**HALF) / exp_avg_sq.sqrt().add_(group["eps"])
            param.add_(corrected_avg * lr * adaptive * rectification, alpha=-1.0)
        else:
            param.add_(corrected_avg * lr, alpha=-1.0)

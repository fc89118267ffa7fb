"""NAdam: Adam with Nesterov momentum and a warming-up momentum schedule."""

from __future__ import annotations

from typing import Any, Optional

from ..tensor import Tensor
from .adam import DEFAULT_BETAS, DEFAULT_EPS
from .common import check_betas, check_flags, check_non_negative, initial_state, step_gradient, update_moments
from .optimizer import Optimizer, ParamGroup, ParamsT

DEFAULT_LR = 2e-3
DEFAULT_MOMENTUM_DECAY = 4e-3
#: the base of the momentum warm-up :math:`\mu_t = \beta_1 (1 - \tfrac12 \cdot 0.96^{t\psi})`
WARMUP_BASE = 0.96


def momentum_at(beta1: float, step: int, momentum_decay: float) -> float:
    """:math:`\\mu_t`, the momentum coefficient of step ``step``."""
    return beta1 * (1.0 - 0.5 * WARMUP_BASE ** (step * momentum_decay))


class NAdam(Optimizer):
    r"""NAdam (Dozat, 2016).

    .. math::
        m_t = \beta_1 m_{t-1} + (1-\beta_1) g_t,\quad v_t = \beta_2 v_{t-1} + (1-\beta_2) g_t^2,\quad
        d_t = \sqrt{v_t / (1-\beta_2^t)} + \epsilon,\\
        \theta_t = \theta_{t-1} - \gamma \frac{1-\mu_t}{1-\prod_{i\le t}\mu_i} \frac{g_t}{d_t}
                   - \gamma \frac{\mu_{t+1}}{1-\prod_{i\le t+1}\mu_i} \frac{m_t}{d_t}

    The running product of the :math:`\mu_i` is kept, as PyTorch keeps it, in a 0-d tensor of
    the default float dtype (``state["mu_product"]``). The tensor ops and the Python-float
    coefficients are PyTorch's, in its order, so the steps are too.
    """

    def __init__(self, params: ParamsT, lr: float = DEFAULT_LR, betas: tuple[float, float] = DEFAULT_BETAS,
                 eps: float = DEFAULT_EPS, weight_decay: float = 0, momentum_decay: float = DEFAULT_MOMENTUM_DECAY,
                 decoupled_weight_decay: bool = False, *, foreach: Optional[bool] = None, maximize: bool = False,
                 capturable: bool = False, differentiable: bool = False) -> None:
        check_non_negative(lr=lr, eps=eps)
        check_betas(betas)
        check_non_negative(weight_decay=weight_decay, momentum_decay=momentum_decay)
        check_flags(type(self).__name__, differentiable)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "momentum_decay": momentum_decay, "decoupled_weight_decay": decoupled_weight_decay,
                    "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def _update(self, param: Tensor, grad: Tensor, state: dict[str, Any], group: ParamGroup) -> None:
        initial_state(state, param, "exp_avg", "exp_avg_sq", mu_product=1.0)
        lr, (beta1, beta2) = group["lr"], group["betas"]
        grad, step = step_gradient(param, grad, state, group)
        bias_correction2 = 1 - beta2**step
        mu = momentum_at(beta1, step, group["momentum_decay"])
        mu_next = momentum_at(beta1, step + 1, group["momentum_decay"])
        mu_product = state["mu_product"].mul_(mu).item()  # rounded to the state's dtype, as PyTorch's
        mu_product_next = mu_product * mu_next
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        update_moments(exp_avg, exp_avg_sq, grad, group["betas"])
        denominator = exp_avg_sq.div(bias_correction2).sqrt().add_(group["eps"])
        param.addcdiv_(grad, denominator, value=-lr * (1.0 - mu) / (1.0 - mu_product))
        param.addcdiv_(exp_avg, denominator, value=(-lr * mu_next) / (1.0 - mu_product_next))

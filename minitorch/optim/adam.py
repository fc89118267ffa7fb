"""Adam: per-coordinate steps from bias-corrected running moments of the gradient."""

from __future__ import annotations

import math
from typing import Any, Optional

from ..autograd.grad_mode import is_grad_enabled
from ..backends.base import AdamStep
from ..creation import tensor, zeros_like
from ..optim_dispatch import adam_step_op, fused_update_fits
from ..tensor import Tensor
from .common import check_betas, check_flags, check_non_negative, decayed, directed, next_step
from .optimizer import Optimizer, ParamGroup, ParamsT

DEFAULT_LR = 1e-3
DEFAULT_BETAS = (0.9, 0.999)
DEFAULT_EPS = 1e-8


def check_adam_options(lr: float, betas: tuple[float, float], eps: float, weight_decay: float) -> None:
    """Raise ``ValueError`` naming the first option out of range (PyTorch's checks)."""
    check_non_negative(lr=lr, eps=eps)
    check_betas(betas)
    check_non_negative(weight_decay=weight_decay)


def _moments(state: dict[str, Any], group: ParamGroup) -> list[Tensor]:
    """The state's buffers that a step writes: the two moments, and with amsgrad the running maximum."""
    names = ("exp_avg", "exp_avg_sq", "max_exp_avg_sq") if group["amsgrad"] else ("exp_avg", "exp_avg_sq")
    return [state[name] for name in names]


def fused_adam_fits(param: Tensor, grad: Tensor, state: dict[str, Any], group: ParamGroup) -> bool:
    """Whether :func:`fused_adam` can take this step: under ``no_grad``, as :meth:`Optimizer.step`
    runs it (with grad mode on, the in-place ops' checks and graph apply), and on operands the
    kernel takes (:func:`minitorch.optim_dispatch.fused_update_fits`)."""
    if is_grad_enabled():
        return False
    buffers = _moments(state, group)
    return all(isinstance(b, Tensor) for b in buffers) and fused_update_fits(param, grad, buffers)


def fused_adam(param: Tensor, grad: Tensor, state: dict[str, Any], group: ParamGroup, step_size: float,
               bias_correction2_sqrt: float) -> None:
    """:func:`adam_update`'s arithmetic, after the step count, by the backend's fused kernel: one pass
    over the parameter instead of a dozen tensor ops (the same results, bit for bit)."""
    beta1, beta2 = group["betas"]
    moments = _moments(state, group)
    step = AdamStep(beta1=beta1, beta2=beta2, eps=group["eps"], lr=group["lr"], step_size=step_size,
                    bias_correction2_sqrt=bias_correction2_sqrt, weight_decay=group.get("weight_decay", 0),
                    decoupled=group.get("decoupled_weight_decay", False), maximize=group["maximize"])
    adam_step_op(param, grad, moments[0], moments[1], moments[2] if len(moments) > 2 else None, step)


def adam_update(param: Tensor, grad: Tensor, state: dict[str, Any], group: ParamGroup) -> None:
    r"""One Adam step for one parameter (AdamW's with the group's ``decoupled_weight_decay``).

    .. math::
        m_t = m_{t-1} + (1-\beta_1) (g_t - m_{t-1}),\qquad v_t = \beta_2 v_{t-1} + (1-\beta_2) g_t^2,\\
        \theta_t = \theta_{t-1} - \frac{\gamma}{1-\beta_1^t}\,
        \frac{m_t}{\sqrt{\hat v_t}/\sqrt{1-\beta_2^t} + \epsilon}

    with :math:`\hat v_t = v_t`, or its running maximum with ``amsgrad``. Adam adds
    ``weight_decay`` times :math:`\theta` to :math:`g_t`; AdamW instead shrinks
    :math:`\theta` by the factor :math:`1 - \gamma\lambda` before the step. The ops are PyTorch's
    (``lerp_``, ``addcmul_``, ``addcdiv_``), so the values are too, bit for bit.
    """
    # BEGIN SOLUTION 6.2
    if not state:
        state["step"] = tensor(0.0)
        state["exp_avg"] = zeros_like(param)
        state["exp_avg_sq"] = zeros_like(param)
        if group["amsgrad"]:
            state["max_exp_avg_sq"] = zeros_like(param)
    lr, eps = group["lr"], group["eps"]
    beta1, beta2 = group["betas"]
    step = next_step(state)
    bias_correction1 = 1 - beta1**step
    bias_correction2_sqrt = math.sqrt(1 - beta2**step)
    if fused_adam_fits(param, grad, state, group):  # the backend's one-pass kernel: the same arithmetic
        fused_adam(param, grad, state, group, lr / bias_correction1, bias_correction2_sqrt)
        return
    grad = directed(grad, group)
    grad = decayed(param, grad, group)
    exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
    exp_avg.lerp_(grad, 1 - beta1)
    exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
    second_moment = exp_avg_sq
    if group["amsgrad"]:
        state["max_exp_avg_sq"].copy_(state["max_exp_avg_sq"].maximum(exp_avg_sq))
        second_moment = state["max_exp_avg_sq"]
    denominator = (second_moment.sqrt() / bias_correction2_sqrt).add_(eps)
    param.addcdiv_(exp_avg, denominator, value=-(lr / bias_correction1))
    # END SOLUTION


class Adam(Optimizer):
    """Adam (Kingma and Ba, 2015); ``amsgrad`` keeps the running maximum of the second moment,
    ``decoupled_weight_decay`` makes it AdamW."""

    def __init__(self, params: ParamsT, lr: float = DEFAULT_LR, betas: tuple[float, float] = DEFAULT_BETAS,
                 eps: float = DEFAULT_EPS, weight_decay: float = 0, amsgrad: bool = False, *,
                 foreach: Optional[bool] = None, maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False, fused: Optional[bool] = None,
                 decoupled_weight_decay: bool = False) -> None:
        check_adam_options(lr, betas, eps, weight_decay)
        check_flags(type(self).__name__, differentiable)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay, "amsgrad": amsgrad,
                    "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "differentiable": differentiable, "fused": fused,
                    "decoupled_weight_decay": decoupled_weight_decay}
        super().__init__(params, defaults)

    def _update(self, param: Tensor, grad: Tensor, state: dict[str, Any], group: ParamGroup) -> None:
        adam_update(param, grad, state, group)

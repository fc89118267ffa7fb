"""RMSprop: divide the gradient by a running root mean square of its recent values."""

from __future__ import annotations

from typing import Any, Optional

from ..creation import tensor, zeros_like
from ..tensor import Tensor
from .common import check_flags, check_non_negative, decayed, directed, next_step
from .optimizer import Optimizer, ParamGroup, ParamsT

DEFAULT_LR = 1e-2
DEFAULT_ALPHA = 0.99
DEFAULT_EPS = 1e-8


class RMSprop(Optimizer):
    r"""RMSprop (Hinton's lecture notes), optionally centred and with momentum.

    .. math::
        v_t = \alpha v_{t-1} + (1-\alpha) g_t^2,\qquad
        d_t = \sqrt{v_t - \bar g_t^{\,2}} + \epsilon\ \ (\text{centred; } \bar g_t = \alpha \bar g_{t-1} + (1-\alpha) g_t)
        \ \text{ or }\ \sqrt{v_t} + \epsilon,

    then :math:`\theta_t = \theta_{t-1} - \gamma\, g_t / d_t`, or with momentum
    :math:`b_t = \mu b_{t-1} + g_t / d_t` and :math:`\theta_t = \theta_{t-1} - \gamma b_t`. The
    tensor ops are PyTorch's (``addcmul_``, ``lerp_``, ``addcdiv_``), in its order, so the steps are too.
    """

    def __init__(self, params: ParamsT, lr: float = DEFAULT_LR, alpha: float = DEFAULT_ALPHA,
                 eps: float = DEFAULT_EPS, weight_decay: float = 0, momentum: float = 0, centered: bool = False,
                 capturable: bool = False, foreach: Optional[bool] = None, maximize: bool = False,
                 differentiable: bool = False) -> None:
        check_non_negative(lr=lr, eps=eps, momentum=momentum, weight_decay=weight_decay, alpha=alpha)
        check_flags(type(self).__name__, differentiable)
        defaults = {"lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps, "centered": centered,
                    "weight_decay": weight_decay, "capturable": capturable, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable}
        super().__init__(params, defaults)

    def _update(self, param: Tensor, grad: Tensor, state: dict[str, Any], group: ParamGroup) -> None:
        # BEGIN SOLUTION 6.3
        if not state:
            state["step"] = tensor(0.0)  # first, as PyTorch orders the state
            state["square_avg"] = zeros_like(param)
            if group["momentum"] > 0:
                state["momentum_buffer"] = zeros_like(param)
            if group["centered"]:
                state["grad_avg"] = zeros_like(param)
        alpha = group["alpha"]
        grad = directed(grad, group)
        next_step(state)
        grad = decayed(param, grad, group)
        square_avg = state["square_avg"]
        square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha)
        if group["centered"]:
            grad_avg = state["grad_avg"]
            grad_avg.lerp_(grad, 1 - alpha)
            average = square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_()
        else:
            average = square_avg.sqrt()
        average.add_(group["eps"])
        if group["momentum"] > 0:
            buffer = state["momentum_buffer"]
            buffer.mul_(group["momentum"]).addcdiv_(grad, average)
            param.add_(buffer, alpha=-group["lr"])
        else:
            param.addcdiv_(grad, average, value=-group["lr"])
        # END SOLUTION

"""Adadelta: steps scaled by the ratio of running RMS values of past updates and gradients."""

from __future__ import annotations

from typing import Any, Optional

from ..tensor import Tensor
from .common import check_flags, check_non_negative, initial_state, step_gradient
from .optimizer import Optimizer, ParamGroup, ParamsT

DEFAULT_LR = 1.0
DEFAULT_RHO = 0.9
DEFAULT_EPS = 1e-6


class Adadelta(Optimizer):
    r"""Adadelta (Zeiler, 2012).

    .. math::
        v_t = \rho v_{t-1} + (1-\rho) g_t^2,\qquad
        \Delta_t = \frac{\sqrt{u_{t-1} + \epsilon}}{\sqrt{v_t + \epsilon}}\, g_t,\qquad
        u_t = \rho u_{t-1} + (1-\rho) \Delta_t^2,\qquad
        \theta_t = \theta_{t-1} - \gamma \Delta_t

    The tensor ops are PyTorch's (``addcmul_``, in-place roots and products), in its order, so
    the steps are too.
    """

    def __init__(self, params: ParamsT, lr: float = DEFAULT_LR, rho: float = DEFAULT_RHO, eps: float = DEFAULT_EPS,
                 weight_decay: float = 0, foreach: Optional[bool] = None, *, capturable: bool = False,
                 maximize: bool = False, differentiable: bool = False) -> None:
        check_non_negative(lr=lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        check_non_negative(eps=eps, weight_decay=weight_decay)
        check_flags(type(self).__name__, differentiable)
        defaults = {"lr": lr, "rho": rho, "eps": eps, "weight_decay": weight_decay, "maximize": maximize,
                    "capturable": capturable, "foreach": foreach, "differentiable": differentiable}
        super().__init__(params, defaults)

    def _update(self, param: Tensor, grad: Tensor, state: dict[str, Any], group: ParamGroup) -> None:
        initial_state(state, param, "square_avg", "acc_delta")
        rho, eps = group["rho"], group["eps"]
        grad, _ = step_gradient(param, grad, state, group)
        square_avg, acc_delta = state["square_avg"], state["acc_delta"]
        square_avg.mul_(rho).addcmul_(grad, grad, value=1 - rho)
        std = square_avg.add(eps).sqrt_()
        delta = acc_delta.add(eps).sqrt_().div_(std).mul_(grad)
        acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho)
        param.add_(delta, alpha=-group["lr"])

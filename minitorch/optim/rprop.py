"""Rprop: per-coordinate step sizes that grow while the gradient keeps its sign."""

from __future__ import annotations

from typing import Any, Optional

from ..creation import full_like, tensor, zeros_like
from ..tensor import Tensor
from .common import check_flags, directed, next_step
from .optimizer import Optimizer, ParamGroup, ParamsT

DEFAULT_LR = 1e-2
DEFAULT_ETAS = (0.5, 1.2)
DEFAULT_STEP_SIZES = (1e-6, 50)


class Rprop(Optimizer):
    r"""Resilient backpropagation (Riedmiller and Braun, 1993).

    Where :math:`g_t g_{t-1} > 0` the step size grows by :math:`\eta_+`, where it is negative
    it shrinks by :math:`\eta_-` and the coordinate does not move this step (its gradient is
    taken as 0 for the next comparison); sizes stay within ``step_sizes``. Then
    :math:`\theta_t = \theta_{t-1} - \operatorname{sign}(g_t)\, s_t`. The tensor ops are PyTorch's,
    in its order, so the steps are too.
    """

    def __init__(self, params: ParamsT, lr: float = DEFAULT_LR, etas: tuple[float, float] = DEFAULT_ETAS,
                 step_sizes: tuple[float, float] = DEFAULT_STEP_SIZES, *, capturable: bool = False,
                 foreach: Optional[bool] = None, maximize: bool = False, differentiable: bool = False) -> None:
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        check_flags(type(self).__name__, differentiable)
        defaults = {"lr": lr, "etas": etas, "step_sizes": step_sizes, "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable, "capturable": capturable}
        super().__init__(params, defaults)

    def _update(self, param: Tensor, grad: Tensor, state: dict[str, Any], group: ParamGroup) -> None:
        if not state:
            state["step"] = tensor(0.0)
            state["prev"] = zeros_like(param)
            state["step_size"] = full_like(param, group["lr"])
        eta_minus, eta_plus = group["etas"]
        smallest, largest = group["step_sizes"]
        grad = directed(grad, group)
        next_step(state)
        factor = grad.mul(state["prev"]).sign()
        # the signs replaced one after another, as PyTorch writes them (a NaN product's sign is 0)
        factor.masked_fill_(factor.gt(0), eta_plus)
        factor.masked_fill_(factor.lt(0), eta_minus)
        factor.masked_fill_(factor.eq(0), 1)
        step_size = state["step_size"]
        step_size.mul_(factor).clamp_(smallest, largest)
        grad = grad.clone().masked_fill_(factor.eq(eta_minus), 0)
        param.addcmul_(grad.sign(), step_size, value=-1)
        state["prev"].copy_(grad)

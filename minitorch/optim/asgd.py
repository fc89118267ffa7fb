"""ASGD: gradient descent with a decaying step and a running (Polyak) average of the iterates."""

from __future__ import annotations

from typing import Any, Optional

from ..creation import tensor
from ..tensor import Tensor
from .common import check_flags, check_non_negative, initial_state, step_gradient
from .optimizer import Optimizer, ParamGroup, ParamsT

DEFAULT_LR = 1e-2
DEFAULT_LAMBD = 1e-4
DEFAULT_ALPHA = 0.75
DEFAULT_T0 = 1e6


class ASGD(Optimizer):
    r"""Averaged SGD (Polyak and Juditsky, 1992).

    .. math::
        \theta_t = (1 - \lambda\eta_t)\,\theta_{t-1} - \eta_t g_t,\qquad
        \bar\theta_t = \bar\theta_{t-1} + \mu_t(\theta_t - \bar\theta_{t-1}),\\
        \eta_{t+1} = \frac{\gamma}{(1 + \lambda\gamma t)^\alpha},\qquad \mu_{t+1} = \frac{1}{\max(1, t - t_0)}

    :math:`\eta` and :math:`\mu` live, as in PyTorch, in 0-d tensors of the default float dtype
    (``state["eta"]``, ``state["mu"]``); the average is ``state["ax"]``. The tensor ops are
    PyTorch's, in its order, so the steps are too.
    """

    def __init__(self, params: ParamsT, lr: float = DEFAULT_LR, lambd: float = DEFAULT_LAMBD,
                 alpha: float = DEFAULT_ALPHA, t0: float = DEFAULT_T0, weight_decay: float = 0,
                 foreach: Optional[bool] = None, maximize: bool = False, differentiable: bool = False,
                 capturable: bool = False) -> None:
        check_non_negative(lr=lr, weight_decay=weight_decay)
        check_flags(type(self).__name__, differentiable)
        defaults = {"lr": lr, "lambd": lambd, "alpha": alpha, "t0": t0, "weight_decay": weight_decay,
                    "foreach": foreach, "maximize": maximize, "differentiable": differentiable,
                    "capturable": capturable}
        super().__init__(params, defaults)

    def _update(self, param: Tensor, grad: Tensor, state: dict[str, Any], group: ParamGroup) -> None:
        lr, lambd = group["lr"], group["lambd"]
        initial_state(state, param, "ax", eta=lr, mu=1.0)
        grad, step = step_gradient(param, grad, state, group)
        eta = state["eta"].item()
        param.mul_(1 - lambd * eta)
        param.add_(grad, alpha=-eta)
        if state["mu"].item() != 1:
            state["ax"].add_(param.sub(state["ax"]).mul_(state["mu"]))
        else:
            state["ax"].copy_(param)
        # the new values pass through a tensor of the default dtype, as in PyTorch (float32 by
        # default), even where a loaded checkpoint made the state float64
        state["eta"].copy_(tensor(lr / ((1 + lambd * lr * step) ** group["alpha"])))
        state["mu"].copy_(tensor(1 / max(1, step - group["t0"])))

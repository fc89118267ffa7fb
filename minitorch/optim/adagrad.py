"""Adagrad: each coordinate's step shrinks with the sum of its squared gradients."""

from __future__ import annotations

from typing import Any, Optional

from ..creation import full_like, tensor
from ..tensor import Tensor
from .common import check_flags, check_non_negative, decayed, directed, next_step
from .optimizer import Optimizer, ParamGroup, ParamsT

DEFAULT_LR = 1e-2
DEFAULT_EPS = 1e-10


class Adagrad(Optimizer):
    r"""Adagrad (Duchi, Hazan and Singer, 2011).

    .. math::
        \gamma_t = \frac{\gamma}{1 + (t-1)\,\eta},\qquad s_t = s_{t-1} + g_t^2,\qquad
        \theta_t = \theta_{t-1} - \gamma_t\, \frac{g_t}{\sqrt{s_t} + \epsilon}

    with :math:`\eta` = ``lr_decay`` and :math:`s_0` = ``initial_accumulator_value``. Like
    PyTorch, the state (``step``, ``sum``) is created when the optimizer is, from the
    constructor's ``initial_accumulator_value`` (a group's own value only counts for groups
    added later with ``add_param_group``). The tensor ops are PyTorch's (``addcmul_``,
    ``addcdiv_``), in its order, so the steps are too.
    """

    def __init__(self, params: ParamsT, lr: float = DEFAULT_LR, lr_decay: float = 0, weight_decay: float = 0,
                 initial_accumulator_value: float = 0, eps: float = DEFAULT_EPS, foreach: Optional[bool] = None, *,
                 maximize: bool = False, differentiable: bool = False, fused: Optional[bool] = None) -> None:
        check_non_negative(lr=lr, lr_decay=lr_decay, weight_decay=weight_decay,
                           initial_accumulator_value=initial_accumulator_value, eps=eps)
        check_flags(type(self).__name__, differentiable)
        defaults = {"lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
                    "initial_accumulator_value": initial_accumulator_value, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable, "fused": fused}
        super().__init__(params, defaults)
        # like PyTorch, every parameter given here starts from the constructor's value,
        # even in a group that names its own ``initial_accumulator_value``
        for group in self.param_groups:
            for param in group["params"]:
                self.state[param] = _initial_state(param, initial_accumulator_value)

    def _update(self, param: Tensor, grad: Tensor, state: dict[str, Any], group: ParamGroup) -> None:
        if not state:  # a parameter of a group added after construction
            state.update(_initial_state(param, group["initial_accumulator_value"]))
        # BEGIN SOLUTION 6.4
        grad = directed(grad, group)
        step = next_step(state)
        grad = decayed(param, grad, group)
        step_lr = group["lr"] / (1 + (step - 1) * group["lr_decay"])
        state["sum"].addcmul_(grad, grad, value=1)
        param.addcdiv_(grad, state["sum"].sqrt().add_(group["eps"]), value=-step_lr)
        # END SOLUTION


def _initial_state(param: Tensor, initial_accumulator_value: float) -> dict[str, Any]:
    """Step count 0 and the sum of squared gradients filled with ``initial_accumulator_value``."""
    return {"step": tensor(0.0), "sum": full_like(param, initial_accumulator_value)}

"""AdamW: Adam with the weight decay applied to the parameters, not mixed into the gradient."""

from __future__ import annotations

from typing import Any

from ..tensor import Tensor
from .adam import DEFAULT_BETAS, DEFAULT_EPS, DEFAULT_LR, adam_update, check_adam_options
from .optimizer import Optimizer, ParamGroup, ParamsT

DEFAULT_WEIGHT_DECAY = 1e-2


class AdamW(Optimizer):
    r"""Adam with decoupled weight decay (Loshchilov and Hutter, 2019).

    Each step first shrinks the parameter, :math:`\theta \leftarrow (1 - \gamma\lambda)\,\theta`,
    then takes Adam's step on the raw gradient; the decay is not rescaled by the moment
    estimates as it would be in Adam with ``weight_decay``.
    """

    def __init__(self, params: ParamsT, lr: float = DEFAULT_LR, betas: tuple[float, float] = DEFAULT_BETAS,
                 eps: float = DEFAULT_EPS, weight_decay: float = DEFAULT_WEIGHT_DECAY, amsgrad: bool = False, *,
                 maximize: bool = False) -> None:
        check_adam_options(lr, betas, eps, weight_decay)
        defaults = {"lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": weight_decay,
                    "amsgrad": amsgrad, "maximize": maximize}
        super().__init__(params, defaults)

    def _update(self, param: Tensor, grad: Tensor, state: dict[str, Any], group: ParamGroup) -> None:
        adam_update(param, grad, state, group, decoupled=True)

"""AdamW: Adam with the weight decay applied to the parameters, not mixed into the gradient."""

from __future__ import annotations

from typing import Optional

from .adam import DEFAULT_BETAS, DEFAULT_EPS, DEFAULT_LR, Adam
from .optimizer import ParamsT

DEFAULT_WEIGHT_DECAY = 1e-2


class AdamW(Adam):
    r"""Adam with decoupled weight decay (Loshchilov and Hutter, 2019).

    Each step first shrinks the parameter, :math:`\theta \leftarrow (1 - \gamma\lambda)\,\theta`,
    then takes Adam's step on the raw gradient; the decay is not rescaled by the moment
    estimates as it would be in Adam with ``weight_decay``. (It is ``Adam`` with
    ``decoupled_weight_decay=True`` and a nonzero default decay.)
    """

    def __init__(self, params: ParamsT, lr: float = DEFAULT_LR, betas: tuple[float, float] = DEFAULT_BETAS,
                 eps: float = DEFAULT_EPS, weight_decay: float = DEFAULT_WEIGHT_DECAY, amsgrad: bool = False, *,
                 maximize: bool = False, foreach: Optional[bool] = None, capturable: bool = False,
                 differentiable: bool = False, fused: Optional[bool] = None) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach, maximize=maximize,
                         capturable=capturable, differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)

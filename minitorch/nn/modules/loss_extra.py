"""Modules for the losses of ``functional.loss_extra``: each holds its options and calls the functional loss."""

from __future__ import annotations

from typing import Callable, Optional, Union

from ...tensor import Tensor
from ..functional import loss_extra as L
from ..functional.ctc import Lengths, ctc_loss
from .distance import PairwiseDistance
from .loss import _Loss, _WeightedLoss

__all__ = [
    "CosineEmbeddingLoss", "GaussianNLLLoss", "HingeEmbeddingLoss", "KLDivLoss", "MarginRankingLoss",
    "MultiMarginLoss", "PoissonNLLLoss", "SoftMarginLoss", "TripletMarginLoss", "TripletMarginWithDistanceLoss",
    "CTCLoss",
]


class KLDivLoss(_Loss):
    """Kullback-Leibler divergence of a target distribution from log-probabilities."""

    def __init__(self, size_average: Optional[bool] = None, reduce: Optional[bool] = None, reduction: str = "mean",
                 log_target: bool = False) -> None:
        super().__init__(size_average, reduce, reduction)
        self.log_target = log_target

    def forward(self, input: Tensor, target: Tensor) -> Tensor:  # noqa: A002 - PyTorch's argument name
        return L.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)


class _MarginLoss(_Loss):
    def __init__(self, margin: float, size_average: Optional[bool] = None, reduce: Optional[bool] = None,
                 reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        self.margin = margin


class CosineEmbeddingLoss(_MarginLoss):
    """Pulls pairs with target 1 to the same direction, pushes target -1 pairs below cosine ``margin``."""

    def __init__(self, margin: float = 0.0, size_average: Optional[bool] = None, reduce: Optional[bool] = None,
                 reduction: str = "mean") -> None:
        super().__init__(margin, size_average, reduce, reduction)

    def forward(self, input1: Tensor, input2: Tensor, target: Tensor) -> Tensor:
        return L.cosine_embedding_loss(input1, input2, target, margin=self.margin, reduction=self.reduction)


class MarginRankingLoss(_MarginLoss):
    """Ranks ``input1`` above ``input2`` (target 1) or below (target -1) by at least ``margin``."""

    def __init__(self, margin: float = 0.0, size_average: Optional[bool] = None, reduce: Optional[bool] = None,
                 reduction: str = "mean") -> None:
        super().__init__(margin, size_average, reduce, reduction)

    def forward(self, input1: Tensor, input2: Tensor, target: Tensor) -> Tensor:
        return L.margin_ranking_loss(input1, input2, target, margin=self.margin, reduction=self.reduction)


class HingeEmbeddingLoss(_MarginLoss):
    """A distance where the target is 1, its shortfall from ``margin`` where it is -1."""

    def __init__(self, margin: float = 1.0, size_average: Optional[bool] = None, reduce: Optional[bool] = None,
                 reduction: str = "mean") -> None:
        super().__init__(margin, size_average, reduce, reduction)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:  # noqa: A002
        return L.hinge_embedding_loss(input, target, margin=self.margin, reduction=self.reduction)


class TripletMarginLoss(_MarginLoss):
    """The anchor nearer its positive than its negative by ``margin`` (``p``-norm distances)."""

    def __init__(self, margin: float = 1.0, p: float = 2.0, eps: float = 1e-6, swap: bool = False,
                 size_average: Optional[bool] = None, reduce: Optional[bool] = None, reduction: str = "mean") -> None:
        super().__init__(margin, size_average, reduce, reduction)
        if margin <= 0:
            raise ValueError(f"TripletMarginLoss: expected margin to be greater than 0, got {margin} instead")
        self.p = p
        self.eps = eps
        self.swap = swap

    def forward(self, anchor: Tensor, positive: Tensor, negative: Tensor) -> Tensor:
        return L.triplet_margin_loss(anchor, positive, negative, margin=self.margin, p=self.p, eps=self.eps,
                                     swap=self.swap, reduction=self.reduction)


class TripletMarginWithDistanceLoss(_Loss):
    """The anchor nearer its positive than its negative by ``margin`` under any ``distance_function``
    (by default a :class:`PairwiseDistance`, which then shows as a submodule)."""

    def __init__(self, *, distance_function: Optional[Callable[[Tensor, Tensor], Tensor]] = None, margin: float = 1.0,
                 swap: bool = False, reduction: str = "mean") -> None:
        super().__init__(None, None, reduction)
        if margin <= 0:
            raise ValueError(f"TripletMarginWithDistanceLoss: expected margin to be greater than 0, got {margin} instead")
        self.distance_function = PairwiseDistance() if distance_function is None else distance_function
        self.margin = margin
        self.swap = swap

    def forward(self, anchor: Tensor, positive: Tensor, negative: Tensor) -> Tensor:
        return L.triplet_margin_with_distance_loss(anchor, positive, negative, distance_function=self.distance_function,
                                                   margin=self.margin, swap=self.swap, reduction=self.reduction)


class SoftMarginLoss(_Loss):
    r"""Logistic loss :math:`\log(1 + e^{-yx})` of :math:`\pm 1` targets."""

    def forward(self, input: Tensor, target: Tensor) -> Tensor:  # noqa: A002
        return L.soft_margin_loss(input, target, reduction=self.reduction)


class MultiMarginLoss(_WeightedLoss):
    """Multi-class hinge loss of class-index targets."""

    def __init__(self, p: int = 1, margin: float = 1.0, weight: Optional[Tensor] = None,
                 size_average: Optional[bool] = None, reduce: Optional[bool] = None, reduction: str = "mean") -> None:
        super().__init__(weight, size_average, reduce, reduction)
        if p not in (1, 2):
            raise ValueError("only p == 1 and p == 2 supported")
        if weight is not None and weight.dim() != 1:
            raise ValueError(f"MultiMarginLoss: expected weight to be None or 1D tensor, got {weight.dim()}D instead")
        self.p = p
        self.margin = margin

    def forward(self, input: Tensor, target: Tensor) -> Tensor:  # noqa: A002
        return L.multi_margin_loss(input, target, p=self.p, margin=self.margin, weight=self.weight,
                                   reduction=self.reduction)


class PoissonNLLLoss(_Loss):
    """Negative log-likelihood of counts under a Poisson distribution."""

    def __init__(self, log_input: bool = True, full: bool = False, size_average: Optional[bool] = None,
                 eps: float = 1e-8, reduce: Optional[bool] = None, reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        self.log_input = log_input
        self.full = full
        self.eps = eps

    def forward(self, log_input: Tensor, target: Tensor) -> Tensor:
        return L.poisson_nll_loss(log_input, target, log_input=self.log_input, full=self.full, eps=self.eps,
                                  reduction=self.reduction)


class GaussianNLLLoss(_Loss):
    """Negative log-likelihood of targets under Gaussians of predicted mean and variance."""

    def __init__(self, *, full: bool = False, eps: float = 1e-6, reduction: str = "mean") -> None:
        super().__init__(None, None, reduction)
        self.full = full
        self.eps = eps

    def forward(self, input: Tensor, target: Tensor, var: Union[Tensor, float]) -> Tensor:  # noqa: A002
        return L.gaussian_nll_loss(input, target, var, full=self.full, eps=self.eps, reduction=self.reduction)


class CTCLoss(_Loss):
    """Connectionist temporal classification loss of ``(T, N, C)`` log-probabilities (see ``F.ctc_loss``)."""

    def __init__(self, blank: int = 0, reduction: str = "mean", zero_infinity: bool = False) -> None:
        super().__init__(reduction=reduction)
        self.blank = blank
        self.zero_infinity = zero_infinity

    def forward(self, log_probs: Tensor, targets: Tensor, input_lengths: Lengths, target_lengths: Lengths) -> Tensor:
        return ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank, self.reduction, self.zero_infinity)

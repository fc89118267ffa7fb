"""Modules for the multi-label losses of ``functional.loss_multilabel``."""

from __future__ import annotations

from ...tensor import Tensor
from ..functional import loss_multilabel as L
from .loss import _Loss, _WeightedLoss

__all__ = ["MultiLabelMarginLoss", "MultiLabelSoftMarginLoss"]


class MultiLabelSoftMarginLoss(_WeightedLoss):
    """Logistic loss per class of 0/1 multi-label targets, averaged over the classes."""

    def forward(self, input: Tensor, target: Tensor) -> Tensor:  # noqa: A002 - PyTorch's argument name
        return L.multilabel_soft_margin_loss(input, target, weight=self.weight, reduction=self.reduction)


class MultiLabelMarginLoss(_Loss):
    """Hinge between each listed target class and each other class (targets end with -1)."""

    def forward(self, input: Tensor, target: Tensor) -> Tensor:  # noqa: A002
        return L.multilabel_margin_loss(input, target, reduction=self.reduction)

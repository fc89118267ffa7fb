r"""Losses of multi-label classification: every sample may belong to several classes at once.

``multilabel_soft_margin_loss`` is a logistic loss per class (0/1 targets), averaged over the
classes; ``multilabel_margin_loss`` is a hinge between each target class and each other class,
its targets a list of class indices ended by -1. ``reduction`` is ``'none'`` (one loss per
sample), ``'mean'`` or ``'sum'``.
"""

from __future__ import annotations

from functools import partial
from typing import Optional

from ... import dtypes
from ...autocast_state import runs_in_full_precision
from ...autograd.composite import composite
from ...creation import arange
from ...tensor import Tensor, where
from ._utils import reduce_loss, shape_list
from .activation_extra import logsigmoid
from .loss import _legacy_reduction, checked_reduction

#: the index that ends a sample's list of target classes in ``multilabel_margin_loss``
END_OF_TARGETS = -1
#: the input dtypes PyTorch's ``multilabel_margin_loss`` computes in
MARGIN_DTYPES = (dtypes.float32, dtypes.float64)


@runs_in_full_precision
def multilabel_soft_margin_loss(input: Tensor, target: Tensor, weight: Optional[Tensor] = None,  # noqa: A002
                                size_average: Optional[bool] = None, reduce: Optional[bool] = None,
                                reduction: str = "mean") -> Tensor:
    r"""Logistic loss per class, each weighted by ``weight`` and averaged over the :math:`C` classes:

    .. math:: -\frac1C \sum_c w_c \left(y_c \log \sigma(x_c) + (1 - y_c) \log \sigma(-x_c)\right)
    """
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce, reduction)
    losses = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        losses = losses * weight
    class_dim = input.dim() - 1
    losses = losses.sum(dim=class_dim) / input.size(class_dim)
    if reduction == "none":
        return losses
    if reduction == "mean":
        return losses.mean()
    if reduction == "sum":
        return losses.sum()
    raise ValueError(reduction + " is not valid")


@runs_in_full_precision
def multilabel_margin_loss(input: Tensor, target: Tensor, size_average: Optional[bool] = None,  # noqa: A002
                           reduce: Optional[bool] = None, reduction: str = "mean") -> Tensor:
    r"""Hinge between every target class :math:`j` and every non-target class :math:`i`:

    .. math:: \frac1C \sum_{j \in y} \sum_{i \notin y} \max(0, 1 - (x_j - x_i))

    ``target`` has ``input``'s shape and lists a sample's classes first, then -1 (what follows a
    -1 is ignored); a class listed twice counts twice, as in PyTorch.
    """
    reduction = checked_reduction(size_average, reduce, reduction)
    classes = _check_margin_shapes(input, target)
    if target.numel() and (int(target.min().item()) < END_OF_TARGETS or int(target.max().item()) >= classes):
        raise RuntimeError("argument #2 'target' is out of range")
    if input.dtype not in MARGIN_DTYPES:
        raise NotImplementedError('"multilabel_margin_loss_forward_out_frame" not implemented for '
                                  f"'{dtypes.scalar_type_name(input.dtype)}'")
    if target.dtype is not dtypes.int64:
        raise RuntimeError(f"expected scalar type Long but found {dtypes.scalar_type_name(target.dtype)}")
    fn = partial(_multilabel_margin_loss, target=target, classes=classes, reduction=reduction)
    return composite("MultilabelMarginLossBackward0", fn, input, saves=(input, target),
                     backward_op="multilabel_margin_loss_backward")


def _check_margin_shapes(input: Tensor, target: Tensor) -> int:  # noqa: A002
    """PyTorch's shape checks; the number of classes."""
    dim = input.dim()
    if not (dim == 0 or (dim in (1, 2) and input.shape[-1] != 0)):
        raise RuntimeError("Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{shape_list(input.shape)}")
    classes = input.shape[-1] if dim else 1
    if dim <= 1:
        consistent = target.dim() <= 1 and target.numel() == classes
    else:
        consistent = target.dim() == 2 and tuple(target.shape) == tuple(input.shape)
    if not consistent:
        raise RuntimeError(f"inconsistent target size: {shape_list(target.shape)} for input of size: "
                           f"{shape_list(input.shape)}")
    return classes


def _multilabel_margin_loss(input: Tensor, target: Tensor, classes: int, reduction: str) -> Tensor:  # noqa: A002
    scores = input.reshape(-1, classes)
    listed = target.reshape(-1, classes)
    before_end = (listed == END_OF_TARGETS).long().cumsum(1) == 0
    # times[n, c]: how often class c is listed before the first -1 of sample n
    times = (listed.clamp_min(0).unsqueeze(-1) == _class_ids(classes, input)).logical_and(before_end.unsqueeze(-1))
    times = times.to(input.dtype).sum(1)
    others = times == 0
    # hinge[n, j, i] = 1 - (x_j - x_i), counted where it is positive (no gradient at exactly 0)
    hinge = 1 - scores.unsqueeze(-1) + scores.unsqueeze(1)
    hinge = where(hinge > 0, hinge, 0.0)
    losses = (times.unsqueeze(-1) * where(others.unsqueeze(1), hinge, 0.0)).sum((1, 2)) / classes
    if input.dim() < 2:
        losses = losses.reshape(())
    return reduce_loss(losses, reduction)


def _class_ids(classes: int, like: Tensor) -> Tensor:
    """``0 .. classes-1`` shaped to broadcast against a (samples, listed, 1) index tensor."""
    return arange(classes, device=like.device).view(1, 1, classes)


__all__ = ["multilabel_margin_loss", "multilabel_soft_margin_loss"]

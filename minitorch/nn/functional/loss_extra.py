r"""More loss functions: divergences, margin and embedding losses, and likelihoods of counts and Gaussians.

Each is written from tensor ops, so autograd differentiates it; the two that PyTorch
computes as one op (``soft_margin_loss``, ``multi_margin_loss``) are recorded as one node.
``reduction`` is ``'none'``, ``'mean'`` or ``'sum'`` as for the other losses.
"""

from __future__ import annotations

import math
import warnings
from functools import partial
from typing import Callable, Optional, Union

from ... import dtypes
from ...autograd.composite import composite
from ...autograd.grad_mode import no_grad
from ...creation import arange, ones_like
from ...ops.indexing import Gather
from ...ops.numpy_like import xlogy
from ...tensor import Tensor, where
from ._utils import check_reduction, reduce_loss, shape_list
from .loss import _legacy_reduction, _refuse_grad, checked_reduction
from ...autocast_state import runs_in_full_precision

#: ``cosine_embedding_loss`` adds this to each squared length, so a zero vector has a cosine
COSINE_EPS = 1e-12
KL_MEAN_WARNING = (
    "reduction: 'mean' divides the total loss by both the batch size and the support size."
    "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
    "'mean' will be changed to behave the same as 'batchmean' in the next major release."
)


@runs_in_full_precision
def kl_div(input: Tensor, target: Tensor, size_average: Optional[bool] = None,  # noqa: A002 - PyTorch's name
           reduce: Optional[bool] = None, reduction: str = "mean", log_target: bool = False) -> Tensor:
    r"""Kullback-Leibler divergence of ``target`` :math:`q` from the log-probabilities ``input``:

    .. math:: q\,(\log q - x) \quad\text{or, with log\_target,}\quad e^{t}\,(t - x)

    ``'batchmean'`` divides the sum by the batch size (the divergence per sample). Where
    :math:`q = 0` the term is 0, and its gradient in :math:`q` is NaN, as PyTorch's
    (:math:`q \log q` is its ``xlogy(q, q)``, whose gradient in the second ``q`` is :math:`q / q`).
    """
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce, reduction)
    elif reduction == "mean":
        warnings.warn(KL_MEAN_WARNING, stacklevel=2)
    inner = "sum" if reduction == "batchmean" else reduction
    check_reduction(inner)
    if not (input.dtype.is_floating_point and target.dtype.is_floating_point):
        raise RuntimeError("kl_div: Integral inputs not supported.")
    if log_target:
        losses = target.exp() * (target - input)
    else:
        losses = xlogy(target, target) - target * input
    reduced = reduce_loss(losses, inner)
    if reduction == "batchmean" and input.dim() != 0:
        return reduced / input.shape[0]
    return reduced


@runs_in_full_precision
def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0,
                          size_average: Optional[bool] = None, reduce: Optional[bool] = None,
                          reduction: str = "mean") -> Tensor:
    r""":math:`1 - \cos(x_1, x_2)` where the target is 1, :math:`\max(0, \cos(x_1, x_2) - m)` where it is -1."""
    reduction = checked_reduction(size_average, reduce, reduction)
    dim = target.dim()
    if dim not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if input1.dim() != dim + 1 or input2.dim() != dim + 1:
        raise RuntimeError(f"{dim}D target tensor expects {dim + 1}D input tensors, but found inputs with sizes "
                           f"{shape_list(input1.shape)} and {shape_list(input2.shape)}.")
    dot = (input1 * input2).sum(dim)
    length2 = ((input1 * input1).sum(dim) + COSINE_EPS) * ((input2 * input2).sum(dim) + COSINE_EPS)
    cos = dot / length2.sqrt()
    losses = where(target == 1, 1.0 - cos, 0.0) + where(target == -1, (cos - margin).clamp_min(0), 0.0)
    return reduce_loss(losses, reduction)


@runs_in_full_precision
def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0,
                        size_average: Optional[bool] = None, reduce: Optional[bool] = None,
                        reduction: str = "mean") -> Tensor:
    r""":math:`\max(0, -y\,(x_1 - x_2) + m)`: ``input1`` should rank above ``input2`` where :math:`y = 1`."""
    reduction = checked_reduction(size_average, reduce, reduction)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
                           f"input1: {input1.size()}, input2: {input2.size()}, target: {target.size()} ")
    return reduce_loss((-target * (input1 - input2) + margin).clamp_min(0), reduction)


def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> Tensor:
    r""":math:`\|x_1 - x_2 + \epsilon\|_p` along the last dimension."""
    return (x1 - x2 + eps).norm(p, -1, keepdim)


@runs_in_full_precision
def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0, p: float = 2,
                        eps: float = 1e-6, swap: bool = False, size_average: Optional[bool] = None,
                        reduce: Optional[bool] = None, reduction: str = "mean") -> Tensor:
    r""":math:`\max(0, d(a, p) - d(a, n) + m)` with :math:`d` the ``p``-norm distance; ``swap`` uses
    :math:`\min(d(a, n), d(p, n))` for the negative distance."""
    reduction = checked_reduction(size_average, reduce, reduction)
    return _triplet_loss(anchor, positive, negative, partial(pairwise_distance, p=p, eps=eps), margin, swap, reduction)


def _triplet_loss(anchor: Tensor, positive: Tensor, negative: Tensor, distance: Callable[[Tensor, Tensor], Tensor],
                  margin: float, swap: bool, reduction: str) -> Tensor:
    """The triplet hinge under any ``distance``, after PyTorch's checks of the margin and the ranks."""
    check_reduction(reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    dims = (anchor.dim(), positive.dim(), negative.dim())
    if len(set(dims)) != 1:
        raise RuntimeError("The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {dims[0]}D, positive {dims[1]}D, and negative {dims[2]}D "
                           "inputs")
    to_positive = distance(anchor, positive)
    to_negative = distance(anchor, negative)
    if swap:
        to_negative = to_negative.minimum(distance(positive, negative))
    return reduce_loss((margin + to_positive - to_negative).clamp_min(0), reduction)


def triplet_margin_with_distance_loss(anchor: Tensor, positive: Tensor, negative: Tensor, *,
                                      distance_function: Optional[Callable[[Tensor, Tensor], Tensor]] = None,
                                      margin: float = 1.0, swap: bool = False, reduction: str = "mean") -> Tensor:
    r""":math:`\max(0, d(a, p) - d(a, n) + m)` with :math:`d` any ``distance_function`` (default
    :func:`pairwise_distance`); ``swap`` uses :math:`\min(d(a, n), d(p, n))` for the negative distance."""
    distance = pairwise_distance if distance_function is None else distance_function
    return _triplet_loss(anchor, positive, negative, distance, margin, swap, reduction)


@runs_in_full_precision
def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0,  # noqa: A002
                         size_average: Optional[bool] = None, reduce: Optional[bool] = None,
                         reduction: str = "mean") -> Tensor:
    r""":math:`x` where the target is 1, :math:`\max(0, m - x)` where it is -1 (``input`` a distance)."""
    reduction = checked_reduction(size_average, reduce, reduction)
    losses = where(target != 1, (margin - input).clamp_min(0), 0.0) + where(target != -1, input, 0.0)
    return reduce_loss(losses, reduction)


@runs_in_full_precision
def soft_margin_loss(input: Tensor, target: Tensor, size_average: Optional[bool] = None,  # noqa: A002
                     reduce: Optional[bool] = None, reduction: str = "mean") -> Tensor:
    r"""Logistic loss of a :math:`\pm 1` target: :math:`\log(1 + e^{-y x})`."""
    reduction = checked_reduction(size_average, reduce, reduction)
    _refuse_grad("soft_margin_loss", target=target)
    return composite("SoftMarginLossBackward0", partial(_soft_margin_loss, reduction=reduction), input, target)


def _soft_margin_loss(input: Tensor, target: Tensor, reduction: str) -> Tensor:  # noqa: A002
    return reduce_loss((-input * target).exp().log1p(), reduction)


@runs_in_full_precision
def multi_margin_loss(input: Tensor, target: Tensor, p: int = 1, margin: float = 1.0,  # noqa: A002
                      weight: Optional[Tensor] = None, size_average: Optional[bool] = None,
                      reduce: Optional[bool] = None, reduction: str = "mean") -> Tensor:
    r"""Multi-class hinge loss of class-index targets :math:`y` over ``(N, C)`` scores:

    .. math:: \frac1C \sum_{j \ne y} w_y \max(0, m - x_y + x_j)^p
    """
    reduction = checked_reduction(size_average, reduce, reduction)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    if input.dim() > 2 or (input.dim() == 2 and input.shape[1] == 0):
        raise RuntimeError("Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{shape_list(input.shape)}")
    rows = input.shape[0] if input.dim() == 2 else 1
    classes = input.shape[-1] if input.dim() else 1
    if target.dim() > 1 or target.numel() != rows:
        raise RuntimeError("multi_margin_loss: target tensor should be 1-D with size equal to the number of input "
                           f"samples (batch size). Expected target size [{rows}], but got {shape_list(target.shape)}. "
                           f"Input has shape {shape_list(input.shape)}.")
    if weight is not None and weight.numel() != classes:
        raise RuntimeError(f"inconsistent weight size, expected {classes} but got {shape_list(weight.shape)}")
    if target.dtype is not dtypes.int64:
        raise RuntimeError(f"expected scalar type Long but found {dtypes.scalar_type_name(target.dtype)}")
    if target.numel() and (int(target.min().item()) < 0 or int(target.max().item()) >= classes):
        raise RuntimeError("target out of range")
    _refuse_grad("multi_margin_loss", weight=weight)
    return composite("MultiMarginLossBackward0", partial(_multi_margin_loss, target=target, p=p, margin=margin,
                                                         weight=weight, reduction=reduction), input,
                     saves=(input, target, weight), backward_op="multi_margin_loss_backward")


def _multi_margin_loss(input: Tensor, target: Tensor, p: int, margin: float,  # noqa: A002
                       weight: Optional[Tensor], reduction: str) -> Tensor:
    scores = input.reshape(-1, input.shape[-1] if input.dim() else 1)
    index = target.reshape(-1, 1).long()
    hinge = (margin - Gather.apply(scores, 1, index) + scores).clamp_min(0)
    if p == 2:
        hinge = hinge * hinge
    if weight is not None:
        hinge = hinge * Gather.apply(weight, 0, index.view(-1)).view(-1, 1)
    own_class = arange(scores.shape[1], device=scores.device).view(1, -1) == index
    losses = where(own_class, 0.0, hinge).sum(1) / scores.shape[1]
    if reduction == "none":
        return losses.view(target.shape)
    return reduce_loss(losses, reduction)


@runs_in_full_precision
def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool = True, full: bool = False,  # noqa: A002
                     size_average: Optional[bool] = None, eps: float = 1e-8, reduce: Optional[bool] = None,
                     reduction: str = "mean") -> Tensor:
    r"""Negative log-likelihood of counts :math:`y` under a Poisson of rate :math:`\lambda`:

    .. math:: \lambda - y \log \lambda, \qquad \lambda = e^{x} \text{ (log\_input) or } x

    (:math:`\log(x + \epsilon)` when not ``log_input``); ``full`` adds Stirling's approximation
    :math:`y \log y - y + \tfrac12 \log(2\pi y)` of :math:`\log y!` where :math:`y > 1`.
    """
    reduction = checked_reduction(size_average, reduce, reduction)
    if log_input:
        losses = input.exp() - target * input
    else:
        losses = input - target * (input + eps).log()
    if full:
        stirling = target * target.log() - target + 0.5 * (2 * math.pi * target).log()
        losses = losses + where(target <= 1, 0.0, stirling)
    return reduce_loss(losses, reduction)


@runs_in_full_precision
def gaussian_nll_loss(input: Tensor, target: Tensor, var: Union[Tensor, float], full: bool = False,  # noqa: A002
                      eps: float = 1e-6, reduction: str = "mean") -> Tensor:
    r"""Negative log-likelihood of ``target`` under :math:`\mathcal N(\text{input}, \text{var})`:

    .. math:: \tfrac12 \left(\log \max(\sigma^2, \epsilon) + \frac{(x - y)^2}{\max(\sigma^2, \epsilon)}\right)

    plus :math:`\tfrac12 \log 2\pi` when ``full``. The clamp at :math:`\epsilon` is not
    differentiated (the gradient reaches ``var`` as if unclamped). ``var`` may have one
    dimension fewer than ``input``, or a 1 in one place, or be a float.
    """
    if isinstance(var, (int, float)):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * ones_like(input)
    elif var.numel() and bool((var < 0).any().item()):
        raise ValueError("var has negative entry/entries")
    if var.shape != input.shape:
        if tuple(input.shape[:-1]) == tuple(var.shape):
            var = var.unsqueeze(-1)
        elif not (input.dim() == var.dim()
                  and sum(v for i, v in zip(input.shape, var.shape) if i != v) == 1):
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    var = var.clone()
    with no_grad():
        var.clamp_(min=eps)
    diff = input - target
    losses = 0.5 * (var.log() + diff * diff / var)
    if full:
        losses = losses + 0.5 * math.log(2 * math.pi)
    return reduce_loss(losses, reduction)


__all__ = [
    "cosine_embedding_loss", "gaussian_nll_loss", "hinge_embedding_loss", "kl_div", "margin_ranking_loss",
    "multi_margin_loss", "pairwise_distance", "poisson_nll_loss", "soft_margin_loss", "triplet_margin_loss",
    "triplet_margin_with_distance_loss",
]

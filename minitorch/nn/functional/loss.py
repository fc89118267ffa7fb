r"""Loss functions: how far a prediction is from its target, one number per element or reduced.

``reduction`` is ``'none'`` (a loss per element), ``'mean'`` or ``'sum'``. The legacy
``size_average``/``reduce`` flags are accepted and mapped as PyTorch maps them.

Classification losses work on log-probabilities :math:`\log p = \mathrm{log\_softmax}(x)`:

.. math:: \mathrm{nll}(\log p, y) = -w_y \log p_y, \qquad
   \mathrm{cross\_entropy}(x, y) = \mathrm{nll}(\mathrm{log\_softmax}(x), y)

and with class weights the ``'mean'`` divides by the total weight of the counted targets.
"""

from __future__ import annotations

import warnings
from functools import partial
from typing import Optional

from ... import dtypes
from ...autograd.composite import composite
from ...autograd.grad_mode import is_grad_enabled
from ...ops.indexing import Gather
from ...ops.losses import CrossEntropy
from ...tensor import Tensor, where
from ...tensor_data import shape_broadcast
from ._utils import check_reduction, reduce_loss
from .activation import log_softmax, softplus
from ...autocast_state import runs_in_full_precision

DEFAULT_IGNORE_INDEX = -100
#: ``binary_cross_entropy`` clamps each log term at this value, so a 0 or 1 input stays finite
LOG_CLAMP = -100.0


def _legacy_reduction(size_average: Optional[bool], reduce: Optional[bool], reduction: str) -> str:
    """PyTorch's mapping of the deprecated ``size_average``/``reduce`` flags to ``reduction``."""
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    if not reduce:
        legacy = "none"
    else:
        legacy = "mean" if size_average else "sum"
    warnings.warn(f"size_average and reduce args will be deprecated, please use reduction='{legacy}' instead.",
                  stacklevel=3)
    return legacy


def checked_reduction(size_average: Optional[bool], reduce: Optional[bool], reduction: str) -> str:
    """``reduction`` after the legacy flags, checked (PyTorch's error for an unknown one)."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    check_reduction(reduction)
    return reduction


def _refuse_grad(function: str, **constants: Optional[Tensor]) -> None:
    """PyTorch's error for a weight that requires grad: these losses are not differentiable in it."""
    for name, value in constants.items():
        if value is not None and value.requires_grad and is_grad_enabled():
            raise RuntimeError(f"The function '{function}' is not differentiable with respect to argument '{name}'. "
                               "This input cannot have requires_grad True.")


def _check_same_size(input: Tensor, target: Tensor) -> None:  # noqa: A002 - PyTorch's name
    if target.shape != input.shape:
        raise ValueError(
            f"Using a target size ({target.shape}) that is different to the input size ({input.shape}) is deprecated. "
            "Please ensure they have the same size."
        )


def _check_probabilities(values: Tensor, name: str) -> None:
    """PyTorch's error unless every element is in [0, 1] (a NaN is outside)."""
    if values.numel():
        values = values.detach()
        low, high = float(values.min().item()), float(values.max().item())  # NaN wins both
        if not (0.0 <= low and high <= 1.0):
            raise RuntimeError(f"all elements of {name} should be between 0 and 1")


def _check_fits(weight: Tensor, input: Tensor) -> None:  # noqa: A002
    """A per-element ``weight`` must broadcast to the input's shape, not grow it."""
    broadcast = shape_broadcast(tuple(weight.shape), tuple(input.shape))
    if broadcast != tuple(input.shape):
        raise RuntimeError(f"output with shape {list(input.shape)} doesn't match the broadcast shape {list(broadcast)}")


@runs_in_full_precision
def mse_loss(input: Tensor, target: Tensor, size_average: Optional[bool] = None, reduce: Optional[bool] = None,  # noqa: A002
             reduction: str = "mean") -> Tensor:
    r"""Squared error :math:`(x - y)^2`."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    return composite("MseLossBackward0", _mse_loss, input, target, reduction)


def _mse_loss(input: Tensor, target: Tensor, reduction: str) -> Tensor:  # noqa: A002
    # BEGIN SOLUTION 5.8
    diff = input - target
    return reduce_loss(diff * diff, reduction)
    # END SOLUTION


@runs_in_full_precision
def l1_loss(input: Tensor, target: Tensor, size_average: Optional[bool] = None, reduce: Optional[bool] = None,  # noqa: A002
            reduction: str = "mean") -> Tensor:
    r"""Absolute error :math:`|x - y|`."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    # BEGIN SOLUTION 5.8
    return reduce_loss((input - target).abs(), reduction)
    # END SOLUTION


@runs_in_full_precision
def smooth_l1_loss(input: Tensor, target: Tensor, size_average: Optional[bool] = None, reduce: Optional[bool] = None,  # noqa: A002
                   reduction: str = "mean", beta: float = 1.0) -> Tensor:
    r""":math:`\tfrac12 d^2/\beta` where :math:`|d| < \beta`, else :math:`|d| - \tfrac12\beta` (:math:`d = x - y`)."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    return composite("SmoothL1LossBackward0", _smooth_l1_loss, input, target, reduction, beta)


def _smooth_l1_loss(input: Tensor, target: Tensor, reduction: str, beta: float) -> Tensor:  # noqa: A002
    diff = (input - target).abs()
    if beta == 0.0:
        return reduce_loss(diff, reduction)
    quadratic = diff < beta
    near = where(quadratic | (diff != diff), diff, 0.0)  # no 0 * inf in the gradient; NaN stays NaN
    return reduce_loss(where(quadratic, 0.5 * near * near / beta, diff - 0.5 * beta), reduction)


@runs_in_full_precision
def huber_loss(input: Tensor, target: Tensor, reduction: str = "mean", delta: float = 1.0) -> Tensor:  # noqa: A002
    r""":math:`\tfrac12 d^2` where :math:`|d| < \delta`, else :math:`\delta(|d| - \tfrac12\delta)`."""
    return composite("HuberLossBackward0", _huber_loss, input, target, reduction, delta)


def _huber_loss(input: Tensor, target: Tensor, reduction: str, delta: float) -> Tensor:  # noqa: A002
    diff = (input - target).abs()
    quadratic = diff < delta
    near = where(quadratic | (diff != diff), diff, 0.0)  # no 0 * inf in the gradient; NaN stays NaN
    return reduce_loss(where(quadratic, 0.5 * near * near, delta * (diff - 0.5 * delta)), reduction)


def _classes_last(input: Tensor) -> Tensor:  # noqa: A002
    """``(N, C, d1, ...)`` as ``(N * d1 * ..., C)``; a single ``(C,)`` sample as ``(1, C)``."""
    if input.dim() == 1:
        return input.view(1, -1)
    if input.dim() == 2:
        return input
    order = (0,) + tuple(range(2, input.dim())) + (1,)
    return input.permute(*order).reshape(-1, input.shape[1])


def _check_targets(input: Tensor, target: Tensor) -> None:  # noqa: A002
    """PyTorch's errors for class-index targets whose batch or spatial shape doesn't fit."""
    if input.dim() == 0:
        raise ValueError("Expected input to have at least 1 dimension, but got 0")
    if input.dim() == 1:
        if target.dim() != 0:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        return
    if input.dim() == 2 and target.dim() > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if target.dim() == 0 or input.shape[0] != target.shape[0]:
        raise ValueError(
            f"Expected input batch_size ({input.shape[0]}) to match target batch_size ({target.shape[0] if target.dim() else 0})."
        )
    expected = (input.shape[0],) + tuple(input.shape[2:])
    if tuple(target.shape) != expected:
        raise RuntimeError(f"Expected target size {list(expected)}, got {list(target.shape)}")


def _check_class_weight(weight: Optional[Tensor], classes: int, input_dim: int, prefix: str = "") -> None:
    """PyTorch's error for class weights that are not a vector of one weight per class."""
    if weight is None or (weight.dim() == 1 and weight.numel() == classes):
        return
    if input_dim > 2 and not prefix:  # PyTorch's N-d loss words it without the sizes
        raise RuntimeError("weight tensor should be defined either for all or no classes")
    raise RuntimeError(
        f"{prefix}weight tensor should be defined either for all {classes} classes or no classes but got weight "
        f"tensor of shape: {list(weight.shape)}"
    )


@runs_in_full_precision
def nll_loss(input: Tensor, target: Tensor, weight: Optional[Tensor] = None, size_average: Optional[bool] = None,  # noqa: A002
             ignore_index: int = DEFAULT_IGNORE_INDEX, reduce: Optional[bool] = None, reduction: str = "mean") -> Tensor:
    r"""Negative log-likelihood :math:`-w_y \log p_y` of class-index targets, given log-probabilities
    of shape ``(N, C)``, ``(C,)`` or ``(N, C, d1, ...)`` (classes along dimension 1)."""
    reduction = checked_reduction(size_average, reduce, reduction)
    _check_targets(input, target)
    if target.dtype not in (dtypes.int64, dtypes.uint8):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {dtypes.scalar_type_name(target.dtype)}")
    classes = input.shape[0] if input.dim() == 1 else input.shape[1]
    _check_class_weight(weight, classes, input.dim())
    _refuse_grad("nll_loss_forward", weight=weight)
    return composite("NllLossBackward0", partial(_nll_loss, target=target, weight=weight, ignore_index=ignore_index,
                                                 reduction=reduction, classes=classes), input,
                     saves=(input, target, weight))


def _nll_loss(input: Tensor, target: Tensor, weight: Optional[Tensor], ignore_index: int,  # noqa: A002
              reduction: str, classes: int) -> Tensor:
    # BEGIN SOLUTION 5.8
    flat_target = target.reshape(-1).long()
    ignored = flat_target == ignore_index
    safe = where(ignored, 0, flat_target)
    if safe.numel():
        low, high = int(safe.min().item()), int(safe.max().item())
        if low < 0 or high >= classes:
            raise IndexError(f"Target {low if low < 0 else high} is out of bounds.")
    picked = Gather.apply(_classes_last(input), 1, safe.view(-1, 1)).view(-1)
    weights = where(ignored, 0.0, 1.0).to(input.dtype)
    if weight is not None:
        weights = weights * Gather.apply(weight, 0, safe)
    losses = where(ignored, 0.0, -picked * weights)  # an ignored target gets no gradient, even when all are
    if reduction == "none":
        return losses.view(target.shape)
    if reduction == "sum":
        return losses.sum()
    return losses.sum() / weights.sum()
    # END SOLUTION


@runs_in_full_precision
def cross_entropy(input: Tensor, target: Tensor, weight: Optional[Tensor] = None, size_average: Optional[bool] = None,  # noqa: A002
                  ignore_index: int = DEFAULT_IGNORE_INDEX, reduce: Optional[bool] = None, reduction: str = "mean",
                  label_smoothing: float = 0.0) -> Tensor:
    r"""Cross-entropy of logits ``input`` (classes along dimension 1) with class indices or class probabilities.

    With ``label_smoothing`` :math:`\varepsilon` the target is mixed with the uniform
    distribution: :math:`(1 - \varepsilon)\,\mathrm{target} + \varepsilon / C`.
    """
    reduction = checked_reduction(size_average, reduce, reduction)
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    class_dim = 0 if input.dim() == 1 else 1
    classes = input.shape[class_dim]
    _check_class_weight(weight, classes, input.dim(), "cross_entropy: " if target.dtype.is_floating_point else "")
    weight_view = None if weight is None else weight.view(-1, *(1,) * (input.dim() - class_dim - 1))
    # BEGIN SOLUTION 5.8
    if (weight is None and label_smoothing == 0.0 and input.dim() == 2 and input.dtype.is_floating_point
            and target.dim() == 1 and target.shape[0] == input.shape[0] and target.dtype is dtypes.int64):
        return CrossEntropy.apply(input, target, ignore_index, reduction)  # the common case, as one node
    log_p = log_softmax(input, class_dim)
    if target.dtype.is_floating_point and target.shape == input.shape:  # class probabilities
        if ignore_index != DEFAULT_IGNORE_INDEX:
            raise RuntimeError("ignore_index is not supported for floating point target")
        if label_smoothing > 0.0:
            target = target * (1.0 - label_smoothing) + label_smoothing / classes
        weighted = log_p * target if weight_view is None else log_p * target * weight_view
        losses = -weighted.sum(class_dim)
        if reduction == "none":
            return losses
        total = losses.sum()
        return total / (input.numel() // classes) if reduction == "mean" else total
    loss = nll_loss(log_p, target, weight, None, ignore_index, None, reduction)
    if label_smoothing == 0.0:
        return loss
    # the uniform part: -sum_c w_c log p_c per target, ignored targets left out
    smooth = -(log_p if weight_view is None else log_p * weight_view).sum(class_dim)
    kept = target != ignore_index
    smooth = where(kept, smooth, 0.0)
    if reduction == "mean":
        flat = target.reshape(-1).long()
        if weight is None:
            smooth = smooth.sum() / kept.sum()
        else:
            counted = where(flat == ignore_index, 0, flat)
            smooth = smooth.sum() / where(kept.reshape(-1), Gather.apply(weight, 0, counted), 0.0).sum()
    elif reduction == "sum":
        smooth = smooth.sum()
    return (1.0 - label_smoothing) * loss + (label_smoothing / classes) * smooth
    # END SOLUTION


@runs_in_full_precision
def binary_cross_entropy(input: Tensor, target: Tensor, weight: Optional[Tensor] = None,  # noqa: A002
                         size_average: Optional[bool] = None, reduce: Optional[bool] = None, reduction: str = "mean") -> Tensor:
    r""":math:`-w\,[y \log x + (1 - y) \log(1 - x)]` for probabilities :math:`x`, each log clamped at -100."""
    reduction = checked_reduction(size_average, reduce, reduction)
    _check_same_size(input, target)
    if target.dtype is not input.dtype:
        raise RuntimeError(f"Found dtype {dtypes.scalar_type_name(target.dtype)} but expected {dtypes.scalar_type_name(input.dtype)}")
    _check_probabilities(input, "input")
    _check_probabilities(target, "target")
    if weight is not None:
        _check_fits(weight, input)
    _refuse_grad("binary_cross_entropy", weight=weight)
    return composite("BinaryCrossEntropyBackward0", partial(_binary_cross_entropy, weight=weight, reduction=reduction),
                     input, target, saves=(input, target, weight))


def _binary_cross_entropy(input: Tensor, target: Tensor, weight: Optional[Tensor], reduction: str) -> Tensor:  # noqa: A002
    # BEGIN SOLUTION 5.8
    log_x = input.log().clamp(min=LOG_CLAMP)
    log_1mx = (1.0 - input).log().clamp(min=LOG_CLAMP)
    losses = -(target * log_x + (1.0 - target) * log_1mx)
    if weight is not None:
        losses = losses * weight
    return reduce_loss(losses, reduction)
    # END SOLUTION


@runs_in_full_precision
def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Optional[Tensor] = None,  # noqa: A002
                                     size_average: Optional[bool] = None, reduce: Optional[bool] = None,
                                     reduction: str = "mean", pos_weight: Optional[Tensor] = None) -> Tensor:
    r"""Binary cross-entropy of :math:`\sigma(x)`, computed stably from the logits:

    .. math:: (1 - y)\,x + (1 + (p_w - 1)\,y)\,\log(1 + e^{-x})

    (:math:`p_w` the ``pos_weight``, 1 by default), with :math:`\log(1 + e^{-x})` as softplus.
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_same_size(input, target)
    _refuse_grad("binary_cross_entropy_with_logits", weight=weight, pos_weight=pos_weight)
    return composite("BinaryCrossEntropyWithLogitsBackward0",
                     partial(_binary_cross_entropy_with_logits, weight=weight, reduction=reduction, pos_weight=pos_weight),
                     input, target, saves=(input, target, weight, pos_weight))


def _binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Optional[Tensor],  # noqa: A002
                                      reduction: str, pos_weight: Optional[Tensor]) -> Tensor:
    # BEGIN SOLUTION 5.8
    log_sigmoid_neg = softplus(-input)  # -log(sigmoid(x)), never overflowing
    if pos_weight is None:
        losses = (1.0 - target) * input + log_sigmoid_neg
    else:
        losses = (1.0 - target) * input + (1.0 + (pos_weight - 1.0) * target) * log_sigmoid_neg
    if weight is not None:
        losses = losses * weight
    return reduce_loss(losses, reduction)
    # END SOLUTION

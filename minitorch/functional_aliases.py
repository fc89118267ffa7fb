"""The layer operations PyTorch also exposes at top level (``torch.conv2d``, ``torch.dropout``...).

Each is a thin alias of :mod:`minitorch.nn.functional`, but with the top-level signature, which
is ATen's and sometimes differs from ``F``'s: ``torch.dropout(input, p, train)`` takes ``train``
positionally and has no defaults, ``torch.batch_norm`` puts ``weight, bias`` before the running
statistics, ``torch.embedding(weight, indices)`` swaps the first two arguments, losses take the
reduction as an int (0 ``none``, 1 ``mean``, 2 ``sum``; ATen's schema says 1 by default, but
PyTorch's Python binding of every top-level loss reduces nothing unless told, so 0 is the default here)
and ``torch.adaptive_max_pool1d`` always
returns ``(values, indices)``.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence, Union

from .nn import functional as F
from .tensor import Tensor

#: ATen's ``at::Reduction`` enum, as the top-level losses take it
_REDUCTIONS = {0: "none", 1: "mean", 2: "sum"}


def _reduction(op: str, reduction: Any, position: int) -> str:
    if isinstance(reduction, bool) or not isinstance(reduction, int):
        raise TypeError(f"{op}(): argument 'reduction' (position {position}) must be int, "
                        f"not {type(reduction).__name__}")
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{op}(): {reduction} is not a valid value for reduction (0 none, 1 mean, 2 sum)")
    return _REDUCTIONS[reduction]


def _check_probability(p: float) -> None:
    if p < 0.0 or p > 1.0:  # ATen's check, a RuntimeError (F's Python check is a ValueError)
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")


def _stride(stride: Any) -> Any:
    """ATen's default stride is ``[]``: the kernel size."""
    return None if isinstance(stride, (list, tuple)) and len(stride) == 0 else stride


# ---- convolution ----


def conv1d(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None, stride: Any = 1,  # noqa: A002
           padding: Any = 0, dilation: Any = 1, groups: int = 1) -> Tensor:
    """``F.conv1d``."""
    return F.conv1d(input, weight, bias, stride, padding, dilation, groups)


def conv2d(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None, stride: Any = 1,  # noqa: A002
           padding: Any = 0, dilation: Any = 1, groups: int = 1) -> Tensor:
    """``F.conv2d``."""
    return F.conv2d(input, weight, bias, stride, padding, dilation, groups)


def conv3d(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None, stride: Any = 1,  # noqa: A002
           padding: Any = 0, dilation: Any = 1, groups: int = 1) -> Tensor:
    """``F.conv3d``."""
    return F.conv3d(input, weight, bias, stride, padding, dilation, groups)


def conv_transpose1d(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None, stride: Any = 1,  # noqa: A002
                     padding: Any = 0, output_padding: Any = 0, groups: int = 1, dilation: Any = 1) -> Tensor:
    """``F.conv_transpose1d``."""
    return F.conv_transpose1d(input, weight, bias, stride, padding, output_padding, groups, dilation)


def conv_transpose2d(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None, stride: Any = 1,  # noqa: A002
                     padding: Any = 0, output_padding: Any = 0, groups: int = 1, dilation: Any = 1) -> Tensor:
    """``F.conv_transpose2d``."""
    return F.conv_transpose2d(input, weight, bias, stride, padding, output_padding, groups, dilation)


# ---- dropout ----


def dropout(input: Tensor, p: float, train: bool) -> Tensor:  # noqa: A002
    """``F.dropout(input, p, training=train)``."""
    _check_probability(p)
    return F.dropout(input, p, train)


def alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:  # noqa: A002
    """``F.alpha_dropout(input, p, training=train)``."""
    _check_probability(p)
    return F.alpha_dropout(input, p, train)


def feature_alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:  # noqa: A002
    """``F.feature_alpha_dropout(input, p, training=train)``."""
    _check_probability(p)
    return F.feature_alpha_dropout(input, p, train)


# ---- normalisation ----


def batch_norm(input: Tensor, weight: Optional[Tensor], bias: Optional[Tensor],  # noqa: A002
               running_mean: Optional[Tensor], running_var: Optional[Tensor], training: bool, momentum: float,
               eps: float, cudnn_enabled: bool) -> Tensor:
    """``F.batch_norm``, its arguments in ATen's order (``weight, bias`` first), all required."""
    return F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def instance_norm(input: Tensor, weight: Optional[Tensor], bias: Optional[Tensor],  # noqa: A002
                  running_mean: Optional[Tensor], running_var: Optional[Tensor], use_input_stats: bool,
                  momentum: float, eps: float, cudnn_enabled: bool) -> Tensor:
    """``F.instance_norm``, its arguments in ATen's order, all required."""
    return F.instance_norm(input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps)


def layer_norm(input: Tensor, normalized_shape: Union[int, Sequence[int]], weight: Optional[Tensor] = None,  # noqa: A002
               bias: Optional[Tensor] = None, eps: float = 1e-5, cudnn_enable: bool = True) -> Tensor:
    """``F.layer_norm`` (``cudnn_enable`` is ignored: there is no cuDNN)."""
    return F.layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(input: Tensor, num_groups: int, weight: Optional[Tensor] = None,  # noqa: A002
               bias: Optional[Tensor] = None, eps: float = 1e-5, cudnn_enabled: bool = True) -> Tensor:
    """``F.group_norm``."""
    return F.group_norm(input, num_groups, weight, bias, eps)


def rms_norm(input: Tensor, normalized_shape: Union[int, Sequence[int]], weight: Optional[Tensor] = None,  # noqa: A002
             eps: Optional[float] = None) -> Tensor:
    """``F.rms_norm``."""
    return F.rms_norm(input, normalized_shape, weight, eps)


# ---- lookups and rearrangements ----


def embedding(weight: Tensor, indices: Tensor, padding_idx: int = -1, scale_grad_by_freq: bool = False,
              sparse: bool = False) -> Tensor:
    """``F.embedding(indices, weight)``: note the order; ``padding_idx=-1`` means none (ATen's)."""
    return F.embedding(indices, weight, None if padding_idx == -1 else padding_idx,
                       scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:  # noqa: A002
    """``F.pixel_shuffle``."""
    return F.pixel_shuffle(input, upscale_factor)


def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:  # noqa: A002
    """``F.pixel_unshuffle``."""
    return F.pixel_unshuffle(input, downscale_factor)


def channel_shuffle(input: Tensor, groups: int) -> Tensor:  # noqa: A002
    """``F.channel_shuffle``."""
    return F.channel_shuffle(input, groups)


# ---- pooling ----


def max_pool1d(input: Tensor, kernel_size: Any, stride: Any = (), padding: Any = 0, dilation: Any = 1,  # noqa: A002
               ceil_mode: bool = False) -> Tensor:
    """``F.max_pool1d`` (the values only); ``stride=[]`` is the kernel size."""
    return F.max_pool1d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool2d(input: Tensor, kernel_size: Any, stride: Any = (), padding: Any = 0, dilation: Any = 1,  # noqa: A002
               ceil_mode: bool = False) -> Tensor:
    """``F.max_pool2d`` (the values only); ``stride=[]`` is the kernel size."""
    return F.max_pool2d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def avg_pool1d(input: Tensor, kernel_size: Any, stride: Any = (), padding: Any = 0,  # noqa: A002
               ceil_mode: bool = False, count_include_pad: bool = True) -> Tensor:
    """``F.avg_pool1d``; ``stride=[]`` is the kernel size."""
    return F.avg_pool1d(input, kernel_size, _stride(stride), padding, ceil_mode, count_include_pad)


def adaptive_avg_pool1d(input: Tensor, output_size: Any) -> Tensor:  # noqa: A002
    """``F.adaptive_avg_pool1d``."""
    return F.adaptive_avg_pool1d(input, output_size)


def adaptive_max_pool1d(input: Tensor, output_size: Any) -> tuple[Tensor, Tensor]:  # noqa: A002
    """``F.adaptive_max_pool1d(..., return_indices=True)``: always ``(values, indices)``, as ATen's."""
    return F.adaptive_max_pool1d(input, output_size, return_indices=True)


# ---- activations ----


def selu(input: Tensor) -> Tensor:  # noqa: A002
    """``F.selu``."""
    return F.selu(input)


def celu(input: Tensor, alpha: float = 1.0) -> Tensor:  # noqa: A002
    """``F.celu``."""
    return F.celu(input, alpha)


def threshold(input: Tensor, threshold: float, value: float) -> Tensor:  # noqa: A002
    """``F.threshold``: ``value`` where ``input <= threshold``."""
    return F.threshold(input, threshold, value)


def prelu(input: Tensor, weight: Tensor) -> Tensor:  # noqa: A002
    """``F.prelu``."""
    return F.prelu(input, weight)


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:  # noqa: A002
    """``F.hardshrink``."""
    return F.hardshrink(input, lambd)


def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,  # noqa: A002
          generator: Any = None) -> Tensor:
    """``F.rrelu`` (``generator`` must be None: minitorch's rrelu draws from the global one)."""
    if generator is not None:
        raise NotImplementedError("rrelu(): a generator argument is not supported in minitorch")
    return F.rrelu(input, lower, upper, training)


# ---- losses and distances (the reduction an int: 0 none, 1 mean, 2 sum) ----


def kl_div(input: Tensor, target: Tensor, reduction: int = 0, *, log_target: bool = False) -> Tensor:  # noqa: A002
    """``F.kl_div``; ``reduction=1`` is ``'mean'`` over every element (not ``'batchmean'``)."""
    return F.kl_div(input, target, reduction=_reduction("kl_div", reduction, 3), log_target=log_target)


def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0, p: float = 2.0,
                        eps: float = 1e-6, swap: bool = False, reduction: int = 0) -> Tensor:
    """``F.triplet_margin_loss``."""
    return F.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
                                 reduction=_reduction("triplet_margin_loss", reduction, 8))


def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> Tensor:
    """``F.pairwise_distance``."""
    return F.pairwise_distance(x1, x2, p, eps, keepdim)


def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                          reduction: int = 0) -> Tensor:
    """``F.cosine_embedding_loss``."""
    return F.cosine_embedding_loss(input1, input2, target, margin,
                                   reduction=_reduction("cosine_embedding_loss", reduction, 5))


def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                        reduction: int = 0) -> Tensor:
    """``F.margin_ranking_loss``."""
    return F.margin_ranking_loss(input1, input2, target, margin,
                                 reduction=_reduction("margin_ranking_loss", reduction, 5))


def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0, reduction: int = 0) -> Tensor:  # noqa: A002
    """``F.hinge_embedding_loss``."""
    return F.hinge_embedding_loss(input, target, margin, reduction=_reduction("hinge_embedding_loss", reduction, 4))


def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool, full: bool, eps: float,  # noqa: A002
                     reduction: int) -> Tensor:
    """``F.poisson_nll_loss``, every argument required (ATen's)."""
    return F.poisson_nll_loss(input, target, log_input, full, eps=eps,
                              reduction=_reduction("poisson_nll_loss", reduction, 6))


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Optional[Tensor] = None,  # noqa: A002
                                     pos_weight: Optional[Tensor] = None, reduction: int = 0) -> Tensor:
    """``F.binary_cross_entropy_with_logits`` (``pos_weight`` before ``reduction``, as ATen's)."""
    return F.binary_cross_entropy_with_logits(
        input, target, weight, reduction=_reduction("binary_cross_entropy_with_logits", reduction, 5),
        pos_weight=pos_weight)


def ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths: Any, target_lengths: Any, blank: int = 0,
             reduction: int = 0, zero_infinity: bool = False) -> Tensor:
    """``F.ctc_loss``."""
    return F.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank,
                      _reduction("ctc_loss", reduction, 6), zero_infinity)


def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Optional[Tensor] = None) -> Tensor:
    """``F.bilinear``."""
    return F.bilinear(input1, input2, weight, bias)


EXPORTS = {function.__name__: function for function in (
    adaptive_avg_pool1d, adaptive_max_pool1d, alpha_dropout, avg_pool1d, batch_norm, bilinear,
    binary_cross_entropy_with_logits, celu, channel_shuffle, conv1d, conv2d, conv3d, conv_transpose1d,
    conv_transpose2d, cosine_embedding_loss, ctc_loss, dropout, embedding, feature_alpha_dropout, group_norm,
    hardshrink, hinge_embedding_loss, instance_norm, kl_div, layer_norm, margin_ranking_loss, max_pool1d,
    max_pool2d, pairwise_distance, pixel_shuffle, pixel_unshuffle, poisson_nll_loss, prelu, rms_norm, rrelu,
    selu, threshold, triplet_margin_loss,
)}


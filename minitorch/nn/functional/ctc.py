r"""Connectionist temporal classification: ``F.ctc_loss`` and ``nn.CTCLoss``.

For one sample with log-probabilities :math:`\log y_t(c)` over ``T`` steps and a target
:math:`l` of length :math:`S`, the target is extended with blanks to
:math:`l' = (\varnothing, l_1, \varnothing, l_2, \dots, l_S, \varnothing)` (length :math:`2S+1`), and
the forward variables sum the probabilities of every alignment that reads :math:`l'_{1..s}` by
step :math:`t` (in log space):

.. math::
    \alpha_t(s) = \log y_t(l'_s) + \operatorname{logsumexp}\big(\alpha_{t-1}(s),\ \alpha_{t-1}(s-1),\
    \alpha_{t-1}(s-2)\big)

the last term only when :math:`l'_s` is a label other than :math:`l'_{s-2}`. The loss is
:math:`-\operatorname{logsumexp}(\alpha_{T-1}(2S), \alpha_{T-1}(2S-1))`. The backward variables
:math:`\beta` run the same recursion from the end, and the gradient uses the posterior
:math:`\gamma_t(c) = \sum_{s: l'_s = c} e^{\alpha_t(s) + \beta_t(s) - \log y_t(c) + \text{loss}}`.

As PyTorch's, the gradient returned for ``log_probs`` is :math:`y_t(c) - \gamma_t(c)`: the
gradient with respect to the logits when ``log_probs`` is a ``log_softmax`` of them (the
usual case), so that gradients through ``log_softmax`` equal the exact ones. The recursions
run in NumPy (float64) on the host; the steps at and after a sample's input length get 0.
"""

from __future__ import annotations

from typing import Optional, Sequence, Union

import numpy as np

from ...autograd.function import Context, Function
from ...creation import tensor
from ...tensor import Tensor
from ...autocast_state import runs_in_full_precision
from ._utils import check_reduction

Lengths = Union[Tensor, Sequence[int]]
NEG_INF = -np.inf


def _logsumexp(*terms: np.ndarray) -> np.ndarray:
    stacked = np.stack(terms)
    top = stacked.max(axis=0)
    safe = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        return safe + np.log(np.exp(stacked - safe).sum(axis=0))


def _extended(target: np.ndarray, blank: int) -> np.ndarray:
    """The target with a blank before, between and after its labels."""
    out = np.full(2 * len(target) + 1, blank, dtype=np.int64)
    out[1::2] = target
    return out


def _skips(labels: np.ndarray, blank: int) -> np.ndarray:
    """Where a path may jump two places: onto a label that differs from the one two places back."""
    allowed = np.zeros(len(labels), dtype=bool)
    allowed[2:] = (labels[2:] != blank) & (labels[2:] != labels[:-2])
    return allowed


def _alphas(lp: np.ndarray, labels: np.ndarray, skips: np.ndarray) -> np.ndarray:
    steps, width = lp.shape[0], len(labels)
    alpha = np.full((steps, width), NEG_INF)
    alpha[0, 0] = lp[0, labels[0]]
    if width > 1:
        alpha[0, 1] = lp[0, labels[1]]
    for t in range(1, steps):
        previous = alpha[t - 1]
        one_back = np.concatenate(([NEG_INF], previous[:-1]))
        two_back = np.where(skips, np.concatenate(([NEG_INF, NEG_INF], previous[:-2])), NEG_INF)
        alpha[t] = lp[t, labels] + _logsumexp(previous, one_back, two_back)
    return alpha


def _betas(lp: np.ndarray, labels: np.ndarray, skips: np.ndarray) -> np.ndarray:
    steps, width = lp.shape[0], len(labels)
    beta = np.full((steps, width), NEG_INF)
    beta[-1, -1] = lp[-1, labels[-1]]
    if width > 1:
        beta[-1, -2] = lp[-1, labels[-2]]
    jumps_from = np.concatenate((skips[2:], [False, False]))  # s may jump to s + 2
    for t in range(steps - 2, -1, -1):
        following = beta[t + 1]
        one_ahead = np.concatenate((following[1:], [NEG_INF]))
        two_ahead = np.where(jumps_from, np.concatenate((following[2:], [NEG_INF, NEG_INF])), NEG_INF)
        beta[t] = lp[t, labels] + _logsumexp(following, one_ahead, two_ahead)
    return beta


def _sample_loss_and_grad(lp: np.ndarray, target: np.ndarray, blank: int) -> tuple[float, np.ndarray]:
    """The negative log-likelihood of one sample and PyTorch's gradient for its ``lp`` (steps x classes)."""
    labels = _extended(target, blank)
    skips = _skips(labels, blank)
    alpha = _alphas(lp, labels, skips)
    ends = [alpha[-1, -1]] + ([alpha[-1, -2]] if len(labels) > 1 else [])
    nll = -float(_logsumexp(*[np.asarray(e) for e in ends]))
    grad = np.exp(lp)
    if not np.isfinite(nll):
        return nll, grad
    beta = _betas(lp, labels, skips)
    occupancy = alpha + beta  # log of alpha * beta (each holds lp at its own step once)
    for c in np.unique(labels):
        at = occupancy[:, labels == c]
        log_gamma = _logsumexp(*at.T) - lp[:, c] + nll
        grad[:, c] -= np.exp(log_gamma)
    return nll, grad


class CtcLoss(Function):
    """The per-sample negative log-likelihoods, shape ``(N,)``."""

    grad_fn_name = "CtcLossBackward0"

    @staticmethod
    def forward(ctx: Context, log_probs: Tensor, targets: list[np.ndarray], input_lengths: list[int],
                blank: int, zero_infinity: bool) -> Tensor:
        lp = log_probs.detach().cpu().numpy().astype(np.float64)  # (T, N, C)
        losses = np.zeros(lp.shape[1])
        grads = np.zeros_like(lp)
        for n, (target, length) in enumerate(zip(targets, input_lengths)):
            loss, grad = _sample_loss_and_grad(lp[:length, n], target, blank)
            if zero_infinity and not np.isfinite(loss):
                loss, grad = 0.0, np.zeros_like(grad)
            losses[n] = loss
            grads[:length, n] = grad
        ctx.grads = grads
        ctx.dtype, ctx.device = log_probs.dtype, log_probs.device  # not the tensor: the graph need not keep it
        return tensor(losses, dtype=log_probs.dtype, device=log_probs.device)

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Optional[Tensor], None, None, None, None]:
        scale = grad.detach().cpu().numpy().astype(np.float64)[None, :, None]
        values = tensor(ctx.grads * scale, dtype=ctx.dtype, device=ctx.device)
        return values, None, None, None, None


def _as_list(lengths: Lengths, name: str) -> list[int]:
    if isinstance(lengths, Tensor):
        if lengths.dtype.is_floating_point:
            raise RuntimeError(f"ctc_loss(): {name} must be integers, got {lengths.dtype}")
        return [int(v) for v in lengths.reshape(-1).tolist()]
    return [int(v) for v in lengths]


def _split_targets(targets: Tensor, target_lengths: list[int], batch: int) -> list[np.ndarray]:
    """Each sample's labels, from padded ``(N, S)`` targets or the concatenated 1-D form."""
    values = targets.detach().cpu().numpy().astype(np.int64)
    if values.ndim == 2:
        for n, length in enumerate(target_lengths):
            if length > values.shape[1]:
                raise RuntimeError(f"Expected tensor to have size at least {length} at dimension 1, but got size "
                                   f"{values.shape[1]} for argument #2 'targets' (while checking arguments for ctc_loss_cpu)")
        return [values[n, :length] for n, length in enumerate(target_lengths)]
    if sum(target_lengths) > values.shape[0]:
        raise RuntimeError(f"ctc_loss(): the target lengths add up to {sum(target_lengths)}, but the concatenated "
                           f"targets hold {values.shape[0]}")
    starts = np.cumsum([0] + target_lengths[:-1])
    return [values[start:start + length] for start, length in zip(starts, target_lengths)]


@runs_in_full_precision
def ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths: Lengths, target_lengths: Lengths, blank: int = 0,
             reduction: str = "mean", zero_infinity: bool = False) -> Tensor:
    """The CTC loss of ``(T, N, C)`` (or ``(T, C)``) log-probabilities against the targets."""
    check_reduction(reduction)
    if not log_probs.dtype.is_floating_point:
        raise RuntimeError(f"ctc_loss(): log_probs must be floating point, got {log_probs.dtype}")
    unbatched = log_probs.dim() == 2
    if unbatched:
        log_probs = log_probs.unsqueeze(1)
        targets = targets.unsqueeze(0) if targets.dim() == 1 else targets
    if log_probs.dim() != 3:
        raise RuntimeError(f"ctc_loss(): log_probs must be 2-D or 3-D (T, N, C), got shape {list(log_probs.shape)}")
    steps, batch, classes = log_probs.shape
    inputs, lengths = _as_list(input_lengths, "input_lengths"), _as_list(target_lengths, "target_lengths")
    if len(inputs) != batch or len(lengths) != batch:
        raise RuntimeError(f"ctc_loss(): expected input_lengths and target_lengths of size {batch} (the batch), "
                           f"got {len(inputs)} and {len(lengths)}")
    for length in inputs:
        if not 0 <= length <= steps:
            raise RuntimeError(f"Expected input_lengths to have value at most {steps}, but got value {length} "
                               f"(while checking arguments for ctc_loss_cpu)")
    if not 0 <= blank < classes:
        raise RuntimeError(f"blank must be in label range, got blank={blank} for {classes} classes")
    labels = _split_targets(targets, lengths, batch)
    for target in labels:
        if target.size and (target.min() < 0 or target.max() >= classes or (target == blank).any()):
            raise RuntimeError(f"ctc_loss(): targets must be labels in [0, {classes}) other than the blank {blank}, "
                               f"got {target.tolist()}")
    losses = CtcLoss.apply(log_probs, labels, inputs, blank, zero_infinity)
    if unbatched:
        losses = losses.squeeze(0)
    if reduction == "none":
        return losses
    if reduction == "sum":
        return losses.sum()
    divisors = tensor([max(n, 1) for n in lengths], dtype=log_probs.dtype, device=log_probs.device)
    return (losses / (divisors if not unbatched else divisors.squeeze(0))).mean()


__all__ = ["ctc_loss"]

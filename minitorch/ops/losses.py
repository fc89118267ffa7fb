r"""Cross-entropy of a batch of logits with class indices, as one node.

``cross_entropy`` written out is a dozen ops (log-softmax, gather, masks for ignored
targets, the mean), each a node of the graph. Fused, the forward runs the same primitives
and the backward is one formula: with :math:`p = \mathrm{softmax}(x)` and :math:`w_i` the
gradient reaching sample :math:`i`'s loss (0 for an ignored target),

.. math:: \frac{\partial L}{\partial x_{ic}} = w_i \,(p_{ic} - [c = y_i]).

As PyTorch's log-softmax and nll nodes, it saves the log-probabilities and the targets, not the
logits: changing the logits in place after the loss is no error.
"""

from __future__ import annotations

import numpy as np

from ..autograd.function import Context, Function, _modified_message
from ..autograd.grad_mode import is_grad_enabled
from ..device import device
from ..dispatch import gather_op, log_softmax_op, map_op, reduce_op, scatter_add_op, transfer, zip_op
from ..loss_dispatch import cross_entropy_backward_op, cross_entropy_op, fused_cross_entropy_fits
from ..tensor import Tensor, _scalar_tensor
from ..tensor_data import TensorData
from .activations import Softmax
from .indexing import ScatterAdd


def _from_host(array: np.ndarray, on: device) -> Tensor:
    """A tensor on ``on`` holding a new contiguous NumPy ``array``."""
    t = Tensor._make(TensorData(array.reshape(-1), array.shape))
    return t if on.type == "cpu" else transfer(t, on)


class CrossEntropy(Function):
    """``-log_softmax(x)[i, y_i]`` per sample of ``x`` ``(n, classes)`` and int64 ``y`` ``(n,)``.

    Targets equal to ``ignore_index`` count for nothing (not even in the mean's divisor);
    the others must lie in ``[0, classes)``.
    """

    grad_fn_name = "NllLossBackward0"

    @staticmethod
    def forward(ctx: Context, x: Tensor, target: Tensor, ignore_index: int, reduction: str) -> Tensor:
        ctx.reduction = reduction
        ctx.ignore_index = ignore_index
        if fused_cross_entropy_fits(x, target):
            return CrossEntropy._fused_forward(ctx, x, target)
        n = x.shape[0]
        safe, kept, minus_kept, count = _target_masks(x, target, ignore_index)
        log_p = log_softmax_op(x)  # one kernel on the cpu
        picked = zip_op("mul", gather_op(log_p, 1, safe), kept)
        _keep_logits(ctx, x, log_p, target)
        ctx.masks = safe, kept, minus_kept
        if reduction == "none":
            return map_op("neg", picked).view(n)
        total = reduce_op("sum", picked, 0).view(())
        if reduction == "sum":
            return map_op("neg", total)
        ctx.count = count
        # -(total / count), the sign moved into the divisor: the same float, one kernel fewer
        return zip_op("div", total, _scalar_tensor(-count, x.dtype, x.device))

    @staticmethod
    def _fused_forward(ctx: Context, x: Tensor, target: Tensor) -> Tensor:
        """The forward as one kernel (:func:`~minitorch.loss_dispatch.cross_entropy_op`)."""
        losses, log_p, count, total = cross_entropy_op(x, target, ctx.ignore_index)
        _keep_logits(ctx, x, log_p, target)
        ctx.masks = None
        ctx.count = count
        if ctx.reduction == "none":
            return losses
        numpy_dtype = x.dtype.numpy
        if ctx.reduction == "sum":
            return _scalar_tensor(numpy_dtype.type(total), x.dtype, x.device)
        # the sum rounded to the dtype, then divided in it, as the primitives do; 0 / 0 is nan
        mean = numpy_dtype.type(total) / numpy_dtype.type(count) if count else numpy_dtype.type(np.nan)
        return _scalar_tensor(mean, x.dtype, x.device)

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Tensor, None, None, None]:
        log_p, target = ctx.saved_tensors
        divisor = max(ctx.count, 1) if ctx.reduction == "mean" else 1  # no counted target: no gradient
        if ctx.masks is None and not is_grad_enabled():
            return cross_entropy_backward_op(log_p, target, ctx.ignore_index, grad, divisor), None, None, None
        safe, kept, minus_kept = ctx.masks or _target_masks(log_p, target, ctx.ignore_index)[:3]
        if ctx.reduction == "none":
            per_sample = grad.view(-1, 1)
        elif ctx.reduction == "sum":
            per_sample = grad
        else:
            per_sample = grad / divisor
        weight = per_sample * kept
        if is_grad_enabled():  # create_graph: the softmax is taken again, as a differentiable function of x
            x, version = ctx.logits
            if x._version != version:  # its values are gone: an error rather than a wrong second derivative
                raise RuntimeError(_modified_message(x, version, None))
            return ScatterAdd.apply(Softmax.apply(x, 1) * weight, 1, safe, per_sample * minus_kept), None, None, None
        # no graph: the product is a new tensor nothing else holds, so -weight lands in it in place
        return scatter_add_op(per_sample * minus_kept, 1, safe, log_p.exp() * weight), None, None, None


def _keep_logits(ctx: Context, x: Tensor, log_p: Tensor, target: Tensor) -> None:
    """Save what the backward reads, and the logits with their version apart (only a backward
    that builds a graph reads them)."""
    ctx.save_for_backward(log_p, target)
    ctx.logits = x, x._version


def _target_masks(x: Tensor, target: Tensor, ignore_index: int) -> tuple[Tensor, Tensor, Tensor, int]:
    """``(safe, kept, minus_kept, count)`` for the primitives: the targets as an ``(n, 1)`` index with
    ignored ones reading class 0, 1.0 and -1.0 where a target counts (0.0 and -0.0 where it is
    ignored), in ``x``'s dtype, and how many count. IndexError for a target outside the classes."""
    n, classes = x.shape
    # The targets are checked on the host (raising an error needs their values), so the
    # index and mask of counted targets are made there too: a few NumPy calls on n numbers.
    values = target._host_numpy().reshape(n, 1)
    counted = values != ignore_index
    safe_values = np.where(counted, values, 0)  # ignored targets read class 0
    if n:
        low, high = int(safe_values.min()), int(safe_values.max())
        if low < 0 or high >= classes:
            raise IndexError(f"Target {low if low < 0 else high} is out of bounds.")
    safe = _from_host(safe_values, x.device)
    kept = _from_host(counted.astype(x.dtype.numpy), x.device)  # 1.0 for a counted target
    minus_kept = _from_host(-counted.astype(x.dtype.numpy), x.device)  # -1.0 for a counted target, else -0.0
    return safe, kept, minus_kept, int(counted.sum())

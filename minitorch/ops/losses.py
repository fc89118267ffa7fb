r"""Cross-entropy of a batch of logits with class indices, as one node.

``cross_entropy`` written out is a dozen ops (log-softmax, gather, masks for ignored
targets, the mean), each a node of the graph. Fused, the forward runs the same primitives
and the backward is one formula: with :math:`p = \mathrm{softmax}(x)` and :math:`w_i` the
gradient reaching sample :math:`i`'s loss (0 for an ignored target),

.. math:: \frac{\partial L}{\partial x_{ic}} = w_i \,(p_{ic} - [c = y_i]).
"""

from __future__ import annotations

import numpy as np

from ..autograd.function import Context, Function
from ..autograd.grad_mode import is_grad_enabled
from ..device import device
from ..dispatch import gather_op, map_op, reduce_op, transfer, zip_op
from ..tensor import Tensor, _scalar_tensor
from ..tensor_data import TensorData
from .activations import Softmax
from .indexing import ScatterAdd


def _from_host(array: np.ndarray, on: device) -> Tensor:
    """A tensor on ``on`` holding a new contiguous NumPy ``array``."""
    t = Tensor._make(TensorData(array.reshape(-1), array.shape))
    return t if on.type == "cpu" else transfer(t, on)


def _log_softmax_rows(x: Tensor) -> Tensor:
    r""":math:`x - \max x - \log \sum e^{x - \max x}` along dimension 1 (no graph)."""
    shifted = zip_op("sub", x, reduce_op("max", x, 1))
    return zip_op("sub", shifted, map_op("log", reduce_op("sum", map_op("exp", shifted), 1)))


class CrossEntropy(Function):
    """``-log_softmax(x)[i, y_i]`` per sample of ``x`` ``(n, classes)`` and int64 ``y`` ``(n,)``.

    Targets equal to ``ignore_index`` count for nothing (not even in the mean's divisor);
    the others must lie in ``[0, classes)``.
    """

    grad_fn_name = "NllLossBackward0"

    @staticmethod
    def forward(ctx: Context, x: Tensor, target: Tensor, ignore_index: int, reduction: str) -> Tensor:
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
        log_p = _log_softmax_rows(x)
        picked = zip_op("mul", gather_op(log_p, 1, safe), kept)
        ctx.save_for_backward(x, log_p, safe, kept)
        ctx.reduction = reduction
        if reduction == "none":
            return map_op("neg", picked).view(n)
        total = map_op("neg", reduce_op("sum", picked, 0)).view(())
        if reduction == "sum":
            return total
        ctx.count = int(counted.sum())
        return zip_op("div", total, _scalar_tensor(ctx.count, x.dtype, x.device))

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Tensor, None, None, None]:
        x, log_p, safe, kept = ctx.saved_tensors
        if ctx.reduction == "none":
            weight = grad.view(-1, 1) * kept
        elif ctx.reduction == "sum":
            weight = grad * kept
        else:
            weight = grad / max(ctx.count, 1) * kept  # no counted target: no gradient (the loss is nan)
        # with create_graph the softmax is taken again, as a differentiable function of x
        probabilities = Softmax.apply(x, 1) if is_grad_enabled() else log_p.exp()
        return ScatterAdd.apply(probabilities * weight, 1, safe, -weight), None, None, None

"""Raw fused cross-entropy: check the targets, allocate the results, run the backend's :class:`~.backends.base.LossKernels`.

The dispatch layer of :class:`minitorch.ops.losses.CrossEntropy` (no graph recorded), as
:mod:`.dispatch` is for the other ops. The kernels index the logits by the targets without
bounds checks, so the targets are checked here, whoever calls.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from . import dtypes
from .backends.base import LossKernels, offers
from .dispatch import _result, backend_of

if TYPE_CHECKING:
    from .tensor import Tensor

#: the dtypes of logits the fused kernels take
FUSED_DTYPES = (dtypes.float32, dtypes.float64)


def fused_cross_entropy_fits(x: "Tensor", target: "Tensor") -> bool:
    """Whether :func:`cross_entropy_op` takes ``x`` and ``target``: ``x`` a float32 or float64 matrix with
    at least one class, ``target`` int64 ``(n,)`` on the same device, whose backend offers the kernels."""
    data, target_data = x._data, target._data
    return (data.dtype in FUSED_DTYPES and len(data.shape) == 2 and data.shape[1] > 0
            and target_data.dtype is dtypes.int64 and target_data.shape == data.shape[:1]
            and target._device == x._device and offers(backend_of(x), LossKernels))


def _kernels(x: "Tensor", target: "Tensor") -> LossKernels:
    """``x``'s backend, once the operands are checked (ValueError naming them otherwise)."""
    if not fused_cross_entropy_fits(x, target):
        raise ValueError(f"cross_entropy kernel: the {backend_of(x).name} backend's fused cross-entropy takes "
                         f"float32 or float64 logits (n, classes >= 1) and int64 targets (n,) on one device; got "
                         f"{list(x.shape)} {x.dtype} {x.device} and {list(target.shape)} {target.dtype} {target.device}")
    return cast(LossKernels, backend_of(x))


def cross_entropy_op(x: "Tensor", target: "Tensor", ignore_index: int) -> tuple["Tensor", "Tensor", int, float]:
    """``(losses, log_p, counted, total)``: each row's loss ``(n,)``, the rows' log-softmax, how many
    targets are not ``ignore_index`` and the losses' sum (float64).

    IndexError (PyTorch's message) for a target that is neither ``ignore_index`` nor a class.
    """
    kernels = _kernels(x, target)
    counted = _checked_targets(kernels, target, ignore_index, x._data.shape[1])
    losses = _result(x._data.shape[:1], x._data.dtype, x._device)
    log_p = _result(x._data.shape, x._data.dtype, x._device)
    total = kernels.cross_entropy(x._data, target._data, ignore_index, log_p._data, losses._data)
    return losses, log_p, counted, total


def _checked_targets(kernels: LossKernels, target: "Tensor", ignore_index: int, classes: int) -> int:
    """How many targets are not ``ignore_index``; IndexError (PyTorch's message) for one that is not a class."""
    low, high, counted = kernels.target_range(target._data, ignore_index)
    if low < 0 or high >= classes:
        raise IndexError(f"Target {low if low < 0 else high} is out of bounds.")
    return counted


def cross_entropy_backward_op(log_p: "Tensor", target: "Tensor", ignore_index: int, grad: "Tensor",
                              divisor: int) -> "Tensor":
    """The logits' gradient from :func:`cross_entropy_op`'s ``log_p``: row ``i`` gets
    ``grad[i] / divisor`` (``grad`` ``(n,)``, or 0-d for all rows) times ``softmax - one_hot``,
    nothing for an ignored target. The targets are checked again: their memory may have changed
    since the forward (a NumPy array shared with them, say) without a new version."""
    kernels = _kernels(log_p, target)
    _checked_targets(kernels, target, ignore_index, log_p._data.shape[1])
    n = log_p._data.shape[0]
    if grad._data.shape not in ((), (n,)) or grad._device != log_p._device or not grad._data.dtype.is_floating_point:
        raise ValueError(f"cross_entropy backward: the gradient must be a float scalar or ({n},) on {log_p.device}; "
                         f"got {list(grad.shape)} {grad.dtype} {grad.device}")
    if divisor < 1:
        raise ValueError(f"cross_entropy backward: the divisor must be at least 1, got {divisor}")
    grad_x = _result(log_p._data.shape, log_p._data.dtype, log_p._device)
    kernels.cross_entropy_backward(log_p._data, target._data, ignore_index, grad._data, divisor, grad_x._data)
    return grad_x

"""Moving a tensor between devices, as one differentiable op.

The forward copies the values to the target device; the backward moves the gradient back
to the device the input lives on, so every gradient sits beside its tensor.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..autograd.function import Context, Function
from ..device import device
from ..dispatch import transfer

if TYPE_CHECKING:  # tensor.py imports this module
    from ..tensor import Tensor


class ToDevice(Function):
    """``a.to(target)`` for another device; the gradient returns to ``a``'s device."""

    grad_fn_name = "ToCopyBackward0"

    @staticmethod
    def forward(ctx: Context, a: Tensor, target: device) -> Tensor:
        ctx.source = a.device
        return transfer(a, target)

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Tensor, None]:
        return grad.to(ctx.source), None

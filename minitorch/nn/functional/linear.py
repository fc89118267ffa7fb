r"""The affine map of a fully connected layer: :math:`y = x W^\top + b`."""

from __future__ import annotations

from typing import Optional

from ...ops.linalg import linear as fused_linear
from ...tensor import Tensor


def linear(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None) -> Tensor:  # noqa: A002 - PyTorch's name
    r""":math:`y = x W^\top + b` for ``input`` of shape ``(*, in_features)`` and ``weight`` of
    shape ``(out_features, in_features)``; the leading dimensions of ``input`` are kept."""
    # BEGIN SOLUTION 5.1
    if weight.dim() == 2:
        return fused_linear(input, weight, bias)
    out = input @ weight
    return out + bias if bias is not None else out
    # END SOLUTION


def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Optional[Tensor] = None) -> Tensor:
    r""":math:`y_k = x_1^\top W_k x_2 + b_k` for ``weight`` of shape ``(out, in1, in2)``."""
    out = ((input1.unsqueeze(-2).unsqueeze(-2) @ weight) @ input2.unsqueeze(-2).unsqueeze(-1))
    out = out.squeeze(-1).squeeze(-1)
    return out + bias if bias is not None else out

r"""The affine map of a fully connected layer: :math:`y = x W^\top + b`."""

from __future__ import annotations

from typing import Optional

from ...ops.linalg import linear as fused_linear
from ...tensor import Tensor


def linear(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None) -> Tensor:  # noqa: A002 - PyTorch's name
    r""":math:`y = x W^\top + b` for ``input`` of shape ``(*, in_features)`` and ``weight`` of
    shape ``(out_features, in_features)``; the leading dimensions of ``input`` are kept."""
    if not isinstance(input, Tensor):
        raise TypeError(f"linear(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    # BEGIN SOLUTION 5.1
    if weight.dim() == 2:
        return fused_linear(input, weight, bias)
    out = input @ weight
    return out + bias if bias is not None else out
    # END SOLUTION


def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Optional[Tensor] = None) -> Tensor:
    r""":math:`y_k = x_1^\top W_k x_2 + b_k` for ``weight`` of shape ``(out, in1, in2)``."""
    _check_bilinear(input1, input2, weight, bias)
    out = ((input1.unsqueeze(-2).unsqueeze(-2) @ weight) @ input2.unsqueeze(-2).unsqueeze(-1))
    out = out.squeeze(-1).squeeze(-1)
    return out + bias if bias is not None else out


def _check_bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Optional[Tensor]) -> None:
    """PyTorch's errors for inputs, weight and bias whose sizes do not fit together."""
    if input1.dim() != input2.dim():
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.dim()} and {input2.dim()}")
    for d in range(input1.dim() - 1):
        if input1.shape[d] != input2.shape[d]:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {d}: got {input1.shape[d]} "
                               f"and {input2.shape[d]}")
    if weight.dim() == 3:
        for name, size, expected in (("input1", input1.shape[-1], weight.shape[1]),
                                     ("input2", input2.shape[-1], weight.shape[2])):
            if size != expected:
                raise RuntimeError(f"bilinear(): {name} size does not match weight size: got {size} but expected "
                                   f"{expected}")
        if bias is not None and bias.dim() == 1 and bias.shape[0] != weight.shape[0]:
            raise RuntimeError(f"bilinear(): bias size does not match weight size: got {bias.shape[0]} but expected "
                               f"{weight.shape[0]}")

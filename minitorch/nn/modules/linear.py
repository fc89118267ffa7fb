r"""``Linear`` (:math:`y = x W^\top + b`) and ``Identity``."""

from __future__ import annotations

import math
from typing import Any

from ...creation import empty
from ...ops.linalg import linear
from ...tensor import Tensor
from .. import init
from ._weights import register_weight_and_bias
from ..functional.linear import bilinear
from .module import Module

__all__ = ["Bilinear", "Identity", "Linear"]

#: Linear's default init is kaiming_uniform_ with this negative slope, which makes the weight
#: bound :math:`1/\sqrt{\text{fan\_in}}` (the same bound as the bias)
DEFAULT_INIT_SLOPE = math.sqrt(5)


class Identity(Module):
    """Returns its input unchanged; any constructor arguments are ignored."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002 - PyTorch's argument name
        return input


class Linear(Module):
    r"""An affine map :math:`y = x W^\top + b` with ``W`` of shape ``(out_features, in_features)``.

    Both ``W`` and ``b`` start uniform in :math:`[-1/\sqrt{\text{in\_features}}, 1/\sqrt{\text{in\_features}}]`,
    as in PyTorch.
    """

    def __init__(self, in_features: int, out_features: int, bias: bool = True, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        register_weight_and_bias(
            self, empty((out_features, in_features), device=device, dtype=dtype),
            empty(out_features, device=device, dtype=dtype) if bias else None,
        )
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """PyTorch's default: kaiming-uniform weight (a = sqrt(5)), bias uniform in :math:`\\pm 1/\\sqrt{\\text{fan\\_in}}`."""
        # BEGIN SOLUTION 4.6
        init.kaiming_uniform_(self.weight, a=DEFAULT_INIT_SLOPE)
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)
        # END SOLUTION

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002 - PyTorch's argument name
        # BEGIN SOLUTION 4.6
        return linear(input, self.weight, self.bias)
        # END SOLUTION

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class Bilinear(Module):
    r""":math:`y_k = x_1^\top W_k x_2 + b_k` with ``W`` of shape ``(out_features, in1_features, in2_features)``.

    ``W`` and ``b`` start uniform in :math:`\pm 1/\sqrt{\text{in1\_features}}`, as in PyTorch.
    """

    def __init__(self, in1_features: int, in2_features: int, out_features: int, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__()
        self.in1_features = in1_features
        self.in2_features = in2_features
        self.out_features = out_features
        register_weight_and_bias(
            self, empty((out_features, in1_features, in2_features), device=device, dtype=dtype),
            empty(out_features, device=device, dtype=dtype) if bias else None,
        )
        self.reset_parameters()

    def reset_parameters(self) -> None:
        bound = 1 / math.sqrt(self.in1_features) if self.in1_features > 0 else 0
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1: Tensor, input2: Tensor) -> Tensor:
        return bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")


class NonDynamicallyQuantizableLinear(Linear):
    """A Linear under PyTorch's name for the output projection (so reprs and checkpoints agree)."""

"""The further activation layers: each wraps one function of :mod:`minitorch.nn.functional`;
only ``PReLU`` has a parameter (its slopes)."""

from __future__ import annotations

import warnings
from typing import Any, Optional

from ... import creation
from ...tensor import Tensor
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = [
    "CELU", "ELU", "GLU", "SELU", "Hardshrink", "Hardsigmoid", "Hardswish", "Hardtanh", "LogSigmoid", "Mish", "PReLU",
    "ReLU6", "Softmax2d", "Softmin", "Softshrink", "Softsign", "Tanhshrink", "Threshold",
]

#: PReLU's initial slope
DEFAULT_PRELU_SLOPE = 0.25
#: Softshrink's and Hardshrink's default half-width
DEFAULT_LAMBDA = 0.5


def _inplace_repr(inplace: bool) -> str:
    return "inplace=True" if inplace else ""


class _InPlaceOption(Module):
    """A parameter-free activation with only PyTorch's ``inplace`` option."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace


class _AlphaOption(Module):
    """An ELU-like activation's options: ``alpha`` and ``inplace``."""

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}" + (", inplace=True" if self.inplace else "")


class ELU(_AlphaOption):
    r""":math:`x` for :math:`x > 0`, else :math:`\alpha (e^x - 1)`."""

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002 - PyTorch's argument name
        return F.elu(input, self.alpha, self.inplace)


class CELU(_AlphaOption):
    r""":math:`\max(0, x) + \min(0, \alpha (e^{x/\alpha} - 1))`."""

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.celu(input, self.alpha, self.inplace)


class SELU(_InPlaceOption):
    r"""Scaled ELU with the self-normalising constants."""

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.selu(input, self.inplace)

    def extra_repr(self) -> str:
        return _inplace_repr(self.inplace)


class Hardtanh(Module):
    r"""``input`` clamped to :math:`[\mathrm{min\_val}, \mathrm{max\_val}]`."""

    def __init__(self, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False,
                 min_value: Optional[float] = None, max_value: Optional[float] = None) -> None:
        super().__init__()
        if min_value is not None:
            warnings.warn("keyword argument `min_value` is deprecated and renamed to `min_val`", FutureWarning,
                          stacklevel=2)
            min_val = min_value
        if max_value is not None:
            warnings.warn("keyword argument `max_value` is deprecated and renamed to `max_val`", FutureWarning,
                          stacklevel=2)
            max_val = max_value
        if max_val <= min_val:
            raise AssertionError(f"max_val ({max_val}) must be greater than min_val ({min_val})")
        self.min_val = min_val
        self.max_val = max_val
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self) -> str:
        return f"min_val={self.min_val}, max_val={self.max_val}" + (", inplace=True" if self.inplace else "")


class ReLU6(Hardtanh):
    r""":math:`\min(\max(0, x), 6)`."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__(0.0, F.activation_extra.RELU6_MAX, inplace)

    def extra_repr(self) -> str:
        return _inplace_repr(self.inplace)


class Hardswish(_InPlaceOption):
    r""":math:`x \cdot \mathrm{relu6}(x + 3) / 6`."""

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.hardswish(input, self.inplace)


class Hardsigmoid(_InPlaceOption):
    r""":math:`\mathrm{relu6}(x + 3) / 6`."""

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.hardsigmoid(input, self.inplace)


class Mish(_InPlaceOption):
    r""":math:`x \tanh(\mathrm{softplus}(x))`."""

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.mish(input, self.inplace)

    def extra_repr(self) -> str:
        return _inplace_repr(self.inplace)


class Softsign(Module):
    r""":math:`x / (1 + |x|)`."""

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.softsign(input)


class LogSigmoid(Module):
    r""":math:`\log \sigma(x)`, computed stably."""

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.logsigmoid(input)


class Tanhshrink(Module):
    r""":math:`x - \tanh(x)`."""

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.tanhshrink(input)


class Softmin(Module):
    """Softmax of ``-input`` along ``dim``."""

    def __init__(self, dim: Optional[int] = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.softmin(input, self.dim, _stacklevel=5)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Softmax2d(Module):
    """Softmax over the channels (dimension -3) of ``(N, C, H, W)`` or ``(C, H, W)`` input."""

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        if input.dim() not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.dim()}D instead")
        return F.softmax(input, -3, _stacklevel=5)


class Threshold(Module):
    r""":math:`x` where :math:`x > \mathrm{threshold}`, else ``value``."""

    def __init__(self, threshold: float, value: float, inplace: bool = False) -> None:
        super().__init__()
        self.threshold = threshold
        self.value = value
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self) -> str:
        return f"threshold={self.threshold}, value={self.value}" + (", inplace=True" if self.inplace else "")


class GLU(Module):
    r""":math:`a \otimes \sigma(b)` for the two halves :math:`a, b` of ``input`` along ``dim``."""

    def __init__(self, dim: int = -1) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.glu(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class _LambdaOption(Module):
    """A shrink function's half-width ``lambd``."""

    def __init__(self, lambd: float = DEFAULT_LAMBDA) -> None:
        super().__init__()
        self.lambd = lambd

    def extra_repr(self) -> str:
        return str(self.lambd)


class Softshrink(_LambdaOption):
    r""":math:`x \mp \lambda` outside :math:`[-\lambda, \lambda]`, else 0."""

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.softshrink(input, self.lambd)


class Hardshrink(_LambdaOption):
    r""":math:`x` outside :math:`[-\lambda, \lambda]`, else 0."""

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.hardshrink(input, self.lambd)


class PReLU(Module):
    r""":math:`x` for :math:`x > 0`, else :math:`a x` with learned slopes ``weight``: one shared
    (``num_parameters=1``) or one per channel, all starting at ``init``."""

    def __init__(self, num_parameters: int = 1, init: float = DEFAULT_PRELU_SLOPE, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__()
        self.num_parameters = num_parameters
        self.init = init
        self.weight = Parameter(creation.empty(num_parameters, device=device, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.constant_(self.weight, self.init)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.prelu(input, self.weight)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"


class RReLU(Module):
    r"""Randomized leaky ReLU: a random negative slope per element in training, their mean in evaluation."""

    def __init__(self, lower: float = F.activation_extra.RRELU_LOWER, upper: float = F.activation_extra.RRELU_UPPER,
                 inplace: bool = False) -> None:
        super().__init__()
        self.lower, self.upper, self.inplace = lower, upper, inplace

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"lower={self.lower}, upper={self.upper}" + (", inplace=True" if self.inplace else "")

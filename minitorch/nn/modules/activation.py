"""Activation layers: each wraps one function of :mod:`minitorch.nn.functional`, no parameters."""

from __future__ import annotations

from typing import Optional

from ...tensor import Tensor
from .. import functional as F
from .module import Module

__all__ = ["GELU", "LeakyReLU", "LogSoftmax", "ReLU", "SiLU", "Sigmoid", "Softmax", "Softplus", "Tanh"]


class ReLU(Module):
    r""":math:`\max(0, x)` elementwise."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002 - PyTorch's argument name
        return F.relu(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class LeakyReLU(Module):
    r""":math:`x` for :math:`x > 0`, else :math:`\mathrm{negative\_slope} \cdot x`."""

    def __init__(self, negative_slope: float = 1e-2, inplace: bool = False) -> None:
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self) -> str:
        return f"negative_slope={self.negative_slope}" + (", inplace=True" if self.inplace else "")


class GELU(Module):
    r""":math:`x\,\Phi(x)`; ``approximate='tanh'`` uses the tanh form."""

    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


class SiLU(Module):
    r""":math:`x\,\sigma(x)`."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.silu(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class Sigmoid(Module):
    r""":math:`1 / (1 + e^{-x})`."""

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return input.sigmoid()


class Tanh(Module):
    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return input.tanh()


class Softplus(Module):
    r""":math:`\tfrac1\beta \log(1 + e^{\beta x})`, linear above ``threshold``."""

    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"


class Softmax(Module):
    """Softmax along ``dim``."""

    def __init__(self, dim: Optional[int] = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.softmax(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class LogSoftmax(Module):
    """Log-softmax along ``dim``."""

    def __init__(self, dim: Optional[int] = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.log_softmax(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


from .attention import MultiheadAttention  # noqa: E402,F401 - PyTorch's module path for it

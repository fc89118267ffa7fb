r"""Activations whose backward is simpler written out than traced: softmax, log-softmax, GELU.

Softmax along a dimension, :math:`y_i = e^{x_i} / \sum_j e^{x_j}`, is computed from
:math:`x - \max_j x_j` (the same result, and no :math:`e^{x}` overflows). Its
vector-Jacobian product needs only the output:

.. math:: \frac{\partial L}{\partial x_i} = y_i \Big(g_i - \sum_j g_j y_j\Big),
   \qquad \text{log-softmax: } \frac{\partial L}{\partial x_i} = g_i - e^{y_i} \sum_j g_j .

GELU is :math:`x\,\Phi(x)` with :math:`\Phi` the standard normal CDF, so its derivative is
:math:`\Phi(x) + x\,\varphi(x)`.
"""

from __future__ import annotations

import math

from ..autograd.function import Context, Function
from ..tensor import Tensor, where

SQRT_HALF = math.sqrt(0.5)
#: :math:`1/\sqrt{2\pi}`, rounded as PyTorch forms it (:math:`\tfrac{2}{\sqrt\pi} \cdot \tfrac{1}{\sqrt 2} \cdot \tfrac12`)
INV_SQRT_2PI = 2.0 / math.sqrt(math.pi) * math.sqrt(0.5) * 0.5
#: the tanh form of GELU: :math:`\tfrac12 x (1 + \tanh(\sqrt{2/\pi}\,(x + 0.044715 x^3)))`
TANH_SCALE = math.sqrt(2.0 / math.pi)
TANH_CUBIC = 0.044715


def normal_cdf(x: Tensor) -> Tensor:
    r""":math:`\Phi(x) = \tfrac12 (1 + \mathrm{erf}(x / \sqrt 2))` with the erf op, in PyTorch's
    form (so the two agree to rounding, the left tail's cancellation included)."""
    return 0.5 * (1.0 + (x * SQRT_HALF).erf())


class Softmax(Function):
    r""":math:`y = e^{x - \max x} / \sum e^{x - \max x}` along ``dim``."""

    @staticmethod
    def forward(ctx: Context, x: Tensor, dim: int) -> Tensor:
        # BEGIN SOLUTION 5.2
        shifted = (x - x.amax(dim, keepdim=True)).exp()
        y = shifted / shifted.sum(dim, keepdim=True)
        ctx.save_for_backward(y)
        ctx.dim = dim
        return y
        # END SOLUTION

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Tensor, None]:
        # BEGIN SOLUTION 5.2
        (y,) = ctx.saved_tensors
        return y * (grad - (grad * y).sum(ctx.dim, keepdim=True)), None
        # END SOLUTION


class LogSoftmax(Function):
    r""":math:`y = x - \max x - \log \sum e^{x - \max x}` along ``dim``."""

    @staticmethod
    def forward(ctx: Context, x: Tensor, dim: int) -> Tensor:
        # BEGIN SOLUTION 5.2
        shifted = x - x.amax(dim, keepdim=True)
        y = shifted - shifted.exp().sum(dim, keepdim=True).log()
        ctx.save_for_backward(y)
        ctx.dim = dim
        return y
        # END SOLUTION

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Tensor, None]:
        # BEGIN SOLUTION 5.2
        (y,) = ctx.saved_tensors
        return grad - y.exp() * grad.sum(ctx.dim, keepdim=True), None
        # END SOLUTION


class GELU(Function):
    r""":math:`x\,\Phi(x)`, or with ``approximate='tanh'`` the tanh form (see module constants)."""

    grad_fn_name = "GeluBackward0"  # PyTorch's spelling, not the class's

    @staticmethod
    def forward(ctx: Context, x: Tensor, approximate: str) -> Tensor:
        ctx.save_for_backward(x)
        ctx.approximate = approximate
        if approximate == "tanh":
            return 0.5 * x * (1.0 + (TANH_SCALE * (x + TANH_CUBIC * x * x * x)).tanh())
        return x * normal_cdf(x)

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Tensor, None]:
        # BEGIN SOLUTION 5.1
        (x,) = ctx.saved_tensors
        if ctx.approximate == "tanh":
            t = (TANH_SCALE * (x + TANH_CUBIC * x * x * x)).tanh()
            slope = 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * TANH_SCALE * (1.0 + 3.0 * TANH_CUBIC * x * x)
        else:
            slope = normal_cdf(x) + x * ((-0.5 * x * x).exp() * INV_SQRT_2PI)
        return grad * slope, None
        # END SOLUTION


class Softplus(Function):
    r""":math:`\tfrac{1}{\beta}\log(1 + e^{\beta x})`, and :math:`x` where :math:`\beta x` passes
    ``threshold``; the derivative is :math:`\sigma(\beta x)` (1 past the threshold).

    The forward uses :math:`\log(1 + e^s) = \max(s, 0) + \log(1 + e^{-|s|})` (no overflow); its own
    derivative would be 0 at :math:`s = 0`, where both pieces bend, instead of :math:`\sigma(0) = \tfrac12`,
    so the backward is written out.
    """

    grad_fn_name = "SoftplusBackward0"

    @staticmethod
    def forward(ctx: Context, x: Tensor, beta: float, threshold: float) -> Tensor:
        scaled = x * beta
        smooth = (scaled.relu() + (1.0 + (-scaled.abs()).exp()).log()) / beta
        ctx.save_for_backward(x)
        ctx.beta, ctx.threshold = beta, threshold
        return where(scaled > threshold, x, smooth)

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Tensor, None, None]:
        (x,) = ctx.saved_tensors
        scaled = x * ctx.beta
        return grad * where(scaled > ctx.threshold, 1.0, scaled.sigmoid()), None, None

r"""Fold an eval-mode batch norm into the convolution or linear layer before it.

In eval mode batch norm is affine: with :math:`s = \gamma / \sqrt{\sigma^2 + \epsilon}` per channel,

.. math:: \mathrm{bn}(W x + b) = (s \odot W)\,x + (b - \mu)\,s + \beta,

so one layer with the weight :math:`s \odot W` (each output channel's rows scaled) and the bias
:math:`(b - \mu)\,s + \beta` computes both (a missing :math:`\gamma` counts as 1, missing
:math:`b` and :math:`\beta` as 0). The quantization and deployment tutorials fuse before converting.
"""

from __future__ import annotations

import copy
from typing import Optional, TypeVar

from ...autograd.grad_mode import no_grad
from ...creation import ones_like, zeros_like
from ...tensor import Tensor
from ..modules.linear import Linear
from ..modules.module import Module
from ..parameter import Parameter

LayerT = TypeVar("LayerT", bound=Module)

__all__ = ["fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval", "fuse_linear_bn_weights"]


def _check_eval(layer: Module, bn: Module) -> None:
    if layer.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("bn.running_mean and bn.running_var must not be None")


def fuse_conv_bn_eval(conv: LayerT, bn: Module, transpose: bool = False) -> LayerT:
    """A copy of ``conv`` (any ``ConvNd``; ``transpose`` for a ``ConvTransposeNd``) that also does eval-mode ``bn``."""
    _check_eval(conv, bn)
    fused = copy.deepcopy(conv)
    fused.weight, fused.bias = fuse_conv_bn_weights(fused.weight, fused.bias, bn.running_mean, bn.running_var, bn.eps,
                                                    bn.weight, bn.bias, transpose)
    return fused


def fuse_conv_bn_weights(conv_w: Tensor, conv_b: Optional[Tensor], bn_rm: Tensor, bn_rv: Tensor, bn_eps: float,
                         bn_w: Optional[Tensor], bn_b: Optional[Tensor],
                         transpose: bool = False) -> tuple[Parameter, Parameter]:
    """The fused convolution's weight and bias (the output channels are dimension 1 of a transposed
    convolution's weight, else 0), each in its own dtype."""
    bias_dtype = conv_b.dtype if conv_b is not None else conv_w.dtype
    conv_b = zeros_like(bn_rm) if conv_b is None else conv_b
    bn_w = ones_like(bn_rm) if bn_w is None else bn_w
    bn_b = zeros_like(bn_rm) if bn_b is None else bn_b
    channels = [1, -1] if transpose else [-1, 1]
    with no_grad():
        inverse_std = (bn_rv + bn_eps).rsqrt()
        weight = (conv_w * (bn_w * inverse_std).reshape(channels + [1] * (conv_w.dim() - 2))).to(conv_w.dtype)
        bias = ((conv_b - bn_rm) * inverse_std * bn_w + bn_b).to(bias_dtype)
    return Parameter(weight, conv_w.requires_grad), Parameter(bias, conv_b.requires_grad)


def fuse_linear_bn_eval(linear: Linear, bn: Module) -> Linear:
    """A copy of ``linear`` that also does eval-mode ``bn`` over its outputs (``bn`` of as many features, or of one)."""
    _check_eval(linear, bn)
    if linear.out_features != bn.num_features and bn.num_features != 1:
        raise AssertionError(
            "To fuse, linear.out_features == bn.num_features or bn.num_features == 1, "
            f"got linear.out_features={linear.out_features} and bn.num_features={bn.num_features}"
        )
    fused = copy.deepcopy(linear)
    fused.weight, fused.bias = fuse_linear_bn_weights(fused.weight, fused.bias, bn.running_mean, bn.running_var,
                                                      bn.eps, bn.weight, bn.bias)
    return fused


def fuse_linear_bn_weights(linear_w: Tensor, linear_b: Optional[Tensor], bn_rm: Tensor, bn_rv: Tensor,
                           bn_eps: float, bn_w: Tensor, bn_b: Tensor) -> tuple[Parameter, Parameter]:
    """The fused linear layer's weight and bias, each in its own dtype."""
    bias_dtype = linear_b.dtype if linear_b is not None else linear_w.dtype
    linear_b = zeros_like(bn_rm) if linear_b is None else linear_b
    with no_grad():
        scale = bn_w * (bn_rv + bn_eps).rsqrt()
        weight = linear_w * scale.unsqueeze(-1).to(linear_w.dtype)
        bias = ((linear_b - bn_rm) * scale + bn_b).to(bias_dtype)
    return Parameter(weight, linear_w.requires_grad), Parameter(bias, linear_b.requires_grad)

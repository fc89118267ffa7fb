r"""Convolution as one op, where the backend convolves directly (the CPU's kernels).

A convolution is bilinear: :math:`y = \mathrm{conv}(x, w)` is linear in ``x`` for a fixed
``w`` and in ``w`` for a fixed ``x``. Its two gradients are its adjoints,

.. math:: \langle G_x(g, w), h\rangle = \langle g, \mathrm{conv}(h, w)\rangle, \qquad
          \langle G_w(g, x), v\rangle = \langle g, \mathrm{conv}(x, v)\rangle,

and they are bilinear too, so their own gradients are again the three maps:

- :math:`G_x(g, w)`: by ``g`` it is :math:`\mathrm{conv}(h, w)`, by ``w`` it is :math:`G_w(g, h)`;
- :math:`G_w(g, x)`: by ``g`` it is :math:`\mathrm{conv}(x, v)`, by ``x`` it is :math:`G_x(g, v)`.

So three :class:`Function` s, each with its backward written in the other two, give
gradients of any order (``create_graph=True``) without a composite graph. Where the
backend has no direct kernels, :func:`minitorch.nn.functional.conv2d` builds the
convolution from a window view and a matrix product instead.

A transposed convolution is :math:`G_x` itself, read as a map of ``g``: its input plays the
output gradient and its output the input gradient. :class:`TransposedConvolution` is that map
plus a bias, one node as PyTorch records it, with :math:`G_x`'s gradients.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from ..autograd.function import Context, Function
from ..backends.base import ConvGeometry
from ..conv_dispatch import conv2d_input_grad_op, conv2d_op, conv2d_weight_grad_op
from ..dispatch import zip_op

if TYPE_CHECKING:
    from ..tensor import Tensor


def _bias_grad(grad: Tensor) -> Tensor:
    """The bias's gradient: ``grad`` summed over the batch and every position."""
    return grad.sum(dim=(0, *range(2, grad.dim())))


class Convolution(Function):
    """``conv(x, w) + bias`` of a ``(N, C, [H,] W)`` input."""

    grad_fn_name = "ConvolutionBackward0"

    @staticmethod
    def forward(ctx: Context, x: Tensor, weight: Tensor, bias: Optional[Tensor], geometry: ConvGeometry) -> Tensor:
        needs_x, needs_w = ctx.needs_input_grad[0], ctx.needs_input_grad[1]
        ctx.save_for_backward(weight if needs_x else None, x if needs_w else None)
        ctx.geometry, ctx.input_shape, ctx.weight_shape = geometry, x.shape, weight.shape
        return conv2d_op(x, weight, bias, geometry)

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Optional[Tensor], Optional[Tensor], Optional[Tensor], None]:
        weight, x = ctx.saved_tensors
        needs_x, needs_w, needs_bias = ctx.needs_input_grad[:3]
        grad_x = ConvolutionInputGrad.apply(grad, weight, ctx.geometry, ctx.input_shape) if needs_x else None
        grad_w = ConvolutionWeightGrad.apply(grad, x, ctx.geometry, ctx.weight_shape) if needs_w else None
        return grad_x, grad_w, _bias_grad(grad) if needs_bias else None, None


class ConvolutionInputGrad(Function):
    r""":math:`G_x(g, w)`, the input's gradient of a convolution for the output's gradient ``g``."""

    @staticmethod
    def forward(ctx: Context, grad: Tensor, weight: Tensor, geometry: ConvGeometry, input_shape: tuple[int, ...]) -> Tensor:
        ctx.save_for_backward(weight if ctx.needs_input_grad[0] else None, grad if ctx.needs_input_grad[1] else None)
        ctx.geometry, ctx.weight_shape = geometry, weight.shape
        return conv2d_input_grad_op(grad, weight, geometry, input_shape)

    @staticmethod
    def backward(ctx: Context, h: Tensor) -> tuple[Optional[Tensor], Optional[Tensor], None, None]:
        weight, grad = ctx.saved_tensors
        by_grad = Convolution.apply(h, weight, None, ctx.geometry) if weight is not None else None
        by_weight = ConvolutionWeightGrad.apply(grad, h, ctx.geometry, ctx.weight_shape) if grad is not None else None
        return by_grad, by_weight, None, None


class ConvolutionWeightGrad(Function):
    r""":math:`G_w(g, x)`, the weight's gradient of a convolution for the output's gradient ``g``."""

    @staticmethod
    def forward(ctx: Context, grad: Tensor, x: Tensor, geometry: ConvGeometry, weight_shape: tuple[int, ...]) -> Tensor:
        ctx.save_for_backward(x if ctx.needs_input_grad[0] else None, grad if ctx.needs_input_grad[1] else None)
        ctx.geometry, ctx.input_shape = geometry, x.shape
        return conv2d_weight_grad_op(grad, x, geometry, weight_shape)

    @staticmethod
    def backward(ctx: Context, v: Tensor) -> tuple[Optional[Tensor], Optional[Tensor], None, None]:
        x, grad = ctx.saved_tensors
        by_grad = Convolution.apply(x, v, None, ctx.geometry) if x is not None else None
        by_x = ConvolutionInputGrad.apply(grad, v, ctx.geometry, ctx.input_shape) if grad is not None else None
        return by_grad, by_x, None, None


class TransposedConvolution(Function):
    r"""``conv_transpose(x, w) + bias`` of a ``(N, C, [H,] W)`` input, ``w`` of shape ``(C, O/groups, [KH,] KW)``:
    :math:`y = G_x(x, w) + b`, the input gradient of the convolution by ``w`` (``geometry``) of an
    ``output_shape`` input for the output gradient ``x``. Its gradients are :math:`G_x`'s:

    .. math:: \partial x = \mathrm{conv}(g, w), \qquad \partial w = G_w(x, g), \qquad
              \partial b_o = \sum_{n, \mathbf{q}} g[n, o, \mathbf{q}]
    """

    grad_fn_name = "ConvolutionBackward0"

    @staticmethod
    def forward(ctx: Context, x: Tensor, weight: Tensor, bias: Optional[Tensor], geometry: ConvGeometry,
                output_shape: tuple[int, ...]) -> Tensor:
        needs_x, needs_w = ctx.needs_input_grad[0], ctx.needs_input_grad[1]
        ctx.save_for_backward(weight if needs_x else None, x if needs_w else None)
        ctx.geometry, ctx.weight_shape = geometry, weight.shape
        out = conv2d_input_grad_op(x, weight, geometry, output_shape)
        if bias is not None:
            zip_op("add", out, bias.view(-1, *(1,) * (out.dim() - 2)), out=out)
        return out

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Optional[Tensor], Optional[Tensor], Optional[Tensor], None, None]:
        weight, x = ctx.saved_tensors
        needs_x, needs_w, needs_bias = ctx.needs_input_grad[:3]
        grad_x = Convolution.apply(grad, weight, None, ctx.geometry) if needs_x else None
        grad_w = ConvolutionWeightGrad.apply(x, grad, ctx.geometry, ctx.weight_shape) if needs_w else None
        return grad_x, grad_w, _bias_grad(grad) if needs_bias else None, None, None

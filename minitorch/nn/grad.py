r"""A convolution's gradients as functions of their own, as ``torch.nn.grad`` (also ``F.grad``).

For :math:`y = \mathrm{conv}(x, w)` and an output gradient :math:`g`:

* ``convNd_input(input_size, w, g)`` is :math:`\partial L / \partial x`, the transposed
  convolution of :math:`g` by :math:`w`; the size of :math:`x` is given, since a strided
  convolution maps several input sizes to one output size (the difference is the transposed
  convolution's ``output_padding``);
* ``convNd_weight(x, weight_size, g)`` is :math:`\partial L / \partial w`, the correlation of
  :math:`x` with :math:`g`, found here by differentiating the convolution with respect to a
  weight of the given size.

Both are differentiable in their tensor arguments (custom Functions' hand-written backwards,
as in the conv + batch norm fusion tutorial, call them, and double backward goes through).
"""

from __future__ import annotations

from typing import Callable, Sequence

from ..autograd import grad as differentiate
from ..autograd.grad_mode import enable_grad, is_grad_enabled
from ..creation import zeros
from ..tensor import Tensor
from .functional._utils import IntOrTuple, ntuple
from .functional.conv import conv1d, conv2d, conv3d
from .functional.conv_transpose import conv_transpose1d, conv_transpose2d, conv_transpose3d

__all__ = ["conv1d_input", "conv1d_weight", "conv2d_input", "conv2d_weight", "conv3d_input", "conv3d_weight"]

Conv = Callable[..., Tensor]


def _input_grad(n: int, transposed: Conv, input_size: Sequence[int], weight: Tensor, grad_output: Tensor,
                stride: IntOrTuple, padding: IntOrTuple, dilation: IntOrTuple, groups: int) -> Tensor:
    """The input's gradient: the transposed convolution, padded at the end up to ``input_size``."""
    steps, pads = ntuple(stride, n, "stride"), ntuple(padding, n, "padding")
    dilations = ntuple(dilation, n, "dilation")
    kernel = tuple(weight.shape[2:])
    produced = [(o - 1) * s - 2 * p + d * (k - 1) + 1
                for o, k, s, p, d in zip(grad_output.shape[-n:], kernel, steps, pads, dilations)]
    wanted = tuple(input_size)[-n:]
    extra = tuple(size - made for size, made in zip(wanted, produced))
    if any(e < 0 or (e >= s and e >= d) for e, s, d in zip(extra, steps, dilations)):
        raise RuntimeError(f"requested an input grad size of {list(wanted)}, but valid sizes range from {produced} to "
                           f"{[made + max(s, d) - 1 for made, s, d in zip(produced, steps, dilations)]} "
                           f"(for a grad_output of {list(grad_output.shape[-n:])})")
    return transposed(grad_output, weight, None, steps, pads, extra, groups, dilations)


def _weight_grad(conv: Conv, input: Tensor, weight_size: Sequence[int], grad_output: Tensor,  # noqa: A002
                 stride: IntOrTuple, padding: IntOrTuple, dilation: IntOrTuple, groups: int) -> Tensor:
    """The weight's gradient: the convolution differentiated at a weight of ``weight_size``
    (its value does not matter, the gradient is linear in ``input`` and ``grad_output`` only)."""
    keep_graph = is_grad_enabled() and (input.requires_grad or grad_output.requires_grad)
    with enable_grad():
        weight = zeros(tuple(weight_size), dtype=input.dtype, device=input.device, requires_grad=True)
        out = conv(input, weight, None, stride, padding, dilation, groups)
        (found,) = differentiate(out, weight, grad_output, create_graph=keep_graph)
    return found if keep_graph else found.detach()


def conv1d_input(input_size: Sequence[int], weight: Tensor, grad_output: Tensor, stride: IntOrTuple = 1,
                 padding: IntOrTuple = 0, dilation: IntOrTuple = 1, groups: int = 1) -> Tensor:
    """The gradient of :func:`~minitorch.nn.functional.conv1d` with respect to an input of ``input_size``."""
    return _input_grad(1, conv_transpose1d, input_size, weight, grad_output, stride, padding, dilation, groups)


def conv1d_weight(input: Tensor, weight_size: Sequence[int], grad_output: Tensor,  # noqa: A002
                  stride: IntOrTuple = 1, padding: IntOrTuple = 0, dilation: IntOrTuple = 1,
                  groups: int = 1) -> Tensor:
    """The gradient of :func:`~minitorch.nn.functional.conv1d` with respect to a weight of ``weight_size``."""
    return _weight_grad(conv1d, input, weight_size, grad_output, stride, padding, dilation, groups)


def conv2d_input(input_size: Sequence[int], weight: Tensor, grad_output: Tensor, stride: IntOrTuple = 1,
                 padding: IntOrTuple = 0, dilation: IntOrTuple = 1, groups: int = 1) -> Tensor:
    """The gradient of :func:`~minitorch.nn.functional.conv2d` with respect to an input of ``input_size``."""
    return _input_grad(2, conv_transpose2d, input_size, weight, grad_output, stride, padding, dilation, groups)


def conv2d_weight(input: Tensor, weight_size: Sequence[int], grad_output: Tensor,  # noqa: A002
                  stride: IntOrTuple = 1, padding: IntOrTuple = 0, dilation: IntOrTuple = 1,
                  groups: int = 1) -> Tensor:
    """The gradient of :func:`~minitorch.nn.functional.conv2d` with respect to a weight of ``weight_size``."""
    return _weight_grad(conv2d, input, weight_size, grad_output, stride, padding, dilation, groups)


def conv3d_input(input_size: Sequence[int], weight: Tensor, grad_output: Tensor, stride: IntOrTuple = 1,
                 padding: IntOrTuple = 0, dilation: IntOrTuple = 1, groups: int = 1) -> Tensor:
    """The gradient of :func:`~minitorch.nn.functional.conv3d` with respect to an input of ``input_size``."""
    return _input_grad(3, conv_transpose3d, input_size, weight, grad_output, stride, padding, dilation, groups)


def conv3d_weight(input: Tensor, weight_size: Sequence[int], grad_output: Tensor,  # noqa: A002
                  stride: IntOrTuple = 1, padding: IntOrTuple = 0, dilation: IntOrTuple = 1,
                  groups: int = 1) -> Tensor:
    """The gradient of :func:`~minitorch.nn.functional.conv3d` with respect to a weight of ``weight_size``."""
    return _weight_grad(conv3d, input, weight_size, grad_output, stride, padding, dilation, groups)

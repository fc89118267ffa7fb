r"""Max-pooling as one op, where the backend pools directly (the CPU's kernel).

The forward finds each window's maximum and its place in the input plane; the gradient goes
to that place only (:math:`\partial x_p = \sum_{\text{windows } w:\ p_w = p} g_w`), added by the
backend's kernel too (with ``create_graph``, by a scatter along the flattened plane, as a gather's
gradient). Where the backend has no such kernel,
:func:`minitorch.nn.functional.max_pool2d` takes the maximum over a window view instead.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..autograd.function import Context, Function
from ..backends.base import PoolGeometry
from ..autograd.grad_mode import is_grad_enabled
from ..pool_dispatch import max_pool2d_backward_op, max_pool2d_op
from .indexing import scatter_into_zeros

if TYPE_CHECKING:
    from ..tensor import Tensor


class MaxPool2d(Function):
    """``(values, indices)``: each window's maximum of a ``(..., H, W)`` input and its place ``row * W + column``."""

    grad_fn_name = "MaxPool2DWithIndicesBackward0"

    @staticmethod
    def forward(ctx: Context, x: Tensor, geometry: PoolGeometry) -> tuple[Tensor, Tensor]:
        values, indices = max_pool2d_op(x, geometry)
        ctx.save_for_backward(indices)
        ctx.input_shape = x.shape
        return values, indices

    @staticmethod
    def backward(ctx: Context, grad: Tensor, grad_indices: None = None) -> tuple[Tensor, None]:
        (indices,) = ctx.saved_tensors
        if not is_grad_enabled():  # the backend's kernel: each plane's gradient in one pass
            return max_pool2d_backward_op(grad, indices, ctx.input_shape), None
        # with create_graph, a differentiable scatter: the values are a gather from each flattened
        # plane, so the gradient is a gather's backward
        *lead, height, width = ctx.input_shape
        planes = scatter_into_zeros((*lead, height * width), len(lead), indices.reshape(*lead, -1),
                                    grad.reshape(*lead, -1))
        return planes.view(ctx.input_shape), None

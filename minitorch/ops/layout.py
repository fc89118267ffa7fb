"""A copy of a tensor laid out in a memory format, as one differentiable op.

``clone``, ``contiguous`` and ``to`` with ``memory_format=`` make it: the result has the
input's shape and values, the strides the memory format gives
(:func:`~minitorch.memory_formats.copy_strides`) and the dtype ``to`` asks for. The gradient
passes through, converted back to the input's dtype.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import dtypes
from ..autograd.function import Context, Function
from ..dispatch import empty_laid_out, map_op
from ..tensor_data import Strides

if TYPE_CHECKING:  # tensor.py imports this module
    from ..tensor import Tensor


class LaidOutCopy(Function):
    """``a`` copied into a new tensor of ``dtype`` whose elements lie in storage by ``strides``
    (a dense layout of ``a``'s shape); its node is called ``node_name`` (PyTorch's
    ``CloneBackward0`` or ``ToCopyBackward0``)."""

    @staticmethod
    def forward(ctx: Context, a: Tensor, strides: Strides, dtype: dtypes.dtype, node_name: str) -> Tensor:
        ctx.grad_fn_name = node_name
        ctx.input_dtype = a.dtype
        out = empty_laid_out(a._data.shape, strides, dtype, a._device)
        map_op("copy", a, out=out)
        return out

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Tensor, None, None, None]:
        return (grad if grad.dtype is ctx.input_dtype else grad.to(ctx.input_dtype)), None, None, None

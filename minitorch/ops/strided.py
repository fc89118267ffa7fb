r"""``as_strided``: any shape and strides over a tensor's storage, and ``broadcast_tensors``.

``x.as_strided(size, stride, storage_offset)`` reads element :math:`i` of the result at storage
position :math:`\text{offset} + \sum_d i_d \, \text{stride}_d`, counted from the start of ``x``'s
storage as in PyTorch (the offset defaults to ``x``'s own). No kernel checks bounds, so every
position the view can reach is checked here first. Windows may overlap (a stride smaller than a
window): the gradient then adds up at each element, as the sliding-window view's does.
"""

from __future__ import annotations

import math
from typing import Any, Optional, Sequence

from ..autograd.function import Context, Function
from ..autograd.linear_map import linear_map
from ..dispatch import accumulate_op, empty
from ..size import Size
from ..tensor import Tensor, add_tensor_methods
from ..tensor_data import TensorData, shape_broadcast


def _strided_data(a: Tensor, size: tuple[int, ...], stride: tuple[int, ...], offset: int) -> TensorData:
    """The view's layout over ``a``'s storage, checked to stay inside it (PyTorch's errors)."""
    if len(size) != len(stride):
        raise RuntimeError(f"mismatch in length of strides and shape: {len(stride)} strides for {len(size)} sizes")
    if any(n < 0 for n in size):
        raise RuntimeError(f"as_strided: negative size in {list(size)}")
    if any(s < 0 for s in stride):
        raise RuntimeError(f"as_strided: Negative strides are not supported at the moment, got strides: {list(stride)}")
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    storage_size = len(a._data.storage)
    needed = offset + 1 + sum((n - 1) * s for n, s in zip(size, stride)) if math.prod(size) else 0
    if needed > storage_size:
        raise RuntimeError(
            f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset} require a storage "
            f"of {needed} elements, out of bounds for storage of size {storage_size}")
    return TensorData(a._data.storage, size, stride, offset)


class AsStrided(Function):
    r"""The view ``(size, stride, offset)`` of ``a``'s storage; the gradient adds each element's
    share back where it was read: :math:`\partial a_j = \sum_{i : \text{pos}(i) = j} g_i`."""

    grad_fn_name = "AsStridedBackward0"

    @staticmethod
    def forward(ctx: Context, a: Tensor, size: tuple[int, ...], stride: tuple[int, ...], offset: int) -> Tensor:
        data = _strided_data(a, size, stride, offset)
        if ctx.needs_input_grad[0]:
            own = a._data
            reach = offset + sum((n - 1) * s for n, s in zip(size, stride)) if data.size else offset
            if not own.is_contiguous() or offset < own.offset or reach >= own.offset + own.size:
                raise NotImplementedError(
                    "as_strided of a tensor that requires grad: minitorch differentiates it only on a contiguous "
                    f"tensor and within the tensor's own elements (storage positions {own.offset} to "
                    f"{own.offset + own.size - 1}; this view reads {offset} to {reach})")
            ctx.input_shape, ctx.layout = a.shape, (size, stride, offset - own.offset)
        return a._view_of(data)

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Optional[Tensor], None, None, None]:
        size, stride, relative = ctx.layout

        def add_back(g: Tensor) -> Tensor:
            full = empty(ctx.input_shape, g.dtype, g.device)
            full._raw_fill(0)
            accumulate_op(g, full._view_of(TensorData(full._data.storage, size, stride, relative)))
            return full

        def adjoint(v: Tensor) -> Tensor:  # reading the same positions of a tensor of the input's shape
            flat = v.contiguous()
            return AsStrided.apply(flat, size, stride, flat._data.offset + relative)

        return linear_map(grad, add_back, adjoint, "AsStridedBackwardBackward0"), None, None, None


def as_strided(input: Tensor, size: Sequence[int], stride: Sequence[int],  # noqa: A002 - PyTorch's names
               storage_offset: Optional[int] = None) -> Tensor:
    """The view of ``input``'s storage with shape ``size``, strides ``stride`` (in elements) and
    first element at ``storage_offset`` (``input``'s own offset by default)."""
    offset = input._data.offset if storage_offset is None else int(storage_offset)
    return AsStrided.apply(input, tuple(int(n) for n in size), tuple(int(s) for s in stride), offset)


def broadcast_shapes(*shapes: Any) -> Size:
    """The shape that ``shapes`` (tuples, or single sizes) broadcast to, as a ``Size``."""
    result: tuple[int, ...] = ()
    for shape in shapes:
        result = tuple(shape_broadcast(result, (shape,) if isinstance(shape, int) else tuple(shape)))
    return Size(result)


def broadcast_tensors(*tensors: Tensor) -> tuple[Tensor, ...]:
    """Each tensor expanded (a view) to the shape they all broadcast to."""
    shape = broadcast_shapes(*(t.shape for t in tensors))
    return tuple(t.expand(shape) for t in tensors)


class TensorMethods:
    """``as_strided`` as a method, attached to :class:`Tensor` below."""

    def as_strided(self: Tensor, size: Sequence[int], stride: Sequence[int], storage_offset: Optional[int] = None) -> Tensor:
        return as_strided(self, size, stride, storage_offset)


add_tensor_methods({name: method for name, method in vars(TensorMethods).items() if not name.startswith("__")})

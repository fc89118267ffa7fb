r"""In-place writes into a view, recorded by autograd.

Writing ``result`` into a view of ``base`` changes ``base`` too, so ``base`` gets a new
history: :class:`CopySlices` is the old base with the view's region replaced by
``result``. Its gradient splits the incoming one: the region's part goes to ``result``,
the rest to the old base (whose values in the region are gone, so they get 0). The view
itself becomes :class:`AsStrided` of the new base: the Function behind the public
``as_strided`` too (:mod:`.strided`), any shape and strides over a storage, checked to stay in it.

The region is described by the view's geometry (shape, strides, offset) measured in the
base's storage, which is why the base must be contiguous.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Optional

from ..autograd.function import Context, Function
from ..autograd.linear_map import linear_map
from ..dispatch import accumulate_op, empty, map_op
from ..tensor_data import TensorData

if TYPE_CHECKING:  # tensor.py imports this module
    from ..tensor import Tensor

#: a view's place in its base: (shape, strides, offset from the base's first element)
Geometry = tuple[tuple[int, ...], tuple[int, ...], int]


def _region(t: Tensor, geometry: Geometry) -> Tensor:
    """The view of contiguous ``t`` that ``geometry`` describes."""
    shape, strides, offset = geometry
    return t._view_of(TensorData(t._data.storage, shape, strides, t._data.offset + offset))


def _contiguous_copy(t: Tensor) -> Tensor:
    return map_op("copy", t)


class CopySlices(Function):
    """``base`` with the region ``geometry`` overwritten by ``values``."""

    grad_fn_name = "CopySlices"

    @staticmethod
    def forward(ctx: Context, base: Tensor, values: Tensor, geometry: Geometry) -> Tensor:
        ctx.geometry = geometry
        out = _contiguous_copy(base)
        map_op("copy", values, out=_region(out, geometry))
        return out

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Optional[Tensor], Optional[Tensor], None]:
        grad = _contiguous_copy(grad)
        to_values = _contiguous_copy(_region(grad, ctx.geometry)) if ctx.needs_input_grad[1] else None
        to_base = None
        if ctx.needs_input_grad[0]:
            _region(grad, ctx.geometry)._raw_fill(0)
            to_base = grad
        return to_base, to_values, None


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


def rebase_view(base: Tensor, view: Tensor, result: Tensor) -> None:
    """Write ``result`` into ``view`` (a view of ``base``) and record it in both histories."""
    data = base._data
    if not data.is_contiguous():
        raise RuntimeError(
            "in-place operations on views of a non-contiguous tensor that requires grad are not supported "
            f"in minitorch (base shape {list(data.shape)}, strides {list(data.strides)}); "
            "use the out-of-place operation"
        )
    geometry: Geometry = (view._data.shape, view._data.strides, view._data.offset - data.offset)
    new_base = CopySlices.apply(base, result, geometry)
    map_op("copy", result.detach(), out=view.detach())
    base._bump_version()
    base.grad_fn, base._requires_grad, base._output_nr = new_base.grad_fn, new_base._requires_grad, 0
    if base.grad_fn is not None:
        view.grad_fn, view._output_nr = AsStrided.apply(base, view._data.shape, view._data.strides, view._data.offset).grad_fn, 0
        view._requires_grad = True

r"""In-place writes into a view, recorded by autograd.

Writing ``result`` into a view of ``base`` changes ``base`` too, so ``base`` gets a new
history: :class:`CopySlices` is the old base with the view's region replaced by
``result``. Its gradient splits the incoming one: the region's part goes to ``result``,
the rest to the old base (whose values in the region are gone, so they get 0). The view
itself becomes :class:`AsStrided` of the new base.

The region is described by the view's geometry (shape, strides, offset) measured in the
base's storage, which is why the base must be contiguous.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from ..autograd.function import Context, Function
from ..autograd.linear_map import linear_map
from ..dispatch import empty, map_op
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


class AsStrided(Function):
    """The region ``geometry`` of contiguous ``base`` as a view; the gradient is scattered into zeros."""

    @staticmethod
    def forward(ctx: Context, base: Tensor, geometry: Geometry) -> Tensor:
        ctx.geometry, ctx.base_shape = geometry, base.shape
        return _region(base, geometry)

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Tensor, None]:
        def scatter(g: Tensor) -> Tensor:
            full = empty(ctx.base_shape, g.dtype, g.device)
            full._raw_fill(0)
            map_op("copy", g, out=_region(full, ctx.geometry))
            return full

        adjoint = lambda g: AsStrided.apply(g.contiguous(), ctx.geometry)  # noqa: E731
        return linear_map(grad, scatter, adjoint, "AsStridedBackwardBackward0"), None


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
        view.grad_fn, view._output_nr = AsStrided.apply(base, geometry).grad_fn, 0
        view._requires_grad = True

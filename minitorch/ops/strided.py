r"""``as_strided``: any shape and strides over a tensor's storage, and ``broadcast_tensors``.

``x.as_strided(size, stride, storage_offset)`` reads element :math:`i` of the result at storage
position :math:`\text{offset} + \sum_d i_d \, \text{stride}_d`, counted from the start of ``x``'s
storage as in PyTorch (the offset defaults to ``x``'s own). No kernel checks bounds, so every
position the view can reach is checked here first. Windows may overlap (a stride smaller than a
window): the gradient then adds up at each element, as the sliding-window view's does.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

from ..size import Size
from ..tensor import Tensor, add_tensor_methods
from ..tensor_data import shape_broadcast
from .inplace import AsStrided


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
        if isinstance(shape, Tensor):  # a tensor is not a shape (its values would be read as sizes)
            raise RuntimeError(f"Input shapes should be of type ints, a tuple of ints, or a list of ints, got {shape}")
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

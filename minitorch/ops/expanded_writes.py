"""Writes into an expanded tensor (a broadcast dim: stride 0, size > 1), which PyTorch 2.x still
makes for ``index_fill_``, ``index_put_`` and ``masked_fill_``, with a deprecation warning; an
``index_put_`` or ``masked_fill_`` that autograd records is written too, and its backward refuses
a gradient for the expanded tensor itself, as PyTorch's. ``t[key] = v`` with index tensors in
``key`` is PyTorch's ``index_put_`` into the basic view of the key's ints and slices
(:func:`index_put_parts`).

Nothing here is imported from the tensor module at run time, so ``Tensor.masked_fill_`` can use it.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any, Optional, Sequence

import numpy as np

from .. import dtypes
from ..autograd.function import Context, Function

if TYPE_CHECKING:
    from ..tensor import Tensor

#: what PyTorch says when ``op`` writes into an expanded tensor ({0}: the op, {1}: the indexing it names)
EXPANDED_WRITE_WARNING = (
    "Use of {0} on expanded tensors is deprecated. Please clone() the tensor before performing this "
    "operation. This also applies to advanced indexing e.g. {1}"
)


def warn_expanded_write(op: str, example: str) -> None:
    """PyTorch's deprecation warning for ``op`` writing into an expanded tensor (for the caller's caller)."""
    warnings.warn(EXPANDED_WRITE_WARNING.format(op, example), UserWarning, stacklevel=4)


def fill_where_shared(self: Tensor, mask: Tensor, value: Any) -> Tensor:
    """``self.masked_fill_(mask, value)`` for a ``self`` whose elements share memory (an expanded
    tensor), as PyTorch 2.x still does it: each memory location that some True position of
    ``mask`` reaches gets ``value`` (every write writes the same value, so the order does not
    matter). Written through the view with each broadcast dim cut to one element, where the mask
    is True along it anywhere."""
    chosen = mask.expand(self.shape)
    compact = self
    for d, (size, stride) in enumerate(zip(self.shape, self._data.strides)):
        if stride == 0 and size > 1:
            chosen = chosen.any(d, keepdim=True)
            compact = compact.narrow(d, 0, 1)
    compact.masked_fill_(chosen, value)
    return self


def put_where_shared(self: Tensor, indices: Sequence[Optional[Tensor]], values: Tensor, accumulate: bool) -> Tensor:
    """``self.index_put_(indices, values, accumulate)`` for an expanded ``self``, as PyTorch's CPU kernel
    makes it: position by position in the order of the indexed result, each a write (the last one
    to a memory location wins) or, with ``accumulate``, an addition into that location. Computed on
    the host over the view with each broadcast dim cut to one element (one element per location),
    then copied into it."""
    broadcast = _broadcast_dims(self)
    compact = self
    for d in broadcast:
        compact = compact.narrow(d, 0, 1)
    key = tuple(slice(None) if index is None else index.numpy(force=True) for index in indices)
    picked = np.arange(self.numel()).reshape(tuple(self.shape))[key]
    where = list(np.unravel_index(picked.reshape(-1), tuple(self.shape)))
    for d in broadcast:
        where[d] = np.zeros_like(where[d])
    stored = compact.numpy(force=True).copy()
    written = np.broadcast_to(values.numpy(force=True), picked.shape).reshape(-1).astype(stored.dtype)
    if accumulate:
        np.add.at(stored, tuple(where), written)
    else:
        stored[tuple(where)] = written  # a repeated location keeps the last value, as the kernel's loop does
    compact.copy_(compact.new_tensor(stored))
    return self


class ExpandedPut(Function):
    """The contents of an expanded tensor after ``index_put_`` (:func:`put_where_shared`), as a
    tensor of their own for autograd to write back (its ``CopySlices``). The values' gradient is
    PyTorch's: the incoming one at the indexed positions, summed to the values' shape. A gradient
    for the expanded tensor itself is PyTorch's backward error: its backward would write it into
    the expanded (overlapping) view."""

    grad_fn_name = "IndexPutBackward0"

    @staticmethod
    def forward(ctx: Context, old: Tensor, values: Tensor, indices: tuple[Optional[Tensor], ...],
                accumulate: bool) -> Tensor:
        ctx.indices, ctx.values_shape = indices, tuple(values.shape)
        compact = old
        for d in _broadcast_dims(old):
            compact = compact.narrow(d, 0, 1)
        shared = compact.clone().expand(*old.shape)  # the same memory sharing as ``old``, on a copy
        put_where_shared(shared, indices, values, accumulate)
        return shared.contiguous()

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Optional[Tensor], Optional[Tensor], None, None]:
        from ..autograd.engine import sum_to_shape
        from ..tensor import INTERNAL_OVERLAP_ERROR

        if ctx.needs_input_grad[0]:
            raise RuntimeError(INTERNAL_OVERLAP_ERROR)
        key = tuple(slice(None) if index is None else index for index in ctx.indices)
        return None, sum_to_shape(grad[key], ctx.values_shape), None, None


def put_where_shared_recorded(self: Tensor, indices: Sequence[Optional[Tensor]], values: Tensor, accumulate: bool,
                              name: str = "IndexPutBackward0") -> Tensor:
    """``index_put_`` into an expanded ``self`` while autograd records, as PyTorch 2.x makes it: the
    write of :func:`put_where_shared`, recorded as an in-place op (``self`` becomes a view of its
    base's new history) by a node called ``name``; its backward raises where a gradient must
    reach ``self`` itself."""
    self._check_inplace_allowed(values)
    result = ExpandedPut.apply(self, values, tuple(indices), accumulate)
    if result.grad_fn is not None:
        result.grad_fn.rename(name)
    return self._rebase_history(result)


def index_put_parts(t: Tensor, key: Any) -> Optional[tuple[Any, list[Optional[Tensor]]]]:
    """``t[key] = v`` split as PyTorch splits it for ``index_put_``: the basic key (ints, slices,
    ``None``, ``...``; each index tensor a full slice over the dims it indexes) and the ``indices``
    for the view it gives (``None`` where a dim is not indexed). None for a key holding anything
    else (a Python bool, a sequence), which the caller refuses."""
    from ..tensor import Tensor

    items = list(key) if isinstance(key, tuple) else [key]
    if not all(_splittable(item) for item in items):
        return None
    consumed = sum(_dims_indexed(item) for item in items)
    basic: list[Any] = []
    indices: list[Optional[Tensor]] = []
    for item in items:
        if item is Ellipsis:
            basic += [slice(None)] * (t.dim() - consumed)
            indices += [None] * (t.dim() - consumed)
        elif isinstance(item, Tensor) and (item.dim() or item.dtype is dtypes.bool_):
            basic += [slice(None)] * _dims_indexed(item)
            indices.append(item)
        elif isinstance(item, (int, Tensor)):  # an int (or a 0-d integer tensor) selects: no dim left to index
            basic.append(int(item))
        else:  # a slice or None: a dim of the view, not indexed
            basic.append(item)
            indices.append(None)
    return tuple(basic), indices


def _splittable(item: Any) -> bool:
    """Whether :func:`index_put_parts` takes the key item: an int, a slice, ``None``, ``...`` or a
    tensor (not a 0-d bool one, which stands for a new dim)."""
    from ..tensor import Tensor

    if isinstance(item, Tensor):
        return item.dim() > 0 or item.dtype is not dtypes.bool_
    return item is None or item is Ellipsis or isinstance(item, slice) or (isinstance(item, int) and not isinstance(item, bool))


def _dims_indexed(item: Any) -> int:
    """How many dims of the indexed tensor a key item stands for (a bool mask: its own dims)."""
    from ..tensor import Tensor

    if item is None or item is Ellipsis:
        return 0
    if isinstance(item, Tensor) and item.dtype is dtypes.bool_:
        return item.dim()
    return 1


def _broadcast_dims(t: Tensor) -> list[int]:
    """The dims along which ``t``'s elements share memory (stride 0, more than one element)."""
    return [d for d, (size, stride) in enumerate(zip(t.shape, t._data.strides)) if stride == 0 and size > 1]

r"""Advanced indexing: ``t[mask]``, ``t[index_tensor]``, ``t[range(n), labels]`` and their writes.

An index made of integer tensors (or lists, ranges, tuples of ints) and boolean masks, mixed
with ints, slices, ``None`` and ``...``, selects elements by position:

.. math::
    \mathrm{out}[b, \dots] = t[\dots, I_1[b], \dots, I_k[b], \dots]

where the index tensors :math:`I_1 \dots I_k` broadcast together to the shape of :math:`b`
(a boolean mask of rank :math:`r` counts as the :math:`r` index tensors of its ``nonzero()``).
As in PyTorch, ints and slices are applied first (a basic view); the broadcast dimensions
replace the indexed ones where the index tensors stand side by side, and go first when a
slice, ``None`` or ``...`` separates them.

The read is one ``index_select`` of a flat position, so autograd needs no rule of its own: the
gradient of a read element is scatter-added back, duplicates summing. A write builds the new
values out of place (a ``where`` between the old values and the scattered new ones) and
stores them in the tensor; with duplicate positions the last value written wins.
"""

from __future__ import annotations

import math
import warnings
from typing import Any, Optional

import numpy as np

from .. import dtypes
from ..autograd.function import Context, Function
from ..creation import arange, zeros
from ..creation import tensor as make_tensor
from ..index_checks import INDEX_DTYPES
from ..tensor import AdvancedIndexing, Tensor, register_advanced_indexing, where
from .indexing import index_add, index_select

_SEQUENCE_TYPES = (list, tuple, range)


def _is_advanced(item: Any) -> bool:
    if isinstance(item, Tensor):
        return item.dim() > 0 or item.dtype is dtypes.bool_
    if isinstance(item, np.ndarray):
        return True
    return isinstance(item, _SEQUENCE_TYPES)


def needs_advanced(key: Any) -> bool:
    """Whether ``key`` holds an index tensor, a mask or a sequence (anything basic indexing cannot do)."""
    items = key if isinstance(key, tuple) else (key,)
    return any(_is_advanced(item) or isinstance(item, bool) for item in items)


def _as_index_array(item: Any) -> np.ndarray:
    """An index item as a host array of int64 or bool, with PyTorch's error for other dtypes."""
    if isinstance(item, Tensor):
        if item.dtype is not dtypes.bool_ and item.dtype not in INDEX_DTYPES and item.dtype.is_floating_point:
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        values = np.asarray(item.detach().cpu().numpy())
        if item.dtype is dtypes.uint8:  # PyTorch's old meaning of a byte index: a mask
            warnings.warn("indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool instead.",
                          UserWarning, stacklevel=3)
            values = values.astype(np.bool_)
    else:
        values = np.asarray(list(item) if isinstance(item, range) else item)
        if values.size == 0 and values.dtype != np.bool_:
            values = values.astype(np.int64)
    if values.dtype == np.bool_:
        return values
    if not np.issubdtype(values.dtype, np.integer):
        raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    return values.astype(np.int64)


class _BoolAxis:
    """A Python bool (or 0-d bool tensor) in a key: a new dimension, as ``None`` adds, of which
    ``True`` keeps the one entry and ``False`` none (``t[False]`` is empty)."""

    def __init__(self, keep: bool) -> None:
        self.positions = np.zeros((1 if keep else 0,), dtype=np.int64)


def _normalized_items(key: Any) -> list[Any]:
    """``key`` as a list of items; a list holding sequences or slices counts as a tuple (as in PyTorch)."""
    if isinstance(key, list) and any(isinstance(k, (*_SEQUENCE_TYPES, slice, Tensor)) or k is None or k is Ellipsis for k in key):
        key = tuple(key)
    items = list(key) if isinstance(key, tuple) else [key]
    normalized: list[Any] = []
    for item in items:
        if isinstance(item, bool) or (isinstance(item, Tensor) and item.dim() == 0 and item.dtype is dtypes.bool_):
            normalized.append(_BoolAxis(bool(item)))
        elif _is_advanced(item):
            normalized.append(_as_index_array(item))
        else:
            normalized.append(item)
    return normalized


def _split_basic(items: list[Any], ndim: int) -> tuple[tuple[Any, ...], list[tuple[int, np.ndarray]], list[int]]:
    """The basic key (advanced items replaced by full slices), and each advanced index with the
    dimension of the basic view it indexes; masks become one index per masked dimension.

    Also returns, for each advanced index, its position in the key (to tell whether they are adjacent).
    """
    consumed = sum(
        (item.ndim if isinstance(item, np.ndarray) and item.dtype == np.bool_ else 1)
        for item in items
        if item is not None and item is not Ellipsis and not isinstance(item, _BoolAxis)
    )
    if consumed > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    if sum(1 for item in items if item is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    basic: list[Any] = []
    advanced: list[tuple[int, np.ndarray]] = []
    positions: list[int] = []
    view_dim = 0  # dimension of the basic view the next item stands for
    for position, item in enumerate(items):
        if item is Ellipsis:
            skipped = ndim - consumed
            basic.extend([slice(None)] * skipped)
            view_dim += skipped
        elif item is None or isinstance(item, slice):
            basic.append(item)
            view_dim += 1
        elif isinstance(item, _BoolAxis):  # a new dimension of size 1, then indexed by 0 or nothing
            basic.append(None)
            advanced.append((view_dim, item.positions))
            positions.append(position)
            view_dim += 1
        elif isinstance(item, np.ndarray):
            if item.dtype == np.bool_:
                mask_dims = item.ndim
                basic.extend([slice(None)] * mask_dims)
                advanced.append((view_dim, item))  # checked and split once the view's shape is known
                positions.append(position)
                view_dim += mask_dims
            else:
                basic.append(slice(None))
                advanced.append((view_dim, item))
                positions.append(position)
                view_dim += 1
        else:
            basic.append(item)  # an int: removes its dimension
    return tuple(basic), advanced, positions


def _expand_masks(advanced: list[tuple[int, np.ndarray]], shape: tuple[int, ...], source_shape: tuple[int, ...]) -> list[tuple[int, np.ndarray]]:
    """Each boolean mask checked against the dimensions it covers and replaced by its ``nonzero()`` columns."""
    expanded: list[tuple[int, np.ndarray]] = []
    for dim, values in advanced:
        if values.dtype != np.bool_:
            expanded.append((dim, values))
            continue
        for offset, size in enumerate(values.shape):
            if dim + offset >= len(shape) or shape[dim + offset] != size:
                raise IndexError(
                    f"The shape of the mask {list(values.shape)} at index {offset} does not match the shape of "
                    f"the indexed tensor {list(source_shape)} at index {dim + offset}"
                )
        for offset, column in enumerate(np.nonzero(values)):
            expanded.append((dim + offset, column.astype(np.int64)))
    return expanded


def _in_bounds(values: np.ndarray, size: int, ordinal: int) -> np.ndarray:
    """``values`` as positions in ``[0, size)``, negative ones counted from the end; PyTorch's
    IndexError naming the first out of range (of the ``ordinal``-th indexed dimension)."""
    bad = (values < -size) | (values >= size)
    if bad.any():
        raise IndexError(f"index {int(values[bad].flat[0])} is out of bounds for dimension {ordinal} with size {size}")
    return np.where(values < 0, values + size, values)


def _broadcast(indices: list[np.ndarray]) -> list[np.ndarray]:
    try:
        return list(np.broadcast_arrays(*indices))
    except ValueError:
        shapes = ", ".join(str(list(i.shape)) for i in indices)
        raise IndexError(f"shape mismatch: indexing tensors could not be broadcast together with shapes {shapes}") from None


class _Plan:
    """Where an advanced index reads: the basic view, its indexed dimensions, and the flat positions."""

    def __init__(self, source: Tensor, key: Any):
        items = _normalized_items(key)
        basic_key, advanced, positions = _split_basic(items, source.dim())
        view = source[basic_key]
        advanced = _expand_masks(advanced, tuple(view.shape), tuple(source.shape))
        dims = [dim for dim, _ in advanced]
        indices = _broadcast([values for _, values in advanced])
        sizes = [view.shape[d] for d in dims]
        flat = np.zeros(indices[0].shape, dtype=np.int64)
        for ordinal, (values, size) in enumerate(zip(indices, sizes)):
            flat = flat * size + _in_bounds(values, size, ordinal)
        self.view, self.dims, self.flat = view, dims, flat
        # side by side in the key (no slice, None or ... between): the result dims stay in place
        self.in_place = all(b - a == 1 for a, b in zip(positions, positions[1:]))

    def gather(self, values: Tensor) -> Tensor:
        """``values`` (the basic view, or any tensor of its shape) at the planned positions."""
        rest = [d for d in range(values.dim()) if d not in self.dims]
        moved = values.permute(*self.dims, *rest)
        rest_shape = tuple(values.shape[d] for d in rest)
        flat_view = moved.reshape((-1,) + rest_shape)
        index = make_tensor(self.flat.reshape(-1), dtype=dtypes.int64, device=values.device)
        picked = index_select(flat_view, 0, index).reshape(self.flat.shape + rest_shape)
        if not self.in_place or not self.dims:
            return picked
        # put the broadcast dims where the first indexed dimension was
        first, count = self.dims[0], self.flat.ndim
        before = list(range(count, count + first))
        order = before + list(range(count)) + list(range(count + first, picked.dim()))
        return picked.permute(*order).contiguous()  # row-major, as PyTorch's result (it may be viewed)


class IndexRows(Function):
    r"""``source[index]`` for one integer index or one mask: the rows ``flat`` names along the
    first ``lead`` dimensions of ``source`` read as one, arranged in ``shape``,
    :math:`\mathrm{out}[b] = \mathrm{source}[I_b]`. The gradient of each read row is added back
    where it was read (a row read twice gets both).

    The common cases of advanced indexing (a batch of samples ``x[perm[i:j]]``, an embedding
    table's rows, ``x[x > 0]``) as one op, which PyTorch records as one ``IndexBackward0``; the
    general :class:`_Plan` records the view, permute and gather it is made of.
    """

    grad_fn_name = "IndexBackward0"

    @staticmethod
    def forward(ctx: Context, source: Tensor, flat: Tensor, shape: tuple[int, ...], lead: int) -> Tensor:
        ctx.source_shape, ctx.flat, ctx.lead = source.shape, flat, lead
        rest = tuple(source.shape[lead:])
        rows = source if lead == 1 else source.reshape((-1,) + rest)
        return index_select(rows, 0, flat).reshape(shape + rest)._standalone()

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Tensor, None, None, None]:
        rest = tuple(ctx.source_shape[ctx.lead :])
        into = zeros((math.prod(ctx.source_shape[: ctx.lead]),) + rest, dtype=grad.dtype, device=grad.device)
        placed = index_add(into, 0, ctx.flat, grad.reshape((-1,) + rest))
        return placed.reshape(ctx.source_shape), None, None, None


def _integer_rows(source: Tensor, key: Any) -> Optional[np.ndarray]:
    """The values of ``key`` when it is one integer index (a tensor, array or list of ints, not a
    mask) into a tensor of at least one dimension; None for any other key."""
    if source.dim() == 0 or not (isinstance(key, (Tensor, np.ndarray)) or (isinstance(key, list) and key
                                                                            and all(type(k) is int for k in key))):
        return None
    if isinstance(key, Tensor) and key.dtype not in INDEX_DTYPES:
        return None
    values = _as_index_array(key)
    return values if values.dtype == np.int64 and values.ndim else None


def _rows(source: Tensor, values: np.ndarray) -> Tensor:
    """``source[values]`` by :class:`IndexRows`, after PyTorch's bounds check (negative rows count from the end)."""
    index = make_tensor(_in_bounds(values.reshape(-1), source.shape[0], 0), dtype=dtypes.int64, device=source.device)
    return IndexRows.apply(source, index, values.shape, 1)


def _mask_rows(source: Tensor, key: Any) -> Optional[Tensor]:
    """``source[mask]`` by :class:`IndexRows` for one boolean mask (tensor or array) of the shape of
    ``source``'s leading dimensions; None for any other key (a wrong shape raises in :class:`_Plan`)."""
    if not (isinstance(key, Tensor) and key.dtype is dtypes.bool_) and not (
            isinstance(key, np.ndarray) and key.dtype == np.bool_):
        return None
    lead = key.ndim if isinstance(key, np.ndarray) else key.dim()
    if lead == 0 or lead > source.dim() or tuple(key.shape) != tuple(source.shape[:lead]):
        return None
    positions = np.flatnonzero(_as_index_array(key))
    index = make_tensor(positions, dtype=dtypes.int64, device=source.device)
    return IndexRows.apply(source, index, positions.shape, lead)


def advanced_getitem(source: Tensor, key: Any) -> Tensor:
    """``source[key]`` for a key holding index tensors, masks or sequences."""
    rows = _integer_rows(source, key)
    if rows is not None:
        return _rows(source, rows)
    masked = _mask_rows(source, key)
    if masked is not None:
        return masked
    plan = _Plan(source, key)
    return plan.gather(plan.view)._standalone()  # a copy, as PyTorch's: not a view of the gathered values


def advanced_setitem_result(source: Tensor, key: Any, value: Any) -> Tensor:
    """The values ``source`` holds after ``source[key] = value`` (out of place, differentiable).

    The flat position of every selected element is found by indexing ``arange(numel)`` the same way;
    where a position repeats, the last value written wins.
    """
    positions = arange(source.numel(), dtype=dtypes.int64, device=source.device).reshape(source.shape)[key]
    picked = positions.detach().cpu().numpy().reshape(-1)
    if not isinstance(value, Tensor):
        value = make_tensor(value, dtype=source.dtype, device=source.device)
    else:
        value = value.to(device=source.device, dtype=source.dtype)
    try:
        value = value.expand(positions.shape) if value.shape != positions.shape else value
    except RuntimeError:
        raise RuntimeError(
            f"shape mismatch: value tensor of shape {list(value.shape)} cannot be broadcast to indexing result of shape {list(positions.shape)}"
        ) from None
    value = value.reshape(-1)
    # the last write of each position: reverse, take the first occurrence
    last = len(picked) - 1 - np.unique(picked[::-1], return_index=True)[1]
    last.sort()
    targets = picked[last]
    written = np.zeros(source.numel(), dtype=bool)
    written[targets] = True
    flat_source = source.reshape(-1)
    chosen = index_select(value, 0, make_tensor(last, dtype=dtypes.int64, device=source.device)) if len(last) else value[:0]
    placed = index_add(zeros(source.numel(), dtype=source.dtype, device=source.device), 0, make_tensor(targets, dtype=dtypes.int64, device=source.device), chosen)
    mask = make_tensor(written, dtype=dtypes.bool_, device=source.device)
    return where(mask, placed, flat_source).reshape(source.shape)


register_advanced_indexing(AdvancedIndexing(needs_advanced, advanced_getitem, advanced_setitem_result))

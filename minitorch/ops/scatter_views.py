"""Out-of-place writes into a view: ``select_scatter``, ``slice_scatter``, ``diagonal_scatter``,
``index_put`` (and ``index_put_``) and ``masked_scatter`` (and ``masked_scatter_``).

Each is a clone of the input with one view of it overwritten by ``src``: ``x.select_scatter(s, 0, 1)``
is ``y = x.clone(); y[1] = s``. The write is an indexed assignment, which autograd already
differentiates: the gradient reaches ``src`` through the view and the input everywhere outside it.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

from .. import dtypes
from ..shapes import normalize_dim
from ..tensor import Tensor, add_tensor_methods
from ..autograd.grad_mode import is_grad_enabled, no_grad
from .expanded_writes import put_where_shared, put_where_shared_recorded, warn_expanded_write

#: ATen's names of the dtypes, as its error messages print them
_SCALAR_NAMES = {dtypes.float16: "Half", dtypes.float32: "Float", dtypes.float64: "Double", dtypes.int64: "Long",
                 dtypes.int32: "Int", dtypes.int16: "Short", dtypes.int8: "Char", dtypes.uint8: "Byte",
                 dtypes.bool_: "Bool", dtypes.bfloat16: "BFloat16"}


def _check_fits(src: Tensor, view: Tensor) -> None:
    if tuple(src.shape) != tuple(view.shape):
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = {list(src.shape)}, "
                           f"slice size = {list(view.shape)}")


def _written(input: Tensor, key: Any, src: Tensor, view: Tensor) -> Tensor:  # noqa: A002
    _check_fits(src, view)
    result = input.clone()
    result[key] = src
    return result


def select_scatter(input: Tensor, src: Tensor, dim: int, index: int) -> Tensor:  # noqa: A002
    """``input`` with ``input.select(dim, index)`` replaced by ``src``."""
    dim = normalize_dim(dim, input.dim())
    size = input.shape[dim]
    if not -size <= index < size:
        raise IndexError(f"select(): index {index} out of range for tensor of size {list(input.shape)} "
                         f"at dimension {dim}")
    key = (slice(None),) * dim + (index,)
    return _written(input, key, src, input[key])


def slice_scatter(input: Tensor, src: Tensor, dim: int = 0, start: Optional[int] = None,  # noqa: A002
                  end: Optional[int] = None, step: int = 1) -> Tensor:
    """``input`` with ``input[..., start:end:step, ...]`` (along ``dim``) replaced by ``src``."""
    dim = normalize_dim(dim, input.dim())
    key = (slice(None),) * dim + (slice(start, end, step),)
    return _written(input, key, src, input[key])


def diagonal_scatter(input: Tensor, src: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:  # noqa: A002
    """``input`` with ``input.diagonal(offset, dim1, dim2)`` replaced by ``src``."""
    view = input.diagonal(offset, dim1, dim2)
    _check_fits(src, view)
    result = input.clone()
    result.diagonal(offset, dim1, dim2).copy_(src)
    return result


def index_put(input: Tensor, indices: Sequence[Optional[Tensor]], values: Tensor,  # noqa: A002
              accumulate: bool = False) -> Tensor:
    """``input`` with ``input[indices] = values`` (``+=`` with ``accumulate``: repeated indices add up)."""
    masked_fill = not accumulate and values.numel() == 1 and _one_mask(input, indices) is not None
    if values.dtype is not input.dtype and not masked_fill:  # (PyTorch's masked_fill_ route converts the value)
        raise RuntimeError(
            "Index put requires the source and destination dtypes match, got "
            f"{dtypes.scalar_type_name(input.dtype)} for the destination and {dtypes.scalar_type_name(values.dtype)} for the source."
        )
    key = tuple(slice(None) if index is None else index for index in indices)
    result = input.clone()
    if not accumulate:
        result[key] = values
        return result
    # expand masks to positions, then add every value into the rows of the flattened indexed dimensions
    positions: list[Tensor] = []
    for index in key:
        if isinstance(index, Tensor) and index.dtype == dtypes.bool_:
            positions.extend(index.nonzero().unbind(1))
        elif isinstance(index, Tensor):
            positions.append(index)
        else:
            raise NotImplementedError("index_put(accumulate=True) takes index tensors only (no None)")
    count = len(positions)
    indexed_shape = tuple(input.shape[:count])
    linear = positions[0].new_zeros(())
    for position, size in zip(positions, indexed_shape):
        linear = linear * size + position % size
    rows = result.reshape((-1,) + tuple(input.shape[count:]))
    picked = input[key]
    added = values.to(input.dtype).expand(*picked.shape).reshape((-1,) + tuple(input.shape[count:]))
    return rows.index_add(0, linear.reshape(-1), added).reshape(tuple(input.shape))


def masked_scatter(input: Tensor, mask: Tensor, source: Tensor) -> Tensor:  # noqa: A002
    """``input`` with the places where ``mask`` (broadcast) is True filled, in row-major order, by the
    first elements of ``source``."""
    if mask.dtype != dtypes.bool_:
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with dtype "
                           f"{_SCALAR_NAMES.get(mask.dtype, mask.dtype)}")
    if source.dtype != input.dtype:
        raise RuntimeError("masked_scatter: expected self and source to have same dtypes but got"
                           f"{_SCALAR_NAMES.get(input.dtype, input.dtype)} and "
                           f"{_SCALAR_NAMES.get(source.dtype, source.dtype)}")
    full_mask = mask.expand(*input.shape)
    count = int(full_mask.sum().item())
    if count > source.numel():
        raise RuntimeError("Number of elements of source < number of ones in mask")
    result = input.clone()
    result[full_mask] = source.reshape(-1)[:count]
    return result


def _index_put_(self: Tensor, indices: Sequence[Optional[Tensor]], values: Tensor, accumulate: bool = False) -> Tensor:
    """In-place :func:`index_put`. Into an expanded tensor it writes as PyTorch 2.x still does, with
    its deprecation warning (recorded by autograd too: :func:`put_where_shared_recorded`)."""
    if self._shares_elements():
        warn_expanded_write("index_put_", "tensor[indices] = tensor")
        recorded = is_grad_enabled() and (self.requires_grad or values.requires_grad)
        if not accumulate and values.numel() == 1:
            mask = _one_mask(self, indices)
            if mask is not None and recorded:  # PyTorch's masked_fill_ route, which warns again
                warn_expanded_write("masked_fill_", "tensor[mask] = scalar")
                return put_where_shared_recorded(self, indices, values, accumulate, "MaskedFillBackward1")
            if mask is not None:
                return self.masked_fill_(mask, values.reshape(()))
        index_put(self.detach(), indices, values.detach(), accumulate)  # PyTorch's errors for the arguments
        if recorded:
            return put_where_shared_recorded(self, indices, values, accumulate)
        self._check_inplace_allowed(values)
        with no_grad():
            return put_where_shared(self, indices, values, accumulate)
    return self.copy_(index_put(self, indices, values, accumulate))


def _one_mask(self: Tensor, indices: Sequence[Optional[Tensor]]) -> Optional[Tensor]:
    """The one bool index among Nones, shaped to broadcast against ``self`` (PyTorch's test of whether
    ``index_put_`` of one value is a ``masked_fill_``), or None when it is not one."""
    mask, before = None, 0
    for index in indices:
        if index is None:
            before += 1 if mask is None else 0
        elif mask is not None or index.dtype not in (dtypes.bool_, dtypes.uint8):
            return None
        else:
            mask = index
    if mask is None:
        return None
    trailing = self.dim() - before - mask.dim()
    return mask.to(dtypes.bool_).reshape(tuple(mask.shape) + (1,) * trailing) if trailing >= 0 else None


def _masked_scatter_(self: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    """In-place :func:`masked_scatter`."""
    return self.copy_(masked_scatter(self, mask, source))


FUNCTIONS = {function.__name__: function for function in (
    diagonal_scatter, index_put, masked_scatter, select_scatter, slice_scatter,
)} | {"index_put_": _index_put_}

add_tensor_methods(dict(FUNCTIONS) | {"index_put_": _index_put_, "masked_scatter_": _masked_scatter_})

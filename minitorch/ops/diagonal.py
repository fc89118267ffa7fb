r"""Diagonals and sliding windows: views that read a tensor along new strides.

The diagonal of dimensions :math:`(d_1, d_2)` steps one along both at once, so it is a view
with stride :math:`s_{d_1} + s_{d_2}` (the two dimensions replaced by one at the end);
``unfold`` reads windows of ``size`` elements every ``step``, a view with a new last
dimension of stride :math:`s_d` and dimension :math:`d`'s stride multiplied by ``step``.

Backward: a diagonal's gradient is written onto the diagonal of zeros (:class:`DiagEmbed`,
whose own backward is :class:`Diagonal` again); overlapping windows add up where they
overlap, so ``unfold``'s gradient is an ``index_add``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes
from ..autograd.composite import composite
from ..autograd.function import Context, Function
from ..creation import tensor as make_tensor
from ..dispatch import empty, map_op
from ..shapes import normalize_dim
from ..tensor import Tensor, add_tensor_methods
from ..tensor_data import TensorData
from .dtype_refusals import refuse_bool
from .shape_ops import tril, triu


def _diagonal_data(data: TensorData, offset: int, dim1: int, dim2: int) -> TensorData:
    """The diagonal ``offset`` of dimensions ``dim1``, ``dim2`` of ``data``, as a strided view of its storage."""
    shape, strides = data.shape, data.strides
    if offset >= 0:
        length, start = max(0, min(shape[dim1], shape[dim2] - offset)), offset * strides[dim2]
    else:
        length, start = max(0, min(shape[dim1] + offset, shape[dim2])), -offset * strides[dim1]
    if length == 0:
        start = 0
    keep = [d for d in range(len(shape)) if d not in (dim1, dim2)]
    new_shape = tuple(shape[d] for d in keep) + (length,)
    new_strides = tuple(strides[d] for d in keep) + (strides[dim1] + strides[dim2],)
    return TensorData(data.storage, new_shape, new_strides, data.offset + start)


class Diagonal(Function):
    r"""The view :math:`\mathrm{out}[\dots, i] = a[\dots, i, \dots, i + \mathrm{offset}, \dots]`."""

    @staticmethod
    def forward(ctx: Context, a: Tensor, offset: int, dim1: int, dim2: int) -> Tensor:
        ctx.args = (a.shape, offset, dim1, dim2)
        return a._view_of(_diagonal_data(a._data, offset, dim1, dim2))

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Tensor, None, None, None]:
        return DiagEmbed.apply(grad, *ctx.args), None, None, None


class DiagEmbed(Function):
    """Zeros of ``shape`` with ``a``'s last dimension written onto a diagonal (the rest of ``a`` batches)."""

    @staticmethod
    def forward(ctx: Context, a: Tensor, shape: tuple[int, ...], offset: int, dim1: int, dim2: int) -> Tensor:
        ctx.args = (offset, dim1, dim2)
        out = empty(shape, a.dtype, a.device)
        out._raw_fill(0)
        map_op("copy", a, out=out._view_of(_diagonal_data(out._data, offset, dim1, dim2)))
        return out

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Tensor, None, None, None, None]:
        return Diagonal.apply(grad, *ctx.args), None, None, None, None


def diagonal(input: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:  # noqa: A002
    """PyTorch's ``torch.diagonal``: a view of the diagonal ``offset`` (above the main one when positive)
    of dimensions ``dim1`` and ``dim2``, which are removed and replaced by a last dimension."""
    d1, d2 = normalize_dim(dim1, input.dim()), normalize_dim(dim2, input.dim())
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return Diagonal.apply(input, int(offset), d1, d2)


def diag(input: Tensor, diagonal: int = 0) -> Tensor:  # noqa: A002
    """PyTorch's ``torch.diag``: a vector's square matrix with it on diagonal ``diagonal``, or a
    matrix's diagonal ``diagonal`` as a new vector (a copy)."""
    if input.dim() == 1:
        n = input.shape[0] + abs(int(diagonal))
        return DiagEmbed.apply(input, (n, n), int(diagonal), 0, 1)
    if input.dim() == 2:
        return Diagonal.apply(input, int(diagonal), 0, 1).clone()
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.dim()}D")


def diag_embed(input: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:  # noqa: A002
    """PyTorch's ``torch.diag_embed``: the last dimension of ``input`` placed on diagonals of new
    dimensions ``dim1`` and ``dim2`` of the output (one more dimension than ``input``)."""
    rank = input.dim() + 1
    d1, d2 = normalize_dim(dim1, rank), normalize_dim(dim2, rank)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    n = input.shape[-1] + abs(int(offset))
    batch = iter(input.shape[:-1])
    shape = tuple(n if d in (d1, d2) else next(batch) for d in range(rank))
    return DiagEmbed.apply(input, shape, int(offset), d1, d2)


def narrow(input: Tensor, dim: int, start: Any, length: int) -> Tensor:  # noqa: A002
    """PyTorch's ``torch.narrow``: the view of ``length`` elements from ``start`` (an int or a 0-d
    integer tensor; negative counts from the end) along ``dim``."""
    if isinstance(start, Tensor):
        if start.dim() != 0 or start.dtype.is_floating_point:
            raise RuntimeError("start must be an 0-dim integral Tensor.")
        start = int(start.item())
    d = normalize_dim(dim, input.dim())
    size = input.shape[d]
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], but got {start})")
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    return input.narrow(d, start, length)


# ---- sliding windows ----


class Unfold(Function):
    """The windows ``a[..., k*step : k*step + size, ...]`` along ``dim`` as a view, window elements last."""

    @staticmethod
    def forward(ctx: Context, a: Tensor, dim: int, size: int, step: int) -> Tensor:
        ctx.args = (a.shape, dim, size, step)
        data = a._data
        shape, strides = list(data.shape), list(data.strides)
        windows = (shape[dim] - size) // step + 1 if shape else 1
        shape[dim], stride = windows, strides[dim]
        strides[dim] = stride * step
        return a._view_of(TensorData(data.storage, tuple(shape) + (size,), tuple(strides) + (stride,), data.offset))

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Tensor, None, None, None]:
        shape, dim, size, step = ctx.args
        windows = grad.shape[dim]
        # element j of window k came from position k * step + j: add each back there
        positions = (np.arange(windows)[:, None] * step + np.arange(size)[None, :]).reshape(-1)
        index = make_tensor(positions, dtype=dtypes.int64, device=grad.device)
        source = grad.movedim(-1, dim + 1).flatten(dim, dim + 1)
        return grad.new_zeros(shape).index_add(dim, index, source), None, None, None


def unfold(input: Tensor, dimension: int, size: int, step: int) -> Tensor:  # noqa: A002
    """PyTorch's ``Tensor.unfold``: every window of ``size`` elements, ``step`` apart, along ``dimension``."""
    d = normalize_dim(dimension, input.dim())
    extent = input.shape[d] if input.dim() else 1
    if size > extent:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {extent} but size is {size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if input.dim() == 0:
        return input.reshape(1)
    return Unfold.apply(input, d, int(size), int(step))


def trace(input: Tensor) -> Tensor:  # noqa: A002 - PyTorch's name
    r""":math:`\sum_i A_{ii}` of a matrix (rectangular too), one ``TraceBackward0`` node."""
    refuse_bool("trace", input.dtype)  # PyTorch's kernel looks at the dtype first
    if input.dim() != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.dim()}")
    return composite("TraceBackward0", _diagonal_sum, input, saves=())  # PyTorch keeps only the sizes


def _diagonal_sum(input: Tensor) -> Tensor:  # noqa: A002
    return diagonal(input).sum()


def _scalar_argument(value: Any) -> Any:
    """``fill_value`` as the Python number PyTorch's ``Scalar`` argument takes: a number, or a 0-d
    tensor that does not require grad (so no gradient reaches it)."""
    if isinstance(value, Tensor) and value.dim() == 0 and not value.requires_grad:
        return value.item()
    if isinstance(value, (bool, int, float, complex, np.number)):
        return value
    raise TypeError(f"fill_diagonal_(): argument 'fill_value' (position 1) must be Number, not {type(value).__name__}")


def fill_diagonal_(input: Tensor, fill_value: Any, wrap: bool = False) -> Tensor:  # noqa: A002 - PyTorch's name
    """Write ``fill_value`` on the main diagonal (``input[i, i, ..., i]``) in place, as PyTorch does:
    through a strided view of the storage (stride the sum of all strides), so that the write is
    recorded as ``CopySlices``. With ``wrap``, a matrix taller than wide by more than one row is
    filled on, every ``width + 1`` elements of its storage after the first diagonal."""
    fill_value = _scalar_argument(fill_value)
    if not isinstance(wrap, bool):
        raise TypeError(f"fill_diagonal_(): argument 'wrap' (position 2) must be bool, not {type(wrap).__name__}")
    rank = input.dim()
    if rank < 2:
        raise RuntimeError("dimensions must larger than 1")
    height, width = input.shape[0], input.shape[1]
    if rank > 2 and any(size != height for size in input.shape[1:]):
        raise RuntimeError("all dimensions of input must be of equal length")
    length, step = min(height, width), sum(input.stride())
    start = input.storage_offset()
    input.as_strided((length,), (step,), start).fill_(fill_value)
    if wrap and rank == 2 and height > width + 1:
        period = width + 1
        wrapped = (input.numel() + period - 1) // period - length
        input.as_strided((wrapped,), (step,), start + input.stride(0) * period).fill_(fill_value)
    return input


class TensorMethods:
    """``t.diagonal(...)``, ``t.diag(...)``, ``t.unfold(...)``, ``t.tril_(...)`` and friends (attached below)."""

    def diagonal(self, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
        return diagonal(self, offset, dim1, dim2)

    def trace(self) -> Tensor:
        return trace(self)

    def diag(self, diagonal: int = 0) -> Tensor:
        return diag(self, diagonal)

    def diag_embed(self, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
        return diag_embed(self, offset, dim1, dim2)

    def unfold(self, dimension: int, size: int, step: int) -> Tensor:
        return unfold(self, dimension, size, step)

    def tril_(self, diagonal: int = 0) -> Tensor:
        return self._inplace_apply(lambda old: tril(old, diagonal), overlap_ok=True)  # as PyTorch's

    def triu_(self, diagonal: int = 0) -> Tensor:
        return self._inplace_apply(lambda old: triu(old, diagonal), overlap_ok=True)  # as PyTorch's

    def fill_diagonal_(self, fill_value: Any, wrap: bool = False) -> Tensor:
        return fill_diagonal_(self, fill_value, wrap)


add_tensor_methods({name: method for name, method in vars(TensorMethods).items() if not name.startswith("__")})

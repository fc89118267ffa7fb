r"""Reductions along dimensions: forward through the backend's ``reduce``, backward by
spreading the gradient back over the reduced elements."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import dtypes
from ..autograd.function import Context, Function
from ..dispatch import arg_reduce_op, gather_op, reduce_op, reshaped_result
from ..tensor_data import TensorData

if TYPE_CHECKING:  # tensor.py imports this module
    from ..tensor import Tensor


def _reduced_shape(shape: tuple[int, ...], dims: tuple[int, ...]) -> tuple[int, ...]:
    """``shape`` with every dimension in ``dims`` set to 1 (the keepdim shape)."""
    return tuple(1 if d in dims else size for d, size in enumerate(shape))


def _drop_dims(shape: tuple[int, ...], dims: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(size for d, size in enumerate(shape) if d not in dims)


def _merged_runs(a: Tensor, dims: tuple[int, ...]) -> tuple[Tensor, tuple[int, ...]]:
    """``a`` viewed with each run of neighbouring ``dims`` merged into one dimension, and the
    merged dimensions to reduce; ``a`` and ``dims`` as they are unless ``a`` is contiguous.

    A reduction kernel finds each output's elements by a division per dimension and sums each
    run in one go: a sum over all of a contiguous ``(32, 16, 32, 32)`` is one run of 524288
    elements instead of four reductions (the first over 16384 runs of 32), and a convolution's
    bias gradient, over dimensions 0, 2 and 3, reduces ``(32, 16, 1024)`` along its last
    dimension, then dimension 0 of what is left.
    """
    if len(dims) < 2 or not a.is_contiguous():
        return a, dims
    shape: list[int] = []
    merged: list[int] = []
    for d, size in enumerate(a.shape):
        if d in dims and d - 1 in dims:
            shape[-1] *= size
            continue
        if d in dims:
            merged.append(len(shape))
        shape.append(size)
    data = a._data
    return a._view_of(TensorData.contiguous(data.storage, tuple(shape), data.size, data.offset)), tuple(merged)


def _one_hot_along(indices: Tensor, shape: tuple[int, ...], dim: int, dtype: object) -> Tensor:
    """1 where the position along ``dim`` equals ``indices`` (keepdim shape), else 0."""
    from ..creation import arange

    positions = arange(shape[dim], device=indices.device).view([-1 if d == dim else 1 for d in range(len(shape))])
    return (positions == indices).to(dtype)


def _summed(a: Tensor, dims: tuple[int, ...], keepdim: bool, dtype: dtypes.dtype) -> Tensor:
    """The sum of ``a`` over ``dims`` (not empty) as ``dtype``. A 16-bit float sums in float32 through
    every reduction and rounds once at the end, as PyTorch's accumulation in its ``opmath`` type."""
    wide = dtypes.float32 if a.dtype in dtypes.LOW_PRECISION_FLOATS else None
    out, merged = _merged_runs(a, dims)  # neighbouring reduced dimensions as one
    for d in sorted(merged, reverse=True):  # innermost first: the others then shrink
        out = reduce_op("sum", out, d, wide)
    # each reduction kept its dimension, as 1; merged ones are split again
    out = reshaped_result(out, _reduced_shape(a.shape, dims) if keepdim else _drop_dims(a.shape, dims))
    return out if out.dtype is dtype else out.to(dtype)


class Sum(Function):
    r""":math:`s = \sum_{i \in \mathrm{dims}} a_i`; every summed element gets the gradient of :math:`s`."""

    @staticmethod
    def forward(ctx: Context, a: Tensor, dims: tuple[int, ...], keepdim: bool) -> Tensor:
        # BEGIN SOLUTION 2.3
        ctx.input_shape = a.shape
        ctx.dims = dims
        if not dims:  # a 0-d tensor: its value, in a tensor of its own
            return a.clone()
        return _summed(a, dims, keepdim, a.dtype)
        # END SOLUTION

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Tensor, None, None]:
        # BEGIN SOLUTION 2.4
        kept = grad.reshape(_reduced_shape(ctx.input_shape, ctx.dims))
        return kept.expand(ctx.input_shape), None, None
        # END SOLUTION


class Mean(Function):
    r""":math:`m = \frac{1}{n}\sum_{i \in \mathrm{dims}} a_i` over the :math:`n` elements reduced; each gets :math:`1/n` of the gradient."""

    @staticmethod
    def forward(ctx: Context, a: Tensor, dims: tuple[int, ...], keepdim: bool, count: int, all_dims: bool) -> Tensor:
        ctx.count = count
        ctx.grad_fn_name = "MeanBackward0" if all_dims else "MeanBackward1"
        ctx.input_shape, ctx.dims = a.shape, dims
        if not dims:
            return a / count
        if a.dtype in dtypes.LOW_PRECISION_FLOATS:  # divided in float32, rounded once (as PyTorch's)
            return (_summed(a, dims, keepdim, dtypes.float32) / count).to(a.dtype)
        return Sum.forward(ctx, a, dims, keepdim) / count

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Tensor, None, None, None, None]:
        return Sum.backward(ctx, grad / ctx.count)[0], None, None, None, None


class MaxAlongDim(Function):
    """``max``/``min`` along one dim: ``(values, indices)``, from one node as in PyTorch (the
    indices are those the gradient goes to, not computed a second time); the gradient goes
    to the index (``MaxBackward0``/``MinBackward0``, named per call)."""

    @staticmethod
    def forward(ctx: Context, a: Tensor, dim: int, keepdim: bool, op: str) -> tuple[Tensor, Tensor]:
        ctx.input_shape, ctx.dim, ctx.keepdim = a.shape, dim, keepdim
        ctx.grad_fn_name = "MinBackward0" if op == "min" else "MaxBackward0"
        source = a if a.dim() else a.view(1)  # a 0-d tensor: its one value, at index 0
        indices = arg_reduce_op("arg" + op, source, dim)
        ctx.save_for_backward(indices)
        # the values are read at the indices, not reduced a second time: one read per output
        # cell, and each value is exactly the element its index names (as PyTorch's)
        values = gather_op(source, dim, indices)
        if keepdim and a.dim():
            return values, indices
        kept = _drop_dims(a.shape, (dim,)) if a.dim() else ()
        return values.view(kept), indices.view(kept)

    @staticmethod
    def backward(ctx: Context, grad: Tensor, grad_indices: None = None) -> tuple[Tensor, None, None, None]:
        (indices,) = ctx.saved_tensors
        if not ctx.input_shape:
            return grad.clone(), None, None, None
        if not ctx.keepdim:
            grad = grad.unsqueeze(ctx.dim)
        return grad * _one_hot_along(indices, ctx.input_shape, ctx.dim, grad.dtype), None, None, None


class MaxAll(Function):
    """``max``/``min`` of all elements; the gradient is split evenly between ties (as PyTorch)."""

    grad_fn_name = "MaxBackward1"

    @staticmethod
    def forward(ctx: Context, a: Tensor, op: str) -> Tensor:
        out = a.contiguous().view(-1)
        out = reduce_op(op, out, 0).view(())
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Tensor, None]:
        a, out = ctx.saved_tensors
        # a NaN result (NaN wins max/min) was chosen from the NaNs: they share its gradient
        winners = ((a == out) | ((a != a) & (out != out))).to(grad.dtype)
        return grad * winners / winners.sum(), None


class Amax(Function):
    r"""``amax``/``amin``: the extreme over ``dims``; the gradient is split evenly between the
    elements equal to it, :math:`\partial a_i = g \, [a_i = m] / \#\{j : a_j = m\}`.

    As in PyTorch, a NaN result (NaN wins) equals no element, so its gradient is NaN
    (:math:`0/0`) over the whole reduced slice.
    """

    @staticmethod
    def forward(ctx: Context, a: Tensor, dims: tuple[int, ...], keepdim: bool, op: str) -> Tensor:
        out = a
        for d in dims:
            out = reduce_op(op, out, d)
        ctx.save_for_backward(a, out)
        ctx.dims = dims
        return out if keepdim else out.view(_drop_dims(a.shape, dims))

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Tensor, None, None, None]:
        a, out = ctx.saved_tensors
        winners = (a == out).to(grad.dtype)
        return grad.reshape(out.shape) * winners / winners.sum(ctx.dims, keepdim=True), None, None, None

r"""Gather and scatter-add: reading and writing at positions held in an index tensor.

.. math::
    \mathrm{gather}(a, d, I)[i] = a[i_0, \dots, I[i], \dots] \qquad
    \mathrm{scatter\_add}(o, d, I, s)[\dots, I[i], \dots] \mathrel{+}= s[i]

(the index replacing position ``d``). They are each other's backward: a gathered element's
gradient is added back where it was read from, and a scattered element's gradient is read
from where it was added to. Embedding lookup, ``one_hot``-free cross-entropy and
``index_select`` are gathers of an expanded index.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..autograd.function import Context, Function
from ..autograd.grad_mode import is_grad_enabled
from ..dispatch import empty, gather_op, map_op, scatter_add_op
from ..index_checks import INDEX_DTYPES, first_out_of_range, nonempty_shape
from ..shapes import normalize_dim
from .windows import ConstantPad

if TYPE_CHECKING:
    from ..tensor import Tensor


class Gather(Function):
    """``out[i] = a[i with i[dim] = index[i]]``; the gradient is scatter-added back into zeros."""

    @staticmethod
    def forward(ctx: Context, a: Tensor, dim: int, index: Tensor) -> Tensor:
        ctx.save_for_backward(index)
        ctx.input_shape, ctx.dim = a.shape, dim
        return gather_op(a, dim, index)

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Tensor, None, None]:
        (index,) = ctx.saved_tensors
        return scatter_into_zeros(ctx.input_shape, ctx.dim, index, grad), None, None


class ScatterAdd(Function):
    """``a`` with ``src[i]`` added at ``i with i[dim] = index[i]``; ``src``'s gradient is gathered."""

    @staticmethod
    def forward(ctx: Context, a: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
        ctx.save_for_backward(index)
        ctx.dim, ctx.src_shape = dim, src.shape
        out = map_op("copy", a)
        return scatter_add_op(src, dim, index, out)

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Tensor, None, None, Tensor | None]:
        (index,) = ctx.saved_tensors
        grad_src = Gather.apply(grad, ctx.dim, index) if ctx.needs_input_grad[3] else None
        if grad_src is not None and grad_src.shape != ctx.src_shape:
            # src reaches beyond the index: the elements it never added get zero gradient
            if not ctx.src_shape:
                grad_src = grad_src.reshape(())
            else:
                covered = nonempty_shape(index.shape)
                beyond = tuple((0, size - n) for size, n in zip(ctx.src_shape, covered))
                grad_src = ConstantPad.apply(grad_src.reshape(covered), beyond, 0.0)
        return grad, None, None, grad_src


def scatter_into_zeros(shape: tuple[int, ...], dim: int, index: Tensor, src: Tensor) -> Tensor:
    """``src`` added at ``index`` along ``dim`` into new zeros of ``shape``: the backward of a gather.

    While a graph is built (``create_graph``) the scatter is a :class:`ScatterAdd` node; otherwise
    it goes straight into the new zeros (``ScatterAdd`` would copy them first).
    """
    zeros = empty(shape, src.dtype, src.device)
    zeros._raw_fill(0)
    if is_grad_enabled():
        return ScatterAdd.apply(zeros, dim, index, src)
    return scatter_add_op(src, dim, index, zeros)


def gather(input: Tensor, dim: int, index: Tensor) -> Tensor:  # noqa: A002 - PyTorch's name
    """PyTorch's ``torch.gather``: values of ``input`` at ``index`` along ``dim``.

    The index is checked (dtype, rank, extent, values) where every backend shares it,
    in :func:`~minitorch.dispatch.gather_op`.
    """
    return Gather.apply(input, normalize_dim(dim, input.dim()), index)


def scatter_add(input: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:  # noqa: A002
    """PyTorch's ``torch.scatter_add``: ``input`` plus ``src`` added at ``index`` along ``dim``.

    ``index`` must be no larger than ``src`` in every dimension, and no larger than
    ``input`` in the others than ``dim`` (checked in :func:`~minitorch.dispatch.scatter_add_op`).
    """
    return ScatterAdd.apply(input, normalize_dim(dim, input.dim()), index, src)


def index_select(input: Tensor, dim: int, index: Tensor) -> Tensor:  # noqa: A002
    """PyTorch's ``torch.index_select``: the slices ``index`` (a vector or a single value) of ``input`` along ``dim``."""
    if index.dim() > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    dim = normalize_dim(dim, input.dim())
    if input.dim() == 0 and index.numel() != 1:
        raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got {index.numel()} value(s)")
    if index.dtype not in INDEX_DTYPES:
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    size = nonempty_shape(input.shape)[dim]
    # PyTorch's CPU kernels word these three ways; an empty input of 2 or more dimensions, and
    # dimension 1, take the path that raises RuntimeError rather than IndexError
    empty_matrix = input.dim() > 1 and input.numel() == 0
    if empty_matrix and size == 0 and index.numel():
        raise RuntimeError("index_select(): self indexing axis dim should be positive")
    bad = first_out_of_range(index, size)
    if bad is not None:
        if empty_matrix or dim == 1:
            raise RuntimeError(f"INDICES element is out of DATA bounds, id={bad} axis_dim={size}")
        raise IndexError("index out of range in self")
    if input.dim() == 0:
        return Gather.apply(input, 0, index.reshape(()))
    flat = index.reshape(-1)
    shape = list(input.shape)
    shape[dim] = flat.numel()
    expanded = flat.view([-1 if d == dim else 1 for d in range(input.dim())]).expand(*shape)
    return Gather.apply(input, dim, expanded)


def index_add(input: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha: Any = 1) -> Tensor:  # noqa: A002
    """PyTorch's ``torch.index_add``: ``input`` with ``alpha * source``'s slices added at rows ``index`` along ``dim``.

    A repeated index adds every slice that names it.
    """
    dim = normalize_dim(dim, input.dim())
    if index.dim() > 1:
        raise IndexError("index_add_(): Index is supposed to be a vector")
    if index.dtype not in INDEX_DTYPES:
        raise RuntimeError("index_add_(): Expected dtype int32/int64 for index")
    if source.dim() != input.dim() and not (source.dim() <= 1 and input.dim() <= 1):
        raise IndexError("index_add_(): Source/destination tensor must have same slice shapes.")
    src_rows = source.shape[dim] if source.dim() else 1
    if index.numel() != src_rows:
        raise RuntimeError(
            "index_add_(): Number of indices (" + str(index.numel()) + ") should be equal to source.size(dim) (" + str(src_rows) + ")"
        )
    size = nonempty_shape(input.shape)[dim]
    bad = first_out_of_range(index, size)
    if bad is not None:
        raise RuntimeError(f"index {bad} is out of bounds for dimension {dim} with size {size}")
    scaled = source * alpha if alpha != 1 else source
    if input.dim() == 0:
        return ScatterAdd.apply(input, 0, index.reshape(()), scaled.reshape(()))
    scaled = scaled.reshape(scaled.shape if scaled.dim() else (1,))
    shape = list(scaled.shape)
    expanded = index.reshape(-1).view([-1 if d == dim else 1 for d in range(input.dim())]).expand(*shape)
    return ScatterAdd.apply(input, dim, expanded, scaled)

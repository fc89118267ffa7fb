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

from ..autograd.function import Context, Function
from ..dispatch import empty, gather_op, map_op, scatter_add_op
from ..tensor import Tensor, _normalize_dim
from .. import dtypes


def _check_gather_args(name: str, a: Tensor, dim: int, index: Tensor) -> None:
    """PyTorch's errors for a gather/scatter whose index has the wrong dtype, rank or extent."""
    if index.dtype not in (dtypes.int64, dtypes.int32):
        raise RuntimeError(f"{name}(): Expected dtype int32/int64 for index")
    if index.dim() != a.dim():
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    for d, (n, m) in enumerate(zip(index.shape, a.shape)):
        if d != dim and n > m:
            raise RuntimeError(
                f"Size does not match at dimension {d} expected index {list(index.shape)} to be no larger "
                f"than self {list(a.shape)} apart from dimension {dim}"
            )
    if index.numel():
        low, high = int(index.min().item()), int(index.max().item())
        size = a.shape[dim]
        if low < 0 or high >= size:
            bad = low if low < 0 else high
            raise RuntimeError(f"index {bad} is out of bounds for dimension {dim} with size {size}")


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
        zeros = empty(ctx.input_shape, grad.dtype, grad.device)
        zeros._raw_fill(0)
        return ScatterAdd.apply(zeros, ctx.dim, index, grad), None, None


class ScatterAdd(Function):
    """``a`` with ``src[i]`` added at ``i with i[dim] = index[i]``; ``src``'s gradient is gathered."""

    @staticmethod
    def forward(ctx: Context, a: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
        ctx.save_for_backward(index)
        ctx.dim = dim
        out = map_op("copy", a)
        return scatter_add_op(src, dim, index, out)

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Tensor, None, None, Tensor | None]:
        (index,) = ctx.saved_tensors
        grad_src = Gather.apply(grad, ctx.dim, index) if ctx.needs_input_grad[3] else None
        return grad, None, None, grad_src


def gather(input: Tensor, dim: int, index: Tensor) -> Tensor:  # noqa: A002 - PyTorch's name
    """PyTorch's ``torch.gather``: values of ``input`` at ``index`` along ``dim``."""
    dim = _normalize_dim(dim, input.dim())
    _check_gather_args("gather", input, dim, index)
    return Gather.apply(input, dim, index.long())


def scatter_add(input: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:  # noqa: A002
    """PyTorch's ``torch.scatter_add``: ``input`` plus ``src`` added at ``index`` along ``dim``."""
    dim = _normalize_dim(dim, input.dim())
    _check_gather_args("scatter_add", input, dim, index)
    if src.dtype is not input.dtype:
        raise RuntimeError("scatter_add(): Expected self.dtype to be equal to src.dtype")
    return ScatterAdd.apply(input, dim, index.long(), src)


def index_select(input: Tensor, dim: int, index: Tensor) -> Tensor:  # noqa: A002
    """PyTorch's ``torch.index_select``: the slices ``index`` (1-D) of ``input`` along ``dim``."""
    if index.dim() > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    dim = _normalize_dim(dim, input.dim())
    flat = index.reshape(-1)
    if flat.dtype is not dtypes.int64:
        flat = flat.long()
    shape = list(input.shape)
    shape[dim] = flat.numel()
    expanded = flat.view([-1 if d == dim else 1 for d in range(input.dim())]).expand(*shape)
    if flat.numel():
        low, high = int(flat.min().item()), int(flat.max().item())
        if low < 0 or high >= input.shape[dim]:
            raise IndexError("index out of range in self")
    return Gather.apply(input, dim, expanded)

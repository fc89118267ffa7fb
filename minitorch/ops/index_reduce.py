r"""``index_reduce``: slices of ``source`` reduced into ``input`` at rows ``index`` along ``dim``.

.. math::
    \mathrm{out}[\dots, i, \dots] = \rho\bigl(\{x[\dots, i, \dots]\} \cup
    \{\mathrm{source}[\dots, k, \dots] : \mathrm{index}[k] = i\}\bigr),
    \qquad \rho \in \{\mathrm{prod}, \mathrm{mean}, \mathrm{amax}, \mathrm{amin}\}

(with ``include_self=False`` the rows ``index`` names forget ``input``'s value). The forward is
``scatter_reduce`` with ``index`` spread over ``source``'s shape; the checks come first, in
PyTorch's order and words (the kernels do not check bounds). The gradient is PyTorch's:
``prod`` the product of the other contributors (exact where some are zero), ``mean`` shared
among the contributors, ``amax``/``amin`` split evenly between the elements equal to the result.
"""

from __future__ import annotations

import functools
import warnings
from typing import Optional

from .. import dtypes
from ..autograd.function import Context, Function
from ..autograd.grad_mode import no_grad
from ..index_checks import INDEX_DTYPES, first_out_of_range
from ..out_argument import write_out
from ..shapes import normalize_dim
from ..tensor import Tensor, add_tensor_methods, where
from .indexing import index_add, index_select
from .scatter import index_fill, scatter_reduce

INDEX_REDUCTIONS = ("prod", "mean", "amax", "amin")
#: PyTorch's warning, given once a process (as its ``TORCH_WARN_ONCE``)
BETA_WARNING = "index_reduce() is in beta and the API may change at any time."
#: the gradients of ``input`` and ``source``
GradPair = tuple[Tensor, Tensor]


@functools.cache
def warn_in_beta() -> None:
    """PyTorch's "in beta" warning, the first time only (``cache_clear`` re-arms it)."""
    warnings.warn(BETA_WARNING, UserWarning, stacklevel=4)


def _shape_text(t: Tensor) -> str:
    return str(list(t.shape))


def _check(input: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, include_self: bool) -> int:  # noqa: A002
    """PyTorch's checks of ``index_reduce``'s operands, in its order; the normalized ``dim``."""
    if not isinstance(include_self, bool):
        raise TypeError(f"index_reduce(): argument 'include_self' must be bool, not {type(include_self).__name__}")
    if reduce not in INDEX_REDUCTIONS:
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}.")
    d = normalize_dim(dim, input.dim())
    _check_index(index)
    if source.dtype is not input.dtype:
        raise RuntimeError(
            f"index_reduce_(): self ({dtypes.scalar_type_name(input.dtype)}) and source "
            f"({dtypes.scalar_type_name(source.dtype)}) must have the same scalar type"
        )
    _check_source_shape(input, d, index, source)
    return d


def _check_index(index: Tensor) -> None:
    """A vector (or a number) of int64 or int32."""
    if index.dim() > 1:
        raise IndexError(
            f"index_reduce_(): Index is supposed to be a vector, but got dim: {index.dim()} with type: "
            f"{dtypes.scalar_type_name(index.dtype)} and size: {_shape_text(index)}"
        )
    if index.dtype not in INDEX_DTYPES:
        found = dtypes.scalar_type_name(index.dtype)
        raise RuntimeError(f"index_reduce_(): Expected dtype int32/int64 for index but got: {found}")


def _check_source_shape(input: Tensor, d: int, index: Tensor, source: Tensor) -> None:  # noqa: A002
    """One slice of ``source`` along ``d`` per index, each of ``input``'s slice shape."""
    if d != 0 and d >= source.dim():
        raise RuntimeError(
            f"index_reduce_(): Indexing dim {d} is out of bounds of the source tensor with dim {source.dim()}"
        )
    if source.dim() == 0 and index.numel() != 1:  # PyTorch reads source.size(0) of a 0-d tensor
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    count = source.shape[d] if source.dim() else 1
    if index.numel() != count:
        raise RuntimeError(
            f"index_reduce_(): Number of indices ({index.numel()}) should be equal to source.size(dim): ({count}), "
            f"for dim: {d}"
        )
    self_rest, source_rest = list(input.shape), list(source.shape)
    if input.dim() and source.dim():
        del self_rest[d], source_rest[d]
    if self_rest != source_rest:
        raise RuntimeError(
            "source tensor shape must match self tensor shape, excluding the specified dimension. "
            f"Got self.shape = {_shape_text(input)} source.shape = {_shape_text(source)}"
        )


def _refuse_bool(input: Tensor, reduce: str, include_self: bool) -> None:  # noqa: A002
    """PyTorch's errors for a bool ``input`` (the kernels that have no bool version)."""
    if input.dtype is not dtypes.bool_:
        return
    if not include_self:
        raise NotImplementedError("\"index_reduce_func_exclude_input_init\" not implemented for 'Bool'")
    if input.dim() <= 1:
        raise NotImplementedError("\"index_func_\" not implemented for 'Bool'")
    if reduce == "mean":
        raise NotImplementedError("\"div_floor_cpu\" not implemented for 'Bool'")


def _spread(index: Tensor, dim: int, shape: tuple[int, ...]) -> Tensor:
    """``index`` (a vector) laid along ``dim`` and expanded to ``shape``: ``scatter_reduce``'s index."""
    along = [1] * len(shape)
    along[dim] = -1
    return index.reshape(tuple(along)).expand(shape)


def _reduced(input: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str,  # noqa: A002
             include_self: bool) -> Tensor:
    """The forward, on tensors of at least one dimension and an int64 vector ``index``."""
    spread = _spread(index, dim, tuple(source.shape))
    with no_grad():
        if reduce == "prod" and not input.dtype.is_floating_point and input.dtype is not dtypes.int64:
            # scatter_reduce's product comes out as int64 for the narrower integers: reduce in
            # int64 and cast back (the same wrap-around as a product in the narrow type)
            wide = scatter_reduce(input.to(dtypes.int64), dim, spread, source.to(dtypes.int64), reduce,
                                  include_self=include_self)
            return wide.to(input.dtype)
        return scatter_reduce(input, dim, spread, source, reduce, include_self=include_self)


class IndexReduce(Function):
    """``index_reduce`` (of checked operands, an int64 vector ``index``), with PyTorch's gradients."""

    @staticmethod
    def forward(ctx: Context, a: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str,
                include_self: bool) -> Tensor:
        ctx.scalar = a.dim() == 0  # a 0-d input (and source) is reduced as a vector of one
        a, source = (a.reshape(1), source.reshape(1)) if ctx.scalar else (a, source)
        out = _reduced(a, dim, index, source, reduce, include_self)
        ctx.save_for_backward(a, index, source, out)
        ctx.dim, ctx.reduce, ctx.include_self = dim, reduce, include_self
        return out.reshape(()) if ctx.scalar else out

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Tensor, None, None, Tensor, None, None]:
        a, index, source, out = ctx.saved_tensors
        gradients = {"prod": _prod_grads, "mean": _mean_grads}.get(ctx.reduce, _extreme_grads)
        grad_self, grad_source = gradients(ctx, grad.reshape(a.shape), a, index, source, out)
        if not ctx.include_self:
            grad_self = index_fill(grad_self, ctx.dim, index, 0)
        if ctx.scalar:
            grad_self, grad_source = grad_self.reshape(()), grad_source.reshape(())
        return grad_self, None, None, grad_source, None, None


def _prod_grads(ctx: Context, grad: Tensor, a: Tensor, index: Tensor, source: Tensor, out: Tensor) -> GradPair:
    """The product of the other contributors, exact where some of them are zero."""
    dim, include_self = ctx.dim, ctx.include_self
    self_zero = a == 0
    masked_self = where(self_zero, 1, a)
    grad_self = grad * _reduced(masked_self, dim, index, source, "prod", include_self) / masked_self
    source_zero = source == 0
    zeros_per_row = index_select(index_add(a.new_zeros(a.shape), dim, index, source_zero.to(a.dtype)), dim, index)
    single_zero = source_zero & (zeros_per_row == 1)
    without_zero = _reduced(a, dim, index, where(single_zero, 1, source), "prod", include_self)
    grad_source = where(
        single_zero,
        index_select(grad * without_zero, dim, index),
        index_select(grad * out, dim, index) / where(source_zero, 1, source),
    )
    return grad_self, grad_source


def _mean_grads(ctx: Context, grad: Tensor, a: Tensor, index: Tensor, source: Tensor, out: Tensor) -> GradPair:
    """The gradient shared evenly among each row's contributors."""
    start = grad.new_ones(grad.shape) if ctx.include_self else grad.new_zeros(grad.shape)
    count = index_add(start, ctx.dim, index, source.new_ones(source.shape).to(grad.dtype))
    count = where(count == 0, 1, count)
    return grad / count, index_select(grad, ctx.dim, index) / index_select(count, ctx.dim, index)


def _extreme_grads(ctx: Context, grad: Tensor, a: Tensor, index: Tensor, source: Tensor, out: Tensor) -> GradPair:
    """The gradient split evenly between the elements equal to the result (``input``'s counted
    even when ``include_self=False``, as PyTorch)."""
    dim = ctx.dim
    self_ties = (a == out).to(grad.dtype)
    source_ties = (source == index_select(out, dim, index)).to(grad.dtype)
    share = grad / index_add(self_ties, dim, index, source_ties)
    return self_ties * share, source_ties * index_select(share, dim, index)


def index_reduce(input: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, *,  # noqa: A002 - PyTorch's names
                 include_self: bool = True, out: Optional[Tensor] = None) -> Tensor:
    """PyTorch's ``torch.index_reduce``: slice ``k`` of ``source`` along ``dim`` reduced (``prod``,
    ``mean``, ``amax``, ``amin``) into ``input``'s slice ``index[k]``; with ``include_self=False``
    the named slices leave ``input``'s values out."""
    d = _check(input, dim, index, source, reduce, include_self)
    warn_in_beta()
    _refuse_bool(input, reduce, include_self)
    size = input.shape[d] if input.dim() else 1
    if first_out_of_range(index, size) is not None:  # PyTorch takes no negative index here
        raise IndexError("index out of range in self")
    result = IndexReduce.apply(input, d, index.to(dtypes.int64).reshape(-1), source, reduce, include_self)
    return write_out(result, out, "index_reduce")


class IndexReduceMethods:
    """``Tensor.index_reduce`` and ``Tensor.index_reduce_``."""

    def index_reduce(self, dim: int, index: Tensor, source: Tensor, reduce: str, *, include_self: bool = True) -> Tensor:
        return index_reduce(self, dim, index, source, reduce, include_self=include_self)

    def index_reduce_(self, dim: int, index: Tensor, source: Tensor, reduce: str, *, include_self: bool = True) -> Tensor:
        return self._inplace_apply(
            lambda old: index_reduce(old, dim, index, source, reduce, include_self=include_self), source
        )


add_tensor_methods({name: method for name, method in vars(IndexReduceMethods).items() if not name.startswith("__")})

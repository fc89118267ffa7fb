r"""Writing at positions held in an index tensor: ``scatter``, ``scatter_reduce``, ``index_fill``, ``index_copy``.

Each is composed from gather, scatter-add, ``index_select``/``index_add`` and ``where``. The
index is read on the host once, to check its values (before any kernel runs: the kernels do
not check bounds) and to work out which positions it writes:

.. math::
    \mathrm{scatter}(x, d, I, s)[\dots, I[i], \dots] = s[i], \qquad
    \mathrm{scatter\_reduce}(x, d, I, s, \rho)[p] = \rho\bigl(\{x_p\} \cup \{s_i : \text{target}(i) = p\}\bigr)

For ``scatter`` an element written twice keeps the last value written (PyTorch leaves the
order undefined). Its gradient is PyTorch's: ``grad.gather(d, I)`` for ``s``, and ``grad`` with
the written positions zeroed for ``x``. ``scatter_reduce``'s gradient comes from the ops it
is made of: ``sum`` and ``mean`` share it among the contributors, ``amax``/``amin`` split it
evenly between the elements equal to the result, as PyTorch does.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from .. import dtypes
from ..autograd.function import Context, Function
from ..autograd.grad_mode import no_grad
from ..creation import cat
from ..creation import tensor as make_tensor
from ..index_checks import check_scatter, first_out_of_range, nonempty_shape
from ..shapes import normalize_dim
from ..tensor import Tensor, add_tensor_methods, where
from .indexing import gather, index_add, index_select, scatter_add
from .expanded_writes import warn_expanded_write
from .windows import ConstantPad

SCATTER_REDUCTIONS = ("sum", "prod", "mean", "amax", "amin")


def _host(t: Tensor) -> np.ndarray:
    return np.asarray(t.detach().cpu().numpy())


def _positions(values: np.ndarray, device: Any) -> Tensor:
    return make_tensor(np.asarray(values, dtype=np.int64), dtype=dtypes.int64, device=device)


def _targets(out_shape: tuple[int, ...], dim: int, index: Tensor) -> np.ndarray:
    """The flat (row-major) position in ``out`` that each element of ``index`` writes, in row-major order."""
    shape = nonempty_shape(tuple(index.shape))
    values = _host(index).reshape(shape)
    coords = list(np.indices(shape))
    coords[dim] = values
    return np.ravel_multi_index(tuple(coords), nonempty_shape(out_shape)).reshape(-1)


def _covered(src: Tensor, index: Tensor) -> Tensor:
    """The part of ``src`` that ``index`` reaches (its leading corner of ``index``'s shape)."""
    if src.shape == index.shape or not src.dim():
        return src.reshape(index.shape)
    return src[tuple(slice(0, n) for n in index.shape)]


def _checked(input: Tensor, dim: int, index: Tensor, src: Tensor) -> int:  # noqa: A002
    d = normalize_dim(dim, input.dim())
    check_scatter(input, d, index, src)
    return d


# ---- scatter ----


class Scatter(Function):
    """``a`` with ``src``'s elements written at ``index`` along ``dim`` (the last write wins)."""

    @staticmethod
    def forward(ctx: Context, a: Tensor, dim: int, index: Tensor, src: Tensor, is_value: bool) -> Tensor:
        if is_value:  # PyTorch's overload with a number for src
            ctx.grad_fn_name = "ScatterBackward1"
        ctx.save_for_backward(index)
        ctx.dim, ctx.src_shape = dim, src.shape
        targets = _targets(tuple(a.shape), dim, index)
        # the last element writing each target: the first in the reversed order
        last = targets.size - 1 - np.unique(targets[::-1], return_index=True)[1]
        written = np.zeros(a.numel() or 1, dtype=bool)
        written[targets] = True
        values = _covered(src, index).reshape(-1).index_select(0, _positions(last, a.device))
        flat = a.new_zeros(written.size).index_add(0, _positions(targets[last], a.device), values)
        mask = make_tensor(written, dtype=dtypes.bool_, device=a.device)
        ctx.mask = mask
        return where(mask, flat, a.reshape(-1)).reshape(a.shape)

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Optional[Tensor], None, None, Optional[Tensor], None]:
        (index,) = ctx.saved_tensors
        grad_a = where(ctx.mask, 0.0, grad.reshape(-1)).reshape(grad.shape) if ctx.needs_input_grad[0] else None
        grad_src = None
        if ctx.needs_input_grad[3]:
            grad_src = gather(grad, ctx.dim, index)
            if grad_src.shape != ctx.src_shape:  # src reaches beyond the index: zero gradient there
                if not ctx.src_shape:
                    grad_src = grad_src.reshape(())
                else:
                    beyond = tuple((0, size - n) for size, n in zip(ctx.src_shape, nonempty_shape(index.shape)))
                    grad_src = ConstantPad.apply(grad_src.reshape(nonempty_shape(index.shape)), beyond, 0.0)
        return grad_a, None, None, grad_src, None


class NoDerivative(Function):
    """A value computed without a graph whose derivative PyTorch does not define."""

    @staticmethod
    def forward(ctx: Context, a: Tensor, value: Tensor, op: str) -> Tensor:
        ctx.op = op
        return value

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[None, None, None]:
        raise RuntimeError(f"derivative for aten::{ctx.op} is not implemented")


def scatter(input: Tensor, dim: int, index: Tensor, src: Any = None, *, value: Any = None, reduce: Optional[str] = None) -> Tensor:  # noqa: A002
    """PyTorch's ``torch.scatter``: ``input`` with ``src`` (a tensor, or a number ``value``) written at
    ``index`` along ``dim``; with ``reduce='add'`` or ``'multiply'`` combined with what is there."""
    if src is None and value is None:
        raise TypeError("scatter() missing required argument 'src' or 'value'")
    scalar = value if src is None else src
    is_value = not isinstance(scalar, Tensor)
    source = input.new_full(tuple(index.shape), scalar) if is_value else scalar
    d = _checked(input, dim, index, source)
    if reduce is not None:
        if reduce not in ("add", "multiply"):
            raise RuntimeError("reduce argument must be either add or multiply.")
        requires = input.requires_grad or source.requires_grad
        with no_grad():
            result = scatter_reduce(input, d, index, source, "sum" if reduce == "add" else "prod")
        return NoDerivative.apply(input, result, "scatter") if requires else result
    return Scatter.apply(input, d, index, source, is_value)


# ---- scatter_reduce ----


def _segment_table(targets: np.ndarray, rows: np.ndarray, first: int, self_column: bool) -> np.ndarray:
    """For each written position (``rows``, sorted) the source positions that reduce into it, padded with -1."""
    order = np.argsort(targets, kind="stable")
    sorted_targets = targets[order]
    row_of = np.searchsorted(rows, sorted_targets)
    starts = np.searchsorted(sorted_targets, rows)
    rank = np.arange(sorted_targets.size) - starts[row_of]
    counts = np.bincount(row_of, minlength=rows.size)
    width = int(counts.max()) + int(self_column)
    table = np.full((rows.size, width), -1, dtype=np.int64)
    if self_column:
        table[:, 0] = rows
    table[row_of, rank + int(self_column)] = first + order
    return table


def _pad_value(dtype: dtypes.dtype, reduce: str) -> Any:
    """The identity of ``reduce`` in ``dtype``: what an unused slot of the table holds."""
    if reduce == "prod":
        return 1
    if dtype.is_floating_point:
        return -np.inf if reduce == "amax" else np.inf
    info = np.iinfo(np.dtype(dtype.name)) if dtype is not dtypes.bool_ else None
    if info is None:
        return reduce == "amin"
    return int(info.min) if reduce == "amax" else int(info.max)


def scatter_reduce(input: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, *, include_self: bool = True) -> Tensor:  # noqa: A002
    """PyTorch's ``torch.scatter_reduce``: each element of ``src`` reduced (``sum``, ``prod``, ``mean``,
    ``amax``, ``amin``) into ``input``'s position at ``index`` along ``dim``; with
    ``include_self=False`` the written positions forget ``input``'s value."""
    reduce = {"max": "amax", "min": "amin"}.get(reduce, reduce)  # older names PyTorch still accepts
    if reduce not in SCATTER_REDUCTIONS:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    d = _checked(input, dim, index, src)
    if index.numel() == 0:
        return input.clone()
    shape = tuple(input.shape)
    targets = _targets(shape, d, index)
    size = input.numel() or 1
    counts = np.bincount(targets, minlength=size)
    touched = make_tensor(counts > 0, dtype=dtypes.bool_, device=input.device).reshape(shape)
    if reduce in ("sum", "mean"):
        base = input if include_self else where(touched, 0, input)
        total = scatter_add(base, d, index, src)
        if reduce == "sum":
            return total
        count = make_tensor(np.maximum(counts + int(include_self), 1), dtype=input.dtype, device=input.device).reshape(shape)
        if input.dtype.is_floating_point:
            mean = total / count
        else:  # PyTorch rounds an integer mean down
            mean = ((total - total % count) / count).to(input.dtype)
        return where(touched, mean, input)
    if reduce == "prod":
        return _reduce_rows(input, index, src, reduce, include_self, targets, counts).reshape(shape)
    return ScatterExtreme.apply(input, d, index, src, reduce, include_self, targets, counts)


def _reduce_rows(input: Tensor, index: Tensor, src: Tensor, reduce: str, include_self: bool,  # noqa: A002
                 targets: np.ndarray, counts: np.ndarray) -> Tensor:
    """``amax``, ``amin``, ``prod``: each written position's contributors side by side in a row
    of a table (padded with the reduction's identity), reduced along the row; flat."""
    size = counts.size
    rows = np.flatnonzero(counts)
    flat_input = input.reshape(-1)
    table = _segment_table(targets, rows, size, include_self)
    pad = flat_input.new_full((1,), _pad_value(input.dtype, reduce))
    pool = cat([flat_input, _covered(src, index).reshape(-1), pad])
    table[table < 0] = pool.shape[0] - 1
    slots = pool.index_select(0, _positions(table.reshape(-1), input.device)).view(table.shape)
    if reduce == "prod":
        reduced = slots.cumprod(1)[:, -1].to(input.dtype)  # (an integer cumprod widens to int64; the low bits agree)
    else:
        reduced = slots.amax(1) if reduce == "amax" else slots.amin(1)
    placed = flat_input.new_zeros(size).index_add(0, _positions(rows, input.device), reduced)
    touched = make_tensor(counts > 0, dtype=dtypes.bool_, device=input.device)
    return where(touched, placed, flat_input)


class ScatterExtreme(Function):
    r"""``scatter_reduce`` with ``amax``/``amin``, with PyTorch's gradient: split evenly between the
    elements equal to the result, :math:`g / N` with :math:`N` the number of ties, in which
    PyTorch counts ``input``'s element even when ``include_self=False`` (it then gets no share)."""

    @staticmethod
    def forward(ctx: Context, a: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, include_self: bool,
                targets: np.ndarray, counts: np.ndarray) -> Tensor:
        out = _reduce_rows(a, index, src, reduce, include_self, targets, counts).reshape(a.shape)
        ctx.save_for_backward(a, index, src, out)
        ctx.dim, ctx.include_self = dim, include_self
        ctx.touched = make_tensor(counts > 0, dtype=dtypes.bool_, device=a.device).reshape(a.shape)
        return out

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple:
        a, index, src, out = ctx.saved_tensors
        dim = ctx.dim
        covered = _covered(src, index)
        value = gather(out, dim, index)
        self_ties = (a == out).to(grad.dtype)
        src_ties = (covered == value).to(grad.dtype)
        share = grad / scatter_add(self_ties, dim, index, src_ties)
        grad_a = self_ties * share
        if not ctx.include_self:
            grad_a = where(ctx.touched, 0.0, grad_a)
        grad_src = src_ties * gather(share, dim, index)
        if grad_src.shape != src.shape:  # src reaches beyond the index: zero gradient there
            beyond = tuple((0, size - n) for size, n in zip(src.shape, grad_src.shape))
            grad_src = ConstantPad.apply(grad_src, beyond, 0.0) if src.dim() else grad_src.reshape(())
        return grad_a, None, None, grad_src, None, None, None, None


# ---- index_fill, index_copy ----


def _dim_mask(input: Tensor, dim: int, rows: np.ndarray) -> Tensor:  # noqa: A002
    """A bool tensor, true on the slices ``rows`` along ``dim``, shaped to broadcast against ``input``."""
    size = input.shape[dim] if input.dim() else 1
    mask = np.zeros(size, dtype=bool)
    mask[rows] = True
    shape = [size if d == dim else 1 for d in range(input.dim())]
    return make_tensor(mask, dtype=dtypes.bool_, device=input.device).reshape(tuple(shape))


def index_fill(input: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:  # noqa: A002
    """PyTorch's ``torch.index_fill``: ``input`` with the slices ``index`` along ``dim`` set to ``value``
    (a number or a 0-d tensor, whose gradient is the sum over the filled elements)."""
    d, rows = _filled_rows(input, dim, index, value)
    size = input.shape[d] if input.dim() else 1
    fill = value.to(input.dtype) if isinstance(value, Tensor) else make_tensor(value, dtype=input.dtype, device=input.device)
    return where(_dim_mask(input, d, rows % size if size else rows), fill, input)


def _filled_rows(input: Tensor, dim: int, index: Tensor, value: Any, expanded: bool = False) -> tuple[int, np.ndarray]:  # noqa: A002
    """``index_fill``'s checks, in PyTorch's order (the warning for an ``expanded`` tensor before the
    bounds), and the normalized ``dim`` and the index values."""
    d = normalize_dim(dim, input.dim())
    if index.dim() > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    if index.dtype is not dtypes.int64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    if isinstance(value, Tensor) and value.dim() != 0:
        raise RuntimeError(
            f"index_fill_ only supports a 0-dimensional value tensor, but got tensor with {value.dim()} dimension(s)."
        )
    if expanded:
        warn_expanded_write("index_fill_", "tensor[mask] = scalar")
    size = input.shape[d] if input.dim() else 1
    rows = _host(index).reshape(-1)
    outside = rows[(rows < -size) | (rows >= size)]
    if outside.size:  # negative values count from the end, as in PyTorch
        raise IndexError(f"index {int(outside[0])} is out of bounds for dimension {d} with size {size}")
    return d, rows


def _index_fill_expanded(self: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:
    """``index_fill_`` into an expanded tensor, as PyTorch 2.x still does it (with a deprecation
    warning): each selected slice filled in turn, so the shared memory ends as PyTorch's does."""
    d, rows = _filled_rows(self, dim, index, value, expanded=True)
    size = self.shape[d]
    fill = value.item() if isinstance(value, Tensor) else value  # a number: fill_ writes it into shared memory
    for row in dict.fromkeys(int(r) % size for r in rows):
        self.select(d, row).fill_(fill)
    return self


def index_copy(input: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:  # noqa: A002
    """PyTorch's ``torch.index_copy``: ``input`` with slice ``i`` of ``source`` written at slice
    ``index[i]`` along ``dim`` (a repeated index keeps the last)."""
    d = normalize_dim(dim, input.dim())
    if index.dim() > 1:
        raise IndexError(f"index_copy_(): Index should have dimension 1 or 0 (got {index.dim()})")
    if index.dtype is not dtypes.int64:
        found = dtypes.scalar_type_name(index.dtype)
        raise RuntimeError(f"index_copy_(): Expected a long tensor for index, but got {found}")
    if source.dtype is not input.dtype:
        raise RuntimeError(
            "index_copy_(): self and source expected to have the same dtype, but got (self) "
            f"{dtypes.scalar_type_name(input.dtype)} and (source) {dtypes.scalar_type_name(source.dtype)}"
        )
    if source.dim() and input.dim() and source.dim() != input.dim():
        raise IndexError(
            "index_copy_(): When source and destination are not scalars, their dimensionality must match. "
            f"Source dimensionality ({source.dim()}), destination dimensionality ({input.dim()})"
        )
    count = source.shape[d] if source.dim() else 1
    if index.numel() != count:
        raise IndexError(f"index_copy_(): Number of indices ({index.numel()}) should be equal to source.size(dim) ({count})")
    if source.dim() and input.dim():
        dest_slice = [n for k, n in enumerate(input.shape) if k != d]
        src_slice = [n for k, n in enumerate(source.shape) if k != d]
        if dest_slice != src_slice:
            raise RuntimeError(
                "index_copy_(): Source/destination tensor must have same slice shapes. Destination slice shape: "
                f"{' '.join(map(str, dest_slice))} at dimension {d} and source slice shape: "
                f"{' '.join(map(str, src_slice))} at dimension 0."  # PyTorch's wording: always 0 here
            )
    size = input.shape[d] if input.dim() else 1
    bad = first_out_of_range(index, size)
    if bad is not None:
        raise IndexError(f"index_copy_(): index {bad} is out of bounds for dimension {d} with size {size}")
    rows = _host(index).reshape(-1)
    last = rows.size - 1 - np.unique(rows[::-1], return_index=True)[1]  # the last slice naming each row
    if input.dim() == 0:
        return source.reshape(()).clone() if rows.size else input.clone()
    src = source.reshape(input.shape[:d] + (1,) + input.shape[d + 1 :]) if not source.dim() else source
    chosen = index_select(src, d, _positions(last, input.device))
    placed = input.new_zeros(input.shape).index_add(d, _positions(rows[last], input.device), chosen)
    return where(_dim_mask(input, d, rows), placed, input)


class TensorMethods:
    """``t.scatter(...)``, ``t.scatter_(...)`` and the other methods of the ops above (attached below)."""

    def scatter(self, dim: int, index: Tensor, src: Any = None, *, value: Any = None, reduce: Optional[str] = None) -> Tensor:
        return scatter(self, dim, index, src, value=value, reduce=reduce)

    def scatter_(self, dim: int, index: Tensor, src: Any = None, *, value: Any = None, reduce: Optional[str] = None) -> Tensor:
        return self._inplace_apply(lambda old: scatter(old, dim, index, src, value=value, reduce=reduce), src, value)

    def scatter_reduce(self, dim: int, index: Tensor, src: Tensor, reduce: str, *, include_self: bool = True) -> Tensor:
        return scatter_reduce(self, dim, index, src, reduce, include_self=include_self)

    def scatter_reduce_(self, dim: int, index: Tensor, src: Tensor, reduce: str, *, include_self: bool = True) -> Tensor:
        return self._inplace_apply(lambda old: scatter_reduce(old, dim, index, src, reduce, include_self=include_self), src)

    def scatter_add_(self, dim: int, index: Tensor, src: Tensor) -> Tensor:
        return self._inplace_apply(lambda old: scatter_add(old, dim, index, src), src)

    def index_add_(self, dim: int, index: Tensor, source: Tensor, *, alpha: Any = 1) -> Tensor:
        return self._inplace_apply(lambda old: index_add(old, dim, index, source, alpha=alpha), source)

    def index_fill(self, dim: int, index: Tensor, value: Any) -> Tensor:
        return index_fill(self, dim, index, value)

    def index_fill_(self, dim: int, index: Tensor, value: Any) -> Tensor:
        if self._shares_elements():
            return _index_fill_expanded(self, dim, index, value)
        return self._inplace_apply(lambda old: index_fill(old, dim, index, value), value)

    def index_copy(self, dim: int, index: Tensor, source: Tensor) -> Tensor:
        return index_copy(self, dim, index, source)

    def index_copy_(self, dim: int, index: Tensor, source: Tensor) -> Tensor:
        return self._inplace_apply(lambda old: index_copy(old, dim, index, source), source)


add_tensor_methods({name: method for name, method in vars(TensorMethods).items() if not name.startswith("__")})

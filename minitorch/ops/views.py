r"""Views share storage with their input: only shape, strides and offset change.

Their backward rules move the gradient back through the same rearrangement: a permute's
gradient is permuted back, an expand's is summed, a slice's is scattered into zeros.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional, Sequence

from ..autograd.engine import sum_to_shape
from ..autograd.function import Context, Function
from ..autograd.grad_mode import is_grad_enabled
from ..autograd.linear_map import linear_map
from ..dispatch import cat_op, empty, map_op, tensor_class
from ..index_checks import INDEX_DTYPES
from ..tensor_data import TensorData, expand_strides, view_strides

if TYPE_CHECKING:  # tensor.py imports this module
    from ..tensor import Tensor


def _shape_str(shape: Sequence[int]) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"


class View(Function):
    """The same elements in a new shape, when the strides allow it without a copy."""

    @staticmethod
    def forward(ctx: Context, a: Tensor, shape: tuple[int, ...]) -> Tensor:
        ctx.input_shape = a._data.shape
        strides = view_strides(a._data.shape, a._data.strides, shape)
        if strides is None:
            raise RuntimeError(
                "view size is not compatible with input tensor's size and stride (at least one dimension "
                f"spans across two contiguous subspaces). Use .reshape(...) instead. (input shape "
                f"{_shape_str(a.shape)}, strides {_shape_str(a._data.strides)}, requested shape {_shape_str(shape)})"
            )
        return a._view_of(a._data.restrided(shape, strides))

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Tensor, None]:
        return grad.reshape(ctx.input_shape), None


class Permute(Function):
    """Reorder dimensions: output dimension ``i`` is input dimension ``order[i]``."""

    @staticmethod
    def forward(ctx: Context, a: Tensor, order: tuple[int, ...]) -> Tensor:
        # BEGIN SOLUTION 2.3
        ctx.order = order
        return a._view_of(a._data.permute(*order))
        # END SOLUTION

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Tensor, None]:
        # BEGIN SOLUTION 2.4
        inverse = [0] * len(ctx.order)
        for i, o in enumerate(ctx.order):
            inverse[o] = i
        return grad.permute(*inverse), None
        # END SOLUTION


class Expand(Function):
    """Broadcast to a larger shape with stride 0; the gradient sums over the copies."""

    @staticmethod
    def forward(ctx: Context, a: Tensor, shape: tuple[int, ...]) -> Tensor:
        ctx.input_shape = a._data.shape
        strides = expand_strides(a._data.shape, a._data.strides, shape)
        return a._view_of(a._data.restrided(shape, strides))

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Tensor, None]:
        return sum_to_shape(grad, ctx.input_shape), None


def _tensor_item(item: Any) -> Any:
    """A 0-d integer tensor in an index as the int it holds; any other tensor raises IndexError.

    PyTorch reads other tensors as advanced (gathering or masking) indices, which this
    basic indexing does not do; taking them for ints would give a silently wrong shape.
    """
    if not isinstance(item, tensor_class()):
        return item
    if item.dtype.is_floating_point:
        raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    if item.dim() != 0 or item.dtype not in INDEX_DTYPES:
        raise IndexError(
            f"only integers, slices (`:`), ellipsis (`...`) and None are valid indices here, got a "
            f"{item.dtype} tensor of shape {list(item.shape)}; use index_select or masking ops for tensor indices"
        )
    return int(item.item())


def _plain_view(data: TensorData, items: tuple) -> Optional[TensorData]:
    """``data[items]`` for in-range Python ints and step-1 slices only (``x[i]``, ``x[:, a:b]``,
    ``narrow``, ``split``, ``unbind``), without the general parser below; None for any other key."""
    if len(items) > data.dims:
        return None
    shape: list[int] = []
    strides: list[int] = []
    offset = data.offset
    for size, stride, item in zip(data.shape, data.strides, items):
        kind = type(item)
        if kind is slice and item.step is None:
            start, stop, _ = item.indices(size)
            length = max(0, stop - start)
            shape.append(length)
            strides.append(stride)
            if length:
                offset += start * stride
        elif kind is int and -size <= item < size:
            offset += (item % size) * stride
        else:
            return None
    kept = len(items)
    return TensorData(data.storage, (*shape, *data.shape[kept:]), (*strides, *data.strides[kept:]), offset)


def basic_index(data: TensorData, key: Any) -> TensorData:
    """The view selected by ``key`` made of ints, slices, ``None`` and ``Ellipsis``.

    Raises IndexError like PyTorch's for out-of-range ints, too many indices and the index
    types this step does not support (tensors, lists, booleans).
    """
    plain = _plain_view(data, key if type(key) is tuple else (key,))
    if plain is not None:
        return plain
    items = tuple(_tensor_item(item) for item in (key if isinstance(key, tuple) else (key,)))
    for item in items:
        if isinstance(item, bool) or not (item is None or item is Ellipsis or isinstance(item, (int, slice)) or hasattr(item, "__index__")):
            raise IndexError(
                f"only integers, slices (`:`), ellipsis (`...`) and None are valid indices here, got "
                f"{type(item).__name__}; use index_select or masking ops for tensor indices"
            )
    consumed = sum(1 for item in items if item is not None and item is not Ellipsis)
    if consumed > data.dims:
        raise IndexError(f"too many indices for tensor of dimension {data.dims}")
    ellipses = sum(1 for item in items if item is Ellipsis)
    if ellipses > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    rest = [slice(None)] * (data.dims - consumed)
    expanded: list[Any] = []
    for item in items:
        expanded.extend(rest if item is Ellipsis else [item])
    if not ellipses:
        expanded.extend(rest)

    shape: list[int] = []
    strides: list[int] = []
    offset = data.offset
    dim = 0
    for item in expanded:
        if item is None:  # a new dimension: its stride spans the next one still to index, as PyTorch's
            shape.append(1)
            strides.append(data.shape[dim] * data.strides[dim] if dim < data.dims else 1)
            continue
        size, stride = data.shape[dim], data.strides[dim]
        if isinstance(item, slice):
            start, stop, step = item.indices(size)
            if item.step is not None and item.step <= 0:
                raise ValueError("step must be greater than zero")
            length = max(0, (stop - start + step - 1) // step)
            shape.append(length)
            strides.append(stride * step)
            if length:
                offset += start * stride
        else:
            index = int(item.__index__())
            if not -size <= index < size:
                raise IndexError(f"index {index} is out of bounds for dimension {dim} with size {size}")
            offset += (index % size) * stride
        dim += 1
    return TensorData(data.storage, shape, strides, offset)


def _index_node_name(key: Any) -> str:
    """PyTorch's ``grad_fn`` name for ``a[key]``: that of the last entry that does something
    (it indexes dimension by dimension: an int selects, a slice slices, None unsqueezes)."""
    entries = key if isinstance(key, tuple) else (key,)
    for entry in reversed(entries):
        if entry is None:
            return "UnsqueezeBackward0"
        if isinstance(entry, slice):
            if entry != slice(None):
                return "SliceBackward0"
        elif entry is not Ellipsis:
            return "SelectBackward0"
    return "SliceBackward0" if any(isinstance(entry, slice) for entry in entries) else "AliasBackward0"


class Slice(Function):
    """Basic indexing ``a[key]``; the gradient is scattered into zeros of the input's shape."""

    @staticmethod
    def forward(ctx: Context, a: Tensor, key: Any) -> Tensor:
        ctx.input_shape, ctx.key = a.shape, key
        ctx.grad_fn_name = _index_node_name(key)
        return a._view_of(basic_index(a._data, key))

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Tensor, None]:
        def scatter(g: Tensor) -> Tensor:
            full = empty(ctx.input_shape, g.dtype, g.device)
            full._raw_fill(0)
            map_op("copy", g, out=full._view_of(basic_index(full._data, ctx.key)))
            return full

        name = ctx.grad_fn_name.replace("Backward0", "BackwardBackward0")
        return linear_map(grad, scatter, lambda g: Slice.apply(g, ctx.key), name), None


def is_legacy_empty(t: Tensor) -> bool:
    """Whether ``t`` is of shape ``(0,)``, which ``cat`` passes over beside tensors of other shapes."""
    return t._data.shape == (0,)


class Cat(Function):
    """Join tensors along ``dim``; each input's gradient is its slice of the output's (an empty
    one for a legacy empty tensor passed over)."""

    @staticmethod
    def forward(ctx: Context, *tensors: Tensor, dim: int) -> Tensor:
        kept: list[Tensor] = []
        sizes: list[Optional[int]] = []
        for t in tensors:
            passed_over = is_legacy_empty(t)
            sizes.append(None if passed_over else t._data.shape[dim])
            if not passed_over:
                kept.append(t)
        if not kept:  # all of shape (0,): the first is the result's shape
            kept, sizes[0] = [tensors[0]], 0
        ctx.dim, ctx.sizes = dim, sizes
        shape = kept[0]._data.shape
        length = sum(t._data.shape[dim] for t in kept)
        out = empty(shape[:dim] + (length,) + shape[dim + 1 :], kept[0].dtype, kept[0].device)
        return cat_op([t._data for t in kept], dim, out)

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Tensor, ...]:
        parts = []
        start = 0
        for size in ctx.sizes:
            if size is None:
                parts.append(empty((0,), grad.dtype, grad.device))
                continue
            parts.append(grad.narrow(ctx.dim, start, size))
            start += size
        return tuple(parts)


class Stack(Function):
    """Join tensors of one shape along a new dimension ``dim``; each input's gradient is its
    index of the output's along ``dim``."""

    @staticmethod
    def forward(ctx: Context, *tensors: Tensor, dim: int) -> Tensor:
        ctx.dim = dim
        shape = tensors[0]._data.shape
        out = empty(shape[:dim] + (len(tensors),) + shape[dim:], tensors[0].dtype, tensors[0].device)
        return cat_op([t._data.unsqueezed(dim) for t in tensors], dim, out)

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Tensor, ...]:
        return tuple(grad.unbind(ctx.dim))


class Pieces(Function):
    r"""Consecutive pieces of ``a`` along ``dim`` as views, all outputs of one node (PyTorch's
    ``SplitBackward0``, ``SplitWithSizesBackward0`` and ``UnbindBackward0``).

    ``sizes`` lists each piece's length along ``dim``; without ``keepdim`` each length is 1 and
    the dimension is dropped (``unbind``). The gradient joins the pieces' gradients again, zeros
    standing for a piece no gradient reached:
    :math:`\partial L / \partial a = \operatorname{cat}(\partial L / \partial p_0, \ldots, \partial L / \partial p_{k-1})`.
    """

    @staticmethod
    def forward(ctx: Context, a: Tensor, dim: int, sizes: tuple[int, ...], keepdim: bool, name: str) -> tuple[Tensor, ...]:
        ctx.grad_fn_name = name
        ctx.input_shape, ctx.dim, ctx.sizes, ctx.keepdim = a._data.shape, dim, sizes, keepdim
        data, pieces = a._data, []
        if keepdim:
            start = 0
            for size in sizes:
                pieces.append(a._view_of(data.narrowed(dim, start, size)))
                start += size
        else:
            for index in range(len(sizes)):
                pieces.append(a._view_of(data.selected(dim, index)))
        return tuple(pieces)

    @staticmethod
    def backward(ctx: Context, *grads: Optional[Tensor]) -> tuple[Optional[Tensor], ...]:
        shape, dim = ctx.input_shape, ctx.dim
        reached = next(g for g in grads if g is not None)
        parts = []
        for grad, size in zip(grads, ctx.sizes):
            if grad is None:
                grad = empty(shape[:dim] + ((size,) if ctx.keepdim else ()) + shape[dim + 1 :], reached.dtype, reached.device)
                grad._raw_fill(0)
            parts.append(grad)
        joined = Cat.apply(*parts, dim=dim) if ctx.keepdim else Stack.apply(*parts, dim=dim)
        return joined, None, None, None, None


def pieces(a: Tensor, dim: int, sizes: Sequence[int], keepdim: bool, name: str) -> tuple[Tensor, ...]:
    """:class:`Pieces` of ``a`` (``dim`` already normalised, ``sizes`` checked), marked as the
    views of a multi-output node when made with grad mode on: PyTorch refuses in-place changes
    to them (and to views of them), since one node's backward could not account for them."""
    made = Pieces.apply(a, dim, tuple(sizes), keepdim, name)
    if is_grad_enabled():
        for piece in made:
            piece._multi_output_view = True
    return made

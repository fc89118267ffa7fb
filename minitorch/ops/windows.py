r"""Sliding windows as a view, and constant padding: the two moves behind convolution and pooling.

A window view shows every ``k``-long window along a dimension of length ``n`` (taken every
``step`` elements, its elements ``dilation`` apart) without copying anything:

.. math:: \mathrm{windows}[\dots, i, \dots, j] = a[\dots, i \cdot \mathrm{step} + j \cdot \mathrm{dilation}, \dots]

so along that dimension the view has :math:`\lfloor (n - \mathrm{dilation}(k-1) - 1)/\mathrm{step} \rfloor + 1`
windows, and a new trailing dimension of size :math:`k`. Both are just strides: the window
dimension's stride is the input's times ``step``, the trailing one's the input's times
``dilation``. Windows overlap when ``step < k``: one input element then appears in several
places of the view, and the backward must add up every place's gradient, which is what
the backend's ``accumulate`` primitive does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from ..autograd.function import Context, Function
from ..autograd.linear_map import linear_map
from ..dispatch import accumulate_op, empty, map_op
from ..tensor_data import TensorData

if TYPE_CHECKING:
    from ..tensor import Tensor


def window_count(size: int, kernel: int, step: int, dilation: int) -> int:
    """How many windows of ``kernel`` elements (``dilation`` apart) fit in ``size``, every ``step``."""
    return (size - dilation * (kernel - 1) - 1) // step + 1


def window_data(
    data: TensorData, dims: Sequence[int], sizes: Sequence[int], steps: Sequence[int], dilations: Sequence[int]
) -> TensorData:
    """The window view of ``data``: each of ``dims`` becomes its window count, one trailing
    dimension per window size is appended (in the order of ``dims``).

    Raises RuntimeError unless every window lies inside ``data``: distinct dimensions,
    positive sizes, steps and dilations, at least one window per dimension (a view that
    reached outside would let every kernel that reads it read memory it does not own).
    """
    if not len(dims) == len(sizes) == len(steps) == len(dilations):
        raise RuntimeError(f"windows: dims {list(dims)}, sizes {list(sizes)}, steps {list(steps)} and dilations "
                           f"{list(dilations)} must have one entry each")
    if len(set(dims)) != len(dims) or not all(0 <= d < data.dims for d in dims):
        raise RuntimeError(f"windows: dims {list(dims)} must be distinct dimensions of a {data.dims}-d tensor")
    for name, values in (("size", sizes), ("step", steps), ("dilation", dilations)):
        if any(v < 1 for v in values):
            raise RuntimeError(f"windows: every window {name} must be positive, got {list(values)}")
    for d, k, step, dilation in zip(dims, sizes, steps, dilations):
        if window_count(data.shape[d], k, step, dilation) < 1:
            raise RuntimeError(
                f"window of size {dilation * (k - 1) + 1} (kernel {k}, dilation {dilation}) doesn't fit in "
                f"dimension {d} of size {data.shape[d]}"
            )
    # BEGIN SOLUTION 5.4
    shape, strides = list(data.shape), list(data.strides)
    for d, k, step, dilation in zip(dims, sizes, steps, dilations):
        count = window_count(data.shape[d], k, step, dilation)
        shape[d] = count
        strides[d] = data.strides[d] * step
        shape.append(k)
        strides.append(data.strides[d] * dilation)
    return TensorData(data.storage, shape, strides, data.offset)
    # END SOLUTION


class Windows(Function):
    """The sliding-window view (zero-copy); its backward adds each window's gradient back."""

    @staticmethod
    def forward(ctx: Context, a: Tensor, dims: tuple[int, ...], sizes: tuple[int, ...],
                steps: tuple[int, ...], dilations: tuple[int, ...]) -> Tensor:
        ctx.input_shape = a.shape
        ctx.layout = (dims, sizes, steps, dilations)
        return a._view_of(window_data(a._data, dims, sizes, steps, dilations))

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Tensor, None, None, None, None]:
        # under create_graph the scatter is recorded: its own gradient is this window view again
        adjoint = lambda g: Windows.apply(g, *ctx.layout)  # noqa: E731
        return linear_map(grad, lambda g: Windows.add_back(ctx, g), adjoint, "WindowsBackwardBackward0"), None, None, None, None

    @staticmethod
    def add_back(ctx: Context, grad: Tensor) -> Tensor:
        """Zeros of the input's shape with each window's gradient added back where it was read."""
        # BEGIN SOLUTION 5.4
        full = empty(ctx.input_shape, grad.dtype, grad.device)
        full._raw_fill(0)
        target = full._view_of(window_data(full._data, *ctx.layout))
        accumulate_op(grad, target)
        return full
        # END SOLUTION


def windows(a: Tensor, dims: Sequence[int], sizes: Sequence[int], steps: Sequence[int],
            dilations: Sequence[int] | None = None) -> Tensor:
    """Sliding windows of ``a`` along ``dims`` (see the module docstring), differentiable."""
    dilations = tuple(dilations) if dilations is not None else (1,) * len(dims)
    return Windows.apply(a, tuple(dims), tuple(sizes), tuple(steps), dilations)


class ConstantPad(Function):
    """``a`` surrounded by ``value``: ``pads[d] = (before, after)`` elements along dimension ``d``."""

    grad_fn_name = "ConstantPadNdBackward0"

    @staticmethod
    def forward(ctx: Context, a: Tensor, pads: tuple[tuple[int, int], ...], value: float) -> Tensor:
        if len(pads) != a.dim() or any(before < 0 or after < 0 for before, after in pads):
            raise RuntimeError(f"ConstantPad needs one (before, after) pair of non-negative sizes per dimension of "
                               f"{list(a.shape)}, got {list(pads)}")
        ctx.interior = tuple(slice(before, before + size) for (before, _), size in zip(pads, a.shape))
        shape = [before + size + after for (before, after), size in zip(pads, a.shape)]
        out = empty(shape, a.dtype, a.device)
        out._raw_fill(value)
        map_op("copy", a, out=out[ctx.interior])
        return out

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Tensor, None, None]:
        return grad[ctx.interior], None, None

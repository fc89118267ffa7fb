r"""Folding: the sum of sliding windows back into a tensor, the transpose of the window view.

Where :func:`~minitorch.ops.windows.windows` reads a tensor of shape ``(..., n, ...)`` as
windows ``(..., count, ..., k)``, folding takes values laid out as windows and adds each
one into the place its window covers:

.. math:: \mathrm{out}[\dots, p, \dots] = \sum_{i \cdot \mathrm{step} + j \cdot \mathrm{dilation} = p}
   \mathrm{cols}[\dots, i, \dots, j]

This is the "col2im" half of a transposed convolution. The two are adjoint, so each is the
other's backward: folding's gradient is the window view of the output's gradient.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from ..autograd.function import Context, Function
from ..dispatch import accumulate_op, empty
from .windows import window_count, window_data, windows

if TYPE_CHECKING:
    from ..tensor import Tensor


class Fold(Function):
    """Windows ``(..., *counts, ..., *sizes)`` summed into a tensor of ``shape``."""

    @staticmethod
    def forward(ctx: Context, cols: Tensor, shape: tuple[int, ...], dims: tuple[int, ...], sizes: tuple[int, ...],
                steps: tuple[int, ...], dilations: tuple[int, ...]) -> Tensor:
        ctx.layout = (dims, sizes, steps, dilations)
        out = empty(shape, cols.dtype, cols.device)
        out._raw_fill(0)
        accumulate_op(cols, out._view_of(window_data(out._data, dims, sizes, steps, dilations)))
        return out

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Tensor, None, None, None, None, None]:
        return windows(grad, *ctx.layout), None, None, None, None, None


def fold(cols: Tensor, shape: Sequence[int], dims: Sequence[int], sizes: Sequence[int], steps: Sequence[int],
         dilations: Sequence[int]) -> Tensor:
    """Sum the windows ``cols`` into a new tensor of ``shape`` (see the module docstring).

    ``cols`` must have the shape the window view of a ``shape`` tensor would have.
    """
    shape, dims = tuple(int(s) for s in shape), tuple(dims)
    expected = list(shape)
    for d, k, step, dilation in zip(dims, sizes, steps, dilations):
        expected[d] = window_count(shape[d], k, step, dilation)
    expected += list(sizes)
    if list(cols.shape) != expected:
        raise RuntimeError(f"fold: windows of shape {list(cols.shape)} do not fit a tensor of shape {list(shape)} "
                           f"(expected windows of shape {expected})")
    return Fold.apply(cols, shape, dims, tuple(sizes), tuple(steps), tuple(dilations))

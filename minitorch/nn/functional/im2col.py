r"""``unfold`` ("im2col") and ``fold`` ("col2im"): the sliding blocks of an image as columns, and back.

``unfold`` reads an ``(N, C, H, W)`` batch as ``(N, C k_h k_w, L)``: column :math:`l` holds the
:math:`k_h \times k_w` block of every channel at the :math:`l`-th window position (row-major over
the ``L`` positions). A convolution is then one matrix product with the flattened filters.
``fold`` is its adjoint: it adds each column back where its block was, so overlapping blocks
sum; ``fold(unfold(x))`` is ``x`` times how many blocks cover each pixel. Both are views and
folds of the library's window view (:mod:`minitorch.ops.windows`), so their gradients come free.
"""

from __future__ import annotations

import math

from ...ops.fold import fold as fold_windows
from ...ops.windows import ConstantPad, window_count, windows
from ...tensor import Tensor
from ._utils import IntOrTuple


def _pairs(kernel_size: IntOrTuple, dilation: IntOrTuple, padding: IntOrTuple,
           stride: IntOrTuple) -> tuple[tuple[int, int], ...]:
    def pair(value: IntOrTuple) -> tuple[int, int]:
        return (value, value) if isinstance(value, int) else (int(value[0]), int(value[1]))

    return pair(kernel_size), pair(dilation), pair(padding), pair(stride)


def unfold(input: Tensor, kernel_size: IntOrTuple, dilation: IntOrTuple = 1, padding: IntOrTuple = 0,  # noqa: A002
           stride: IntOrTuple = 1) -> Tensor:
    """The ``kernel_size`` blocks of a ``(N, C, H, W)`` (or ``(C, H, W)``) input as the columns of
    ``(N, C * k_h * k_w, L)``."""
    if input.dim() not in (3, 4):
        raise RuntimeError(f"Input Error: Only 3D or 4D input Tensors are supported (got {input.dim()}D)")
    if input.dim() == 3:
        return unfold(input.unsqueeze(0), kernel_size, dilation, padding, stride).squeeze(0)._standalone()
    kernel, dilations, pads, steps = _pairs(kernel_size, dilation, padding, stride)
    padded = ConstantPad.apply(input, ((0, 0), (0, 0), *((p, p) for p in pads)), 0.0) if any(pads) else input
    blocks = windows(padded, (2, 3), kernel, steps, dilations)  # (N, C, out_h, out_w, k_h, k_w)
    n, c, out_h, out_w = blocks.shape[:4]
    columns = blocks.permute(0, 1, 4, 5, 2, 3).reshape(n, c * kernel[0] * kernel[1], out_h * out_w)
    return columns.clone() if columns._is_view() else columns  # a copy, as PyTorch's (a 1x1 kernel could view)


def fold(input: Tensor, output_size: IntOrTuple, kernel_size: IntOrTuple, dilation: IntOrTuple = 1,  # noqa: A002
         padding: IntOrTuple = 0, stride: IntOrTuple = 1) -> Tensor:
    """Columns ``(N, C * k_h * k_w, L)`` (or ``(C * k_h * k_w, L)``) added back into ``(N, C, H, W)``
    with ``(H, W) = output_size``: overlapping blocks sum."""
    if input.dim() not in (2, 3):
        raise RuntimeError(f"Input Error: Only unbatched (2D) or batched (3D) input Tensors are supported (got {input.dim()}D)")
    if input.dim() == 2:
        return fold(input.unsqueeze(0), output_size, kernel_size, dilation, padding, stride).squeeze(0)._standalone()
    size, dilations, pads, steps = _pairs(output_size, dilation, padding, stride)
    kernel = _pairs(kernel_size, 1, 0, 1)[0]
    n, rows, length = input.shape
    block = kernel[0] * kernel[1]
    if rows % block:
        raise RuntimeError(f"Expected size of input's dimension 1 to be divisible by the product of kernel_size, "
                           f"but got input.size(1)={rows} and kernel_size={kernel}.")
    counts = [window_count(size[d] + 2 * pads[d], kernel[d], steps[d], dilations[d]) for d in range(2)]
    if math.prod(counts) != length or min(counts) < 1:
        raise RuntimeError(
            f"Given output_size={size}, kernel_size={kernel}, dilation={dilations}, padding={pads}, stride={steps}, "
            f"expected size of input's dimension 2 to match the calculated number of sliding blocks "
            f"{counts[0]} * {counts[1]} = {math.prod(counts)}, but got input.size(2)={length}.")
    c = rows // block
    cols = input.reshape(n, c, kernel[0], kernel[1], counts[0], counts[1]).permute(0, 1, 4, 5, 2, 3)
    padded_shape = (n, c, size[0] + 2 * pads[0], size[1] + 2 * pads[1])
    full = fold_windows(cols, padded_shape, (2, 3), kernel, steps, dilations)
    return full[:, :, pads[0]:pads[0] + size[0], pads[1]:pads[1] + size[1]].contiguous() if any(pads) else full

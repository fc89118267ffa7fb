r"""Pooling: a window view of the input, then one reduction over each window.

``max_pool`` pads with :math:`-\infty` (padding never wins a window), views the windows
(:func:`~minitorch.ops.windows.windows`), and takes the maximum over the window's
elements; its gradient goes to the first maximum of each window. ``avg_pool`` pads with
zeros and divides each window's sum by how many elements it counts. Adaptive average
pooling is two matrix products with averaging matrices.

Output size along a dimension of size :math:`n`:

.. math:: \Big\lfloor \frac{n + 2p - d(k-1) - 1}{s} \Big\rfloor + 1

(with ``ceil_mode`` rounded up, as long as the last window starts inside the input or
its left padding).
"""

from __future__ import annotations

import math
from typing import Optional, Sequence, Union

from ... import creation
from ...backends.base import PoolGeometry
from ...ops.indexing import Gather
from ...ops.pool import MaxPool2d
from ...ops.windows import ConstantPad, windows
from ...pool_dispatch import has_direct_max_pool
from ...shapes import check_storage_size
from ...tensor import Tensor
from ._utils import IntOrTuple, ntuple, shape_list


def _out_size(size: int, kernel: int, stride: int, pad: int, dilation: int, ceil_mode: bool) -> int:
    span = size + 2 * pad - dilation * (kernel - 1) - 1
    out = (-(-span // stride) if ceil_mode else span // stride) + 1
    if ceil_mode and (out - 1) * stride >= size + pad:
        out -= 1
    return out


def _steps(stride: Optional[IntOrTuple], kernel: tuple[int, ...]) -> tuple[int, ...]:
    """The stride per dimension: the kernel's size unless given (``None`` or ``[]``)."""
    if stride is None or (not isinstance(stride, int) and len(stride) == 0):
        return kernel
    return ntuple(stride, len(kernel), "stride")


def _half_toward_zero(value: int) -> int:
    """``value / 2`` rounded toward zero (C's integer division, which PyTorch's checks use)."""
    return -(-value // 2) if value < 0 else value // 2


def _check_max_pool1d_args(input: Tensor, kernel_size: IntOrTuple, stride: Optional[IntOrTuple],  # noqa: A002
                           padding: IntOrTuple, dilation: IntOrTuple, ceil_mode: bool) -> None:
    """PyTorch's own errors for ``max_pool1d`` without indices (a wrong rank is left to
    :func:`_pool_windows`)."""
    if input.dim() not in (2, 3):
        return
    (kernel,) = ntuple(kernel_size, 1, "kernel_size")
    (step,) = _steps(stride, (kernel,))
    (pad,), (dilation,) = ntuple(padding, 1, "padding"), ntuple(dilation, 1, "dilation")
    if kernel <= 0:
        raise RuntimeError(f"max_pool1d() kernel_size must be greater than zero, but got {kernel}")
    if step <= 0:
        raise RuntimeError(f"max_pool1d() stride must be greater than zero, but got {step}")
    if pad < 0:
        raise RuntimeError(f"max_pool1d() padding must be non-negative, but got {pad}")
    if pad > kernel // 2:
        raise RuntimeError(f"max_pool1d() padding should be at most half of kernel size, but got padding={pad} and kernel_size={kernel}")
    if dilation <= 0:
        raise RuntimeError(f"max_pool1d() dilation must be greater than zero, but got {dilation}")
    out = _out_size(input.shape[-1], kernel, step, pad, dilation, ceil_mode)
    if out < 1:
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {out}")


def _check_pool2d_args(kernel: tuple, steps: tuple, pads: tuple, dilations: tuple) -> None:
    """PyTorch's errors for the kernel, stride, padding and dilation of a pooling, in its order.

    PyTorch pools 1-D input as 2-D of height 1 and words the errors that way, so a 1-D
    pooling's parameters come here with a height of kernel 1, stride 1, padding 0, dilation 1.
    """
    for k, step, pad, dilation in zip(kernel, steps, pads, dilations):
        if step == 0:
            raise RuntimeError("stride should not be zero")
        if pad < 0:
            raise RuntimeError(f"pad must be non-negative, but got pad: {pad}")
        if pad > _half_toward_zero((k - 1) * dilation + 1):
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={pad}, kernel_size={k} and dilation={dilation}")
    if len(kernel) != 2:  # a volume: the same rules, worded for any number of dims
        if any(k <= 0 for k in kernel) or any(st <= 0 for st in steps) or any(d <= 0 for d in dilations):
            raise RuntimeError(f"kernel_size, stride and dilation should be greater than zero, but got kernel_size="
                               f"{kernel}, stride={steps} and dilation={dilations}")
        return
    (k_h, k_w), (step_h, step_w), (pad_h, pad_w), (dilation_h, dilation_w) = kernel, steps, pads, dilations
    if k_h <= 0 or k_w <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kH: {k_h} kW: {k_w}")
    if step_h <= 0 or step_w <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got dH: {step_h} dW: {step_w}")
    if dilation_h <= 0 or dilation_w <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilationH: {dilation_h} dilationW: {dilation_w}")
    if k_w // 2 < pad_w or k_h // 2 < pad_h:
        raise RuntimeError(
            f"pad should be smaller than or equal to half of kernel size, but got padW = {pad_w}, padH = {pad_h}, kW = {k_w}, kH = {k_h}"
        )


def _pool_shape(name: str, n: int, input: Tensor, kernel_size: IntOrTuple, stride: Optional[IntOrTuple],  # noqa: A002
                padding: IntOrTuple, dilation: IntOrTuple, ceil_mode: bool) -> tuple[tuple, tuple, tuple, tuple, list]:
    """PyTorch's checks of a pooling's arguments; the kernel, stride, padding and dilation tuples and the output sizes."""
    if input.dim() not in (n + 1, n + 2) or input.numel() == 0:
        raise RuntimeError(f"non-empty {n + 1}D or {n + 2}D (batch mode) tensor expected for input")
    kernel = ntuple(kernel_size, n, "kernel_size")
    steps = _steps(stride, kernel)
    pads = ntuple(padding, n, "padding")
    dilations = ntuple(dilation, n, "dilation")
    sizes = input.shape[-n:]
    height = (1,) * (2 - n)  # a 1-D pooling seen as 2-D: height 1, nothing padded
    _check_pool2d_args(height + kernel, height + steps, (0,) * (2 - n) + pads, height + dilations)
    outs = [_out_size(s, k, st, p, d, ceil_mode) for s, k, st, p, d in zip(sizes, kernel, steps, pads, dilations)]
    if any(o < 1 for o in outs):
        lead = (input.shape[-n - 1],) + height
        raise RuntimeError(
            f"Given input size: ({'x'.join(map(str, lead + tuple(sizes)))}). Calculated output size: "
            f"({'x'.join(map(str, lead + tuple(max(o, 0) for o in outs)))}). Output size is too small"
        )
    return kernel, steps, pads, dilations, outs


def _pool_windows(name: str, n: int, input: Tensor, kernel_size: IntOrTuple, stride: Optional[IntOrTuple],  # noqa: A002
                  padding: IntOrTuple, dilation: IntOrTuple, ceil_mode: bool, fill: float) -> tuple[Tensor, tuple, tuple, tuple, tuple, tuple]:
    """Checks, padding with ``fill`` and the window view ``(N, C, *out, *kernel)`` of ``input``.

    Returns the view, the kernel, stride, padding and dilation tuples, and the extra
    padding after each dimension that ``ceil_mode`` windows reach into.
    """
    kernel, steps, pads, dilations, outs = _pool_shape(name, n, input, kernel_size, stride, padding, dilation, ceil_mode)
    sizes = input.shape[-n:]
    # right padding: the symmetric padding plus whatever a ceil_mode window reaches beyond it
    extra = [max(0, (o - 1) * st + d * (k - 1) + 1 - (s + 2 * p)) for o, st, d, k, s, p in zip(outs, steps, dilations, kernel, sizes, pads)]
    pairs = tuple((p, p + e) for p, e in zip(pads, extra))
    x = input
    if any(b or a for b, a in pairs):
        x = ConstantPad.apply(x, ((0, 0),) * (x.dim() - n) + pairs, fill)
    spatial = tuple(range(x.dim() - n, x.dim()))
    view = windows(x, spatial, kernel, steps, dilations)
    return view, kernel, steps, pads, dilations, tuple(extra)


def _max_pool(name: str, n: int, input: Tensor, kernel_size: IntOrTuple, stride: Optional[IntOrTuple],  # noqa: A002
              padding: IntOrTuple, dilation: IntOrTuple, ceil_mode: bool, return_indices: bool):
    if n == 1 and not return_indices:  # PyTorch checks this case on its own, in its own words
        _check_max_pool1d_args(input, kernel_size, stride, padding, dilation, ceil_mode)
    # BEGIN SOLUTION 5.5
    if n == 2 and has_direct_max_pool(input):
        # the backend's own kernel (the CPU's): one pass per window (see minitorch.ops.pool)
        kernel, steps, pads, dilations, outs = _pool_shape(name, n, input, kernel_size, stride, padding, dilation, ceil_mode)
        values, indices = MaxPool2d.apply(input, PoolGeometry(kernel, steps, pads, dilations, (outs[0], outs[1])))
        return (values, indices) if return_indices else values
    view, kernel, steps, pads, dilations, extra = _pool_windows(name, n, input, kernel_size, stride, padding, dilation, ceil_mode, -math.inf)
    flat = view.reshape(*view.shape[: view.dim() - n], math.prod(kernel))
    values, positions = flat.max(-1)
    # END SOLUTION
    if not return_indices:
        return values
    return values, _flat_input_indices(input, n, positions.unsqueeze(-1), kernel, steps, pads, dilations, extra)


def _flat_input_indices(input: Tensor, n: int, positions: Tensor, kernel: tuple, steps: tuple,  # noqa: A002
                        pads: tuple, dilations: tuple, extra: tuple) -> Tensor:
    """Where each window's maximum sits in the input, as an index into its flattened spatial dims.

    The same window view, taken of a tensor that holds each input position's flat index,
    read at the window positions of the maxima.
    """
    sizes = tuple(input.shape[-n:])
    where_from = creation.arange(math.prod(sizes), device=input.device).view(*sizes)
    where_from = ConstantPad.apply(where_from, tuple((p, p + e) for p, e in zip(pads, extra)), -1)
    view = windows(where_from, tuple(range(n)), kernel, steps, dilations)
    flat = view.reshape(*view.shape[:n], math.prod(kernel))
    flat = flat.expand(*positions.shape[: positions.dim() - n - 1], *flat.shape)
    return Gather.apply(flat, positions.dim() - 1, positions).squeeze(-1)


def max_pool1d(input: Tensor, kernel_size: IntOrTuple, stride: Optional[IntOrTuple] = None, padding: IntOrTuple = 0,  # noqa: A002
               dilation: IntOrTuple = 1, ceil_mode: bool = False, return_indices: bool = False):
    """Maximum over sliding windows of ``(N, C, L)`` or ``(C, L)`` input."""
    return _max_pool("max_pool1d", 1, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def max_pool2d(input: Tensor, kernel_size: IntOrTuple, stride: Optional[IntOrTuple] = None, padding: IntOrTuple = 0,  # noqa: A002
               dilation: IntOrTuple = 1, ceil_mode: bool = False, return_indices: bool = False):
    """Maximum over sliding windows of ``(N, C, H, W)`` or ``(C, H, W)`` input."""
    return _max_pool("max_pool2d", 2, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def max_pool3d(input: Tensor, kernel_size: IntOrTuple, stride: Optional[IntOrTuple] = None, padding: IntOrTuple = 0,  # noqa: A002
               dilation: IntOrTuple = 1, ceil_mode: bool = False, return_indices: bool = False):
    """Maximum over sliding windows of ``(N, C, D, H, W)`` or ``(C, D, H, W)`` input."""
    return _max_pool("max_pool3d", 3, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def _avg_pool(name: str, n: int, input: Tensor, kernel_size: IntOrTuple, stride: Optional[IntOrTuple],  # noqa: A002
              padding: IntOrTuple, ceil_mode: bool, count_include_pad: bool, divisor_override: Optional[int]) -> Tensor:
    if divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    # BEGIN SOLUTION 5.5
    view, kernel, steps, pads, dilations, extra = _pool_windows(name, n, input, kernel_size, stride, padding, 1, ceil_mode, 0.0)
    window_dims = tuple(range(view.dim() - n, view.dim()))
    sums = view.sum(window_dims)
    if divisor_override is not None:
        return sums / divisor_override
    # how many elements each window counts: ones over the input (and its padding if counted),
    # never the extra padding that only ceil_mode windows reach
    counted = creation.ones(*input.shape[-n:], dtype=input.dtype, device=input.device)
    if count_include_pad:
        counted = ConstantPad.apply(counted, tuple((p, p) for p in pads), 1.0)
        counted = ConstantPad.apply(counted, tuple((0, e) for e in extra), 0.0)
    else:
        counted = ConstantPad.apply(counted, tuple((p, p + e) for p, e in zip(pads, extra)), 0.0)
    counts = windows(counted, tuple(range(n)), kernel, steps, dilations)
    return sums / counts.sum(tuple(range(n, 2 * n)))
    # END SOLUTION


def avg_pool1d(input: Tensor, kernel_size: IntOrTuple, stride: Optional[IntOrTuple] = None, padding: IntOrTuple = 0,  # noqa: A002
               ceil_mode: bool = False, count_include_pad: bool = True) -> Tensor:
    """Mean over sliding windows of ``(N, C, L)`` or ``(C, L)`` input."""
    return _avg_pool("avg_pool1d", 1, input, kernel_size, stride, padding, ceil_mode, count_include_pad, None)


def avg_pool2d(input: Tensor, kernel_size: IntOrTuple, stride: Optional[IntOrTuple] = None, padding: IntOrTuple = 0,  # noqa: A002
               ceil_mode: bool = False, count_include_pad: bool = True, divisor_override: Optional[int] = None) -> Tensor:
    """Mean over sliding windows of ``(N, C, H, W)`` or ``(C, H, W)`` input."""
    return _avg_pool("avg_pool2d", 2, input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)


def avg_pool3d(input: Tensor, kernel_size: IntOrTuple, stride: Optional[IntOrTuple] = None, padding: IntOrTuple = 0,  # noqa: A002
               ceil_mode: bool = False, count_include_pad: bool = True, divisor_override: Optional[int] = None) -> Tensor:
    """Mean over sliding windows of ``(N, C, D, H, W)`` or ``(C, D, H, W)`` input."""
    return _avg_pool("avg_pool3d", 3, input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)


def _averaging_matrix(size: int, out_size: int, like: Tensor) -> Tensor:
    r"""``(out_size, size)``: row :math:`i` averages input positions
    :math:`\lfloor i n / m \rfloor \le j < \lceil (i+1) n / m \rceil`."""
    rows = []
    for i in range(out_size):
        start, stop = (i * size) // out_size, -(-((i + 1) * size) // out_size)
        rows.append([1.0 / (stop - start) if start <= j < stop else 0.0 for j in range(size)])
    return creation.tensor(rows, dtype=like.dtype, device=like.device).view(out_size, size)


def _check_output_sizes(input: Tensor, sizes: Sequence[int]) -> None:  # noqa: A002
    """PyTorch's errors for adaptive average pooling of ``input`` to ``sizes``: an empty spatial
    dimension, a negative size, a result too large to count (1-D pooling words them as 2-D)."""
    shape = tuple(input.shape[:-1]) + (1, input.shape[-1]) if len(sizes) == 1 else tuple(input.shape)
    for d in range(len(shape) - 2, len(shape)):
        if shape[d] == 0:
            raise RuntimeError(f"adaptive_avg_pool2d(): Expected input to have non-zero size for non-batch dimensions, "
                               f"but input has sizes {shape_list(shape)} with dimension {d} being empty")
    if any(s < 0 for s in sizes):
        shown = (1, *sizes) if len(sizes) == 1 else tuple(sizes)
        raise RuntimeError(
            f"adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but received "
            f"{{{', '.join(map(str, shown))}}}"
        )
    check_storage_size(shape[:-len(sizes)] + tuple(sizes), input.dtype.itemsize)


def adaptive_avg_pool1d(input: Tensor, output_size: IntOrTuple) -> Tensor:  # noqa: A002
    """Average pooling of ``(N, C, L)`` or ``(C, L)`` input to exactly ``output_size`` positions."""
    if input.dim() not in (2, 3):
        raise RuntimeError(f"adaptive_avg_pool1d(): Expected 2D or 3D tensor, but got {shape_list(input.shape)}")
    (out_l,) = ntuple(output_size, 1, "output_size")
    _check_output_sizes(input, (out_l,))
    return input @ _averaging_matrix(input.shape[-1], out_l, input).t()


def adaptive_avg_pool2d(input: Tensor, output_size: Union[int, None, Sequence[Optional[int]]]) -> Tensor:  # noqa: A002
    """Average pooling of ``(N, C, H, W)`` or ``(C, H, W)`` input to exactly ``output_size`` (``None``: keep)."""
    if input.dim() not in (3, 4):
        raise RuntimeError(f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got {shape_list(input.shape)}")
    sizes = (output_size, output_size) if output_size is None or isinstance(output_size, int) else tuple(output_size)
    height, width = input.shape[-2:]
    out_h = height if sizes[0] is None else sizes[0]
    out_w = width if sizes[1] is None else sizes[1]
    _check_output_sizes(input, (out_h, out_w))
    # BEGIN SOLUTION 5.5
    rows = _averaging_matrix(height, out_h, input)
    cols = _averaging_matrix(width, out_w, input)
    return rows @ input @ cols.t()
    # END SOLUTION

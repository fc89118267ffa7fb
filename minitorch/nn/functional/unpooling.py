r"""Max unpooling: the partial inverse of max pooling with ``return_indices=True``.

Each input value goes back to the place its pooling index names (an index into the flattened
spatial dimensions of the output); every other place is zero. The output's spatial size is
:math:`(n - 1)\,s + k - 2p` per dimension unless ``output_size`` picks one within a stride of it.
The gradient reads the output's gradient at the same indices.
"""

from __future__ import annotations

import math
from typing import Optional, Sequence

from ... import creation, dtypes
from ...autograd.composite import composite
from ...tensor import Tensor
from ._utils import IntOrTuple, ntuple, shape_list

#: the input dtypes PyTorch's unpooling kernels compute in
UNPOOL_DTYPES = (dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64)
#: PyTorch's ATen op (its name in errors) and node per number of spatial dimensions; 1-D runs as 2-D
ATEN_OPS = {2: ("max_unpool2d", "max_unpooling2d", "MaxUnpool2DBackward0"),
            3: ("max_unpool3d", "max_unpooling3d", "MaxUnpool3DBackward0")}


def _unpool_output_size(input: Tensor, kernel: tuple[int, ...], stride: tuple[int, ...],  # noqa: A002
                        padding: tuple[int, ...], output_size: Optional[Sequence[int]]) -> list[int]:
    """The spatial size of the output: the default one, or ``output_size`` checked against it."""
    n = len(kernel)
    default = [(input.shape[input.dim() - n + d] - 1) * stride[d] + kernel[d] - 2 * padding[d] for d in range(n)]
    if output_size is None:
        chosen = default
    else:
        if len(output_size) == n + 2:
            output_size = output_size[2:]
        sizes = list(output_size)
        if len(sizes) != n:
            raise ValueError(f"output_size should be a sequence containing {n} or {n + 2} elements, but it has a "
                             f"length of '{len(sizes)}'")
        for d in range(n):
            low, high = default[d] - stride[d], default[d] + stride[d]
            if not low < sizes[d] < high:
                raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be between {low} and {high})')
        chosen = [int(s) for s in sizes]
    for d, size in enumerate(chosen):
        if size < 0:
            raise ValueError("max_unpooling: output_size must contain non-negative spatial dimensions, but got "
                             f"output_size[{d}]={size}")
    return chosen


def _max_unpool(n: int, input: Tensor, indices: Tensor, output_size: list[int],  # noqa: A002
                stride: tuple[int, ...]) -> Tensor:
    """PyTorch's ``max_unpool2d``/``max_unpool3d`` op (``n`` = 2 or 3) with its checks."""
    op, check_name, node = ATEN_OPS[n]
    if indices.dtype is not dtypes.int64:
        raise RuntimeError(f"elements in indices should be type int64 but got: {dtypes.scalar_type_name(indices.dtype)}")
    if input.dim() not in (n + 1, n + 2):
        raise RuntimeError(f"Input to {check_name} should be a {n + 1}d or {n + 2}d Tensor, but got a tensor with "
                           f"{input.dim()} dimensions.")
    if tuple(input.shape) != tuple(indices.shape):
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor "
                           f"({shape_list(input.shape)}) but got indices tensor with shape: {shape_list(indices.shape)}")
    for d in range(1, input.dim()):
        if input.shape[d] == 0:
            raise RuntimeError(f"{check_name}_forward_out_cpu(): Expected input to have non-zero size for non-batch "
                               f"dimensions, but got {shape_list(input.shape)} with dimension {d} being empty.")
    if n == 3 and min(stride) <= 0:
        raise RuntimeError(f"strides should be greater than zero, but got stride: {list(stride)}")
    if input.dtype not in UNPOOL_DTYPES:
        raise NotImplementedError(f"\"{op}\" not implemented for '{dtypes.scalar_type_name(input.dtype)}'")
    _check_indices(indices, output_size)
    return composite(node, lambda x: _scatter_back(x, indices, output_size), input, saves=(indices,))


def _check_indices(indices: Tensor, output_size: list[int]) -> None:
    """PyTorch's error for an index outside the output's spatial volume: the last such index, as its
    kernel reports it on one thread (on several, whichever thread wrote last)."""
    volume = math.prod(output_size)
    bad = (indices < 0).logical_or(indices >= volume)
    if indices.numel() and bool(bad.any().item()):
        last = int(indices.flatten()[bad.flatten().nonzero()[-1, 0]].item())
        raise RuntimeError(f"Found an invalid max index: {last} (output volumes are of size "
                           f"{'x'.join(str(s) for s in output_size)})")


def _scatter_back(input: Tensor, indices: Tensor, output_size: list[int]) -> Tensor:  # noqa: A002
    spatial = len(output_size)
    lead = tuple(input.shape[: input.dim() - spatial])
    flat = creation.zeros(*lead, math.prod(output_size), dtype=input.dtype, device=input.device)
    pooled = math.prod(input.shape[input.dim() - spatial:])
    flat = flat.scatter(-1, indices.reshape(*lead, pooled), input.reshape(*lead, pooled))
    return flat.view(*lead, *output_size)


def _spatial_args(n: int, kernel_size: IntOrTuple, stride: Optional[IntOrTuple],
                  padding: IntOrTuple) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    kernel = ntuple(kernel_size, n, "kernel_size")
    steps = kernel if stride is None else ntuple(stride, n, "stride")
    return kernel, steps, ntuple(padding, n, "padding")


def max_unpool1d(input: Tensor, indices: Tensor, kernel_size: IntOrTuple,  # noqa: A002 - PyTorch's name
                 stride: Optional[IntOrTuple] = None, padding: IntOrTuple = 0,
                 output_size: Optional[Sequence[int]] = None) -> Tensor:
    """Partial inverse of ``max_pool1d``: ``(N, C, L)`` or ``(C, L)`` values back at their indices."""
    kernel, steps, pads = _spatial_args(1, kernel_size, stride, padding)
    size = _unpool_output_size(input, kernel, steps, pads, output_size)
    return _max_unpool(2, input.unsqueeze(-1), indices.unsqueeze(-1), size + [1], steps + (1,)).squeeze(-1)


def max_unpool2d(input: Tensor, indices: Tensor, kernel_size: IntOrTuple,  # noqa: A002
                 stride: Optional[IntOrTuple] = None, padding: IntOrTuple = 0,
                 output_size: Optional[Sequence[int]] = None) -> Tensor:
    """Partial inverse of ``max_pool2d``: ``(N, C, H, W)`` or ``(C, H, W)`` values back at their indices."""
    kernel, steps, pads = _spatial_args(2, kernel_size, stride, padding)
    size = _unpool_output_size(input, kernel, steps, pads, output_size)
    return _max_unpool(2, input, indices, size, steps)


def max_unpool3d(input: Tensor, indices: Tensor, kernel_size: IntOrTuple,  # noqa: A002
                 stride: Optional[IntOrTuple] = None, padding: IntOrTuple = 0,
                 output_size: Optional[Sequence[int]] = None) -> Tensor:
    """Partial inverse of ``max_pool3d``: ``(N, C, D, H, W)`` or ``(C, D, H, W)`` values back at their indices."""
    kernel, steps, pads = _spatial_args(3, kernel_size, stride, padding)
    size = _unpool_output_size(input, kernel, steps, pads, output_size)
    return _max_unpool(3, input, indices, size, steps)


__all__ = ["max_unpool1d", "max_unpool2d", "max_unpool3d"]

"""Raw direct max-pooling: check the shapes, allocate the results, run the backend's :class:`~.backends.base.PoolKernels`.

The dispatch layer of :mod:`minitorch.ops.pool` (no graph recorded). The kernel indexes
without bounds checks, so the geometry is checked here, whoever calls;
:func:`minitorch.nn.functional.max_pool2d` has raised PyTorch's errors for a user's
mistakes before.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from . import dtypes
from .backends.base import PoolGeometry, PoolKernels, offers
from .conv_dispatch import DIRECT_DTYPES
from .dispatch import _result, backend_of

if TYPE_CHECKING:
    from .tensor import Tensor


def has_direct_max_pool(x: "Tensor") -> bool:
    """Whether :func:`max_pool2d_op` runs for ``x``: its device's backend pools directly, and it is float32 or float64."""
    return x._data.dtype in DIRECT_DTYPES and offers(backend_of(x), PoolKernels)


def _window_reaches_input(size: int, kernel: int, stride: int, pad: int, dilation: int, out: int) -> bool:
    """Whether the first and the last window along a dimension each hold an input position."""
    for start in (-pad, (out - 1) * stride - pad):
        if not any(0 <= start + k * dilation < size for k in range(kernel)):
            return False
    return True


def check_pool_geometry(shape: tuple[int, ...], geometry: PoolGeometry) -> None:
    """ValueError unless ``geometry`` pools the last two dimensions of ``shape`` with every window inside."""
    if not isinstance(geometry, PoolGeometry):
        raise ValueError(f"max_pool2d kernel takes a PoolGeometry, got {geometry!r}")
    if len(shape) < 2 or min(shape[-2:]) < 1:
        raise ValueError(f"max_pool2d kernel pools non-empty planes, got a tensor of shape {list(shape)}")
    fields = (geometry.kernel, geometry.stride, geometry.padding, geometry.dilation, geometry.output)
    if (min(geometry.kernel + geometry.stride + geometry.dilation + geometry.output) < 1 or min(geometry.padding) < 0
            or not all(_window_reaches_input(*args) for args in zip(shape[-2:], *fields))):
        raise ValueError(f"max_pool2d kernel: {geometry} leaves a window outside the input of shape {list(shape)}")


def max_pool2d_op(x: "Tensor", geometry: PoolGeometry) -> tuple["Tensor", "Tensor"]:
    """Each window's max of ``x`` ``(..., H, W)`` and its place ``row * W + column`` (int64)."""
    if x._data.dtype not in DIRECT_DTYPES:
        raise ValueError(f"max_pool2d kernel takes float32 or float64, got {x._data.dtype}")
    check_pool_geometry(x._data.shape, geometry)
    shape = x._data.shape[:-2] + geometry.output
    values, indices = _result(shape, x._data.dtype, x._device), _result(shape, dtypes.int64, x._device)
    if values._data.size:
        backend = backend_of(x)
        if not offers(backend, PoolKernels):
            raise ValueError(f"the {backend.name} backend has no direct max-pooling kernel")
        cast(PoolKernels, backend).max_pool2d(x._data, geometry, values._data, indices._data)
    return values, indices


def max_pool2d_backward_op(grad: "Tensor", indices: "Tensor", input_shape: tuple[int, ...]) -> "Tensor":
    """The gradient of :func:`max_pool2d_op`'s input ``(..., H, W)``: each window's gradient added at
    the place ``indices`` holds for it. ValueError for operands of other shapes, dtypes or devices;
    IndexError for a place outside its plane (the indices of a forward, altered since)."""
    data, index_data = grad._data, indices._data
    if (data.dtype not in DIRECT_DTYPES or index_data.dtype is not dtypes.int64 or data.shape != index_data.shape
            or len(input_shape) < 2 or data.shape[:-2] != tuple(input_shape[:-2]) or indices._device != grad._device):
        raise ValueError(f"max_pool2d backward kernel takes a float32 or float64 gradient and int64 indices of one "
                         f"pooled shape on one device, for an input of shape {list(input_shape)}; got "
                         f"{list(grad.shape)} {grad.dtype} {grad.device} and {list(indices.shape)} {indices.dtype} "
                         f"{indices.device}")
    grad_x = _result(tuple(input_shape), data.dtype, grad._device)
    if grad_x._data.size:
        backend = backend_of(grad)
        if not offers(backend, PoolKernels):
            raise ValueError(f"the {backend.name} backend has no direct max-pooling kernel")
        outside = cast(PoolKernels, backend).max_pool2d_backward(data, index_data, grad_x._data)
        if outside:
            raise IndexError(f"max_pool2d backward: {outside} of the saved indices lie outside their input plane of "
                             f"{input_shape[-2]} x {input_shape[-1]}")
    return grad_x

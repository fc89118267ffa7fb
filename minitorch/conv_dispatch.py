"""Raw direct convolution: check the shapes, allocate the result, run the backend's :class:`~.backends.base.ConvKernels`.

The dispatch layer of :mod:`minitorch.ops.conv` (no graph recorded), as :mod:`.dispatch` is
for the other ops. A 1-D convolution comes as 3-D tensors and runs as a 2-D one of height 1.

The kernels index without bounds checks, so every shape is checked here, whoever calls;
:func:`minitorch.nn.functional.conv2d` has raised PyTorch's errors for a user's mistakes
before.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional, Sequence, cast

from . import dtypes
from .backends.base import ConvGeometry, ConvKernels, offers
from .dispatch import _result, backend_of, check_same_device
from .tensor_data import TensorData

if TYPE_CHECKING:
    from .tensor import Tensor

#: the dtypes the direct kernels compute in
DIRECT_DTYPES = (dtypes.float32, dtypes.float64)


def has_direct_conv(x: "Tensor", weight: "Tensor", bias: Optional["Tensor"], geometry: ConvGeometry) -> bool:
    """Whether :func:`conv2d_op` is the way to compute this convolution: the operands' backend
    convolves directly and expects to be faster at these shapes (``conv2d_pays``), and they are
    all float32 or all float64, on one device."""
    operands = (x, weight) if bias is None else (x, weight, bias)
    return _direct_pays(operands, _planes(x._data).shape, _planes(weight._data).shape, geometry)


def has_direct_conv_transpose(x: "Tensor", weight: "Tensor", bias: Optional["Tensor"], geometry: ConvGeometry,
                              output_shape: Sequence[int]) -> bool:
    """Whether :func:`conv2d_input_grad_op` is the way to compute the transposed convolution of
    ``x`` by ``weight`` into ``output_shape``: :func:`has_direct_conv`'s test for the convolution of
    an ``output_shape`` input whose input gradient it is, the backend weighing its kernels against
    the transposed convolution's own matrix product and fold (``conv2d_pays(..., transposed=True)``)."""
    operands = (x, weight) if bias is None else (x, weight, bias)
    return _direct_pays(operands, _plane_shape(tuple(output_shape)), _planes(weight._data).shape, geometry, True)


def _direct_pays(operands: Sequence["Tensor"], x_shape: tuple[int, ...], w_shape: tuple[int, ...],
                 geometry: ConvGeometry, transposed: bool = False) -> bool:
    """Whether ``operands`` (float32 or float64, one device) are convolved directly by their
    backend, which expects to be faster for a convolution (``transposed``: the transposed
    convolution whose output is ``x_shape``) of ``x_shape`` by ``w_shape``."""
    if not (_one_direct_dtype(operands) and all(t._device == operands[0]._device for t in operands)):
        return False
    backend = backend_of(operands[0])
    if not offers(backend, ConvKernels):
        return False
    return (len(x_shape) == len(w_shape) == 4
            and cast(ConvKernels, backend).conv2d_pays(x_shape, w_shape, geometry, transposed=transposed))


def _one_direct_dtype(operands: Sequence["Tensor"]) -> bool:
    """Whether ``operands`` are all float32 or all float64."""
    dtype = operands[0]._data.dtype
    return dtype in DIRECT_DTYPES and all(t._data.dtype is dtype for t in operands)


def _kernels_of(t: "Tensor") -> ConvKernels:
    """``t``'s backend as the direct convolution it offers; ValueError if it offers none."""
    backend = backend_of(t)
    if not offers(backend, ConvKernels):
        raise ValueError(f"the {backend.name} backend has no direct convolution kernels")
    return cast(ConvKernels, backend)


def _planes(data: TensorData) -> TensorData:
    """A 3-D ``(N, C, L)`` view as ``(N, C, 1, L)``; any other as it is."""
    if data.dims != 3:
        return data
    n, c, length = data.shape
    s_n, s_c, s_l = data.strides
    return TensorData(data.storage, (n, c, 1, length), (s_n, s_c, length * s_l, s_l), data.offset)


def _plane_shape(shape: tuple[int, ...]) -> tuple[int, ...]:
    """A 3-D shape ``(N, C, L)`` as ``(N, C, 1, L)``; any other as it is (:func:`_planes` for a shape)."""
    return shape[:2] + (1,) + shape[2:] if len(shape) == 3 else shape


def check_conv_shapes(x_shape: Sequence[int], w_shape: Sequence[int], geometry: ConvGeometry) -> tuple[int, ...]:
    """The output shape of a 2-D convolution (as 4-D shapes); ValueError for any shape the kernels cannot take."""
    if len(x_shape) != 4 or len(w_shape) != 4:
        raise ValueError(f"conv2d kernels take 4-d input and weight, got {list(x_shape)} and {list(w_shape)}")
    batch, channels, height, width = x_shape
    out_channels, group_channels, kernel_h, kernel_w = w_shape
    groups = geometry.groups
    pairs = [p for pair in geometry.padding for p in pair]
    if (groups < 1 or out_channels % groups or group_channels * groups != channels
            or min(geometry.stride + geometry.dilation) < 1 or min(pairs) < 0 or min(w_shape[1:]) < 1):
        raise ValueError(f"conv2d kernels: input {list(x_shape)}, weight {list(w_shape)} and {geometry} do not fit")
    out_h, out_w = geometry.output_size(height, width, kernel_h, kernel_w)
    if out_h < 1 or out_w < 1:
        raise ValueError(f"conv2d kernels: kernel {[kernel_h, kernel_w]} with {geometry} leaves no output of "
                         f"input {list(x_shape)}")
    return batch, out_channels, out_h, out_w


def _check_operands(geometry: ConvGeometry, *operands: "Tensor") -> None:
    check_same_device(*operands)
    if not _one_direct_dtype(operands):
        raise ValueError(f"conv2d kernels take float32 or float64 operands of one dtype, got "
                         f"{[str(t._data.dtype) for t in operands]}")
    if not isinstance(geometry, ConvGeometry):
        raise ValueError(f"conv2d kernels take a ConvGeometry, got {geometry!r}")


def _fresh(shape: Sequence[int], like: "Tensor", rank: int) -> "Tensor":
    """A new tensor of ``shape`` (4-d), made ``rank``-d (a 1-D convolution drops the height)."""
    full = tuple(shape)
    return _result(full if rank == 4 else full[:2] + full[3:], like._data.dtype, like._device)


def conv2d_op(x: "Tensor", weight: "Tensor", bias: Optional["Tensor"], geometry: ConvGeometry) -> "Tensor":
    """``conv2d(x, weight) + bias`` by the backend's kernels; ``x`` ``(N, C, [H,] W)``, ``weight`` of the same rank."""
    _check_operands(geometry, x, weight, *(() if bias is None else (bias,)))
    x_data, w_data = _planes(x._data), _planes(weight._data)
    out_shape = check_conv_shapes(x_data.shape, w_data.shape, geometry)
    if bias is not None and bias._data.shape != (out_shape[1],):
        raise ValueError(f"conv2d kernels: bias of shape {list(bias.shape)} for {out_shape[1]} output channels")
    out = _fresh(out_shape, x, x.dim())
    if out._data.size:
        _kernels_of(x).conv2d(x_data, w_data, None if bias is None else bias._data, geometry, _planes(out._data))
    return out


def _gradient_op(grad: "Tensor", operand: "Tensor", geometry: ConvGeometry, result_shape: Sequence[int],
                 of_input: bool) -> "Tensor":
    """The input's gradient (``of_input``; ``operand`` is the weight) or the weight's (``operand`` is the input)."""
    _check_operands(geometry, grad, operand)
    shape = tuple(result_shape[:2]) + ((1,) if len(result_shape) == 3 else ()) + tuple(result_shape[2:])
    operand_data, grad_data = _planes(operand._data), _planes(grad._data)
    expected = check_conv_shapes(*((shape, operand_data.shape) if of_input else (operand_data.shape, shape)), geometry)
    if grad_data.shape != expected:
        raise ValueError(f"conv2d kernels: gradient of shape {list(grad.shape)} for an output of {list(expected)}")
    out = _fresh(shape, grad, len(result_shape))
    if out._data.size:
        kernels = _kernels_of(grad)
        compute = kernels.conv2d_input_grad if of_input else kernels.conv2d_weight_grad
        compute(grad_data, operand_data, geometry, _planes(out._data))  # an empty batch: a zero weight gradient
    return out


def conv2d_input_grad_op(grad: "Tensor", weight: "Tensor", geometry: ConvGeometry, input_shape: Sequence[int]) -> "Tensor":
    r"""The gradient of :math:`\langle g, \mathrm{conv2d}(x, w)\rangle` with respect to ``x`` (of ``input_shape``)."""
    return _gradient_op(grad, weight, geometry, input_shape, of_input=True)


def conv2d_weight_grad_op(grad: "Tensor", x: "Tensor", geometry: ConvGeometry, weight_shape: Sequence[int]) -> "Tensor":
    r"""The gradient of :math:`\langle g, \mathrm{conv2d}(x, w)\rangle` with respect to ``w`` (of ``weight_shape``)."""
    return _gradient_op(grad, x, geometry, weight_shape, of_input=False)

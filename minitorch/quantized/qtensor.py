"""Quantized tensors: small integers that stand for real numbers.

A quantized tensor holds integers :math:`q` of a quantized type (``qint8``: -128..127,
``quint8``: 0..255, ``qint32``) and the parameters that map them back:

.. math::
    x \\approx \\hat x = s\\,(q - z), \\qquad
    q = \\operatorname{clamp}\\bigl(\\operatorname{round}(x / s) + z,\\ q_{\\min},\\ q_{\\max}\\bigr)

with a positive scale :math:`s` and an integer zero point :math:`z`, one pair for the whole
tensor (``per_tensor_affine``) or one per index along ``axis`` (``per_channel_affine``).
Rounding is to the nearest integer, ties to even. Values between :math:`s(q_{\\min}-z)` and
:math:`s(q_{\\max}-z)` come back within :math:`s/2`; the rest are clamped.

As in PyTorch, ``round(x / s) + z`` is computed the way its CPU kernels do: in float32 as
one fused multiply-add ``x * (1/s) + z``, so that ``int_repr()`` agrees with PyTorch's bit
for bit. A quantized tensor is for storing and for the few kernels made for it (the dynamic
int8 ``Linear``); for anything else, ``dequantize()`` it first.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence, Union

import numpy as np

from .. import dtypes
from ..creation import from_numpy
from ..device import CPU
from ..size import Size
from ..tensor import Tensor
from ..tensor_repr import PREFIX, _with_suffixes, values_str
from .qscheme import per_channel_affine, per_tensor_affine, qscheme

ScaleArg = Union[float, Tensor]
ZeroPointArg = Union[int, Tensor]

#: the integers each quantized type holds
QUANTIZED_RANGES = {
    dtypes.qint8: (-(1 << 7), (1 << 7) - 1),
    dtypes.quint8: (0, (1 << 8) - 1),
    dtypes.qint32: (-(1 << 31), (1 << 31) - 1),
}


def _checked_dtype(dtype: Any, where: str) -> dtypes.dtype:
    if dtype not in dtypes.QUANTIZED_DTYPES:
        names = ", ".join(str(d) for d in dtypes.QUANTIZED_DTYPES)
        raise RuntimeError(f"{where}: dtype must be a quantized type ({names}), got {dtype}")
    return dtype


def _checked_input(input: Tensor, where: str) -> np.ndarray:
    if not isinstance(input, Tensor):
        raise TypeError(f"{where}: expected a Tensor to quantize, got {type(input).__name__}")
    if input.dtype is not dtypes.float32:
        raise RuntimeError(f"{where}: quantization works on float32 tensors, got {input.dtype}; convert it with .float()")
    return input.detach().cpu().numpy()


def _checked_scales(scales: np.ndarray, where: str) -> None:
    bad = ~(np.isfinite(scales) & (scales > 0))
    if bad.any():
        raise RuntimeError(f"{where}: a scale must be positive and finite, got {float(scales[bad][0])!r}")
    with np.errstate(over="ignore", divide="ignore"):
        tiny = np.float32(1) / scales.astype(np.float32)
    if not np.isfinite(tiny).all():
        raise RuntimeError(f"{where}: scale {float(scales[~np.isfinite(tiny)][0])!r} is too small: 1/scale overflows float32")


def _checked_zero_points(zero_points: np.ndarray, dtype: dtypes.dtype, where: str) -> None:
    low, high = QUANTIZED_RANGES[dtype]
    for z in zero_points.reshape(-1):
        if not low <= z <= high:
            raise RuntimeError(f"{where}: zero_point {int(z)} is outside {dtype}'s range [{low}, {high}]")


def quantize_values(values: np.ndarray, scale: np.ndarray, zero_point: np.ndarray, dtype: dtypes.dtype) -> np.ndarray:
    """``clamp(round(values / scale) + zero_point)`` as ``dtype``'s integers.

    ``scale`` and ``zero_point`` broadcast against ``values`` (scalars, or per-channel
    columns). The product ``values * (1/scale)`` of two float32 numbers is exact in float64,
    so adding the zero point there and rounding once to float32 is PyTorch's fused
    multiply-add (for qint8 and quint8; its qint32 kernel rounds twice).
    """
    inverse = np.float32(1) / scale.astype(np.float32)
    if dtype is dtypes.qint32:
        # PyTorch's qint32 kernel rounds the product to float32 before adding the zero point
        fused = (values * inverse).astype(np.float32) + zero_point.astype(np.float32)
    else:
        fused = (values.astype(np.float64) * inverse.astype(np.float64) + zero_point).astype(np.float32)
    low, high = QUANTIZED_RANGES[dtype]
    with np.errstate(invalid="ignore"):
        return np.clip(np.rint(fused.astype(np.float64)), low, high).astype(dtype.numpy)


class QuantizedTensor:
    """Integers of a quantized type with their scale(s) and zero point(s), as PyTorch's
    quantized tensors (``x.is_quantized``). Make one with :func:`quantize_per_tensor` or
    :func:`quantize_per_channel`; ``dequantize()`` gives back a float32 tensor."""

    is_quantized = True
    requires_grad = False
    grad = None
    grad_fn = None
    is_leaf = True

    def __init__(self, integers: np.ndarray, dtype: dtypes.dtype, scheme: qscheme, scales: np.ndarray,
                 zero_points: np.ndarray, axis: Optional[int] = None) -> None:
        """Internal: the quantize functions check the arguments and build the tensor."""
        self._integers = np.asarray(integers)  # (a 0-d result of NumPy arithmetic is a scalar)
        self._dtype = dtype
        self._qscheme = scheme
        self._scales = scales.astype(np.float64)
        self._zero_points = zero_points.astype(np.int64)
        self._axis = axis

    # ---- what it is ----

    @property
    def dtype(self) -> dtypes.dtype:
        return self._dtype

    @property
    def device(self) -> Any:
        return CPU

    @property
    def shape(self) -> Size:
        return Size(self._integers.shape)

    def size(self, dim: Optional[int] = None) -> Union[Size, int]:
        return self.shape if dim is None else self.shape[dim]

    def dim(self) -> int:
        return self._integers.ndim

    @property
    def ndim(self) -> int:
        return self._integers.ndim

    def numel(self) -> int:
        return int(self._integers.size)

    def element_size(self) -> int:
        return self._dtype.itemsize

    @property
    def nbytes(self) -> int:
        """Bytes of the integers (the scales and zero points not counted)."""
        return self.numel() * self._dtype.itemsize

    def __len__(self) -> int:
        if self.dim() == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._integers.shape[0]

    def qscheme(self) -> qscheme:
        return self._qscheme

    # ---- its parameters ----

    def q_scale(self) -> float:
        """The scale of a per-tensor quantized tensor."""
        self._require_per_tensor("q_scale")
        return float(self._scales)

    def q_zero_point(self) -> int:
        """The zero point of a per-tensor quantized tensor."""
        self._require_per_tensor("q_zero_point")
        return int(self._zero_points)

    def q_per_channel_scales(self) -> Tensor:
        """The scales of a per-channel quantized tensor (float64)."""
        self._require_per_channel("q_per_channel_scales")
        return from_numpy(self._scales.copy())

    def q_per_channel_zero_points(self) -> Tensor:
        """The zero points of a per-channel quantized tensor (int64)."""
        self._require_per_channel("q_per_channel_zero_points")
        return from_numpy(self._zero_points.copy())

    def q_per_channel_axis(self) -> int:
        self._require_per_channel("q_per_channel_axis")
        return int(self._axis)  # type: ignore[arg-type]

    def _require_per_tensor(self, method: str) -> None:
        if self._qscheme.per_channel:
            raise RuntimeError(f"{method}() is for per-tensor quantized tensors; this one is {self._qscheme.name} "
                               f"(use q_per_channel_scales(), q_per_channel_zero_points())")

    def _require_per_channel(self, method: str) -> None:
        if not self._qscheme.per_channel:
            raise RuntimeError(f"{method}() is for per-channel quantized tensors; this one is {self._qscheme.name} "
                               f"(use q_scale(), q_zero_point())")

    def _broadcast_params(self) -> tuple[np.ndarray, np.ndarray]:
        """Scales and zero points shaped to broadcast against the integers."""
        if not self._qscheme.per_channel:
            return self._scales, self._zero_points
        shape = [1] * self.dim()
        shape[self._axis] = -1  # type: ignore[index]
        return self._scales.reshape(shape), self._zero_points.reshape(shape)

    # ---- back to numbers ----

    def int_repr(self) -> Tensor:
        """The stored integers, as an int8, uint8 or int32 tensor (a copy)."""
        return from_numpy(self._integers.copy())

    def dequantize(self) -> Tensor:
        """:math:`s\\,(q - z)` as a float32 tensor, rounded as PyTorch rounds it: per tensor in
        float32 (``float(s) * float(q - z)``), per channel in float64, then to float32."""
        scales, zero_points = self._broadcast_params()
        shifted = self._integers.astype(np.int64) - zero_points
        if self._qscheme.per_channel:
            values = (shifted * scales).astype(np.float32)
        else:
            values = scales.astype(np.float32) * shifted.astype(np.float32)
        return from_numpy(np.array(values, dtype=np.float32, order="C"))  # (ascontiguousarray makes 0-d 1-d)

    # ---- copies and views ----

    def _with_integers(self, integers: np.ndarray) -> "QuantizedTensor":
        return QuantizedTensor(integers, self._dtype, self._qscheme, self._scales, self._zero_points, self._axis)

    def clone(self) -> "QuantizedTensor":
        return self._with_integers(self._integers.copy())

    def detach(self) -> "QuantizedTensor":
        return self

    def cpu(self) -> "QuantizedTensor":
        return self

    def __getitem__(self, index: Any) -> "QuantizedTensor":
        if self._qscheme.per_channel:
            raise NotImplementedError("indexing a per-channel quantized tensor: dequantize() it first")
        if isinstance(index, Tensor):
            raise NotImplementedError("indexing a quantized tensor with a tensor: dequantize() it first")
        return self._with_integers(np.array(self._integers[index], order="C"))

    def __repr__(self) -> str:
        values = self.dequantize().numpy()
        indent = len(PREFIX)
        body = values_str(values, dtypes.float32, indent) if values.size else "[]"
        shape = "(" + ", ".join(str(s) for s in self.shape) + ("," if self.dim() == 1 else "") + ")"
        suffixes = [f"size={shape}", f"dtype={self._dtype}", f"quantization_scheme={self._qscheme}"]
        if self._qscheme.per_channel:
            suffixes += [f"scale={from_numpy(self._scales.copy())!r}",
                         f"zero_point={from_numpy(self._zero_points.copy())!r}", f"axis={self._axis}"]
        else:
            suffixes += [f"scale={float(self._scales)!r}", f"zero_point={int(self._zero_points)}"]
        return _with_suffixes(PREFIX + body, suffixes, indent)

    # ---- everything else: dequantize first ----

    def _unsupported(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(
            f"arithmetic on a quantized tensor ({self._dtype}) is not supported: call .dequantize() for a float32 tensor"
        )

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _unsupported
    __truediv__ = __rtruediv__ = __matmul__ = __rmatmul__ = __neg__ = __pow__ = _unsupported

    def numpy(self) -> np.ndarray:
        raise TypeError("can't convert a quantized tensor to NumPy: use int_repr().numpy() or dequantize().numpy()")


def _scale_value(scale: ScaleArg, where: str) -> float:
    if isinstance(scale, Tensor):
        if scale.numel() != 1:
            raise RuntimeError(f"{where}: scale must be one number, got a tensor of shape {tuple(scale.shape)}")
        scale = scale.item()
    if isinstance(scale, bool) or not isinstance(scale, (int, float, np.floating, np.integer)):
        raise TypeError(f"{where}: scale must be a float, got {type(scale).__name__}")
    return float(scale)


def _zero_point_value(zero_point: ZeroPointArg, where: str) -> int:
    if isinstance(zero_point, Tensor):
        if zero_point.numel() != 1 or zero_point.dtype.is_floating_point:
            raise RuntimeError(f"{where}: zero_point must be one integer, got {zero_point!r}")
        zero_point = zero_point.item()
    if isinstance(zero_point, bool) or not isinstance(zero_point, (int, np.integer)):
        raise TypeError(f"{where}: zero_point must be an int, got {type(zero_point).__name__}")
    return int(zero_point)


def quantize_per_tensor(input: Union[Tensor, Sequence[Tensor]], scale: ScaleArg, zero_point: ZeroPointArg,
                        dtype: dtypes.dtype) -> Union[QuantizedTensor, list[QuantizedTensor]]:
    """Quantize ``input`` with one ``scale`` and ``zero_point`` (``per_tensor_affine``).

    A list of tensors gives a list of quantized tensors, all with the same parameters.
    """
    where = "quantize_per_tensor"
    if isinstance(input, (list, tuple)):
        return [quantize_per_tensor(t, scale, zero_point, dtype) for t in input]  # type: ignore[misc]
    dtype = _checked_dtype(dtype, where)
    values = _checked_input(input, where)
    scales = np.array(_scale_value(scale, where), dtype=np.float64)
    zero_points = np.array(_zero_point_value(zero_point, where), dtype=np.int64)
    _checked_scales(scales.reshape(1), where)
    _checked_zero_points(zero_points, dtype, where)
    integers = quantize_values(values, scales, zero_points, dtype)
    return QuantizedTensor(integers, dtype, per_tensor_affine, scales, zero_points)


def quantize_per_channel(input: Tensor, scales: Tensor, zero_points: Tensor, axis: int,
                         dtype: dtypes.dtype) -> QuantizedTensor:
    """Quantize ``input`` with one scale and zero point per index along ``axis`` (``per_channel_affine``)."""
    where = "quantize_per_channel"
    dtype = _checked_dtype(dtype, where)
    values = _checked_input(input, where)
    if not isinstance(scales, Tensor) or not isinstance(zero_points, Tensor):
        raise TypeError(f"{where}: scales and zero_points must be tensors, got {type(scales).__name__} "
                        f"and {type(zero_points).__name__}")
    if scales.dim() != 1 or zero_points.dim() != 1:
        raise RuntimeError(f"{where}: scales and zero_points must be 1-D, got shapes {tuple(scales.shape)} "
                           f"and {tuple(zero_points.shape)}")
    if zero_points.dtype.is_floating_point:
        raise RuntimeError(f"{where}: zero_points must be integers, got {zero_points.dtype}")
    if not 0 <= axis < values.ndim:  # PyTorch takes no negative axis here
        raise IndexError(f"{where}: axis {axis} is out of range [0, {values.ndim}) for a tensor of shape "
                         f"{tuple(values.shape)}")
    channels = values.shape[axis]
    for name, given in (("scales", scales), ("zero_points", zero_points)):
        if given.numel() != channels:
            raise RuntimeError(f"{where}: {name} has {given.numel()} entries but the input has {channels} "
                               f"channels along axis {axis} (shape {tuple(values.shape)})")
    scale_values = scales.detach().cpu().numpy().astype(np.float64)
    zero_point_values = zero_points.detach().cpu().numpy().astype(np.int64)
    _checked_scales(scale_values, where)
    _checked_zero_points(zero_point_values, dtype, where)
    shape = [1] * values.ndim
    shape[axis] = -1
    integers = quantize_values(values, scale_values.reshape(shape), zero_point_values.reshape(shape), dtype)
    return QuantizedTensor(integers, dtype, per_channel_affine, scale_values, zero_point_values, axis)


def dequantize(input: Union[QuantizedTensor, Sequence[QuantizedTensor], Tensor]) -> Any:
    """``input.dequantize()``; a list gives a list, and a float tensor is returned as it is."""
    if isinstance(input, (list, tuple)):
        return [dequantize(t) for t in input]
    if isinstance(input, QuantizedTensor):
        return input.dequantize()
    if isinstance(input, Tensor) and input.dtype.is_floating_point:
        return input
    raise TypeError(f"dequantize expects a quantized tensor, got {type(input).__name__}")



def quantized_from_parts(integers: Tensor, dtype: dtypes.dtype, scheme: qscheme, scales: Any, zero_points: Any,
                         axis: Optional[int] = None) -> QuantizedTensor:
    """A quantized tensor from its stored integers and parameters (as a checkpoint holds them),
    checked as the quantize functions check theirs: ValueError saying what is wrong."""
    if dtype not in dtypes.QUANTIZED_DTYPES:
        raise ValueError(f"{dtype} is not a quantized type")
    if not isinstance(integers, Tensor) or integers.dtype.numpy != dtype.numpy:
        raise ValueError(f"the integers of a {dtype} tensor must be {dtype.numpy}, got "
                         f"{integers.dtype if isinstance(integers, Tensor) else type(integers).__name__}")
    values = np.ascontiguousarray(integers.detach().cpu().numpy())
    scale_values = np.asarray(scales.numpy() if isinstance(scales, Tensor) else scales, dtype=np.float64)
    zero_point_values = np.asarray(zero_points.numpy() if isinstance(zero_points, Tensor) else zero_points)
    if zero_point_values.dtype.kind not in "iu":
        raise ValueError(f"zero points must be integers, got {zero_point_values.dtype}")
    if scheme.per_channel:
        if axis is None or not 0 <= axis < values.ndim:
            raise ValueError(f"axis {axis} is not a dimension of a tensor of shape {values.shape}")
        expected: tuple[int, ...] = (values.shape[axis],)
    else:
        expected = ()
    if scale_values.shape != expected or zero_point_values.shape != expected:
        raise ValueError(f"{scheme.name} needs scales and zero points of shape {expected}, got "
                         f"{scale_values.shape} and {zero_point_values.shape}")
    try:
        _checked_scales(scale_values.reshape(-1), "a quantized tensor")
        _checked_zero_points(zero_point_values, dtype, "a quantized tensor")
    except RuntimeError as error:
        raise ValueError(str(error)) from None
    return QuantizedTensor(values.copy(), dtype, scheme, scale_values, zero_point_values, axis if scheme.per_channel else None)

"""Observers: modules that watch the values flowing through them and choose quantization
parameters for them, as PyTorch's ``torch.ao.quantization.observer``.

An observer's ``forward(x)`` records the range of ``x`` (in buffers, so it is saved with the
model) and returns ``x`` unchanged; ``calculate_qparams()`` turns the range into a scale and
a zero point (formulas in :mod:`minitorch.quantized.qparams`).
"""

from __future__ import annotations

import functools
import warnings
from typing import Any, Callable, Optional

import numpy as np

from ... import dtypes
from ...creation import tensor
from ...nn.modules.module import Module
from ...quantized.qparams import affine_qparams, symmetric_qparams
from ...quantized.qscheme import (
    per_channel_affine, per_channel_symmetric, per_tensor_affine, per_tensor_symmetric, qscheme,
)
from ...quantized.qtensor import QUANTIZED_RANGES
from ...tensor import Tensor

#: float32's machine epsilon: the smallest scale an observer chooses
FLOAT32_EPS = float(np.finfo(np.float32).eps)


class _PartialWrapper:
    """An observer class with some arguments fixed (``MinMaxObserver.with_args(...)``):
    calling it builds a new observer, as a QConfig's fields do for each module."""

    def __init__(self, factory: Callable[..., Any]) -> None:
        self.factory = factory

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.factory(*args, **kwargs)

    def with_args(self, **kwargs: Any) -> "_PartialWrapper":
        return _PartialWrapper(functools.partial(self.factory, **kwargs))

    def __repr__(self) -> str:
        return f"{self.factory!r}{{}}"


class ObserverBase(Module):
    """What every observer has: the quantized ``dtype`` it chooses parameters for, and
    ``with_args`` to fix constructor arguments for later."""

    def __init__(self, dtype: dtypes.dtype, is_dynamic: bool = False) -> None:
        super().__init__()
        self.dtype = dtype
        self.is_dynamic = is_dynamic

    @classmethod
    def with_args(cls, **kwargs: Any) -> _PartialWrapper:
        return _PartialWrapper(functools.partial(cls, **kwargs))


class UniformQuantizationObserverBase(ObserverBase):
    """An observer of an affine or symmetric scheme over ``quant_min..quant_max``."""

    def __init__(self, dtype: dtypes.dtype = dtypes.quint8, qscheme: qscheme = per_tensor_affine,
                 reduce_range: bool = False, quant_min: Optional[int] = None, quant_max: Optional[int] = None,
                 eps: float = FLOAT32_EPS, is_dynamic: bool = False) -> None:
        super().__init__(dtype, is_dynamic)
        if dtype not in QUANTIZED_RANGES:
            raise ValueError(f"an observer chooses parameters for a quantized dtype (qint8, quint8, qint32), got {dtype}")
        if qscheme not in (per_tensor_affine, per_tensor_symmetric, per_channel_affine, per_channel_symmetric):
            raise NotImplementedError(f"the {qscheme} scheme is not supported by minitorch's observers")
        if reduce_range and qscheme.symmetric and dtype is dtypes.quint8:
            raise NotImplementedError("can't reduce the range of a symmetric scheme for quint8")
        self.qscheme = qscheme
        self.reduce_range = reduce_range
        self.has_customized_qrange = quant_min is not None and quant_max is not None
        low, high = QUANTIZED_RANGES[dtype]
        if self.has_customized_qrange:
            if not low <= quant_min <= 0 <= quant_max <= high:  # type: ignore[operator]
                raise ValueError(f"quant_min..quant_max must contain 0 and lie within {dtype}'s range [{low}, {high}], "
                                 f"got {quant_min}..{quant_max}")
            low, high = quant_min, quant_max  # type: ignore[assignment]
        elif reduce_range:
            low, high = low // 2, high // 2
        self.quant_min, self.quant_max = int(low), int(high)
        self.register_buffer("eps", tensor([eps], dtype=dtypes.float32))

    def _qparams(self, low: float, high: float) -> tuple[float, int]:
        rule = symmetric_qparams if self.qscheme.symmetric else affine_qparams
        return rule(low, high, self.quant_min, self.quant_max, float(self.eps.item()))


class MinMaxObserver(UniformQuantizationObserverBase):
    """Records the smallest and largest value seen (buffers ``min_val``, ``max_val``)."""

    def __init__(self, dtype: dtypes.dtype = dtypes.quint8, qscheme: qscheme = per_tensor_affine,
                 reduce_range: bool = False, quant_min: Optional[int] = None, quant_max: Optional[int] = None,
                 eps: float = FLOAT32_EPS, is_dynamic: bool = False) -> None:
        if qscheme.per_channel:
            raise NotImplementedError("MinMaxObserver is per tensor: use PerChannelMinMaxObserver for a per-channel scheme")
        super().__init__(dtype, qscheme, reduce_range, quant_min, quant_max, eps, is_dynamic)
        self.register_buffer("min_val", tensor(float("inf")))
        self.register_buffer("max_val", tensor(float("-inf")))

    def forward(self, x: Tensor) -> Tensor:
        if x.numel() == 0:
            return x
        values = x.detach().float()
        self.min_val = tensor(min(float(self.min_val.item()), float(values.min().item())))
        self.max_val = tensor(max(float(self.max_val.item()), float(values.max().item())))
        return x

    def calculate_qparams(self) -> tuple[Tensor, Tensor]:
        """``(scale, zero_point)``, each a one-element tensor (scale float32)."""
        low, high = float(self.min_val.item()), float(self.max_val.item())
        if low == float("inf") and high == float("-inf"):
            warnings.warn("must run the observer before calling calculate_qparams: returning the default scale 1 "
                          "and zero point 0", stacklevel=2)
            return tensor([1.0]), tensor([0])
        scale, zero_point = self._qparams(low, high)
        return tensor([scale], dtype=dtypes.float32), tensor([zero_point])

    def extra_repr(self) -> str:
        return f"min_val={self.min_val.item()}, max_val={self.max_val.item()}"


class PerChannelMinMaxObserver(UniformQuantizationObserverBase):
    """Records each channel's smallest and largest value along ``ch_axis``."""

    def __init__(self, ch_axis: int = 0, dtype: dtypes.dtype = dtypes.quint8, qscheme: qscheme = per_channel_affine,
                 reduce_range: bool = False, quant_min: Optional[int] = None, quant_max: Optional[int] = None,
                 eps: float = FLOAT32_EPS, is_dynamic: bool = False) -> None:
        if not qscheme.per_channel:
            raise NotImplementedError("PerChannelMinMaxObserver needs a per-channel scheme, got "
                                      f"{qscheme}; use MinMaxObserver per tensor")
        super().__init__(dtype, qscheme, reduce_range, quant_min, quant_max, eps, is_dynamic)
        self.ch_axis = ch_axis
        self.register_buffer("min_val", tensor([]))
        self.register_buffer("max_val", tensor([]))

    def forward(self, x: Tensor) -> Tensor:
        if x.numel() == 0:
            return x
        values = np.moveaxis(x.detach().float().numpy(), self.ch_axis, 0).reshape(x.shape[self.ch_axis], -1)
        low, high = values.min(axis=1), values.max(axis=1)
        if self.min_val.numel():
            if self.min_val.numel() != low.size:
                raise RuntimeError(f"PerChannelMinMaxObserver saw {self.min_val.numel()} channels before and "
                                   f"{low.size} now (axis {self.ch_axis})")
            low = np.minimum(low, self.min_val.numpy())
            high = np.maximum(high, self.max_val.numpy())
        self.min_val = tensor(low, dtype=dtypes.float32)
        self.max_val = tensor(high, dtype=dtypes.float32)
        return x

    def calculate_qparams(self) -> tuple[Tensor, Tensor]:
        """``(scales, zero_points)``, one of each per channel."""
        if self.min_val.numel() == 0:
            warnings.warn("must run the observer before calling calculate_qparams: returning the default scale 1 "
                          "and zero point 0", stacklevel=2)
            return tensor([1.0]), tensor([0])
        pairs = [self._qparams(lo, hi) for lo, hi in zip(self.min_val.tolist(), self.max_val.tolist())]
        return (tensor([s for s, _ in pairs], dtype=dtypes.float32), tensor([z for _, z in pairs]))

    def extra_repr(self) -> str:
        return f"min_val={self.min_val!r}, max_val={self.max_val!r}"


class PlaceholderObserver(ObserverBase):
    """Records nothing: it only says which dtype (and range) a value is to be quantized to,
    for parameters chosen later (dynamic quantization chooses them for each batch)."""

    def __init__(self, dtype: dtypes.dtype = dtypes.float32, custom_op_name: str = "", compute_dtype: Any = None,
                 quant_min: Optional[int] = None, quant_max: Optional[int] = None, qscheme: Optional[qscheme] = None,
                 eps: Optional[float] = None, is_dynamic: bool = False) -> None:
        super().__init__(dtype, is_dynamic)
        self.quant_min = quant_min
        self.quant_max = quant_max
        self.qscheme = per_tensor_affine if qscheme is None else qscheme
        self.eps = eps
        self.custom_op = custom_op_name

    def forward(self, x: Tensor) -> Tensor:
        return x

    def calculate_qparams(self) -> Any:
        raise Exception("calculate_qparams should not be called for PlaceholderObserver")  # noqa: TRY002 - PyTorch's type

    def extra_repr(self) -> str:
        return f"dtype={self.dtype}, is_dynamic={self.is_dynamic}"


default_observer = MinMaxObserver.with_args(quant_min=0, quant_max=127)
default_weight_observer = MinMaxObserver.with_args(dtype=dtypes.qint8, qscheme=per_tensor_symmetric)
default_per_channel_weight_observer = PerChannelMinMaxObserver.with_args(dtype=dtypes.qint8,
                                                                         qscheme=per_channel_symmetric)
default_dynamic_quant_observer = PlaceholderObserver.with_args(dtype=dtypes.quint8, quant_min=0, quant_max=255,
                                                              is_dynamic=True)

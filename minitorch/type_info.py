"""``finfo`` and ``iinfo``: the numeric limits of a dtype, PyTorch's names and repr (from NumPy's)."""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from . import dtypes


class finfo:  # noqa: N801 - PyTorch's spelling
    """``bits``, ``eps``, ``max``, ``min``, ``tiny`` (= ``smallest_normal``) and ``resolution`` of a float dtype
    (the default dtype when none is given)."""

    def __init__(self, type: Optional[Any] = None) -> None:  # noqa: A002 - PyTorch's argument name
        dtype = dtypes.get_default_dtype() if type is None else dtypes.as_dtype(type)
        if not dtype.is_floating_point:
            raise TypeError("torch.finfo() requires a floating point input type. Use torch.iinfo to handle 'torch.finfo'")
        info = np.finfo(dtype.numpy)
        self.dtype = dtype.name
        self.bits = int(info.bits)
        self.eps = float(info.eps)
        self.max = float(info.max)
        self.min = float(info.min)
        self.tiny = self.smallest_normal = float(info.smallest_normal)
        self.resolution = 10.0 ** -int(info.precision)  # a power of ten, as PyTorch reports it

    def __repr__(self) -> str:
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, eps={self.eps:g}, "
                f"smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:  # noqa: N801 - PyTorch's spelling
    """``bits``, ``max`` and ``min`` of an integer dtype."""

    def __init__(self, type: Any) -> None:  # noqa: A002 - PyTorch's argument name
        dtype = dtypes.as_dtype(type)
        if dtype.is_floating_point or dtype is dtypes.bool_:
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to handle 'torch.iinfo'")
        info = np.iinfo(dtype.numpy)
        self.dtype = dtype.name
        self.bits, self.max, self.min = int(info.bits), int(info.max), int(info.min)

    def __repr__(self) -> str:
        return f"iinfo(min={float(self.min):g}, max={float(self.max):g}, dtype={self.dtype})"

r"""Counting values: ``bincount`` and ``histc``, PyTorch's names.

Both count on the host with NumPy (a count is an integer scatter, not something to
differentiate: PyTorch records no gradient either) and return a tensor on the input's device.
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from .. import dtypes
from ..tensor import Tensor, add_tensor_methods


def _host(t: Tensor) -> np.ndarray:
    return np.asarray(t.detach().cpu().numpy())


def bincount(input: Tensor, weights: Optional[Tensor] = None, minlength: int = 0) -> Tensor:  # noqa: A002
    r"""How often each value :math:`0, 1, \dots, \max` occurs in a 1-d tensor of non-negative
    integers (at least ``minlength`` bins); with ``weights``, the sum of the weights per value
    (float64 for integer weights, as PyTorch)."""
    if input.dtype.is_floating_point or input.dtype is dtypes.bool_:
        raise NotImplementedError(f"\"bincount_cpu\" not implemented for '{dtypes.scalar_type_name(input.dtype)}'")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    values = _host(input)
    if input.dim() != 1 or (values.size and values.min() < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is not None and (weights.dim() != 1 or weights.shape[0] != input.shape[0]):
        raise RuntimeError("weights should be 1-d and have the same length as input")
    if weights is None:
        counts = np.bincount(values.astype(np.int64), minlength=minlength).astype(np.int64)
        return input.new_tensor(counts, dtype=dtypes.int64)
    out_dtype = weights.dtype if weights.dtype.is_floating_point else dtypes.float64
    sums = np.bincount(values.astype(np.int64), weights=_host(weights).astype(np.float64), minlength=minlength)
    return input.new_tensor(sums, dtype=out_dtype)


def histc(input: Tensor, bins: int = 100, min: float = 0, max: float = 0) -> Tensor:  # noqa: A002
    r"""A histogram of ``bins`` equal bins between ``min`` and ``max`` (the data's own range when
    both are 0); values outside are left out, the last bin includes ``max``."""
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"histogram_cpu\" not implemented for '{dtypes.scalar_type_name(input.dtype)}'")
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    values = _host(input).astype(np.float64).reshape(-1)
    low, high = float(min), float(max)
    if low == high and values.size:
        low, high = float(values.min()), float(values.max())
    if low == high:
        low, high = low - 1, high + 1
    if low > high:
        raise RuntimeError("torch.histc: max must be larger than min")
    if not (np.isfinite(low) and np.isfinite(high)):
        raise RuntimeError(f"torch.histc: range of [{low}, {high}] is not finite")
    kept = values[(values >= low) & (values <= high)]
    positions = np.minimum(((kept - low) * bins / (high - low)).astype(np.int64), bins - 1)
    counts = np.bincount(positions, minlength=bins).astype(np.float64)
    return input.new_tensor(counts, dtype=input.dtype)


class CountingMethods:
    """``Tensor.bincount`` and ``Tensor.histc``."""

    def bincount(self, weights: Optional[Tensor] = None, minlength: int = 0) -> Tensor:
        return bincount(self, weights, minlength)

    def histc(self, bins: int = 100, min: float = 0, max: float = 0) -> Tensor:  # noqa: A002
        return histc(self, bins, min, max)


add_tensor_methods({name: method for name, method in vars(CountingMethods).items() if not name.startswith("__")})

r"""``histogram``: counts (or summed weights) of a tensor's values in bins, PyTorch's name.

With ``bins`` a number the edges are ``bins + 1`` evenly spaced points over ``range`` (the
data's own range by default, :math:`(0, 1)` for no data, widened by :math:`\pm 0.5` when it is
one point); with ``bins`` a tensor they are its values. Each value lands in the bin
:math:`[e_k, e_{k+1})`, the last bin closed, values outside (and NaN) left out:

.. math::
    \mathrm{hist}_k = \sum_{i : e_k \le x_i < e_{k+1}} w_i, \qquad
    \text{density: } \mathrm{hist}_k \,/\, \bigl(\textstyle\sum_j \mathrm{hist}_j\,(e_{k+1} - e_k)\bigr)

The counting runs on the host, as PyTorch's CPU kernel does it, in the input's dtype: a
binary search over given edges (``std::upper_bound``'s halving, so unsorted edges bin as in
PyTorch), a division checked against its neighbouring edges for even ones. PyTorch defines no
derivative: results that need one get a ``NotImplemented`` node. ``histc`` (:mod:`.counting`)
is the older one-result form.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence, Union

import numpy as np

from .. import dtypes, return_types
from ..autograd.function import Context, Underivable
from ..creation import linspace
from ..out_argument import write_out
from ..tensor import Tensor, add_tensor_methods

#: ``minitorch.return_types.histogram``, as PyTorch's ``(hist, bin_edges)``
histogram_result = return_types._named_result("histogram", ("hist", "bin_edges"))
return_types.histogram = histogram_result

#: the range of an empty input without ``range``, as NumPy's and PyTorch's
EMPTY_RANGE = (0.0, 1.0)
#: how far a range of one point is widened on each side
POINT_RANGE_HALF_WIDTH = 0.5
#: the C++ names of dtypes in PyTorch's ``histogramdd`` messages
CPP_TYPE_NAMES = {
    "bool": "bool", "uint8": "unsigned char", "int8": "signed char", "int16": "short int", "int32": "int",
    "int64": "long int", "float16": "c10::Half", "bfloat16": "c10::BFloat16", "float32": "float", "float64": "double",
}
#: the dtypes PyTorch's histogram kernel takes
KERNEL_DTYPES = (dtypes.float32, dtypes.float64, dtypes.float16, dtypes.bfloat16)
#: the dtypes PyTorch finds the data's range in (``bins`` a number, no ``range``)
RANGE_DTYPES = (dtypes.float32, dtypes.float64)


def _cpp(dtype: dtypes.dtype) -> str:
    return CPP_TYPE_NAMES[dtype.name]


def _host(t: Tensor) -> np.ndarray:
    return np.asarray(t.detach().cpu().numpy()).reshape(-1)


def _refuse_dtype(input: Tensor, kernel: str, accepted: tuple[dtypes.dtype, ...]) -> None:  # noqa: A002
    """PyTorch's error for a dtype that ``kernel`` has no version for."""
    if input.dtype not in accepted:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{dtypes.scalar_type_name(input.dtype)}'")


def _check_bin_count(count: int) -> None:
    if count <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {count} for dimension 0")


def _check_weight(input: Tensor, weight: Optional[Tensor]) -> None:  # noqa: A002
    """PyTorch's checks of ``weight`` against the input seen as a column of ``numel`` rows."""
    if weight is None:
        return
    if weight.dtype is not input.dtype:
        raise RuntimeError(
            "torch.histogramdd: if weight tensor is provided, input tensor and weight tensor should have the same "
            f"dtype, but got input({_cpp(input.dtype)}), and weight({_cpp(weight.dtype)})"
        )
    if weight.numel() != input.numel():
        raise RuntimeError(
            "torch.histogramdd: if weight tensor is provided it should have the same shape as the input tensor "
            f"excluding its innermost dimension, but got input with shape [{input.numel()}, 1] and weight with "
            f"shape [{weight.numel()}]"
        )


def _check_edges(input: Tensor, edges: Tensor) -> None:  # noqa: A002
    if edges.dtype is not input.dtype:
        raise RuntimeError(
            "torch.histogramdd: input tensor and bins tensors should have the same dtype, but got input with dtype "
            f"{_cpp(input.dtype)} and bins for dimension 0 with dtype {_cpp(edges.dtype)}"
        )
    if edges.dim() != 1:
        raise RuntimeError(
            f"torch.histogramdd: bins tensor should have one dimension, but got {edges.dim()} dimensions in the bins "
            "tensor for dimension 0"
        )
    if edges.numel() == 0:
        raise RuntimeError(
            "torch.histogramdd: bins tensor should have at least 1 element, but got 0 elements in the bins tensor "
            "for dimension 0"
        )


def _outer_edges(input: Tensor, range: Optional[Sequence[float]]) -> tuple[float, float]:  # noqa: A002
    """The first and last edge for ``bins`` a number: ``range``, else the data's min and max."""
    low, high = EMPTY_RANGE
    if range is not None:
        if len(range) != 2:
            raise RuntimeError(
                f"torch.histogramdd: for a 1-dimensional histogram range should have 2 elements, but got {len(range)}"
            )
        low, high = float(range[0]), float(range[1])
    elif input.numel():
        _refuse_dtype(input, "histogramdd", RANGE_DTYPES)
        values = _host(input)
        low, high = float(values.min()), float(values.max())
    if not (np.isfinite(low) and np.isfinite(high)):
        raise RuntimeError(f"torch.histogramdd: dimension 0's range [{low:g}, {high:g}] is not finite")
    if low > high:
        raise RuntimeError(
            f"torch.histogramdd: min should not exceed max, but got min {low:g} max {high:g} for dimension 0"
        )
    if low == high:
        low, high = low - POINT_RANGE_HALF_WIDTH, high + POINT_RANGE_HALF_WIDTH
    return low, high


def _upper_bound(edges: np.ndarray, values: np.ndarray, first: np.ndarray, last: np.ndarray) -> np.ndarray:
    """For each value, C++'s ``std::upper_bound(edges + first, edges + last, value) - edges``:
    the halving search as the standard library runs it (edges need not be sorted)."""
    first = first.copy()
    length = last - first
    while np.any(length > 0):
        half = length >> 1
        middle = np.minimum(first + half, edges.size - 1)
        below = values < edges[middle]
        active = length > 0
        step = active & ~below
        first = np.where(step, middle + 1, first)
        length = np.where(active, np.where(below, half, length - half - 1), 0)
    return first


def _bin_positions(values: np.ndarray, edges: np.ndarray, even: bool) -> np.ndarray:
    """The bin of each value (all lie within the outer edges); ``even`` edges are found by
    division, then checked against the edges on either side, as PyTorch's kernel does."""
    count = edges.size
    if even:
        left, right = edges[0], edges[-1]
        with np.errstate(divide="ignore", invalid="ignore"):
            guess = ((values - left) * edges.dtype.type(count - 1) / (right - left)).astype(np.int64)
        first, last = np.maximum(guess - 1, 0), np.minimum(guess + 2, count)
    else:
        first, last = np.zeros(values.size, dtype=np.int64), np.full(values.size, count, dtype=np.int64)
    positions = _upper_bound(edges, values, first, last) - 1
    return np.where(positions == count - 1, positions - 1, positions)  # the last bin holds its right edge


def _count(values: np.ndarray, weights: Optional[np.ndarray], edges: np.ndarray, even: bool,
           density: bool) -> np.ndarray:
    """The histogram (in ``edges``' dtype) of ``values`` in the bins ``edges`` bound."""
    inside = (values >= edges[0]) & (values <= edges[-1])  # false for NaN
    positions = _bin_positions(values[inside], edges, even)
    kept = None if weights is None else weights[inside].astype(np.float64)
    hist = np.bincount(positions, weights=kept, minlength=edges.size - 1).astype(edges.dtype)
    if density:
        with np.errstate(divide="ignore", invalid="ignore"):
            hist = hist / hist.sum(dtype=edges.dtype) / np.diff(edges)
    return hist


class Histogram(Underivable):
    """``(hist, bin_edges)`` of ``input`` in the bins ``edges`` bound; no derivative."""

    @staticmethod
    def forward(ctx: Context, input: Tensor, edges: Tensor, weight: Optional[Tensor], even: bool,  # noqa: A002
                density: bool) -> tuple[Tensor, Tensor]:
        ctx.op = "histogram"
        edge_values = _host(edges).astype(edges.dtype.numpy)
        weights = None if weight is None else _host(weight)
        hist = _count(_host(input), weights, edge_values, even, density)
        return input.new_tensor(hist, dtype=input.dtype), edges.detach().clone()


def histogram(input: Tensor, bins: Union[int, Tensor] = 100, *, range: Optional[Sequence[float]] = None,  # noqa: A002
              weight: Optional[Tensor] = None, density: bool = False, out: Any = None) -> Any:
    """PyTorch's ``torch.histogram``: ``(hist, bin_edges)``, the counts of ``input``'s values (or the
    sums of their ``weight``) in ``bins`` bins (a number of even bins over ``range``, or a 1-d
    tensor of edges); ``density`` divides by the total and the bin widths."""
    if isinstance(bins, Tensor):
        if range is not None:
            raise TypeError("histogram(): argument 'range' is not taken with a tensor of bin edges")
        _check_edges(input, bins)
        _check_weight(input, weight)
        _check_bin_count(bins.numel() - 1)
        _refuse_dtype(input, "histogram_cpu", KERNEL_DTYPES)
        edges, even = bins, False
    else:
        if isinstance(bins, bool) or not isinstance(bins, (int, np.integer)):
            raise TypeError(f"histogram(): argument 'bins' must be int or Tensor, not {type(bins).__name__}")
        _check_bin_count(int(bins))
        low, high = _outer_edges(input, range)
        if input.dtype is dtypes.bool_:  # PyTorch makes the edges first, in the input's dtype
            raise NotImplementedError(f"\"linspace_{input.device.type}\" not implemented for 'Bool'")
        _check_weight(input, weight)
        _refuse_dtype(input, "histogram_cpu", KERNEL_DTYPES)
        edges, even = linspace(low, high, int(bins) + 1, dtype=input.dtype, device=input.device), True
    return write_out(histogram_result(*Histogram.apply(input, edges, weight, even, density)), out, "histogram")


class HistogramMethods:
    """``Tensor.histogram``."""

    def histogram(self, bins: Union[int, Tensor] = 100, *, range: Optional[Sequence[float]] = None,  # noqa: A002
                  weight: Optional[Tensor] = None, density: bool = False) -> Any:
        return histogram(self, bins, range=range, weight=weight, density=density)


add_tensor_methods({name: method for name, method in vars(HistogramMethods).items() if not name.startswith("__")})

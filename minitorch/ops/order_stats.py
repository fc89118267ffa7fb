r"""Order statistics: ``quantile``/``nanquantile``, ``kthvalue``, ``nanmedian``, ``msort``,
``cummax``/``cummin``.

Each finds positions on the host (a sort, or a running extreme) and then reads the values
through the differentiable ``gather``, so the gradient goes to the elements that were picked.
A quantile between two order statistics :math:`v_{\lfloor p \rfloor}` and :math:`v_{\lceil p \rceil}`
at :math:`p = q (n - 1)` is, with ``interpolation='linear'``,

.. math:: v_{\lfloor p \rfloor} + (p - \lfloor p \rfloor)\,(v_{\lceil p \rceil} - v_{\lfloor p \rfloor}).
"""

from __future__ import annotations

import math
from typing import Any, Optional

import numpy as np

from .. import return_types
from ..autograd.grad_mode import is_grad_enabled
from ..creation import stack
from ..creation import tensor as make_tensor
from ..keywords import accepts_numpy_names
from ..shapes import normalize_dim
from ..tensor import Tensor, add_tensor_methods
from .dtype_refusals import refuse_bool
from .reductions_extra import ChosenValue

#: how a quantile between two order statistics is read
INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _moved_last(input: Tensor, dim: Optional[int]) -> tuple[Tensor, int]:
    """``input`` with ``dim`` last (all of it flattened for None), and that dimension's index."""
    if dim is None:
        return input.reshape(-1), 0
    d = normalize_dim(dim, input.dim()) if input.dim() else 0
    return (input.movedim(d, -1) if input.dim() else input.reshape(1)), d


def _positions(rows: Tensor, q: float, ignore_nan: bool, interpolation: str) -> tuple[Tensor, Tensor, Optional[Tensor]]:
    """For sorted ``rows`` (NaN last): the lower and upper positions of quantile ``q`` in each row
    (shape ``(..., 1)``) and the weight of the upper one (None: the lower one alone)."""
    n = rows.shape[-1]
    if ignore_nan:
        count = (rows == rows).sum(-1, keepdim=True).to(rows.dtype)  # the values that are not NaN
    else:
        count = make_tensor(float(n), dtype=rows.dtype, device=rows.device).expand(*rows.shape[:-1], 1)
    position = (count - 1).clamp(min=0) * q
    if interpolation == "nearest":
        position = position.round()  # half to even, as PyTorch's
    lower = position.floor()
    upper = position.ceil()
    if interpolation == "lower":
        upper = lower
    elif interpolation == "higher":
        lower = upper
    weight = position - lower if interpolation == "linear" else (lower * 0 + 0.5 if interpolation == "midpoint" else None)
    return lower.long().clamp(0, n - 1), upper.long().clamp(0, n - 1), weight


def _quantile(input: Tensor, q: Any, dim: Optional[int], keepdim: bool, interpolation: str, ignore_nan: bool,
              name: str) -> Tensor:
    if not input.dtype.is_floating_point or input.dtype.itemsize < 4:
        raise RuntimeError(f"{name}() input tensor must be either float or double dtype")
    if interpolation not in INTERPOLATIONS:
        raise RuntimeError(f"{name}() interpolation must be one of linear, lower, higher, midpoint or nearest. "
                           f"Got {interpolation}")
    if input.numel() == 0:
        raise RuntimeError(f"{name}() input tensor must be non-empty")
    scalar_q = not isinstance(q, Tensor)
    levels = [float(q)] if scalar_q else [float(v) for v in q.reshape(-1).tolist()]
    if not scalar_q and q.dim() > 1:
        raise RuntimeError(f"{name}() q must be a scalar or 1D tensor")
    if any(not 0.0 <= level <= 1.0 for level in levels):
        raise RuntimeError(f"{name}() q values must be in the range [0, 1]")
    rows, d = _moved_last(input, dim)
    ordered = rows.sort(-1).values
    has_nan = None if ignore_nan else (rows != rows).any(-1, keepdim=True)  # a row's quantiles are NaN then
    results = []
    for level in levels:
        lower, upper, weight = _positions(ordered, level, ignore_nan, interpolation)
        low, high = ordered.gather(-1, lower), ordered.gather(-1, upper)
        value = low if weight is None else low.lerp(high, weight)
        if has_nan is not None:
            value = value.masked_fill(has_nan, math.nan)
        value = value.squeeze(-1)
        if keepdim:
            value = value.reshape((1,) * input.dim()) if dim is None else value.unsqueeze(d)
        results.append(value._standalone())  # a reshaped temporary, no view (as PyTorch's result)
    return results[0] if scalar_q else stack(results)


@accepts_numpy_names
def quantile(input: Tensor, q: Any, dim: Optional[int] = None, keepdim: bool = False, *,  # noqa: A002
             interpolation: str = "linear") -> Tensor:
    """The ``q``-quantiles (a number or a 1-D tensor of them, in [0, 1]) over ``dim`` (everything by
    default); a NaN in a slice makes its quantiles NaN. Several ``q`` add a leading dimension."""
    return _quantile(input, q, dim, keepdim, interpolation, ignore_nan=False, name="quantile")


@accepts_numpy_names
def nanquantile(input: Tensor, q: Any, dim: Optional[int] = None, keepdim: bool = False, *,  # noqa: A002
                interpolation: str = "linear") -> Tensor:
    """:func:`quantile` of the values that are not NaN (NaN where a slice has none)."""
    return _quantile(input, q, dim, keepdim, interpolation, ignore_nan=True, name="nanquantile")


@accepts_numpy_names
def kthvalue(input: Tensor, k: int, dim: int = -1, keepdim: bool = False) -> Any:  # noqa: A002
    """``(values, indices)``: the ``k``-th smallest value along ``dim`` (``k`` from 1; NaN is largest)."""
    d = normalize_dim(dim, input.dim()) if input.dim() else 0
    size = input.shape[d] if input.dim() else 1
    if size == 0:
        raise IndexError(f"kthvalue(): Expected reduction dim {d} to have non-zero size.")
    if not 1 <= k <= size:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    if not input.dim():
        return return_types.kthvalue(input.clone(), make_tensor(0, device=input.device))
    refuse_bool("kthvalue_cpu", input.dtype)
    indices = input.argsort(d).narrow(d, k - 1, 1)
    values = input.gather(d, indices)
    if not keepdim:
        values, indices = values.squeeze(d), indices.squeeze(d)
    # views of the gathered values and of the order: results of their own, as PyTorch's
    return return_types.kthvalue(values._standalone(), indices.contiguous()._standalone())


@accepts_numpy_names
def nanmedian(input: Tensor, dim: Optional[int] = None, keepdim: bool = False) -> Any:  # noqa: A002
    """The lower median of the values that are not NaN (NaN where there are none); with ``dim``,
    ``(values, indices)``."""
    if dim is None and input.numel() == 0:
        return input.median()  # PyTorch's NaN in the input's dtype
    if dim is None and input.requires_grad and is_grad_enabled():  # (off inside ChosenValue's forward)
        return ChosenValue.apply(input, nanmedian, "NanmedianBackward0")  # ties share the gradient evenly
    rows, d = _moved_last(input, dim)
    if rows.shape[-1] == 0:
        raise IndexError(f"median(): Expected reduction dim {d} to have non-zero size.")
    refuse_bool("median_cpu" if dim is None else "median_out", input.dtype)
    order = rows.argsort(-1)
    valid = (rows == rows).sum(-1, keepdim=True)
    middle = order.gather(-1, ((valid - 1).clamp(min=0)) // 2)
    values = rows.gather(-1, middle).squeeze(-1)
    if dim is None:
        return values.reshape(())._standalone()
    indices = middle.squeeze(-1)
    if keepdim and input.dim():
        values, indices = values.unsqueeze(d), indices.unsqueeze(d)
    return return_types.nanmedian(values._standalone(), indices._standalone())  # views of temporaries: no views


def msort(input: Tensor) -> Tensor:  # noqa: A002
    """``input`` sorted along its first dimension (the values of ``sort(input, 0)``)."""
    return input.sort(0).values


def _running_extreme(input: Tensor, dim: int, largest: bool, result: type) -> Any:
    """``(values, indices)`` of the running max (or min) along ``dim``: at each position the extreme
    so far and the last position that holds it (NaN, once met, is the extreme)."""
    d = normalize_dim(dim, input.dim()) if input.dim() else 0
    if not input.dim() or input.numel() == 0:
        return result(input.clone(), make_tensor(np.zeros(input.shape, np.int64), device=input.device))
    values = input.detach().numpy(force=True)
    running = (np.maximum if largest else np.minimum).accumulate(values, axis=d)  # NaN stays, once met
    holds = (values == running) | (values != values)
    positions = np.arange(values.shape[d]).reshape([-1 if k == d else 1 for k in range(values.ndim)])
    indices = np.maximum.accumulate(np.where(holds, positions, -1), axis=d)
    index = make_tensor(indices.astype(np.int64), device=input.device)
    return result(input.gather(d, index), index)


def cummax(input: Tensor, dim: int) -> Any:  # noqa: A002
    return _running_extreme(input, dim, True, return_types.cummax)


def cummin(input: Tensor, dim: int) -> Any:  # noqa: A002
    return _running_extreme(input, dim, False, return_types.cummin)


class TensorMethods:
    """Attached to :class:`Tensor` below."""

    def quantile(self: Tensor, q: Any, dim: Optional[int] = None, keepdim: bool = False, *,
                 interpolation: str = "linear") -> Tensor:
        return quantile(self, q, dim, keepdim, interpolation=interpolation)

    def nanquantile(self: Tensor, q: Any, dim: Optional[int] = None, keepdim: bool = False, *,
                    interpolation: str = "linear") -> Tensor:
        return nanquantile(self, q, dim, keepdim, interpolation=interpolation)

    def kthvalue(self: Tensor, k: int, dim: int = -1, keepdim: bool = False) -> Any:
        return kthvalue(self, k, dim, keepdim)

    def nanmedian(self: Tensor, dim: Optional[int] = None, keepdim: bool = False) -> Any:
        return nanmedian(self, dim, keepdim)

    def msort(self: Tensor) -> Tensor:
        return msort(self)

    def cummax(self: Tensor, dim: int) -> Any:
        return cummax(self, dim)

    def cummin(self: Tensor, dim: int) -> Any:
        return cummin(self, dim)


add_tensor_methods({name: method for name, method in vars(TensorMethods).items() if not name.startswith("__")})

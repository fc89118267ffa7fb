r"""Running sums in log space and the trapezoid rule: ``logcumsumexp``, ``trapezoid`` (``trapz``) and
``cumulative_trapezoid``, each a composition of differentiable ops.

``logcumsumexp`` is :math:`y_i = \log \sum_{j \le i} e^{x_j}`. The plain
``log(cumsum(exp(x - max)))`` underflows to :math:`-\infty` wherever the earlier elements lie far
below a later maximum, so it is computed exactly instead: within a block of ``B`` elements every
:math:`y_i` is a ``logsumexp`` over the masked row :math:`(x_j)_{j \le i}` (a ``B x B`` view, each
row shifted by its own maximum), and the blocks are chained by the log-sum-exp of the running
total of the blocks before, found the same way one level up. Memory is ``n * B``, not ``n^2``.
"""

from __future__ import annotations

import math
from typing import Any, Optional, Union

from .. import dtypes
from ..creation import arange, cat, full, zeros
from ..shapes import normalize_dim
from ..tensor import Tensor, add_tensor_methods, where

#: elements per block of ``logcumsumexp``: each block costs a ``BLOCK x BLOCK`` masked matrix
BLOCK = 64


def _not_float(op: str, kind: dtypes.dtype) -> NotImplementedError:
    names = {dtypes.int64: "Long", dtypes.int32: "Int", dtypes.int16: "Short", dtypes.int8: "Char",
             dtypes.uint8: "Byte", dtypes.bool_: "Bool"}
    return NotImplementedError(f'"{op}" not implemented for \'{names.get(kind, str(kind))}\'')


def _within_rows(x: Tensor) -> Tensor:
    """``logcumsumexp`` along the last dimension of ``x`` (length ``k``), as ``k`` masked logsumexps."""
    k = x.shape[-1]
    positions = arange(k, device=x.device)
    later = positions.unsqueeze(0) > positions.unsqueeze(1)  # [i, j]: j after i, left out of row i
    rows = x.unsqueeze(-2).expand(*x.shape[:-1], k, k)
    return where(later, -math.inf, rows).logsumexp(-1)


def _along_last(x: Tensor) -> Tensor:
    n = x.shape[-1]
    if n <= BLOCK:
        return _within_rows(x)
    blocks = -(-n // BLOCK)
    padding = blocks * BLOCK - n  # -inf at the end: it changes no earlier running sum
    if padding:
        x = cat([x, full((*x.shape[:-1], padding), -math.inf, dtype=x.dtype, device=x.device)], -1)
    inner = _within_rows(x.reshape(*x.shape[:-1], blocks, BLOCK))
    totals = _along_last(inner[..., -1])  # the running total up to the end of each block
    before = cat([full((*totals.shape[:-1], 1), -math.inf, dtype=x.dtype, device=x.device), totals[..., :-1]], -1)
    joined = cat([inner.unsqueeze(-1), before.unsqueeze(-1).unsqueeze(-1).expand(*inner.shape, 1)], -1)
    return joined.logsumexp(-1).reshape(*x.shape[:-1], blocks * BLOCK)[..., :n]


def logcumsumexp(input: Tensor, dim: int) -> Tensor:  # noqa: A002
    r""":math:`\log \sum_{j \le i} e^{x_j}` along ``dim``, without overflow or underflow."""
    if not input.dtype.is_floating_point:
        raise _not_float("logcumsumexp_out_cpu", input.dtype)
    if input.dim() == 0:
        normalize_dim(dim, 1)
        return input.clone()
    dim = normalize_dim(dim, input.dim())
    if input.shape[dim] == 0:
        return input.clone()
    return _along_last(input.movedim(dim, -1)).movedim(-1, dim)


def _spacing(y: Tensor, x: Tensor, dim: int) -> Tensor:
    """The widths between sample points, shaped to broadcast against ``y``'s pairs along ``dim``."""
    if x.dim() == 1:
        if x.shape[0] != y.shape[dim]:
            raise RuntimeError("trapezoid: There must be one `x` value for each sample point")
        widths = x[1:] - x[:-1]
        return widths.reshape((-1,) + (1,) * (y.dim() - 1 - dim))
    dim_x = dim - y.dim() + x.dim() if dim < 0 else dim
    return x.narrow(dim_x, 1, x.shape[dim_x] - 1) - x.narrow(dim_x, 0, x.shape[dim_x] - 1)


def _pair_sums(y: Tensor, dim: int) -> Tensor:
    n = y.shape[dim]
    return y.narrow(dim, 1, n - 1) + y.narrow(dim, 0, n - 1)


def _refuse_bool(op: str, y: Tensor, x: Any) -> None:
    """PyTorch's error for bool samples ``y`` or sample points ``x``."""
    if isinstance(x, Tensor):
        if dtypes.bool_ in (x.dtype, y.dtype):
            raise RuntimeError(f"{op}: received a bool input for `x` or `y`, but bool is not supported")
    elif y.dtype is dtypes.bool_:
        raise RuntimeError(f"{op}: received a bool input for `y`, but bool is not supported")


def _to_float(y: Tensor) -> Tensor:
    return y if y.dtype.is_floating_point else y.to(dtypes.get_default_dtype())


def trapezoid(y: Tensor, x: Optional[Union[Tensor, float]] = None, *, dx: Optional[float] = None,
              dim: int = -1) -> Tensor:
    r"""The trapezoid rule along ``dim``: :math:`\sum_i (x_{i+1} - x_i)(y_i + y_{i+1})/2`, with sample
    points ``x`` (a tensor) or a constant spacing ``dx`` (default 1; a number ``x`` is a spacing too)."""
    if isinstance(x, Tensor) and dx is not None:
        raise TypeError("trapezoid() received an invalid combination of arguments - got x and dx")
    if y.dim() == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    dim = normalize_dim(dim, y.dim())
    if y.shape[dim] == 0:  # nothing to integrate: zeros of y's own dtype (bool too), as PyTorch's
        return zeros(tuple(s for i, s in enumerate(y.shape) if i != dim), dtype=y.dtype, device=y.device)
    _refuse_bool("trapezoid", y, x)
    y = _to_float(y)
    if isinstance(x, Tensor):
        return (_spacing(y, x, dim) * _pair_sums(y, dim)).sum(dim) / 2
    spacing = x if x is not None else (1.0 if dx is None else dx)
    return (y.sum(dim) - (y.select(dim, 0) + y.select(dim, -1)) * 0.5) * spacing


def trapz(y: Tensor, x: Optional[Union[Tensor, float]] = None, *, dx: Optional[float] = None,
          dim: int = -1) -> Tensor:
    """The older name of :func:`trapezoid`."""
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y: Tensor, x: Optional[Union[Tensor, float]] = None, *, dx: Optional[float] = None,
                         dim: int = -1) -> Tensor:
    """The running trapezoid rule along ``dim``: one fewer element than ``y`` there."""
    if isinstance(x, Tensor) and dx is not None:
        raise TypeError("cumulative_trapezoid() received an invalid combination of arguments - got x and dx")
    _refuse_bool("cumulative_trapezoid", y, x)
    if y.dim() == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    dim = normalize_dim(dim, y.dim())
    y = _to_float(y)
    if y.shape[dim] == 0:
        return y.clone()
    pairs = _pair_sums(y, dim)
    if isinstance(x, Tensor):
        return (_spacing(y, x, dim) * pairs / 2).cumsum(dim)
    spacing = x if x is not None else (1.0 if dx is None else dx)
    return (pairs * (spacing / 2)).cumsum(dim)


FUNCTIONS = {function.__name__: function for function in (cumulative_trapezoid, logcumsumexp, trapezoid, trapz)}

add_tensor_methods({"logcumsumexp": logcumsumexp})

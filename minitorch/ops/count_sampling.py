r"""``poisson`` and ``binomial``: counts drawn with PyTorch's signatures, checks and numbers.

Each element is drawn in row-major order of the result by PyTorch's CPU samplers, ported step by
step in :mod:`minitorch.count_draws`, from the generator given or the default one of the input's
device kind, so after ``manual_seed`` the values (and the generator's state after them) are
PyTorch's:

* ``poisson(input)``: :math:`x_i \sim \mathrm{Poisson}(\lambda_i)` for the rates in ``input`` (any
  float dtype, computed in double); the result has ``input``'s dtype and a zero gradient
  (``PoissonBackward0``), as in PyTorch.
* ``binomial(count, prob)``: :math:`x_i \sim \mathrm{Binomial}(n_i, p_i)`, ``prob`` broadcast to
  ``count`` (both float32 or both float64). PyTorch checks neither argument's values: a ``prob``
  below 0 gives 0, above 1 gives ``count``, NaN gives NaN. It defines no derivative: a result drawn
  from tensors that require grad has a ``NotImplemented`` node whose backward raises.
"""

from __future__ import annotations

import warnings
from typing import Any, Optional

import numpy as np

from .. import count_draws, dtypes
from ..autograd.function import Context, Underivable
from ..creation import _finish
from ..generator import Generator
from ..out_argument import RESIZE_WARNING  # PyTorch's, when the result takes a broadcast shape larger than count's
from ..tensor import Tensor
from ..tensor_data import shape_broadcast
from .sampling import _host_values, _not_implemented, _source, _with_params

#: the dtypes PyTorch's binomial kernel is compiled for
BINOMIAL_DTYPES = (dtypes.float32, dtypes.float64)


def _require_tensor(function: str, name: str, position: int, value: Any) -> None:
    if not isinstance(value, Tensor):
        raise TypeError(f"{function}(): argument '{name}' (position {position}) must be Tensor, not {type(value).__name__}")


def poisson(input: Tensor, generator: Optional[Generator] = None) -> Tensor:  # noqa: A002
    r"""Draws :math:`x_i \sim \mathrm{Poisson}(\lambda_i)` of ``input``'s shape and dtype, ``input``
    holding the rates :math:`\lambda_i \ge 0` (a negative or NaN rate raises PyTorch's error)."""
    _require_tensor("poisson", "input", 1, input)
    if not input.dtype.is_floating_point:
        raise _not_implemented("poisson_cpu", input.dtype)
    # (_finish converts the int64 counts to a 16-bit float through float32, as the C++ does)
    drawn = count_draws.poisson(_source(generator, input.device), _host_values(input))
    return _with_params(_finish(drawn, input.dtype, input.device, False), "PoissonBackward0", input)


class BinomialDraws(Underivable):
    """Records binomial draws against the arguments that require grad (PyTorch's node has edges
    to those only): no derivative, as in PyTorch."""

    @staticmethod
    def forward(ctx: Context, *params: Tensor, values: Tensor) -> Tensor:
        ctx.op = "binomial"
        return values


def _check_binomial(count: Tensor, prob: Tensor) -> None:
    _require_tensor("binomial", "count", 1, count)
    _require_tensor("binomial", "prob", 2, prob)
    for name, value in (("count", count), ("prob", prob)):
        if not value.dtype.is_floating_point:
            raise ValueError(f"binomial only supports floating-point dtypes for {name}, got: "
                             f"{dtypes.scalar_type_name(value.dtype)}")
    if prob.dtype is not count.dtype:
        raise RuntimeError(f"Found dtype {dtypes.scalar_type_name(prob.dtype)} but expected "
                           f"{dtypes.scalar_type_name(count.dtype)}")
    if count.dtype not in BINOMIAL_DTYPES:
        raise _not_implemented("binomial_cpu", count.dtype)


def binomial(count: Tensor, prob: Tensor, generator: Optional[Generator] = None) -> Tensor:
    r"""Draws :math:`x_i \sim \mathrm{Binomial}(n_i, p_i)` of ``count``'s dtype: ``count`` holds the
    trials :math:`n_i`, ``prob`` the success probabilities :math:`p_i` (broadcast to ``count``)."""
    _check_binomial(count, prob)
    shape = shape_broadcast(tuple(count.shape), tuple(prob.shape))
    if shape != tuple(count.shape):
        warnings.warn(RESIZE_WARNING.format(had=list(count.shape), required=list(shape)), UserWarning, stacklevel=2)
    counts = np.broadcast_to(_host_values(count), shape)
    probs = np.broadcast_to(_host_values(prob), shape)
    drawn = count_draws.binomial(_source(generator, count.device), counts, probs, narrow=count.dtype is dtypes.float32)
    result = _finish(drawn, count.dtype, count.device, False)
    differentiable = [t for t in (count, prob) if t.requires_grad]
    return BinomialDraws.apply(*differentiable, values=result) if differentiable else result


__all__ = ["binomial", "poisson"]

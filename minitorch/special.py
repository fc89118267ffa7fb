r"""``minitorch.special``, as ``torch.special``: special functions under SciPy's names.

Each name is the minitorch op that computes it (``gammaln`` is :func:`minitorch.lgamma`,
``expit`` is :func:`minitorch.sigmoid`) or one of the ops of
:mod:`minitorch.ops.elementwise_special` (``erfcx``, ``i0e``, ``log_ndtr``, ``entr``, ...), so
every function has its gradient and runs on every backend.
"""

from __future__ import annotations

from typing import Any, Optional

from .nn.functional.activation import log_softmax as _log_softmax
from .nn.functional.activation import softmax as _softmax
from .ops.elementwise import erf, erfc, erfinv, exp2, expm1, log1p, round
from .ops.elementwise_special import (
    digamma, entr, erfcx, i0, i0e, i1, i1e, lgamma, log_ndtr, mvlgamma, ndtr, polygamma, xlog1py,
)
from .ops.elementwise_special import _special_input
from .ops.numpy_like import logit as _logit
from .ops.numpy_like import sinc as _sinc
from .ops.numpy_like import xlogy as _xlogy
from .ops.reductions_extra import logsumexp
from .ops.elementwise import _into
from .ops.ndtri import ndtri
from .tensor import Tensor

__all__ = [
    "gammaln", "digamma", "psi", "polygamma", "multigammaln", "erf", "erfc", "erfcx", "erfinv", "expit", "logit",
    "ndtr", "log_ndtr", "xlogy", "xlog1py", "entr", "sinc", "logsumexp", "softmax", "log_softmax", "round", "exp2",
    "expm1", "log1p", "i0", "i0e", "i1", "i1e", "ndtri",
]

gammaln = lgamma
psi = digamma
multigammaln = mvlgamma


def expit(input: Tensor, *, out: Optional[Tensor] = None) -> Tensor:  # noqa: A002 - PyTorch's names
    r""":math:`1 / (1 + e^{-x})`, the logistic sigmoid."""
    return _into(_special_input("expit", input).sigmoid(), out, "expit")


def logit(input: Tensor, eps: Optional[float] = None, *, out: Optional[Tensor] = None) -> Tensor:  # noqa: A002
    r""":math:`\ln\frac{p}{1-p}`, with :math:`p` clamped to :math:`[\epsilon, 1-\epsilon]` when ``eps`` is given."""
    return _into(_logit(_special_input("logit", input), eps), out, "logit")


def xlogy(input: Any, other: Any, *, out: Optional[Tensor] = None) -> Tensor:  # noqa: A002
    r""":math:`x \ln y`, 0 where :math:`x = 0` (unless :math:`y` is NaN)."""
    return _into(_xlogy(input, other), out, "xlogy")


def sinc(input: Tensor, *, out: Optional[Tensor] = None) -> Tensor:  # noqa: A002
    r""":math:`\sin(\pi x) / (\pi x)`, 1 at 0."""
    return _into(_sinc(_special_input("sinc", input)), out, "sinc")


def softmax(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:  # noqa: A002
    r""":math:`e^{x_i} / \sum_j e^{x_j}` along ``dim``."""
    return _softmax(input, dim, dtype=dtype)


def log_softmax(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:  # noqa: A002
    r""":math:`x_i - \ln \sum_j e^{x_j}` along ``dim``."""
    return _log_softmax(input, dim, dtype=dtype)

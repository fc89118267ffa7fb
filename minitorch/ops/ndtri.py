r"""``special.ndtri``: the inverse of the standard normal CDF, :math:`\Phi^{-1}(p)`.

Computed in float64 from the ops minitorch already has: by symmetry on :math:`q = \min(p, 1-p)`
(:math:`1 - p` is exact for :math:`p \ge 1/2`), a first guess (:math:`\sqrt2\,\mathrm{erfinv}(2q-1)`,
or in the far tail, where :math:`2q - 1` rounds to :math:`-1`, the asymptote of
:math:`\ln\Phi(x) \approx -x^2/2 - \ln|x| - \tfrac12\ln 2\pi`), then Newton's steps on
:math:`\ln\Phi(x) = \ln q`. :math:`\ln\Phi` is concave, so the steps close in from below and
converge quadratically. :math:`\Phi^{-1}(0) = -\infty`, :math:`\Phi^{-1}(1) = \infty`, NaN outside
:math:`[0, 1]`.

.. math:: \frac{d}{dp}\Phi^{-1}(p) = \sqrt{2\pi}\, e^{\Phi^{-1}(p)^2/2}
"""

from __future__ import annotations

import math
from typing import Optional

from .. import dtypes
from ..autograd.function import Context, Function
from ..tensor import Tensor, where
from .elementwise import _into
from .elementwise_special import SQRT_2_OVER_PI, Erfcx, LogNdtr, _special_input

#: :math:`\sqrt{2\pi}`, in the derivative :math:`\sqrt{2\pi}\,e^{x^2/2}`
SQRT_2PI = math.sqrt(2.0 * math.pi)
LOG_2PI = math.log(2.0 * math.pi)
SQRT_2 = math.sqrt(2.0)
#: below this :math:`q` the first guess is the tail's asymptote (:math:`2q - 1` has lost
#: most of :math:`q`'s digits there); above it :math:`\sqrt2\,\mathrm{erfinv}(2q-1)`
TAIL_SPLIT = 1e-3
#: Newton's steps from either first guess: enough for float64's precision over all of (0, 1/2]
NEWTON_STEPS = 4
#: the dtypes PyTorch's ndtri kernel takes
KERNEL_DTYPES = (dtypes.float32, dtypes.float64)


def _lower_half(q: Tensor) -> Tensor:
    r""":math:`\Phi^{-1}(q)` for float64 :math:`q \in (0, 1/2]` (other values give anything)."""
    inside = (q > 0) & (q <= 0.5)
    q = where(inside, q, 0.5)  # keeps the steps finite where the answer comes from elsewhere
    log_q = q.log()
    tail = -2.0 * log_q
    guess_tail = -(tail - tail.log() - LOG_2PI).clamp_min(0.0).sqrt()
    x = where(q < TAIL_SPLIT, guess_tail, (2.0 * q - 1.0).erfinv() * SQRT_2)
    for _ in range(NEWTON_STEPS):
        slope = SQRT_2_OVER_PI / Erfcx.apply(x * (-1.0 / SQRT_2))  # d/dx ln Phi(x)
        x = x - (LogNdtr.apply(x) - log_q) / slope
    return where(q == 0.5, 0.0, x)


def _ndtri(p: Tensor) -> Tensor:
    r""":math:`\Phi^{-1}(p)` in ``p``'s dtype, computed in float64."""
    wide = p.to(dtypes.float64)
    upper = wide > 0.5
    x = _lower_half(where(upper, 1.0 - wide, wide))
    x = where(upper, -x, x)
    x = where(wide == 0, -math.inf, where(wide == 1, math.inf, x))
    x = where((wide < 0) | (wide > 1) | (wide != wide), math.nan, x)
    return x.to(p.dtype)


class Ndtri(Function):
    r""":math:`f(p) = \Phi^{-1}(p),\quad f'(p) = \sqrt{2\pi}\,e^{f(p)^2/2}`"""

    grad_fn_name = "SpecialNdtriBackward0"

    @staticmethod
    def forward(ctx: Context, a: Tensor) -> Tensor:
        out = _ndtri(a)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> Tensor:
        (out,) = ctx.saved_tensors
        return grad * SQRT_2PI * (out * out * 0.5).exp()


def ndtri(input: Tensor, *, out: Optional[Tensor] = None) -> Tensor:  # noqa: A002 - PyTorch's names
    r""":math:`\Phi^{-1}(p)`, the argument at which the standard normal CDF is ``input``."""
    p = _special_input("special_ndtri", input)
    if p.dtype not in KERNEL_DTYPES:
        raise NotImplementedError(f"\"ndtri_{p.device.type}\" not implemented for '{dtypes.scalar_type_name(p.dtype)}'")
    return _into(Ndtri.apply(p), out, "special_ndtri")

r"""The special functions: the gamma family, modified Bessel functions, erfcx and the normal
distribution's log-CDF, as autograd Functions with forward and backward side by side.

The scalar bodies of ``lgamma``, ``digamma``, ``polygamma`` (:math:`n \ge 1`), ``i0``,
``i0e``, ``i1``, ``i1e`` and ``erfcx`` are op codes of ``backends/opcodes.py``, so the simple,
cpu and cuda backends share them. Each backward is written with tensor ops, so it is itself
differentiable (second derivatives of ``lgamma`` and ``digamma`` come from ``polygamma``).
Composites (``mvlgamma``, ``log_ndtr``, ``ndtr``, ``entr``, ``xlog1py``) are built from them.
The ``Tensor`` methods PyTorch has (``lgamma``, ``digamma``, ``polygamma``, ``mvlgamma``,
``i0``) are attached here; :mod:`minitorch.special` exposes everything under PyTorch's names.
"""

from __future__ import annotations

import math
from numbers import Integral
from typing import Any

from .. import dtypes
from ..autograd.composite import composite
from ..autograd.function import Context, Function
from ..creation import full, tensor
from ..dispatch import map_op, zip_op
from ..shapes import check_storage_size
from ..tensor import Tensor, add_tensor_methods, result_dtype, where
from .elementwise import _floating, _into

#: :math:`2/\sqrt\pi`, minus the slope of erfcx at 0
TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
#: :math:`1/\sqrt2`: :math:`\Phi(x) = \tfrac12 \mathrm{erfc}(-x/\sqrt2)`
INV_SQRT_2 = 1.0 / math.sqrt(2.0)
#: :math:`\sqrt{2/\pi}`: :math:`\tfrac{d}{dx}\ln\Phi(x) = \sqrt{2/\pi} / \mathrm{erfcx}(-x/\sqrt2)`
SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
#: below this ``log_ndtr`` takes :math:`\ln(\mathrm{erfcx}(-x/\sqrt2)/2) - x^2/2` (no underflow);
#: above it :math:`\mathrm{log1p}(-\tfrac12\mathrm{erfc}(x/\sqrt2))` (no cancellation)
LOG_NDTR_SPLIT = -1.0
LOG_PI = math.log(math.pi)


# ---- the gamma family ----


class Lgamma(Function):
    r""":math:`f(a) = \ln|\Gamma(a)|,\quad f'(a) = \psi(a)` (digamma); :math:`+\infty` at the poles"""

    @staticmethod
    def forward(ctx: Context, a: Tensor) -> Tensor:
        ctx.save_for_backward(a)
        return map_op("lgamma", a)

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> Tensor:
        (a,) = ctx.saved_tensors
        return grad * Digamma.apply(a)


class Digamma(Function):
    r""":math:`\psi(a) = \Gamma'(a)/\Gamma(a),\quad \psi'(a) = \psi^{(1)}(a)` (trigamma)"""

    @staticmethod
    def forward(ctx: Context, a: Tensor) -> Tensor:
        ctx.save_for_backward(a)
        return map_op("digamma", a)

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> Tensor:
        (a,) = ctx.saved_tensors
        return grad * Polygamma.apply(a, 1)


class Polygamma(Function):
    r""":math:`\psi^{(n)}(a) = \frac{d^n}{da^n}\psi(a) = (-1)^{n+1} n!\,\zeta(n + 1, a)` for
    :math:`n \ge 1` (Hurwitz zeta), :math:`\psi` for :math:`n = 0`;
    :math:`\frac{d}{da}\psi^{(n)}(a) = \psi^{(n+1)}(a)`"""

    @staticmethod
    def forward(ctx: Context, a: Tensor, n: int) -> Tensor:
        ctx.save_for_backward(a)
        ctx.n = n
        if n == 0:
            return map_op("digamma", a)
        return zip_op("polygamma", a, full((), float(n), dtype=a.dtype, device=a.device))

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Tensor, None]:
        (a,) = ctx.saved_tensors
        return grad * Polygamma.apply(a, ctx.n + 1), None


# ---- modified Bessel functions of the first kind ----


class I0(Function):
    r""":math:`I_0(a) = \sum_k \frac{(a/2)^{2k}}{(k!)^2},\quad I_0'(a) = I_1(a)`"""

    @staticmethod
    def forward(ctx: Context, a: Tensor) -> Tensor:
        ctx.save_for_backward(a)
        return map_op("i0", a)

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> Tensor:
        (a,) = ctx.saved_tensors
        return grad * I1.apply(a)


class I0e(Function):
    r""":math:`f(a) = e^{-|a|} I_0(a),\quad f'(a) = e^{-|a|} I_1(a) - \operatorname{sign}(a) f(a)`"""

    grad_fn_name = "SpecialI0EBackward0"

    @staticmethod
    def forward(ctx: Context, a: Tensor) -> Tensor:
        out = map_op("i0e", a)
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> Tensor:
        a, out = ctx.saved_tensors
        return grad * (I1e.apply(a) - a.sign() * out)


def _over_a(value: Tensor, a: Tensor) -> Tensor:
    r""":math:`\mathrm{value}/a`, and :math:`1/2` where :math:`a = 0` (the limit of
    :math:`I_1(a)/a` and :math:`e^{-|a|}I_1(a)/a`)."""
    zero = a == 0
    return where(zero, 0.5, value / where(zero, 1.0, a))


class I1(Function):
    r""":math:`I_1(a) = \sum_k \frac{(a/2)^{2k+1}}{k!\,(k+1)!},\quad I_1'(a) = I_0(a) - I_1(a)/a`
    (:math:`1/2` at 0)"""

    grad_fn_name = "SpecialI1Backward0"

    @staticmethod
    def forward(ctx: Context, a: Tensor) -> Tensor:
        out = map_op("i1", a)
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> Tensor:
        a, out = ctx.saved_tensors
        return grad * (I0.apply(a) - _over_a(out, a))


class I1e(Function):
    r""":math:`f(a) = e^{-|a|} I_1(a),\quad f'(a) = e^{-|a|} I_0(a) - f(a)\,(\operatorname{sign}(a) + 1/a)`
    (:math:`1/2` at 0)"""

    grad_fn_name = "SpecialI1EBackward0"

    @staticmethod
    def forward(ctx: Context, a: Tensor) -> Tensor:
        out = map_op("i1e", a)
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> Tensor:
        a, out = ctx.saved_tensors
        return grad * (I0e.apply(a) - a.sign() * out - _over_a(out, a))


# ---- the error function's relatives ----


class Erfcx(Function):
    r""":math:`f(a) = e^{a^2}\mathrm{erfc}(a)`, the scaled complementary error function;
    :math:`f'(a) = 2a f(a) - 2/\sqrt\pi`"""

    grad_fn_name = "SpecialErfcxBackward0"

    @staticmethod
    def forward(ctx: Context, a: Tensor) -> Tensor:
        out = map_op("erfcx", a)
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> Tensor:
        a, out = ctx.saved_tensors
        return grad * (a * out * 2 - TWO_OVER_SQRT_PI)


class LogNdtr(Function):
    r""":math:`f(a) = \ln\Phi(a)`, :math:`\Phi(a) = \tfrac12\mathrm{erfc}(-a/\sqrt2)` the standard
    normal CDF: :math:`\ln(\mathrm{erfcx}(-a/\sqrt2)/2) - a^2/2` below ``LOG_NDTR_SPLIT``
    (accurate where :math:`\Phi` underflows), :math:`\mathrm{log1p}(-\tfrac12\mathrm{erfc}(a/\sqrt2))`
    above; :math:`f'(a) = \varphi(a)/\Phi(a) = \sqrt{2/\pi}\,/\,\mathrm{erfcx}(-a/\sqrt2)`"""

    grad_fn_name = "SpecialLogNdtrBackward0"

    @staticmethod
    def forward(ctx: Context, a: Tensor) -> Tensor:
        ctx.save_for_backward(a)
        left = (Erfcx.apply(a * -INV_SQRT_2) * 0.5).log() - a * a * 0.5
        right = ((a * INV_SQRT_2).erfc() * -0.5).log1p()
        return where(a >= LOG_NDTR_SPLIT, right, left)  # log_ndtr(30) is -0.0, as log1p(-0.0)

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> Tensor:
        (a,) = ctx.saved_tensors
        return grad * SQRT_2_OVER_PI / Erfcx.apply(a * -INV_SQRT_2)


class Entr(Function):
    r""":math:`f(a) = -a \ln a` for :math:`a > 0`, :math:`0` at 0, :math:`-\infty` below (NaN stays);
    :math:`f'(a) = -(1 + \ln a)`"""

    grad_fn_name = "SpecialEntrBackward0"

    @staticmethod
    def forward(ctx: Context, a: Tensor) -> Tensor:
        ctx.save_for_backward(a)
        positive = a > 0
        inside = -a * where(positive, a, 1.0).log()
        return where(positive, inside, where(a == 0, 0.0, where(a < 0, -math.inf, a)))  # entr(1) is -0.0

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> Tensor:
        (a,) = ctx.saved_tensors
        return grad * -(a.log() + 1)


class Xlog1py(Function):
    r""":math:`f(x, y) = x\,\mathrm{log1p}(y)`, 0 where :math:`x = 0` unless :math:`y` is NaN;
    :math:`\partial_x f = \mathrm{log1p}(y)` (0 where :math:`x = 0,\ y \le -1`, as PyTorch),
    :math:`\partial_y f = x / (1 + y)`"""

    grad_fn_name = "SpecialXlog1PyBackward0"

    @staticmethod
    def forward(ctx: Context, x: Tensor, y: Tensor) -> Tensor:
        ctx.save_for_backward(x, y)
        product = x * y.log1p()
        return where((x == 0) & (y == y), 0.0, product)

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Tensor, Tensor]:
        x, y = ctx.saved_tensors
        grad_x = where((x == 0) & (y <= -1), 0.0, grad * y.log1p())
        return grad_x, grad * x / (y + 1)


# ---- Tensor methods and functions ----


def _special_input(op: str, value: Any) -> Tensor:
    """``value`` as a floating tensor (PyTorch's special functions take integers as float)."""
    if not isinstance(value, Tensor):
        raise TypeError(f"{op}(): argument 'input' (position 1) must be Tensor, not {type(value).__name__}")
    return _floating(value)


def _polygamma_order(n: Any) -> int:
    """``n``, which must be a whole number :math:`\\ge 0` (PyTorch's errors otherwise)."""
    if isinstance(n, bool) or not isinstance(n, Integral):
        raise TypeError(f"polygamma(): argument 'n' (position 1) must be int, not {type(n).__name__}")
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    return int(n)


class SpecialMethods:
    """The special-function methods of :class:`~minitorch.tensor.Tensor` that PyTorch has."""

    def lgamma(self: Tensor) -> Tensor:
        return Lgamma.apply(_floating(self))

    def digamma(self: Tensor) -> Tensor:
        return Digamma.apply(_floating(self))

    def polygamma(self: Tensor, n: int) -> Tensor:
        return Polygamma.apply(_floating(self), _polygamma_order(n))

    def mvlgamma(self: Tensor, p: int) -> Tensor:
        return mvlgamma(self, p)

    def i0(self: Tensor) -> Tensor:
        return I0.apply(_floating(self))


add_tensor_methods({name: method for name, method in vars(SpecialMethods).items() if not name.startswith("__")})


def lgamma(input: Tensor, *, out: Tensor | None = None) -> Tensor:  # noqa: A002 - PyTorch's names
    return _into(_special_input("lgamma", input).lgamma(), out, "lgamma")


def digamma(input: Tensor, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
    return _into(_special_input("digamma", input).digamma(), out, "digamma")


def polygamma(n: int, input: Tensor, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
    return _into(_special_input("polygamma", input).polygamma(n), out, "polygamma")


def mvlgamma(input: Tensor, p: int, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
    r"""The log of the multivariate gamma function of dimension :math:`p`:
    :math:`\ln\Gamma_p(a) = \tfrac{p(p-1)}{4}\ln\pi + \sum_{i=0}^{p-1} \ln\Gamma(a - i/2)`."""
    if isinstance(p, bool) or not isinstance(p, Integral):
        raise TypeError(f"mvlgamma(): argument 'p' (position 2) must be int, not {type(p).__name__}")
    if isinstance(input, Tensor) and input.dtype is dtypes.bool_:
        raise RuntimeError("The input tensor may not be a boolean tensor.")
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    a = _special_input("mvlgamma", input)
    check_storage_size((p,), a.dtype.itemsize)  # PyTorch's p offsets; a loop over p terms would never end

    def multivariate(x: Tensor) -> Tensor:
        total = x.lgamma()
        for i in range(1, p):
            total = total + (x - i / 2).lgamma()
        return total + p * (p - 1) / 4 * LOG_PI

    return _into(composite("MvlgammaBackward0", multivariate, a), out, "mvlgamma")


def i0(input: Tensor, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
    return _into(_special_input("i0", input).i0(), out, "i0")


def i0e(input: Tensor, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
    return _into(I0e.apply(_special_input("i0e", input)), out, "i0e")


def i1(input: Tensor, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
    return _into(I1.apply(_special_input("i1", input)), out, "i1")


def i1e(input: Tensor, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
    return _into(I1e.apply(_special_input("i1e", input)), out, "i1e")


def erfcx(input: Tensor, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
    return _into(Erfcx.apply(_special_input("erfcx", input)), out, "erfcx")


def ndtr(input: Tensor, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
    r""":math:`\Phi(x) = \tfrac12\mathrm{erfc}(-x/\sqrt2)`, the standard normal CDF."""
    return _into((_special_input("ndtr", input) * -INV_SQRT_2).erfc() * 0.5, out, "ndtr")


def log_ndtr(input: Tensor, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
    return _into(LogNdtr.apply(_special_input("log_ndtr", input)), out, "log_ndtr")


def entr(input: Tensor, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
    return _into(Entr.apply(_special_input("entr", input)), out, "entr")


def xlog1py(input: Any, other: Any, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
    r""":math:`x\,\mathrm{log1p}(y)`, 0 where :math:`x = 0` (unless :math:`y` is NaN); either may be a number."""
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        raise TypeError("xlog1py(): expected at least one of 'input' and 'other' to be a Tensor")
    dtype = result_dtype(input, other)
    if not dtype.is_floating_point:
        dtype = dtypes.get_default_dtype()
    like = input if isinstance(input, Tensor) else other
    x, y = (v.to(dtype) if isinstance(v, Tensor) else tensor(float(v), dtype=dtype, device=like.device)
            for v in (input, other))
    return _into(Xlog1py.apply(x, y), out, "xlog1py")

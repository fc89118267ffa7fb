r"""The autograd Functions of the later elementwise ops (issue 17), composed from existing kernels.

``sign`` with its zero gradient, ``clamp`` with tensor bounds, ``lerp``, ``logaddexp``,
``nan_to_num`` and ``prod``. Each forward runs with grad mode off, so it may use Tensor
methods freely; each backward is the calculus of one element (the engine sums a gradient
back to its input's broadcast shape). The public functions and methods are in
:mod:`minitorch.ops.elementwise_extra`; ``Tensor.sign`` and ``Tensor.clamp`` call in here.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Optional, Sequence

from ..autograd.function import Context, Function
from ..autograd.grad_mode import is_grad_enabled
from ..dispatch import map_op, mul_add_op, reduce_op

if TYPE_CHECKING:  # tensor.py imports this module
    from ..tensor import Tensor

#: lerp switches formula at this :math:`|w|`, so both ends are reached exactly
LERP_SWITCH = 0.5


def describe_call(args: Sequence[Any], kwargs: dict[str, Any], method: bool = False) -> str:
    """How PyTorch's argument parser lists the types of a call: ``Tensor, max=float, min=Tensor``
    (for a method, whose ``self`` is not listed, each keyword is followed by a comma, as there)."""

    def name(value: Any) -> str:
        return type(value).__name__

    listed = [name(a) for a in args] + [f"{k}={name(v)}" for k, v in sorted(kwargs.items())]
    return "".join(f"{item}, " for item in listed) if method else ", ".join(listed)


def invalid_combination(op: str, args: Sequence[Any], kwargs: dict[str, Any], signatures: Sequence[str],
                        method: bool = False) -> TypeError:
    """PyTorch's error for a call that matches none of ``op``'s overloads."""
    listed = "".join(f" * ({s})\n" for s in signatures)
    return TypeError(
        f"{op}() received an invalid combination of arguments - got ({describe_call(args, kwargs, method)}), "
        f"but expected one of:\n{listed}"
    )


class Sign(Function):
    r""":math:`\operatorname{sign}(a) \in \{-1, 0, 1\}` (NaN stays NaN); its gradient is 0."""

    @staticmethod
    def forward(ctx: Context, a: Tensor) -> Tensor:
        return map_op("sign", a)

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> Tensor:
        return grad.new_zeros(grad.shape)


class ClampTensor(Function):
    r""":math:`\min(\max(a, \mathrm{low}), \mathrm{high})` with tensor bounds (either may be None),
    all broadcast together. The gradient goes to ``a`` where
    :math:`\mathrm{low} \le a \le \mathrm{high}`, to ``low`` where :math:`a < \mathrm{low}` (and
    :math:`\mathrm{low} < \mathrm{high}`), to ``high`` where :math:`a > \mathrm{high}` (or the
    bounds cross, when ``high`` wins): each element's gradient goes to the input it came from."""

    grad_fn_name = "ClampBackward0"

    @staticmethod
    def forward(ctx: Context, a: Tensor, low: Optional[Tensor], high: Optional[Tensor]) -> Tensor:
        ctx.save_for_backward(a, low, high)
        out = a if low is None else a.maximum(low)
        return out if high is None else out.minimum(high)

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Optional[Tensor], Optional[Tensor], Optional[Tensor]]:
        a, low, high = ctx.saved_tensors
        inside = above_low = below_high = None
        if low is not None:
            inside = a >= low
            above_low = a < low if high is None else (a < low) & (low < high)
        if high is not None:
            inside = (a <= high) if inside is None else inside & (a <= high)
            below_high = a > high if low is None else (a > high) | (high < low)
        zero = grad.new_zeros(())
        return (
            grad.where(inside, zero) if ctx.needs_input_grad[0] else None,
            grad.where(above_low, zero) if low is not None and ctx.needs_input_grad[1] else None,
            grad.where(below_high, zero) if high is not None and ctx.needs_input_grad[2] else None,
        )


class Lerp(Function):
    r""":math:`\mathrm{lerp}(s, e, w) = s + w\,(e - s)`, computed as :math:`e + (w - 1)(e - s)` when
    :math:`|w| \ge 1/2` so that :math:`w = 1` gives :math:`e` exactly, each with one fused
    multiply-add after the difference, as PyTorch's kernel;
    :math:`\partial_s = 1 - w,\ \partial_e = w,\ \partial_w = e - s`. A number weight arrives as
    a 0-d tensor of the dtype of ``start`` with ``weight_is_number`` (PyTorch's ``LerpBackward0``)."""

    number_args = (2,)

    @staticmethod
    def forward(ctx: Context, start: Tensor, end: Tensor, weight: Tensor, weight_is_number: bool) -> Tensor:
        ctx.save_for_backward(start, end, weight)
        ctx.grad_fn_name = "LerpBackward0" if weight_is_number else "LerpBackward1"
        diff = end - start
        if weight_is_number:  # one formula for every element
            small = abs(weight.item()) < LERP_SWITCH
            return mul_add_op(weight, diff, start) if small else mul_add_op(weight - 1, diff, end)
        small = weight.abs() < LERP_SWITCH
        return mul_add_op(weight.where(small, weight - 1), diff, start.where(small, end))

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Optional[Tensor], Optional[Tensor], Optional[Tensor], None]:
        start, end, w = ctx.saved_tensors
        needs = ctx.needs_input_grad
        return (
            grad * (1 - w) if needs[0] else None,
            grad * w if needs[1] else None,
            grad * (end - start) if needs[2] else None,
            None,
        )


class MulAdd(Function):
    r""":math:`f(a, b, c) = ab + c` rounded once (``addcmul``'s arithmetic):
    :math:`\partial_a f = b,\ \partial_b f = a,\ \partial_c f = 1`."""

    @staticmethod
    def forward(ctx: Context, a: Tensor, b: Tensor, c: Tensor) -> Tensor:
        ctx.save_for_backward(b if ctx.needs_input_grad[0] else None, a if ctx.needs_input_grad[1] else None)
        return mul_add_op(a, b, c)

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Optional[Tensor], Optional[Tensor], Tensor]:
        b, a = ctx.saved_tensors
        return grad * b if b is not None else None, grad * a if a is not None else None, grad


class LogAddExp(Function):
    r""":math:`\log(e^a + e^b) = \max(a, b) + \log\!\left(1 + e^{-|a - b|}\right)`, which never
    overflows (equal infinities give themselves);
    :math:`\partial_a = 1 / (1 + e^{b - a}),\ \partial_b = 1 / (1 + e^{a - b})`."""

    grad_fn_name = "LogaddexpBackward0"

    @staticmethod
    def forward(ctx: Context, a: Tensor, b: Tensor) -> Tensor:
        ctx.save_for_backward(a, b)
        out = a.maximum(b) + (-(a - b).abs()).exp().log1p()
        same_infinity = (a.abs() == math.inf) & (a == b)
        return a.where(same_infinity, out)

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Tensor, Tensor]:
        a, b = ctx.saved_tensors
        return grad / (1 + (b - a).exp()), grad / (1 + (a - b).exp())


class LogAddExp2(Function):
    r""":math:`\log_2(2^a + 2^b) = \max(a, b) + \log_2\!\left(1 + 2^{-|a - b|}\right)`, as PyTorch's
    kernel forms it (equal infinities give themselves, so :math:`(\infty, x)` is :math:`\infty`);
    :math:`\partial_a = 1 / (1 + 2^{b - a}),\ \partial_b = 1 / (1 + 2^{a - b})`."""

    grad_fn_name = "Logaddexp2Backward0"

    @staticmethod
    def forward(ctx: Context, a: Tensor, b: Tensor) -> Tensor:
        ctx.save_for_backward(a, b)
        out = a.maximum(b) + (-(a - b).abs()).exp2().log1p() * (1.0 / math.log(2.0))
        same_infinity = (a.abs() == math.inf) & (a == b)
        return a.where(same_infinity, out)

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Tensor, Tensor]:
        a, b = ctx.saved_tensors
        return grad / (1 + (b - a).exp2()), grad / (1 + (a - b).exp2())


class Logit(Function):
    r""":math:`\log\frac{p}{1 - p}` of ``p`` (clamped to :math:`[\epsilon, 1 - \epsilon]` when ``eps`` is
    given), with PyTorch's gradient :math:`g / (p (1 - p))`: :math:`g \cdot \infty` at 0 and 1, and
    outside the range NaN (no ``eps``) or 0 (``eps``), not the clamp's and the log's chain."""

    grad_fn_name = "LogitBackward0"

    @staticmethod
    def forward(ctx: Context, a: Tensor, eps: Optional[float]) -> Tensor:
        ctx.save_for_backward(a)
        ctx.eps = eps
        p = a.clamp(eps, 1 - eps) if eps is not None else a
        return (p / (1 - p)).log()

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Tensor, None]:
        (a,) = ctx.saved_tensors
        eps = ctx.eps
        low, high = (0.0, 1.0) if eps is None else (eps, 1 - eps)
        at_edge = (a == 0) | (a == 1)  # PyTorch's g * inf there: g over +0, whatever the sign of a's zero
        inside = grad / a.new_zeros(()).where(at_edge, a * (1 - a))
        outside = (a < low) | (a > high)
        return inside.masked_fill(outside, math.nan if eps is None else 0.0), None


class NanToNum(Function):
    r"""NaN, :math:`+\infty` and :math:`-\infty` replaced by the given finite numbers; the gradient
    passes where the input was finite and is 0 where it was replaced."""

    grad_fn_name = "NanToNumBackward0"

    @staticmethod
    def forward(ctx: Context, a: Tensor, nan: float, posinf: float, neginf: float) -> Tensor:
        ctx.save_for_backward(a)
        out = a.new_tensor(nan).where(a != a, a)
        out = a.new_tensor(posinf).where(a == math.inf, out)
        return a.new_tensor(neginf).where(a == -math.inf, out)

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Tensor, None, None, None]:
        (a,) = ctx.saved_tensors
        finite = (a == a) & (a.abs() != math.inf)
        return grad * finite.to(grad.dtype), None, None, None


class Prod(Function):
    r""":math:`p = \prod_i a_i` along ``dim`` (all elements for None), with PyTorch's gradient
    :math:`\partial p / \partial a_i = \prod_{j \ne i} a_j`: :math:`p / a_i` when the input has no
    zero, else the exact product of the others, formed as (product of those before :math:`i`)
    :math:`\times` (product of those after it), both running products; over all elements with
    two zeros or more, and no graph of the backward asked for, zeros (PyTorch's shortcut)."""

    grad_fn_name = "ProdBackward0"

    @staticmethod
    def forward(ctx: Context, a: Tensor, dim: Optional[int], keepdim: bool) -> Tensor:
        ctx.dim, ctx.keepdim, ctx.shape = dim, keepdim, a.shape
        if dim is None:
            out = reduce_op("prod", a.reshape(-1), 0).view((1,) * a.dim() if keepdim else ())
        else:
            ctx.grad_fn_name = "ProdBackward1"
            out = reduce_op("prod", a, dim)
            out = out if keepdim else out.squeeze(dim)
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Tensor, None, None]:
        a, result = ctx.saved_tensors
        if a.dim() == 0:  # the product is the value itself: its gradient, even at nan or inf (PyTorch's too)
            return grad.view(()), None, None
        dim = ctx.dim
        if dim is not None and not ctx.keepdim:
            grad, result = grad.unsqueeze(dim), result.unsqueeze(dim)
        zeros = int((a == 0).sum())
        if zeros == 0:
            return grad * (result / a), None, None
        if dim is None:
            if zeros > 1 and not is_grad_enabled():
                return a.new_zeros(a.shape), None, None
            flat = _others_product(grad.reshape(()), a.reshape(-1), 0)
            return flat.reshape(a.shape), None, None
        return _others_product(grad, a, dim), None, None


def _others_product(grad: Tensor, a: Tensor, dim: int) -> Tensor:
    r""":math:`g \cdot \prod_{j < i} a_j \cdot \prod_{j > i} a_j` along ``dim``, each product a running
    one (PyTorch's ``prod_safe_zeros_backward``: exact at zeros, no division). Its running products
    are of :math:`(1, a_0, \dots, a_{n-2})` and of :math:`(1, a_{n-1}, \dots, a_1)`: ``a`` (flipped)
    rolled one place on, its first element replaced by 1."""
    size = a.shape[dim]
    if a.numel() == 0 or size == 1:
        return grad.expand(a.shape)
    first = (a.new_tensor([1] + [0] * (size - 1)) == 1).reshape([size if d == dim else 1 for d in range(a.dim())])
    one = a.new_ones(())
    before = one.where(first, a.roll(1, dim)).cumprod(dim)
    after = one.where(first, a.flip(dim).roll(1, dim)).cumprod(dim).flip(dim)
    return grad * (before * after)

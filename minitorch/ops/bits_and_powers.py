r"""Sign bits, float exponents and integer divisors: ``signbit``, ``copysign``, ``float_power``,
``ldexp``, ``frexp``, ``nextafter``, ``gcd`` and ``lcm`` (functions and Tensor methods).

The differentiable ones are compositions of existing ops, so autograd comes with them:

.. math:: \mathrm{copysign}(x, y) = |x| \cdot s_y, \quad \mathrm{ldexp}(x, e) = x \cdot 2^e,
          \quad \mathrm{float\_power}(x, e) = x_{f64}^{\,e_{f64}}

(:math:`s_y = \pm 1` from the sign bit of :math:`y`, a constant). ``copysign`` is one Function
with PyTorch's gradient: :math:`\mathrm{copysign}(x, y) / x` for :math:`x`, 0 where :math:`x = 0`
(so NaN at :math:`\pm\infty` and NaN), and zeros for :math:`y`. The others have no gradient in
PyTorch either and read the bits with NumPy.
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Union

import numpy as np

from .. import dtypes
from ..autograd.function import Context, Function
from ..creation import tensor as make_tensor
from ..return_types import frexp as frexp_result
from ..tensor import Tensor, add_tensor_methods, result_dtype, where
from .dtype_refusals import tensor_operand_method, tensor_operands

Operand = Union[Tensor, int, float, bool]


def _as_tensor(value: Operand, like: Tensor) -> Tensor:
    return value if isinstance(value, Tensor) else like.new_tensor(value, dtype=result_dtype(value))


def _host(t: Tensor) -> np.ndarray:
    return np.asarray(t.detach().cpu().numpy())


def _device_of(*operands: Operand) -> Any:
    return next(o.device for o in operands if isinstance(o, Tensor))


def _float_result(*operands: Operand) -> dtypes.dtype:
    """The promoted dtype, an integral or bool one raised to the default float (true division's rule)."""
    kind = result_dtype(*operands)
    return kind if kind.is_floating_point else dtypes.get_default_dtype()


#: ATen's names of the dtypes, as its error messages print them
_SCALAR_NAMES = {dtypes.float16: "Half", dtypes.float32: "Float", dtypes.float64: "Double", dtypes.int64: "Long",
                 dtypes.int32: "Int", dtypes.int16: "Short", dtypes.int8: "Char", dtypes.uint8: "Byte",
                 dtypes.bool_: "Bool", dtypes.bfloat16: "BFloat16"}


def _numpy_name(kind: dtypes.dtype) -> str:
    return _SCALAR_NAMES.get(kind, str(kind))


def _not_implemented(op: str, kind: dtypes.dtype) -> NotImplementedError:
    return NotImplementedError(f'"{op}_cpu" not implemented for \'{_numpy_name(kind)}\'')


def signbit(input: Tensor) -> Tensor:  # noqa: A002
    """True where the sign bit is set: negative numbers, ``-0.0`` and negative NaNs (bool)."""
    return make_tensor(np.signbit(_host(input)), dtype=dtypes.bool_, device=input.device)


class CopySign(Function):
    r""":math:`|x| \cdot s_y`; PyTorch's gradients: :math:`g \cdot \mathrm{copysign}(x, y) / x` for
    :math:`x` (0 where :math:`x = 0`, NaN at infinities and NaN) and zeros for :math:`y`."""

    grad_fn_name = "CopysignBackward0"

    @staticmethod
    def forward(ctx: Context, x: Tensor, y: Tensor) -> Tensor:
        sign = where(signbit(y), -1.0, 1.0).to(x.dtype)
        ctx.save_for_backward(x, y if ctx.needs_input_grad[1] else None)
        ctx.sign = sign
        return x.abs() * sign

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Optional[Tensor], Optional[Tensor]]:
        x, y = ctx.saved_tensors
        grad_x = None
        if ctx.needs_input_grad[0]:
            ratio = (x.abs() * ctx.sign) / x  # the result over the input, as PyTorch forms it
            grad_x = grad * ratio.masked_fill(x == 0, 0.0)
        return grad_x, (y.new_zeros(y.shape) if y is not None else None)


def copysign(input: Operand, other: Operand) -> Tensor:  # noqa: A002
    """``|input|`` with the sign (bit) of ``other``, broadcast; integers give the default float."""
    kind = _float_result(input, other)
    device = _device_of(input, other)
    x = _as_tensor(input, other).to(kind) if isinstance(input, Tensor) else make_tensor(input, dtype=kind, device=device)
    y = other if isinstance(other, Tensor) else make_tensor(other, dtype=kind, device=device)
    return CopySign.apply(x, y)


def float_power(input: Operand, exponent: Operand) -> Tensor:  # noqa: A002
    """``input ** exponent`` computed in double precision: the result is always float64."""
    device = _device_of(input, exponent)
    base = input.to(dtypes.float64) if isinstance(input, Tensor) else make_tensor(input, dtype=dtypes.float64, device=device)
    power = exponent.to(dtypes.float64) if isinstance(exponent, Tensor) else float(exponent)
    return base ** power


def ldexp(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    r""":math:`\mathrm{input} \cdot 2^{\mathrm{other}}`; integers give the default float."""
    scale = 2.0 ** other
    return input * scale


def frexp(input: Tensor) -> Any:  # noqa: A002
    r"""``(mantissa, exponent)`` with :math:`\mathrm{input} = \mathrm{mantissa} \cdot 2^{\mathrm{exponent}}`,
    :math:`0.5 \le |\mathrm{mantissa}| < 1`; the exponent is int32."""
    if not input.dtype.is_floating_point:
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    mantissa, exponent = np.frexp(_host(input))
    return frexp_result(make_tensor(mantissa, dtype=input.dtype, device=input.device),
                        make_tensor(exponent.astype(np.int32), dtype=dtypes.int32, device=input.device))


def nextafter(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    """The next floating-point value after ``input`` towards ``other``, in their promoted float dtype."""
    kind = result_dtype(input, other)
    if not kind.is_floating_point:
        raise _not_implemented("nextafter", kind)
    values = np.nextafter(_host(input).astype(kind.numpy), _host(other).astype(kind.numpy))
    return make_tensor(values, dtype=kind, device=input.device)


def _integer_op(op: str, compute: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> Callable[..., Tensor]:
    def function(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
        kind = result_dtype(input, other)
        if kind.is_floating_point or kind == dtypes.bool_:
            raise _not_implemented(op, kind)
        a = _host(input) if isinstance(input, Tensor) else np.asarray(input)
        b = _host(other) if isinstance(other, Tensor) else np.asarray(other)
        return make_tensor(compute(a, b), dtype=kind, device=_device_of(input, other))

    function.__name__ = function.__qualname__ = op
    return function


gcd = _integer_op("gcd", np.gcd)
gcd.__doc__ = "The greatest common divisor of each pair of integers (non-negative; ``gcd(0, 0) = 0``)."
lcm = _integer_op("lcm", np.lcm)
lcm.__doc__ = "The least common multiple of each pair of integers (non-negative)."


def _in_place(function: Callable[..., Tensor], name: str, keep_dtype: bool = True) -> Callable[..., Tensor]:
    def method(self: Tensor, other: Any) -> Tensor:
        result = function(self, other)
        if result.dtype != self.dtype:
            raise RuntimeError(f"result type {_numpy_name(result.dtype)} can't be cast to the desired output type "
                               f"{_numpy_name(self.dtype)}")
        return self.copy_(result)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"In-place :func:`{function.__name__}`."
    return method


def _float_power_(self: Tensor, exponent: Operand) -> Tensor:
    if self.dtype != dtypes.float64:
        raise RuntimeError(f"the base given to float_power_ has dtype {_numpy_name(self.dtype)} but the "
                           "operation's result requires dtype Double")
    return self.copy_(float_power(self, exponent))


gcd, lcm, ldexp, nextafter = (tensor_operands(f) for f in (gcd, lcm, ldexp, nextafter))

FUNCTIONS = {function.__name__: function for function in (
    copysign, float_power, frexp, gcd, lcm, ldexp, nextafter, signbit,
)}

add_tensor_methods(dict(FUNCTIONS) | {f.__name__: tensor_operand_method(f) for f in (gcd, lcm, ldexp, nextafter)})
add_tensor_methods({
    "copysign_": _in_place(copysign, "copysign_"),
    "gcd_": _in_place(gcd, "gcd_"),
    "lcm_": _in_place(lcm, "lcm_"),
    "ldexp_": _in_place(ldexp, "ldexp_"),
    "nextafter_": _in_place(nextafter, "nextafter_"),
    "float_power_": _float_power_,
})

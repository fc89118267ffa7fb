r"""The everyday elementwise API of issue 17 as top-level functions and Tensor methods.

Top-level forms of methods Tensor already had (``torch.neg``, ``torch.eq``, ``torch.amax``,
``torch.t``, ...), with ``out=`` where PyTorch has it, and the ops new here: ``clamp_min``/
``clamp_max``, ``lerp``, ``logaddexp``, ``nan_to_num``, ``isnan``/``isinf``/``isfinite``,
``addcmul``/``addcdiv``, ``logical_xor``, ``prod``, ``sgn``. Each is composed from Tensor
methods and the Functions of :mod:`minitorch.ops.elementwise_extra_functions`, so autograd
and every backend come for free. The new methods are attached with ``add_tensor_methods``.
"""

from __future__ import annotations

import math
from functools import partial
from numbers import Number
from typing import Any, Optional, Sequence

import numpy as np

from .. import dtypes
from ..autograd.composite import composite
from ..dispatch import mul_add_op, zip_op
from ..keywords import accepts_numpy_names
from ..shapes import normalize_dim
from ..tensor_data import shape_broadcast
from ..tensor import Tensor, _named, _shares_memory, add_tensor_methods, result_dtype
from .elementwise import _into
from .elementwise_extra_functions import LERP_SWITCH, LogAddExp, Lerp, MulAdd, NanToNum, Prod, Sign, invalid_combination
from .opmath import in_float32, is_sixteen_bit

# ---- argument checks with PyTorch's wording ----


def _tensor(op: str, value: Any, name: str = "input", position: int = 1) -> Tensor:
    """``value``, which must be a tensor (PyTorch's error otherwise)."""
    if not isinstance(value, Tensor):
        raise TypeError(f"{op}(): argument '{name}' (position {position}) must be Tensor, not {type(value).__name__}")
    return value


def _is_number(value: Any) -> bool:
    return isinstance(value, (Number, np.generic)) and not isinstance(value, complex)


def _tensor_or_number(op: str, args: tuple[Any, ...], signatures: Sequence[str]) -> None:
    """Raise PyTorch's overload error unless ``args`` are a tensor then a tensor or a number."""
    first, other = args
    if not isinstance(first, Tensor) or not (isinstance(other, Tensor) or _is_number(other)):
        raise invalid_combination(op, args, {}, signatures)


def _float_only(op: str, t: Tensor) -> None:
    """PyTorch's error for an op with float kernels only, given an integer or bool tensor."""
    if not t.dtype.is_floating_point:
        raise NotImplementedError(f'"{op}" not implemented for \'{dtypes.scalar_type_name(t.dtype)}\'')


# ---- one operand: top-level forms of Tensor's methods ----


def neg(input: Tensor, *, out: Optional[Tensor] = None) -> Tensor:  # noqa: A002 - PyTorch's names
    return _into(_tensor("neg", input).neg(), out, "neg")


negative = neg


def reciprocal(input: Tensor, *, out: Optional[Tensor] = None) -> Tensor:  # noqa: A002
    r""":math:`1/x` (integers give the default float dtype)."""
    return _into(_tensor("reciprocal", input).reciprocal(), out, "reciprocal")


def rsqrt(input: Tensor, *, out: Optional[Tensor] = None) -> Tensor:  # noqa: A002
    r""":math:`1/\sqrt{x}`."""
    return _into(_tensor("rsqrt", input).rsqrt(), out, "rsqrt")


def square(input: Tensor, *, out: Optional[Tensor] = None) -> Tensor:  # noqa: A002
    return _into(_tensor("square", input).square(), out, "square")


def sign(input: Tensor, *, out: Optional[Tensor] = None) -> Tensor:  # noqa: A002
    r""":math:`\operatorname{sign}(x) \in \{-1, 0, 1\}`; the gradient is 0."""
    return _into(_tensor("sign", input).sign(), out, "sign")


def sgn(input: Tensor, *, out: Optional[Tensor] = None) -> Tensor:  # noqa: A002
    """``sign`` (``sgn`` differs from it for complex numbers only, which minitorch does not have)."""
    return _into(_named(Sign.apply(_tensor("sgn", input)), "SgnBackward0"), out, "sgn")


def t(input: Tensor) -> Tensor:  # noqa: A002
    return _tensor("t", input).t()


def broadcast_to(input: Tensor, size: Sequence[int]) -> Tensor:  # noqa: A002
    return _tensor("broadcast_to", input).broadcast_to(size)


@accepts_numpy_names
def amax(input: Tensor, dim: Any = (), keepdim: bool = False, *, out: Optional[Tensor] = None) -> Tensor:  # noqa: A002
    """Largest value over ``dim`` (all dims by default); ties share the gradient."""
    return _into(_tensor("amax", input).amax(dim, keepdim), out, "amax")


@accepts_numpy_names
def amin(input: Tensor, dim: Any = (), keepdim: bool = False, *, out: Optional[Tensor] = None) -> Tensor:  # noqa: A002
    """Smallest value over ``dim`` (all dims by default); ties share the gradient."""
    return _into(_tensor("amin", input).amin(dim, keepdim), out, "amin")


# ---- prod ----

PROD_SIGNATURES = (
    "Tensor input, *, torch.dtype dtype = None",
    "Tensor input, int dim, bool keepdim = False, *, torch.dtype dtype = None, Tensor out = None",
)


def _lerp_op(input: Tensor, end: Tensor, weight: Tensor, weight_is_number: bool) -> Tensor:  # noqa: A002
    return Lerp.apply(input, end, weight, weight_is_number)  # looked up at each call: a profile swaps apply


# float16 and bfloat16 in float32, rounded once, as PyTorch computes them
_lerp = in_float32(_lerp_op)


@accepts_numpy_names
def prod(input: Tensor, dim: Optional[int] = None, keepdim: bool = False, *,  # noqa: A002
         dtype: Any = None, out: Optional[Tensor] = None) -> Tensor:
    r"""The product of all elements, or along ``dim``; integers and bools give int64 as PyTorch.

    :math:`\partial p/\partial x_i = \prod_{j \ne i} x_j` (exact at zeros: no division by them)."""
    if not isinstance(input, Tensor) or not (dim is None or (isinstance(dim, (int, np.integer)) and not isinstance(dim, bool))):
        raise invalid_combination("prod", (input,) if dim is None else (input, dim), {}, PROD_SIGNATURES)
    if dtype is None and isinstance(out, Tensor):  # PyTorch computes in out's dtype
        dtype = out.dtype
    source = input
    if dtype is not None:
        source = source.to(dtype)
    elif not source.dtype.is_floating_point:
        source = source.to(dtypes.int64)
    if dim is None:
        return _into(Prod.apply(source, None, False), out, "prod")
    d = normalize_dim(int(dim), max(source.dim(), 1))
    if source.dim() == 0:  # a 0-d tensor is its own product along dim 0 or -1
        return _into(Prod.apply(source, None, False), out, "prod")
    return _into(Prod.apply(source, d, keepdim), out, "prod")


# ---- comparisons and logic (bool results, no gradient) ----

COMPARE_SIGNATURES = (
    "Tensor input, Tensor other, *, Tensor out = None",
    "Tensor input, Number other, *, Tensor out = None",
)


def _comparison(op: str, name: str, input: Tensor, other: Any, out: Optional[Tensor]) -> Tensor:  # noqa: A002
    _tensor_or_number(name, (input, other), COMPARE_SIGNATURES)
    return _into(input._compare(op, other), out, name)


def eq(input: Tensor, other: Any, *, out: Optional[Tensor] = None) -> Tensor:  # noqa: A002
    return _comparison("eq", "eq", input, other, out)


def ne(input: Tensor, other: Any, *, out: Optional[Tensor] = None) -> Tensor:  # noqa: A002
    return _comparison("ne", "ne", input, other, out)


def lt(input: Tensor, other: Any, *, out: Optional[Tensor] = None) -> Tensor:  # noqa: A002
    return _comparison("lt", "lt", input, other, out)


def le(input: Tensor, other: Any, *, out: Optional[Tensor] = None) -> Tensor:  # noqa: A002
    return _comparison("le", "le", input, other, out)


def gt(input: Tensor, other: Any, *, out: Optional[Tensor] = None) -> Tensor:  # noqa: A002
    return _comparison("gt", "gt", input, other, out)


def ge(input: Tensor, other: Any, *, out: Optional[Tensor] = None) -> Tensor:  # noqa: A002
    return _comparison("ge", "ge", input, other, out)


greater, greater_equal, less, less_equal, not_equal = gt, ge, lt, le, ne


def logical_not(input: Tensor, *, out: Optional[Tensor] = None) -> Tensor:  # noqa: A002
    return _into(_tensor("logical_not", input).logical_not(), out, "logical_not")


def _logical(name: str, input: Tensor, other: Tensor) -> tuple[Tensor, Tensor]:  # noqa: A002
    """Both operands as bool tensors (nonzero is true), detached."""
    _tensor(name, input)
    _tensor(name, other, "other", 2)
    return input.detach().bool(), other.detach().bool()


def logical_and(input: Tensor, other: Tensor, *, out: Optional[Tensor] = None) -> Tensor:  # noqa: A002
    a, b = _logical("logical_and", input, other)
    return _into(a & b, out, "logical_and")


def logical_or(input: Tensor, other: Tensor, *, out: Optional[Tensor] = None) -> Tensor:  # noqa: A002
    a, b = _logical("logical_or", input, other)
    return _into(a | b, out, "logical_or")


def logical_xor(input: Tensor, other: Tensor, *, out: Optional[Tensor] = None) -> Tensor:  # noqa: A002
    """True where exactly one of ``input`` and ``other`` is nonzero."""
    a, b = _logical("logical_xor", input, other)
    return _into(a != b, out, "logical_xor")


def isnan(input: Tensor) -> Tensor:  # noqa: A002
    """True where ``input`` is NaN (the one value unequal to itself)."""
    x = _tensor("isnan", input).detach()
    return x != x


def isinf(input: Tensor) -> Tensor:  # noqa: A002
    """True where ``input`` is :math:`\\pm\\infty` (never for integers)."""
    x = _tensor("isinf", input).detach()
    return x.abs() == math.inf if x.dtype.is_floating_point else x != x


def isposinf(input: Tensor, *, out: Optional[Tensor] = None) -> Tensor:  # noqa: A002
    x = _tensor("isposinf", input).detach()
    return _into(x == math.inf if x.dtype.is_floating_point else x != x, out, "isposinf")


def isneginf(input: Tensor, *, out: Optional[Tensor] = None) -> Tensor:  # noqa: A002
    x = _tensor("isneginf", input).detach()
    return _into(x == -math.inf if x.dtype.is_floating_point else x != x, out, "isneginf")


def isfinite(input: Tensor) -> Tensor:  # noqa: A002
    """True where ``input`` is neither NaN nor infinite (always for integers)."""
    x = _tensor("isfinite", input).detach()
    if not x.dtype.is_floating_point:
        return x == x
    return (x == x) & (x.abs() != math.inf)


# ---- clamp with number or tensor bounds ----

CLAMP_SIGNATURES = (
    "Tensor input, Tensor min = None, Tensor max = None, *, Tensor out = None",
    "Tensor input, Number min = None, Number max = None, *, Tensor out = None",
)


def clamp(input: Tensor, min: Any = None, max: Any = None, *, out: Optional[Tensor] = None) -> Tensor:  # noqa: A002
    r""":math:`\min(\max(x, \text{min}), \text{max})`: bounds are both numbers or both tensors
    (broadcast); the gradient goes to the input where it lies within the bounds, else to the bound."""
    bounds = [b for b in (min, max) if b is not None]
    mixed = len({isinstance(b, Tensor) for b in bounds}) > 1 and any(
        isinstance(b, Tensor) and (b.dim() or b.requires_grad) for b in bounds)
    if not isinstance(input, Tensor) or mixed:  # a 0-d tensor needing no grad passes as a Number (Tensor.clamp)
        given = {k: v for k, v in (("min", min), ("max", max)) if v is not None}
        raise invalid_combination("clamp", (input,), given, CLAMP_SIGNATURES)
    return _into(input.clamp(min, max), out, "clamp")


clip = clamp


def _clamp_one(name: str, input: Tensor, bound: Any, side: str) -> Tensor:  # noqa: A002
    if not isinstance(input, Tensor) or not (isinstance(bound, Tensor) or _is_number(bound)):
        raise invalid_combination(name, (input, bound), {}, (
            f"Tensor input, Tensor {side}, *, Tensor out = None", f"Tensor input, Number {side}, *, Tensor out = None"))
    out = input.clamp(**{side: bound})
    overload = 1 if isinstance(bound, Tensor) else 0
    return _named(out, f"Clamp{side.capitalize()}Backward{overload}")


def clamp_min(input: Tensor, min: Any, *, out: Optional[Tensor] = None) -> Tensor:  # noqa: A002
    """``clamp(input, min=min)``."""
    return _into(_clamp_one("clamp_min", input, min, "min"), out, "clamp_min")


def clamp_max(input: Tensor, max: Any, *, out: Optional[Tensor] = None) -> Tensor:  # noqa: A002
    """``clamp(input, max=max)``."""
    return _into(_clamp_one("clamp_max", input, max, "max"), out, "clamp_max")


def clamp_(input: Tensor, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002
    return _tensor("clamp_", input).clamp_(min, max)


def clamp_min_(input: Tensor, min: Any) -> Tensor:  # noqa: A002
    return _tensor("clamp_min_", input).clamp_min_(min)


def clamp_max_(input: Tensor, max: Any) -> Tensor:  # noqa: A002
    return _tensor("clamp_max_", input).clamp_max_(max)


clip_ = clamp_


# ---- lerp, logaddexp, nan_to_num ----

LERP_SIGNATURES = (
    "Tensor input, Tensor end, Tensor weight, *, Tensor out = None",
    "Tensor input, Tensor end, Number weight, *, Tensor out = None",
)


def lerp(input: Tensor, end: Tensor, weight: Any, *, out: Optional[Tensor] = None) -> Tensor:  # noqa: A002
    r"""Linear interpolation :math:`\text{input} + w\,(\text{end} - \text{input})`, all broadcast;
    gradients to every tensor argument."""
    if not (isinstance(input, Tensor) and isinstance(end, Tensor) and (isinstance(weight, Tensor) or _is_number(weight))):
        raise invalid_combination("lerp", (input, end, weight), {}, LERP_SIGNATURES)
    for name, other in (("end", end), ("weight", weight)):
        if isinstance(other, Tensor) and other.dtype is not input.dtype and (name == "end" or other.dim() > 0):
            raise RuntimeError(
                f"expected dtype {dtypes.scalar_type_name(input.dtype).lower()} for `{name}` but got dtype {dtypes.scalar_type_name(other.dtype).lower()}"
            )
    shape = shape_broadcast(input.shape, end.shape)  # PyTorch's error names input as tensor a
    if isinstance(weight, Tensor):
        shape_broadcast(shape, weight.shape)
    is_number = not isinstance(weight, Tensor)
    _float_only("lerp_kernel_scalar" if is_number else "lerp_kernel_tensor", input)
    # a number weight in float32 for 16-bit floats: PyTorch computes them in float32 (opmath)
    w = input.new_tensor(weight, dtype=dtypes.float32 if is_sixteen_bit(input) else None) if is_number \
        else weight.to(input.dtype)
    return _into(_lerp(input, end, w, is_number), out, "lerp")


def logaddexp(input: Tensor, other: Tensor, *, out: Optional[Tensor] = None) -> Tensor:  # noqa: A002
    r""":math:`\log(e^{x} + e^{y})` without overflow."""
    _tensor("logaddexp", input)
    _tensor("logaddexp", other, "other", 2)
    result = result_dtype(input, other)
    a, b = (x if x.dtype is result else x.to(result) for x in (input, other))
    _float_only("logaddexp_cpu", a)
    return _into(LogAddExp.apply(a, b), out, "logaddexp")


def nan_to_num(input: Tensor, nan: float = 0.0, posinf: Optional[float] = None, neginf: Optional[float] = None,  # noqa: A002
               *, out: Optional[Tensor] = None) -> Tensor:
    """NaN, :math:`+\\infty`, :math:`-\\infty` replaced by ``nan``, ``posinf`` and ``neginf``
    (by default 0 and the dtype's largest and lowest finite values); integers are copied."""
    _tensor("nan_to_num", input)
    if not input.dtype.is_floating_point:
        return _into(input.clone(), out, "nan_to_num")
    finfo = np.finfo(input.dtype.numpy)
    high = float(finfo.max) if posinf is None else posinf
    low = float(finfo.min) if neginf is None else neginf
    return _into(NanToNum.apply(input, nan, high, low), out, "nan_to_num")


def nan_to_num_(input: Tensor, nan: float = 0.0, posinf: Optional[float] = None, neginf: Optional[float] = None) -> Tensor:  # noqa: A002
    return _tensor("nan_to_num_", input)._inplace_apply(lambda old: nan_to_num(old, nan, posinf, neginf))


# ---- addcmul / addcdiv ----


def _addc(name: str, input: Tensor, tensor1: Tensor, tensor2: Tensor, value: Any) -> tuple[Tensor, Tensor, Tensor, Any]:  # noqa: A002
    """The three tensors in their promoted dtype and ``value`` as that dtype holds it."""
    for arg, what, position in ((input, "input", 1), (tensor1, "tensor1", 2), (tensor2, "tensor2", 3)):
        _tensor(name, arg, what, position)
    result = result_dtype(input, tensor1, tensor2)
    if result is dtypes.bool_:
        raise NotImplementedError(f'"{name}_cpu_out" not implemented for \'Bool\'')
    if not result.is_floating_point and _is_number(value):
        value = int(value)  # PyTorch converts value to the integer dtype, dropping its fraction
    a, b, c = (x if x.dtype is result else x.to(result) for x in (input, tensor1, tensor2))
    return a, b, c, value


def _add_scaled(input: Tensor, tensor1: Tensor, tensor2: Tensor, scale: Any, divide: bool) -> Tensor:  # noqa: A002
    r""":math:`\text{input} + \text{scale} \cdot t_1 \cdot t_2` (or :math:`t_1 / t_2`): one ``addcmul``/``addcdiv`` node.
    As PyTorch's kernels: :math:`(\text{scale} \cdot t_1) t_2 + \text{input}` one fused multiply-add
    after the scaling, :math:`\text{input} + (\text{scale} \cdot t_1) / t_2` rounded at each step."""
    scaled = tensor1 if scale is None else tensor1 * scale
    return input + scaled / tensor2 if divide else MulAdd.apply(scaled, tensor2, input)


def _addc_saves(tensor1: Tensor, tensor2: Tensor, divide: bool) -> tuple[Optional[Tensor], Optional[Tensor]]:
    """What PyTorch's ``addcmul``/``addcdiv`` node saves: each factor only for the other's gradient
    (``input`` never), but a divisor always (its own gradient reads it too)."""
    return tensor1 if tensor2.requires_grad else None, tensor2 if divide or tensor1.requires_grad else None


def _sum_of_scaled(a: Tensor, scale: Any, divide: bool) -> Any:
    """``_add_scaled`` with its options; for 16-bit floats computed in float32 and rounded once, as
    PyTorch computes them."""
    compute = partial(_add_scaled, scale=scale, divide=divide)
    return in_float32(compute) if is_sixteen_bit(a) else compute


def addcmul(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1,  # noqa: A002
            out: Optional[Tensor] = None) -> Tensor:
    r""":math:`\text{input} + \text{value} \cdot \text{tensor1} \cdot \text{tensor2}`, broadcast."""
    a, b, c, value = _addc("addcmul", input, tensor1, tensor2, value)
    scale = value if value != 1 else None
    saves = _addc_saves(b, c, divide=False)
    return _into(composite("AddcmulBackward0", _sum_of_scaled(a, scale, divide=False), a, b, c, saves=saves),
                 out, "addcmul")


ADDCDIV_INTEGER_DIVISION = (
    "Integer division with addcdiv is no longer supported, and in a future  release addcdiv will perform a true "
    "division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as "
    "(input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as "
    "(input + value * tensor1 / tensor2) for float inputs. The future addcdiv behavior is just the latter "
    "implementation: (input + value * tensor1 / tensor2), for all dtypes."
)


def addcdiv(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1,  # noqa: A002
            out: Optional[Tensor] = None) -> Tensor:
    r""":math:`\text{input} + \text{value} \cdot \text{tensor1} / \text{tensor2}`, broadcast."""
    if (isinstance(tensor1, Tensor) and isinstance(tensor2, Tensor)
            and not tensor1.dtype.is_floating_point and not tensor2.dtype.is_floating_point):
        raise RuntimeError(ADDCDIV_INTEGER_DIVISION)
    a, b, c, value = _addc("addcdiv", input, tensor1, tensor2, value)
    scale = value if value != 1 else None
    saves = _addc_saves(b, c, divide=True)
    return _into(composite("AddcdivBackward0", _sum_of_scaled(a, scale, divide=True), a, b, c, saves=saves),
                 out, "addcdiv")


# ---- in place without a graph: straight into the tensor (the optimizers' updates) ----

#: the dtypes the direct in-place forms below take (others go through the out-of-place op and a copy)
DIRECT_DTYPES = (dtypes.float32, dtypes.float64)


def _joins_in_place(target: Tensor, other: Any) -> bool:
    """Whether ``other`` can be read while ``target`` is written: a tensor of ``target``'s dtype and
    device that broadcasts to its shape and shares no memory with it."""
    if not (isinstance(other, Tensor) and other.dtype is target.dtype and other.device == target.device):
        return False
    shape, target_shape = tuple(other.shape), tuple(target.shape)
    fits = len(shape) <= len(target_shape) and all(
        n in (1, m) for n, m in zip(reversed(shape), reversed(target_shape)))  # broadcasts to the target's shape
    return fits and not _shares_memory(target, other)


def _lerp_into(target: Tensor, end: Any, weight: Any) -> bool:
    """``target.lerp_(end, weight)`` computed in ``target`` (as :class:`.Lerp`'s forward), where the
    operands allow (see :func:`_joins_in_place`); False otherwise."""
    if target.dtype not in DIRECT_DTYPES or not _joins_in_place(target, end):
        return False
    if not ((_is_number(weight) and not isinstance(weight, bool)) or _joins_in_place(target, weight)):
        return False
    diff = end - target
    if _is_number(weight):
        w = target.new_full((), weight)
        if abs(w.item()) < LERP_SWITCH:
            mul_add_op(w, diff, target, out=target)
        else:
            mul_add_op(w - 1, diff, end, out=target)
        return True
    small = weight.abs() < LERP_SWITCH
    mul_add_op(weight.where(small, weight - 1), diff, target.where(small, end), out=target)
    return True


def _addc_into(target: Tensor, tensor1: Any, tensor2: Any, value: Any, divide: bool) -> bool:
    """``target.addcmul_``/``addcdiv_`` computed in ``target`` (the arithmetic of :func:`_add_scaled`),
    where the operands allow (see :func:`_joins_in_place`); False otherwise."""
    if target.dtype not in DIRECT_DTYPES or not (_joins_in_place(target, tensor1) and _joins_in_place(target, tensor2)):
        return False
    if not _is_number(value) or isinstance(value, (bool, complex)):
        return False
    scaled = tensor1 if value == 1 else tensor1 * value
    if divide:
        zip_op("add", target, scaled / tensor2, out=target)
    else:
        mul_add_op(scaled, tensor2, target, out=target)
    return True


# ---- the methods of Tensor ----


class TensorMethods:
    """The methods these ops add to :class:`~minitorch.tensor.Tensor` (attached below)."""

    def negative(self: Tensor) -> Tensor:
        return self.neg()

    def sgn(self: Tensor) -> Tensor:
        return sgn(self)

    def sgn_(self: Tensor) -> Tensor:
        return self._inplace_apply(sgn)

    @accepts_numpy_names
    def prod(self: Tensor, dim: Optional[int] = None, keepdim: bool = False, dtype: Any = None) -> Tensor:
        return prod(self, dim, keepdim, dtype=dtype)

    def greater(self: Tensor, other: Any) -> Tensor:
        return gt(self, other)

    def greater_equal(self: Tensor, other: Any) -> Tensor:
        return ge(self, other)

    def less(self: Tensor, other: Any) -> Tensor:
        return lt(self, other)

    def less_equal(self: Tensor, other: Any) -> Tensor:
        return le(self, other)

    def not_equal(self: Tensor, other: Any) -> Tensor:
        return ne(self, other)

    def logical_xor(self: Tensor, other: Tensor) -> Tensor:
        return logical_xor(self, other)

    def isnan(self: Tensor) -> Tensor:
        return isnan(self)

    def isinf(self: Tensor) -> Tensor:
        return isinf(self)

    def isposinf(self: Tensor) -> Tensor:
        return isposinf(self)

    def isneginf(self: Tensor) -> Tensor:
        return isneginf(self)

    def isfinite(self: Tensor) -> Tensor:
        return isfinite(self)

    def clamp_min(self: Tensor, min: Any) -> Tensor:  # noqa: A002 - PyTorch's names
        return clamp_min(self, min)

    def clamp_max(self: Tensor, max: Any) -> Tensor:  # noqa: A002
        return clamp_max(self, max)

    def lerp(self: Tensor, end: Tensor, weight: Any) -> Tensor:
        return lerp(self, end, weight)

    def lerp_(self: Tensor, end: Tensor, weight: Any) -> Tensor:
        return self._inplace_apply(lambda old: lerp(old, end, weight), end, weight,
                                   write=lambda target: _lerp_into(target, end, weight))

    def logaddexp(self: Tensor, other: Tensor) -> Tensor:
        _tensor("logaddexp", other, "other", 1)
        return logaddexp(self, other)

    def nan_to_num(self: Tensor, nan: float = 0.0, posinf: Optional[float] = None, neginf: Optional[float] = None) -> Tensor:
        return nan_to_num(self, nan, posinf, neginf)

    def nan_to_num_(self: Tensor, nan: float = 0.0, posinf: Optional[float] = None, neginf: Optional[float] = None) -> Tensor:
        return nan_to_num_(self, nan, posinf, neginf)

    def addcmul(self: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor:
        return addcmul(self, tensor1, tensor2, value=value)

    def addcmul_(self: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor:
        return self._inplace_apply(lambda old: addcmul(old, tensor1, tensor2, value=value), tensor1, tensor2,
                                   write=lambda target: _addc_into(target, tensor1, tensor2, value, divide=False))

    def addcdiv(self: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor:
        return addcdiv(self, tensor1, tensor2, value=value)

    def addcdiv_(self: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor:
        return self._inplace_apply(lambda old: addcdiv(old, tensor1, tensor2, value=value), tensor1, tensor2,
                                   write=lambda target: _addc_into(target, tensor1, tensor2, value, divide=True))


add_tensor_methods({name: method for name, method in vars(TensorMethods).items() if not name.startswith("__")})

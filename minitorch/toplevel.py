"""Top-level functions (``minitorch.sum(x)`` and friends): each calls the tensor method.

The unary math ones (``minitorch.exp``) live beside their Functions in :mod:`minitorch.ops.elementwise`.
"""

from __future__ import annotations

import warnings
from typing import Any, Optional

import numpy as np

from . import dtypes
from .creation import tensor as make_tensor
from .keywords import accepts_numpy_names
from .ops.elementwise import Div
from .ops.dtype_refusals import refuse_numbers
from .out_argument import write_out
from .ops.scaled_sum import RsubScaled, RsubScaledNumber
from .tensor import Tensor, _check_rounding_mode, add_tensor_methods, result_dtype, where
from .ops.linalg_extra import linalg_matmul









def pow(input: Tensor, exponent: Any) -> Tensor:  # noqa: A001
    return input**exponent


def maximum(input: Tensor, other: Tensor) -> Tensor:
    refuse_numbers("maximum", input, other)
    return input.maximum(other)


def minimum(input: Tensor, other: Tensor) -> Tensor:
    refuse_numbers("minimum", input, other)
    return input.minimum(other)


@accepts_numpy_names
def sum(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:  # noqa: A001
    return input.sum(dim, keepdim, dtype=dtype)


@accepts_numpy_names
def mean(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    return input.mean(dim, keepdim, dtype=dtype)


@accepts_numpy_names
def var(input: Tensor, dim: Any = None, unbiased: Optional[bool] = None, keepdim: bool = False, *, correction: Optional[int] = None) -> Tensor:
    return input.var(dim, unbiased, keepdim, correction=correction)


@accepts_numpy_names
def std(input: Tensor, dim: Any = None, unbiased: Optional[bool] = None, keepdim: bool = False, *, correction: Optional[int] = None) -> Tensor:
    return input.std(dim, unbiased, keepdim, correction=correction)


@accepts_numpy_names
def max(input: Tensor, dim: Any = None, keepdim: bool = False) -> Any:  # noqa: A001
    return input.max(dim, keepdim)


@accepts_numpy_names
def min(input: Tensor, dim: Any = None, keepdim: bool = False) -> Any:  # noqa: A001
    return input.min(dim, keepdim)


@accepts_numpy_names
def argmax(input: Tensor, dim: Optional[int] = None, keepdim: bool = False) -> Tensor:
    return input.argmax(dim, keepdim)


@accepts_numpy_names
def argmin(input: Tensor, dim: Optional[int] = None, keepdim: bool = False) -> Tensor:
    return input.argmin(dim, keepdim)


@accepts_numpy_names
def all(input: Tensor, dim: Optional[int] = None, keepdim: bool = False) -> Tensor:  # noqa: A001
    return input.all(dim, keepdim)


@accepts_numpy_names
def any(input: Tensor, dim: Optional[int] = None, keepdim: bool = False) -> Tensor:  # noqa: A001
    return input.any(dim, keepdim)


def allclose(input: Tensor, other: Tensor, rtol: float = 1e-5, atol: float = 1e-8, equal_nan: bool = False) -> bool:
    _check_close_arguments("allclose", input, other, rtol, atol)
    return input.allclose(other, rtol, atol, equal_nan)


def _check_close_arguments(op: str, input: Tensor, other: Tensor, rtol: float, atol: float) -> None:  # noqa: A002
    """PyTorch's refusals for ``isclose``/``allclose``: a number operand, two dtypes, a negative tolerance."""
    refuse_numbers(op, input, other)
    if input.dtype is not other.dtype:
        raise RuntimeError(f"{dtypes.scalar_type_name(input.dtype)} did not match {dtypes.scalar_type_name(other.dtype)}")
    for name, tolerance in (("rtol", rtol), ("atol", atol)):
        if tolerance < 0:
            raise RuntimeError(f"{name} must be greater than or equal to zero, but got {tolerance:g}")


def isclose(input: Tensor, other: Tensor, rtol: float = 1e-5, atol: float = 1e-8, equal_nan: bool = False) -> Tensor:
    from .creation import tensor

    _check_close_arguments("isclose", input, other, rtol, atol)
    return tensor(np.isclose(input.detach()._host_numpy(), other.detach()._host_numpy(), rtol, atol, equal_nan), device=input.device)


def equal(input: Tensor, other: Tensor) -> bool:
    return input.equal(other)


def flatten(input: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    return input.flatten(start_dim, end_dim)


def reshape(input: Tensor, shape: Any) -> Tensor:
    return input.reshape(shape)


def permute(input: Tensor, dims: Any) -> Tensor:
    return input.permute(dims)


def transpose(input: Tensor, dim0: int, dim1: int) -> Tensor:
    return input.transpose(dim0, dim1)


def unsqueeze(input: Tensor, dim: int) -> Tensor:
    return input.unsqueeze(dim)


def squeeze(input: Tensor, dim: Any = None) -> Tensor:
    return input.squeeze(dim)


def clone(input: Tensor, *, memory_format: Any = None) -> Tensor:  # noqa: A002 - PyTorch's name
    return input.clone(memory_format=memory_format)


def add(input: Any, other: Any, *, alpha: Any = 1, out: Optional[Tensor] = None) -> Tensor:  # noqa: A002 - PyTorch's names
    r""":math:`\text{input} + \alpha\,\text{other}`, broadcast (``input`` may be a number)."""
    return _into(out, _as_tensor_like(input, other).add(other, alpha=alpha), "add")


def sub(input: Any, other: Any, *, alpha: Any = 1, out: Optional[Tensor] = None) -> Tensor:  # noqa: A002
    r""":math:`\text{input} - \alpha\,\text{other}`, broadcast (``input`` may be a number)."""
    return _into(out, _as_tensor_like(input, other).sub(other, alpha=alpha), "sub")


def _as_tensor_like(value: Any, other: Any) -> Tensor:
    """``value``, or a number made a 0-d tensor (of its own kind's default dtype) as PyTorch wraps it."""
    if isinstance(value, Tensor) or not isinstance(other, Tensor):
        return value
    return make_tensor(value, device=other.device)


subtract = sub


def rsub(input: Tensor, other: Any, *, alpha: Any = 1) -> Tensor:  # noqa: A002
    r""":math:`\text{other} - \alpha\,\text{input}`: one ``RsubBackward0`` node (``RsubBackward1`` for a number ``other``)."""
    if alpha == 1 and not isinstance(other, Tensor):
        return input.__rsub__(other)  # ``other - input``: PyTorch's ``RsubBackward1``
    function = RsubScaled if isinstance(other, Tensor) else RsubScaledNumber
    return input._scaled_sum(function, other, alpha, "sub")


def div(input: Any, other: Any, *, rounding_mode: Optional[str] = None,  # noqa: A002
        out: Optional[Tensor] = None) -> Tensor:
    """:meth:`Tensor.div` (true division, or rounded with ``rounding_mode``), into ``out`` when given."""
    if not isinstance(input, Tensor) and isinstance(other, Tensor):  # a number first, as PyTorch takes it
        if rounding_mode is None:
            return _into(out, other._binary(Div, input, "div", reverse=True), "div")  # DivBackward0, as PyTorch
        _check_rounding_mode(rounding_mode)
        return _into(out, other._rounded_div(input, rounding_mode, reverse=True), "div")
    return _into(out, input.div(other, rounding_mode=rounding_mode), "div")


divide = div


def true_divide(input: Any, other: Any, *, out: Optional[Tensor] = None) -> Tensor:  # noqa: A002
    return div(input, other, out=out)


def floor_divide(input: Any, other: Any, *, out: Optional[Tensor] = None) -> Tensor:  # noqa: A002
    """``input // other`` rounded down, in the promoted dtype; no derivative, as in PyTorch."""
    if not isinstance(input, Tensor):
        return _into(out, other._rounded_div(input, "floor", "floor_divide", reverse=True), "floor_divide")
    return _into(out, input._rounded_div(other, "floor", "floor_divide"), "floor_divide")


def _floor_divide_reflected(self: Tensor, other: Any) -> Tensor:
    return self._rounded_div(other, "floor", "floor_divide", reverse=True)


#: ``a // b`` on tensors, as PyTorch: division rounded down
add_tensor_methods({
    "floor_divide": floor_divide,
    "__floordiv__": floor_divide,
    "__rfloordiv__": _floor_divide_reflected,
})


def is_floating_point(input: Tensor) -> bool:  # noqa: A002
    return input.is_floating_point()


def dist(input: Tensor, other: Tensor, p: float = 2) -> Tensor:  # noqa: A002
    r"""``torch.dist``: the :math:`p`-norm of ``input - other`` (broadcast), over all elements."""
    refuse_numbers("dist", input, other)
    return input.dist(other, p)


def ravel(input: Tensor) -> Tensor:  # noqa: A002
    """All elements in one dimension (a view where the layout allows)."""
    return input.reshape(-1)


def mul(input: Any, other: Any, *, out: Optional[Tensor] = None) -> Tensor:  # noqa: A002 - PyTorch's names
    """Elementwise product (``input`` may be a number)."""
    return _into(out, input * other if isinstance(input, Tensor) else other * input, "mul")


multiply = mul


def matmul(input: Tensor, other: Tensor, *, out: Optional[Tensor] = None) -> Tensor:  # noqa: A002
    """Matrix product with PyTorch's rules for 1-D operands and broadcast batch dimensions; an ``out``
    must have the product's dtype, as ``torch.linalg.matmul``'s."""
    return linalg_matmul(input, other, out=out)


def _into(out: Optional[Tensor], result: Tensor, op: str) -> Tensor:
    """``result``, or written into ``out`` by PyTorch's rules (:func:`~minitorch.out_argument.write_out`)."""
    return write_out(result, out, op)


def mm(input: Tensor, mat2: Tensor) -> Tensor:
    return input.mm(mat2)


def bmm(input: Tensor, mat2: Tensor) -> Tensor:
    if input.dim() != 3 or mat2.dim() != 3:
        raise RuntimeError(f"bmm expects 3-D tensors, got {input.dim()}-D and {mat2.dim()}-D")
    if input.shape[0] != mat2.shape[0]:
        raise RuntimeError(f"bmm: batch sizes differ: {list(input.shape)} and {list(mat2.shape)}")
    return matmul(input, mat2)


def dot(input: Tensor, tensor: Tensor) -> Tensor:  # noqa: A002 - PyTorch's names
    return input.dot(tensor)


def mv(input: Tensor, vec: Tensor) -> Tensor:  # noqa: A002
    return input.mv(vec)


def addmm(input: Tensor, mat1: Tensor, mat2: Tensor, *, beta: float = 1, alpha: float = 1) -> Tensor:  # noqa: A002
    r"""$\beta\,\text{input} + \alpha\,(\text{mat1} \mathbin{@} \text{mat2})$; with ``beta=0`` input is ignored (its NaNs too)."""
    product = mat1.mm(mat2)
    scaled = product if alpha == 1 else product * alpha
    if beta == 0:  # PyTorch ignores input then, NaNs included; its shape still broadcasts
        return scaled + input.new_zeros(input.shape)
    return scaled + (input if beta == 1 else input * beta)


__all__ = [
    "add", "div", "divide", "floor_divide", "is_floating_point", "ravel", "rsub", "sub", "subtract", "true_divide",
    "abs", "addmm", "all", "allclose", "any", "argmax", "argmin", "bmm", "dot", "mv", "clone", "equal", "exp", "flatten",
    "isclose", "log", "matmul", "mul", "multiply", "max", "maximum", "mean", "min", "minimum", "mm", "permute", "pow", "relu",
    "reshape", "sigmoid", "sqrt", "squeeze", "std", "sum", "tanh", "transpose", "unsqueeze", "var", "where",
]


def bitwise_and(input: Any, other: Any) -> Tensor:  # noqa: A002 - PyTorch's names
    """``input & other`` for integer and bool tensors (a number on either side)."""
    return input & other


def bitwise_or(input: Any, other: Any) -> Tensor:  # noqa: A002
    return input | other


def bitwise_xor(input: Any, other: Any) -> Tensor:  # noqa: A002
    return input ^ other


def bitwise_not(input: Tensor) -> Tensor:  # noqa: A002
    return ~input


def bitwise_left_shift(input: Any, other: Any) -> Tensor:  # noqa: A002
    return input << other


def bitwise_right_shift(input: Any, other: Any) -> Tensor:  # noqa: A002
    return input >> other


#: what :func:`set_float32_matmul_precision` takes
MATMUL_PRECISIONS = ("highest", "high", "medium")
_matmul_precision = ["highest"]


def set_float32_matmul_precision(precision: str) -> None:
    """PyTorch's permission for float32 products to use a faster, less precise format (TF32,
    bfloat16) where the hardware has one. minitorch's products always compute in float32, which
    is ``'highest'``, so no result changes; the setting is checked and kept as PyTorch keeps it."""
    if precision not in MATMUL_PRECISIONS:
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; "
                      "the set_float32_matmul_precision call has no effect", stacklevel=2)
        return
    _matmul_precision[0] = precision


def get_float32_matmul_precision() -> str:
    return _matmul_precision[0]

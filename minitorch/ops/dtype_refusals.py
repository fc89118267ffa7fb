"""PyTorch's refusals of operands its kernels do not take, with its wording.

A kernel PyTorch has no version of for a dtype (``abs`` of a bool) raises
``NotImplementedError: "abs_cpu" not implemented for 'Bool'``; a function whose overloads all
take a tensor (``torch.maximum(x, 2)``) raises ``TypeError`` naming the argument. Both checks
live here so the op modules and ``Tensor`` share one wording.
"""

from __future__ import annotations

import functools
from numbers import Number
from typing import Any, Callable, Optional

import numpy as np

from .. import dtypes


def refuse_bool(kernel: str, dtype: dtypes.dtype) -> None:
    """PyTorch's error for kernel ``kernel`` given a bool tensor."""
    if dtype is dtypes.bool_:
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")


def refuse_non_float(kernel: str, dtype: dtypes.dtype) -> None:
    """PyTorch's error for a kernel with floating-point versions only."""
    if not dtype.is_floating_point:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{dtypes.scalar_type_name(dtype)}'")


def refuse_number(op: str, value: Any, name: str, position: int) -> None:
    """PyTorch's ``TypeError`` for a Python (or NumPy) number where only a tensor is taken.

    ``position`` counts as PyTorch does: from 1 at ``input`` for ``torch.op(input, other)``,
    from 1 at the first argument after ``self`` for the method ``x.op(other)``."""
    if isinstance(value, (Number, np.generic)):
        raise TypeError(f"{op}(): argument '{name}' (position {position}) must be Tensor, not {type(value).__name__}")


def refuse_numbers(op: str, input: Any, other: Any, name: str = "other") -> None:  # noqa: A002 - PyTorch's names
    """:func:`refuse_number` for both operands of the function ``torch.op(input, other)``."""
    refuse_number(op, input, "input", 1)
    refuse_number(op, other, name, 2)


def tensor_operands(function: Callable[..., Any], name: str = "other") -> Callable[..., Any]:
    """``function(input, other, ...)``, refusing a number for either operand as PyTorch does."""
    op = function.__name__

    @functools.wraps(function)
    def checked(input: Any, other: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: A002
        refuse_numbers(op, input, other, name)
        return function(input, other, *args, **kwargs)

    return checked


def tensor_operand_method(function: Callable[..., Any], name: str = "other") -> Callable[..., Any]:
    """The method ``self.op(other, ...)`` of ``function``, refusing a number for ``other`` (position 1)."""
    op = function.__name__

    def method(self: Any, other: Any, *args: Any, **kwargs: Any) -> Any:
        refuse_number(op, other, name, 1)
        return function(self, other, *args, **kwargs)

    method.__name__ = method.__qualname__ = op
    method.__doc__ = function.__doc__
    return method


#: the shifts, which PyTorch has no bool kernel for (``&``, ``|``, ``^`` it has)
SHIFT_KERNELS = ("lshift", "rshift")

#: PyTorch's CPU kernels for the products of two tensors, named in its bool refusals
DOT_KERNEL = "dot"
MV_KERNEL = "addmv_impl_cpu"
MM_KERNEL = "addmm_impl_cpu_"
BMM_KERNEL = "bmm"


def matmul_kernel(a_dims: int, b_dims: int) -> str:
    """The kernel ``torch.matmul`` runs for operands with these numbers of dimensions: a batch of
    matrices times a vector or a matrix is folded into one ``addmv`` or ``addmm``, a batch on the
    right goes to ``bmm``."""
    if a_dims == 1 and b_dims == 1:
        return DOT_KERNEL
    if b_dims == 1:
        return MV_KERNEL
    return MM_KERNEL if b_dims == 2 else BMM_KERNEL


def refuse_bool_product(kernel: str, dtype: Optional[dtypes.dtype], *shapes: tuple[int, ...]) -> None:
    """PyTorch's error for a product of bool tensors run by ``kernel`` (``dtype``: the operands' one
    dtype, None when they differ: a product refuses that first). Every kernel but ``dot``
    returns before it looks at the dtype when an operand has a size-0 dimension (an empty result,
    or nothing summed: all False), so such a product still computes."""
    if dtype is dtypes.bool_ and (kernel == DOT_KERNEL or all(0 not in shape for shape in shapes)):
        refuse_bool(kernel, dtype)


def refuse_non_float_variance(dtype: dtypes.dtype, name: str = "std and var") -> None:
    """PyTorch's error for ``std``/``var`` (``std_mean``, ``var_mean``) of an integer or bool tensor."""
    if not dtype.is_floating_point:
        raise RuntimeError(f"{name} only support floating point and complex dtypes")


def refuse_softmax_dtype(kernel: str, dtype: dtypes.dtype, dim: int, dims: int) -> None:
    """PyTorch's error for ``softmax``/``log_softmax`` (``kernel``) computed in a non-floating dtype:
    its kernel name says whether ``dim`` (normalized) is the last of ``dims`` (a 0-d tensor's is)."""
    last = "_lastdim" if dims == 0 or dim == dims - 1 else ""
    refuse_non_float(f"{kernel}{last}_kernel_impl", dtype)


#: the C++ type names PyTorch's in-place ``clamp_`` with number bounds gives in its cast error
CPP_TYPE_NAMES = {"bool": "bool", "uint8": "unsigned char", "int8": "signed char", "int16": "short int",
                  "int32": "int", "int64": "long int"}


def refuse_bool_clamp(result: dtypes.dtype, low: Any, high: Any, tensor_bounds: bool) -> None:
    """PyTorch's error for ``clamp`` computed in bool (a bool tensor, bool bounds): number bounds name
    the kernel for the bounds given; two tensor bounds ``clamp_cpu``, while one tensor bound computes
    (it is ``maximum`` or ``minimum``)."""
    if result is not dtypes.bool_:
        return
    both = low is not None and high is not None
    if tensor_bounds:
        if both:
            refuse_bool("clamp_cpu", result)
        return
    if both:
        refuse_bool("clamp_scalar_cpu", result)
    refuse_bool("clamp_min_scalar_cpu" if high is None else "clamp_max_scalar_cpu", result)


def refuse_clamp_cast(result: dtypes.dtype, target: dtypes.dtype) -> None:
    """PyTorch's error for an in-place ``clamp_`` with number bounds whose result dtype ``result``
    does not fit the tensor's ``target``: this kernel names the target by its C++ type."""
    if result.category > target.category:
        name = CPP_TYPE_NAMES.get(target.name, dtypes.scalar_type_name(target))
        raise RuntimeError(f"result type {dtypes.scalar_type_name(result)} can't be cast to the desired output type {name}")

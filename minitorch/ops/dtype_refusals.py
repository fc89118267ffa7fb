"""PyTorch's refusals of operands its kernels do not take, with its wording.

A kernel PyTorch has no version of for a dtype (``abs`` of a bool) raises
``NotImplementedError: "abs_cpu" not implemented for 'Bool'``; a function whose overloads all
take a tensor (``torch.maximum(x, 2)``) raises ``TypeError`` naming the argument. Both checks
live here so the op modules and ``Tensor`` share one wording.
"""

from __future__ import annotations

import functools
from numbers import Number
from typing import Any, Callable

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

"""The in-place forms of the elementwise math ops: ``x.sin_()``, ``x.lt_(y)``, ``x //= 2``, ``torch.sin_(x)``.

Each is the out-of-place op written back into the tensor's storage by
``Tensor._inplace_apply``, so it follows PyTorch's rules for every in-place op: the dtype
stays, the version counter moves, autograd records it (``SinBackward0`` on the tensor), and a
leaf that requires grad is refused with grad mode on. PyTorch also exposes most in-place
methods as top-level functions (``torch.relu_(x)``); :data:`TOP_LEVEL` lists those.
"""

from __future__ import annotations

from typing import Any, Callable

from ..tensor import Tensor, add_tensor_methods

#: elementwise ops whose ``name_`` method PyTorch has and Tensor did not
UNARY = (
    "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh",
    "arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh",
    "ceil", "floor", "round", "trunc", "fix", "frac", "erf", "erfc", "erfinv",
    "exp2", "expm1", "log10", "log1p", "log2", "sign", "sgn", "neg", "negative",
    "deg2rad", "rad2deg", "logit", "sinc",
    "lgamma", "digamma", "i0",
)

#: ops of several operands, or along a dimension, whose ``name_`` method PyTorch has and
#: Tensor did not (a comparison writes 1 or 0 in the tensor's own dtype, as PyTorch's)
WITH_OPERANDS = (
    "logical_not", "eq", "ne", "not_equal", "ge", "gt", "le", "lt", "greater", "greater_equal", "less", "less_equal",
    "logical_and", "logical_or", "logical_xor", "floor_divide", "fmod", "remainder",
    "atan2", "arctan2", "hypot", "heaviside", "xlogy", "addmv", "addr", "cumsum", "cumprod",
    "polygamma", "mvlgamma",
)

#: in-place methods PyTorch also has as ``torch.<name>``
TOP_LEVEL = (
    "abs_", "acos_", "acosh_", "arccos_", "arccosh_", "arcsin_", "arcsinh_", "arctan_", "arctanh_", "asin_",
    "asinh_", "atan_", "atanh_", "ceil_", "cos_", "cosh_", "detach_", "erf_", "erfc_", "exp_", "exp2_", "expm1_",
    "fill_", "fix_", "floor_", "frac_", "log_", "log10_", "log1p_", "log2_", "neg_", "negative_", "reciprocal_",
    "relu_", "round_", "rsqrt_", "sigmoid_", "sin_", "sinh_", "sqrt_", "square_", "tan_", "tanh_", "trunc_", "zero_",
    "i0_",
)


def _inplace_method(name: str) -> Callable[..., Tensor]:
    out_of_place = getattr(Tensor, name)

    def method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        # the other operands too: one that requires grad makes the write a recorded one
        return self._inplace_apply(lambda t: out_of_place(t, *args, **kwargs), *args, *kwargs.values())

    method.__name__ = method.__qualname__ = f"{name}_"
    method.__doc__ = f"In-place :meth:`{name}`: this tensor's values replaced by ``{name}`` of them."
    return method


def _top_level(name: str) -> Callable[..., Tensor]:
    def function(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002 - PyTorch's name
        return getattr(input, name)(*args, **kwargs)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"``input.{name}(...)``: :meth:`minitorch.Tensor.{name}` as a function."
    return function


add_tensor_methods({f"{name}_": _inplace_method(name) for name in UNARY + WITH_OPERANDS
                    if hasattr(Tensor, name) and not hasattr(Tensor, f"{name}_")})


def _floor_divide_in_place(self: Tensor, other: Any) -> Tensor:
    return self.floor_divide_(other)


def _remainder_in_place(self: Tensor, other: Any) -> Tensor:
    return self.remainder_(other)


# ``x //= 2`` and ``x %= 2`` write into ``x``, as ``x += 2`` does (without these, Python
# rebinds the name to a new tensor and every other holder of ``x`` keeps the old values)
add_tensor_methods({"__ifloordiv__": _floor_divide_in_place, "__imod__": _remainder_in_place})

#: ``minitorch.sin_`` and the others, re-exported by the package
functions: dict[str, Callable[..., Tensor]] = {name: _top_level(name) for name in TOP_LEVEL if hasattr(Tensor, name)}

"""The in-place forms of the elementwise math ops: ``x.sin_()``, ``x.floor_()``, ``torch.sin_(x)``.

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
)

#: in-place methods PyTorch also has as ``torch.<name>``
TOP_LEVEL = (
    "abs_", "acos_", "acosh_", "arccos_", "arccosh_", "arcsin_", "arcsinh_", "arctan_", "arctanh_", "asin_",
    "asinh_", "atan_", "atanh_", "ceil_", "cos_", "cosh_", "detach_", "erf_", "erfc_", "exp_", "exp2_", "expm1_",
    "fill_", "fix_", "floor_", "frac_", "log_", "log10_", "log1p_", "log2_", "neg_", "negative_", "reciprocal_",
    "relu_", "round_", "rsqrt_", "sigmoid_", "sin_", "sinh_", "sqrt_", "square_", "tan_", "tanh_", "trunc_", "zero_",
)


def _inplace_method(name: str) -> Callable[..., Tensor]:
    out_of_place = getattr(Tensor, name)

    def method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        return self._inplace_apply(lambda t: out_of_place(t, *args, **kwargs))

    method.__name__ = method.__qualname__ = f"{name}_"
    method.__doc__ = f"In-place :meth:`{name}`: this tensor's values replaced by ``{name}`` of them."
    return method


def _top_level(name: str) -> Callable[..., Tensor]:
    def function(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002 - PyTorch's name
        return getattr(input, name)(*args, **kwargs)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"``input.{name}(...)``: :meth:`minitorch.Tensor.{name}` as a function."
    return function


add_tensor_methods({f"{name}_": _inplace_method(name) for name in UNARY
                    if hasattr(Tensor, name) and not hasattr(Tensor, f"{name}_")})

#: ``minitorch.sin_`` and the others, re-exported by the package
functions: dict[str, Callable[..., Tensor]] = {name: _top_level(name) for name in TOP_LEVEL if hasattr(Tensor, name)}

r"""Activation functions: elementwise nonlinearities and the softmax family.

Each is a function of the input alone; their gradients come from the autograd Functions
they are built of (``relu``, ``sigmoid``, ``tanh``, ``where``) or, for softmax,
log-softmax and GELU, from the Functions in :mod:`minitorch.ops.activations`.
"""

from __future__ import annotations

import functools
import warnings
from typing import Any, Callable, Optional, TypeVar

from ... import dtypes
from ...ops.activations import GELU, LogSoftmax, Softmax, Softplus
from ...ops.dtype_refusals import refuse_non_float, refuse_softmax_dtype
from ...ops.opmath import in_float32, is_sixteen_bit
from ...shapes import normalize_dim
from ...tensor import Tensor, _named, add_tensor_methods, where
from ...autocast_state import full_precision
from ...autograd.grad_mode import is_grad_enabled

GELU_APPROXIMATIONS = ("none", "tanh")


# float16 and bfloat16 computed in float32 and rounded once, as PyTorch's kernels compute them.
# (``apply`` is looked up at each call: a profile swaps ``Function.apply`` for the time it runs.)
def _gelu_op(x: Tensor, approximate: str) -> Tensor:
    return GELU.apply(x, approximate)


def _softmax_op(x: Tensor, dim: int) -> Tensor:
    return Softmax.apply(x, dim)


def _log_softmax_op(x: Tensor, dim: int) -> Tensor:
    return LogSoftmax.apply(x, dim)


_gelu = in_float32(_gelu_op, "GeluBackward0")
_softmax = in_float32(_softmax_op, "SoftmaxBackward0")
_log_softmax = in_float32(_log_softmax_op, "LogSoftmaxBackward0")


F = TypeVar("F", bound=Callable[..., Any])


def names_its_node(node_name: str) -> Callable[[F], F]:
    """Give the result's ``grad_fn`` PyTorch's name for the activation (``EluBackward0``) where it
    is built from several ops (its last node would otherwise name it: ``WhereBackward0``); an
    in-place call is named by :func:`_in_place`."""

    def decorate(function: F) -> F:
        @functools.wraps(function)
        def named(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
            out = function(input, *args, **kwargs)
            return out if out is input else _named(out, node_name)

        return named  # type: ignore[return-value]

    return decorate


def _in_place(input: Tensor, compute: Callable[[Tensor], Tensor], inplace: bool,  # noqa: A002 - PyTorch's name
              node_name: Optional[str] = None, overlap_ok: bool = False) -> Tensor:
    """``compute(input)``, or when ``inplace`` ``input`` overwritten with it as PyTorch's in-place op:
    computed from the old values, the op recorded as ``input``'s ``grad_fn`` (named ``node_name``,
    PyTorch's in-place overload: ``LeakyReluBackward1``), not as a copy into it. A float16 or
    bfloat16 ``input`` is computed in float32 and rounded once, as PyTorch's kernels do
    (:mod:`~minitorch.ops.opmath`)."""
    if is_sixteen_bit(input):
        compute = in_float32(compute)
    if not inplace:
        return compute(input)
    records = is_grad_enabled() and input.requires_grad
    input._inplace_apply(compute, overlap_ok=overlap_ok)  # overlap_ok: PyTorch lets it write a broadcast input
    return _named(input, node_name) if records and node_name is not None else input


def relu(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    r""":math:`\max(0, x)`."""
    # BEGIN SOLUTION 5.1
    return _in_place(input, Tensor.relu, inplace)
    # END SOLUTION


def relu_(input: Tensor) -> Tensor:  # noqa: A002
    return relu(input, inplace=True)


@names_its_node("LeakyReluBackward0")
def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:  # noqa: A002
    r""":math:`x` for :math:`x > 0`, else :math:`\mathrm{negative\_slope} \cdot x`."""
    refuse_non_float("leaky_relu_cpu", input.dtype)
    # BEGIN SOLUTION 5.1
    return _in_place(input, lambda x: where(x > 0, x, x * negative_slope), inplace, "LeakyReluBackward1")
    # END SOLUTION


def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:  # noqa: A002
    return leaky_relu(input, negative_slope, inplace=True)


def gelu(input: Tensor, approximate: str = "none") -> Tensor:  # noqa: A002
    r""":math:`x\,\Phi(x)`, :math:`\Phi` the standard normal CDF (``approximate='tanh'``: its tanh form)."""
    if approximate not in GELU_APPROXIMATIONS:
        raise RuntimeError("approximate argument must be either none or tanh.")
    refuse_non_float("GeluKernelImpl", input.dtype)
    return _gelu(input, approximate)


@names_its_node("SiluBackward0")
def silu(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    r""":math:`x\,\sigma(x)` (also called swish)."""
    refuse_non_float("silu_cpu", input.dtype)
    # BEGIN SOLUTION 5.1
    return _in_place(input, lambda x: x * x.sigmoid(), inplace, "SiluBackward0")
    # END SOLUTION


def sigmoid(input: Tensor) -> Tensor:  # noqa: A002
    r""":math:`1 / (1 + e^{-x})`."""
    return input.sigmoid()


def tanh(input: Tensor) -> Tensor:  # noqa: A002
    return input.tanh()


@names_its_node("SoftplusBackward0")
def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:  # noqa: A002
    r""":math:`\tfrac{1}{\beta}\log(1 + e^{\beta x})`, linear where :math:`\beta x > \mathrm{threshold}`."""
    refuse_non_float("softplus_cpu", input.dtype)
    return Softplus.apply(input, beta, threshold)


def _softmax_dim(name: str, ndim: int) -> int:
    """PyTorch's legacy choice of dimension when none is given (with its warning)."""
    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X as an argument.",
        stacklevel=3,
    )
    return 0 if ndim in (0, 1, 3) else 1


def _softmax_input(name: str, input: Tensor, dim: Optional[int], dtype: Any) -> tuple[Tensor, int]:  # noqa: A002
    """The tensor the kernel computes on (in ``dtype`` if given) and the normalized ``dim``; PyTorch's
    kernels take floats only, though an input without elements is returned as it is, in any dtype."""
    if dim is None:
        dim = _softmax_dim(name, input.dim())
    (input,) = full_precision(input, device_types=("cuda",))  # on cpu, PyTorch's softmax keeps float16
    source = input.to(dtypes.as_dtype(dtype)) if dtype is not None else input
    d = normalize_dim(dim, source.dim())  # a 0-d input takes dims 0 and -1 only, as in PyTorch
    if source.numel():
        refuse_softmax_dtype(name, source.dtype, d, source.dim())
    if source.dim() == 0:
        return source.view(1), 0
    return source, d


def softmax(input: Tensor, dim: Optional[int] = None, _stacklevel: int = 3, dtype: Any = None) -> Tensor:  # noqa: A002
    r""":math:`e^{x_i} / \sum_j e^{x_j}` along ``dim`` (computed stably from :math:`x - \max x`)."""
    source, d = _softmax_input("softmax", input, dim, dtype)
    # nothing to normalize without elements: no max to take
    out = _softmax(source, d) if source.numel() else source.clone()
    return out if input.dim() else out.view(())  # a 0-d input was computed as one element


def log_softmax(input: Tensor, dim: Optional[int] = None, _stacklevel: int = 3, dtype: Any = None) -> Tensor:  # noqa: A002
    r""":math:`x_i - \log \sum_j e^{x_j}` along ``dim``, finite wherever the inputs are."""
    source, d = _softmax_input("log_softmax", input, dim, dtype)
    out = _log_softmax(source, d) if source.numel() else source.clone()
    return out if input.dim() else out.view(())  # a 0-d input was computed as one element


def _softmax_method(self: Tensor, dim: Optional[int] = None, dtype: Any = None) -> Tensor:
    return softmax(self, dim, dtype=dtype)


def _log_softmax_method(self: Tensor, dim: Optional[int] = None, dtype: Any = None) -> Tensor:
    return log_softmax(self, dim, dtype=dtype)


# ``x.softmax(dim)`` as in PyTorch: attached here, where the functions live
add_tensor_methods({"softmax": _softmax_method, "log_softmax": _log_softmax_method})

"""PyTorch's ``out=`` keyword: a result written into a tensor the caller gives, with PyTorch's rules.

``torch.exp(x, out=y)`` computes ``exp(x)`` and writes it into ``y``, in place, and returns
``y`` itself. :func:`write_out` is that write, for every function of minitorch that takes
``out=``; :func:`accepts_out` gives the keyword to a function written without it. The rules,
PyTorch's (ATen's ``resize_output`` and the ``out=`` checks of its argument parser):

- ``out`` must be a tensor (a tuple or list of them for a function returning several, such as
  ``sort`` or ``max`` along a dimension; the result is then that function's named tuple);
- with grad mode on, no argument may require grad (``out`` included) where the function is
  differentiable: ``out=`` records no graph (those PyTorch builds from others, such as
  ``linalg.norm``, record the write instead: :data:`RECORDED_WRITES`);
- ``out`` must be on the result's device, and its dtype one the result's casts to
  (:func:`minitorch.can_cast`): float into an integer ``out`` is refused;
- an ``out`` of another shape is resized to the result's, with PyTorch's warning when it had
  elements (an empty one is the documented way to let the result choose the shape); a factory
  (``zeros``, ``rand``, ``eye``) makes its values in ``out``'s dtype, on its device, and resizes
  it without a word, as PyTorch's;
- the write bumps ``out``'s version counter, like every in-place write, and may read from
  ``out`` itself (``torch.add(a, b, out=a)``): the result is computed first.
"""

from __future__ import annotations

import functools
import inspect
import os
import sys
import warnings
from typing import TYPE_CHECKING, Any, Callable, Optional, Sequence, TypeVar

from . import dtypes
from .autograd.grad_mode import is_grad_enabled, no_grad
from .dispatch import tensor_class

if TYPE_CHECKING:
    from .tensor import Tensor

F = TypeVar("F", bound=Callable[..., Any])

#: the package's folder: frames from files under it are minitorch's own, not the user's
_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep

#: PyTorch's warning (ATen's ``resize_output``) for an ``out`` with elements that was resized
RESIZE_WARNING = (
    "An output with one or more elements was resized since it had shape {had}, which does not match the "
    "required output shape {required}. This behavior is deprecated, and in a future PyTorch release outputs "
    "will not be resized unless they have zero elements. You can explicitly reuse an out tensor t by resizing "
    "it, inplace, to zero elements with t.resize_(0)."
)
#: PyTorch's refusal of ``out=`` when the call would need a gradient
AUTOGRAD_ERROR = (
    "{name}(): functions with out=... arguments don't support automatic differentiation, "
    "but one of the arguments requires grad."
)
#: functions PyTorch builds from others (their ``out=`` is a recorded ``out.copy_(result)``): with
#: an input requiring grad they write and ``out`` joins the graph instead of raising. (For
#: ``diag``, ``heaviside`` and the softmaxes PyTorch also writes, with a node whose backward
#: is not implemented; here the written values can be differentiated.)
RECORDED_WRITES = frozenset({
    "inner", "tensordot", "quantile", "nanquantile", "linalg_norm", "linalg_matrix_norm", "diag", "heaviside",
    "softmax", "log_softmax",
})
#: reductions that compute in ``out``'s dtype when no ``dtype=`` is given (``sum(x, 1, out=long)``
#: sums the values cast to int64), as PyTorch's
OUT_DTYPE_FUNCTIONS = frozenset({"sum", "prod", "cumsum", "cumprod"})
#: functions whose ``out=`` PyTorch resizes without its warning, as its factories
SILENT_RESIZES = frozenset({"addbmm"})
#: the joining functions, which PyTorch writes through ``cat`` and whose dtype refusal is cat's
JOINING_FUNCTIONS = frozenset({
    "cat", "concat", "concatenate", "stack", "hstack", "vstack", "dstack", "column_stack", "row_stack",
})


def _type_name(value: Any) -> str:
    """``int``, ``list``, ``numpy.ndarray``: a type as PyTorch's argument parser names it."""
    kind = type(value)
    return kind.__qualname__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}"


def _outs_of(out: Any, count: Optional[int], name: str) -> list[Tensor]:
    """``out`` as a list of tensors, checked: one tensor, or (``count`` given) a tuple or list of ``count``."""
    tensor = tensor_class()
    if count is None:
        if not isinstance(out, tensor):
            raise TypeError(f"{name}(): argument 'out' must be Tensor, not {_type_name(out)}")
        return [out]
    if not isinstance(out, (tuple, list)):
        raise TypeError(f"{name}(): argument 'out' must be tuple of Tensors, not {_type_name(out)}")
    if len(out) != count:
        raise TypeError(f"{name}(): expected tuple of {count} elements but got {len(out)}")
    for index, item in enumerate(out):
        if not isinstance(item, tensor):
            raise TypeError(f"{name}(): expected Tensor as element {index} in argument 'out', but got {_type_name(item)}")
    return list(out)


def _check_fits(result: Tensor, out: Tensor, name: str, factory: bool) -> None:
    """PyTorch's refusals of an ``out`` on another device or of a dtype the result cannot cast to."""
    if not factory and out.device != result.device:
        raise RuntimeError(
            f"Expected all tensors to be on the same device, but found at least two devices, {out.device} and {result.device}!"
        )
    if result.dtype.category > out.dtype.category and name in JOINING_FUNCTIONS:
        raise TypeError(f"torch.cat(): input types can't be cast to the desired output type {dtypes.scalar_type_name(out.dtype)}")
    if result.dtype.category > out.dtype.category:
        raise RuntimeError(
            f"result type {dtypes.scalar_type_name(result.dtype)} can't be cast to the desired output type "
            f"{dtypes.scalar_type_name(out.dtype)}"
        )


def user_stacklevel() -> int:
    """The ``stacklevel`` that points a warning at the first caller outside minitorch (the user's line)."""
    frame = sys._getframe(1)
    level = 1
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame = frame.f_back
        level += 1
    return level


def _resize(out: Tensor, shape: Sequence[int], silent: bool) -> None:
    """``out`` made ``shape``, with PyTorch's warning when it had elements (none for an empty ``out``
    or from a factory)."""
    if tuple(out.shape) == tuple(shape):
        return
    if out.numel() > 0 and not silent:
        warnings.warn(RESIZE_WARNING.format(had=list(out.shape), required=list(shape)), UserWarning,
                      stacklevel=user_stacklevel())
    out.resize_(shape)


def write_out(result: Any, out: Any, name: str, *, factory: bool = False) -> Any:
    """``result`` when ``out`` is None; else ``result`` written into ``out`` by PyTorch's rules
    (see the module's notes) and ``out`` returned: the same object, or for a tuple result a
    tuple of ``result``'s type holding the given tensors. ``name`` is the function's, for the
    errors; a ``factory`` made its result in ``out``'s dtype and on its device."""
    if out is None:
        return result
    several = isinstance(result, tuple)
    results: list[Tensor] = list(result) if several else [result]
    outs = _outs_of(out, len(results) if several else None, name)
    recorded = is_grad_enabled() and any(t.requires_grad for t in results)
    if is_grad_enabled() and (any(t.requires_grad for t in outs) or (recorded and name not in RECORDED_WRITES)):
        raise RuntimeError(AUTOGRAD_ERROR.format(name=name))
    for value, target in zip(results, outs):
        _check_fits(value, target, name, factory)
        if not factory:  # a factory fills ``out``, which may overlap itself; an op's result is copied in
            target._refuse_internal_overlap()
    for value, target in zip(results, outs):
        with no_grad():
            _resize(target, value.shape, factory or name in SILENT_RESIZES)
        if recorded:  # a function built from others: ``out.copy_(result)``, recorded as PyTorch's
            target.copy_(value)
            continue
        with no_grad():
            target._write(value)
            target._bump_version()
    if not several:
        return outs[0]
    return type(result)(*outs) if hasattr(result, "_fields") else tuple(outs)


def _with_out(signature: inspect.Signature) -> inspect.Signature:
    """``signature`` with a keyword-only ``out=None`` (before any ``**kwargs``), as PyTorch's."""
    parameters = [p for p in signature.parameters.values() if p.kind is not inspect.Parameter.VAR_KEYWORD]
    var_keyword = [p for p in signature.parameters.values() if p.kind is inspect.Parameter.VAR_KEYWORD]
    out = inspect.Parameter("out", inspect.Parameter.KEYWORD_ONLY, default=None)
    return signature.replace(parameters=parameters + [out] + var_keyword)


def accepts_out(function: F, name: Optional[str] = None, *, factory: bool = False) -> F:
    """``function`` taking PyTorch's ``out=`` too: it computes as before, then :func:`write_out`.
    A ``factory`` (``eye``, ``linspace``) makes its values in ``out``'s dtype and on its device
    unless the call names others, as PyTorch's factories do."""
    label = name or function.__name__

    @functools.wraps(function)
    def wrapper(*args: Any, out: Any = None, **kwargs: Any) -> Any:
        if out is None:
            return function(*args, **kwargs)
        if isinstance(out, tensor_class()) and (factory or label in OUT_DTYPE_FUNCTIONS):
            if kwargs.get("dtype") is None:
                kwargs["dtype"] = out.dtype
            if factory and kwargs.get("device") is None:
                kwargs["device"] = out.device
        return write_out(function(*args, **kwargs), out, label, factory=factory)

    wrapper.__signature__ = _with_out(inspect.signature(function))  # type: ignore[attr-defined]
    return wrapper  # type: ignore[return-value]


def takes_out(function: Callable[..., Any]) -> bool:
    """Whether ``function``'s signature has ``out``."""
    try:
        return "out" in inspect.signature(function).parameters
    except (TypeError, ValueError):
        return False


def give_out_arguments(namespace: dict[str, Any], names: Sequence[str], factories: Sequence[str] = (),
                       prefix: str = "") -> None:
    """Give each of ``names`` in ``namespace`` (a module's globals) the ``out=`` keyword where it
    lacks one; ``factories`` are made in ``out``'s dtype. ``prefix`` (``linalg.``) names them in errors."""
    for name in (*names, *factories):
        function = namespace.get(name)
        if function is not None and not takes_out(function):
            namespace[name] = accepts_out(function, prefix + name, factory=name in factories)


#: the top-level functions PyTorch gives ``out=`` that are written here without it (found by
#: ``tools/audit_out_argument.py``; the rest declare ``out`` themselves)
TOPLEVEL_FUNCTIONS = (
    "abs", "addbmm", "addmm", "addmv", "addr", "all", "aminmax", "any", "argmax", "argmin", "argsort", "baddbmm",
    "bitwise_and", "bitwise_left_shift", "bitwise_not", "bitwise_or", "bitwise_right_shift", "bitwise_xor", "bmm",
    "bucketize", "cat", "cholesky", "column_stack", "concat", "concatenate", "copysign", "cos", "cummax", "cummin",
    "cumprod", "cumsum", "deg2rad", "diag", "diff", "dot", "dstack", "exp", "float_power", "fmax", "fmin", "frexp",
    "gather", "gcd", "geqrf", "ger", "hardshrink", "heaviside", "histc", "hstack", "index_add", "index_copy",
    "index_select", "inner", "inverse", "isin", "kron", "kthvalue", "lcm", "ldexp", "log", "log_softmax",
    "logaddexp2", "logcumsumexp", "logit", "logsumexp", "masked_select", "max", "maximum", "mean", "median", "min",
    "minimum", "mm", "mode", "msort", "mv", "nanmean", "nanmedian", "nanquantile", "nansum", "nextafter", "nonzero",
    "norm", "outer", "pow", "qr", "quantile", "rad2deg", "renorm", "row_stack", "scatter", "scatter_add",
    "scatter_reduce", "searchsorted", "sigmoid", "signbit", "sin", "sinc", "slice_scatter", "slogdet", "softmax",
    "sort", "sqrt", "stack", "std", "sum", "svd", "take", "take_along_dim", "tanh", "threshold", "topk", "tril",
    "triu", "var", "vdot", "vstack", "where", "xlogy",
)
#: the top-level factories among them: their values are made in ``out``'s dtype, on its device
TOPLEVEL_FACTORIES = ("eye", "linspace", "randperm", "range")
#: the same for :mod:`minitorch.linalg`
LINALG_FUNCTIONS = (
    "cross", "det", "eigh", "eigvalsh", "householder_product", "inv", "lstsq", "matrix_norm", "norm", "pinv", "qr",
    "slogdet", "svd", "svdvals", "vector_norm",
)

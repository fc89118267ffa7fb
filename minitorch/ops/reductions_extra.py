r"""Reductions composed from existing primitives: ``logsumexp``, ``std_mean``/``var_mean``,
``count_nonzero``, ``norm`` and the ``linalg`` norms, ``sort``/``argsort``/``topk``,
``median``, ``cumsum``/``cumprod``.

Each is tensor math over ``amax``, ``sum``, ``gather`` and friends, so autograd and every
backend come for free; only the orderings (``sort``) are computed on the host, and the
values are then gathered through the differentiable ``gather``.
The methods live on :class:`ExtraReductions`, which ``Tensor`` inherits.
"""

from __future__ import annotations

import math
import warnings
from typing import TYPE_CHECKING, Any, Callable, Optional, Sequence, Union

import numpy as np

from ..autograd.function import Context, Function
from ..autograd.grad_mode import is_grad_enabled
from .. import dtypes, return_types
from ..dtypes import accumulates_in
from .dtype_refusals import refuse_bool, refuse_non_float_variance
from .opmath import in_float32
from ..keywords import accepts_numpy_names
from ..out_argument import user_stacklevel

if TYPE_CHECKING:  # Tensor inherits ExtraReductions from this module: the import runs the other way
    from ..tensor import Tensor

Dims = Optional[Union[int, Sequence[int]]]

SortResult = return_types.sort
TopkResult = return_types.topk
MedianResult = return_types.median


def _dim_tuple(t: Tensor, dim: Dims) -> tuple[int, ...]:
    """``dim`` as a sorted tuple of non-negative dims (all of them for ``None``)."""
    return t._dims(dim)


def _host_tensor(array: np.ndarray, like: Tensor) -> Tensor:
    """``array`` as a tensor on ``like``'s device (its own dtype)."""
    return like.new_tensor(array, dtype=_torch_dtype(array))


def _torch_dtype(array: np.ndarray) -> Any:
    from ..dtypes import from_numpy_dtype

    return from_numpy_dtype(array.dtype)


def _one_dim(t: Tensor, dim: int) -> int:
    """``dim`` checked against ``t`` and made non-negative (0 for a 0-d tensor)."""
    dims = t._dims(dim)
    return dims[0] if dims else 0


# ---- logsumexp, var_mean, count_nonzero ----


@accepts_numpy_names
def logsumexp(input: Tensor, dim: Dims, keepdim: bool = False) -> Tensor:  # noqa: A002 - PyTorch's name
    r""":math:`\log \sum_i e^{x_i}`, computed as :math:`m + \log \sum_i e^{x_i - m}` with
    :math:`m = \max_i x_i` so no exponential overflows (the result does not depend on :math:`m`,
    so :math:`m` is held constant for the gradient)."""
    if not input.dtype.is_floating_point:
        input = input.float()
    dims = _dim_tuple(input, dim)
    if not dims:  # a 0-d input or an empty list of dims of a 0-d input
        return input.clone()
    if any(input.shape[d] == 0 for d in dims):
        shift = input.detach().sum(dims, keepdim=True) * 0.0
    else:
        peak = input.detach().amax(dims, keepdim=True)
        shift = peak.masked_fill(peak.abs() == math.inf, 0.0)
    out = (input - shift).exp().sum(dims, keepdim=True).log() + shift
    return out if keepdim else out.squeeze(dims)._standalone()


def var_mean(input: Tensor, dim: Dims = None, unbiased: Optional[bool] = None, keepdim: bool = False,  # noqa: A002
             *, correction: Optional[int] = None) -> tuple[Tensor, Tensor]:
    """``(var, mean)`` over ``dim``: two outputs of one node (``VarMeanBackward0``)."""
    return _spread_mean(input, dim, unbiased, keepdim, correction, "var_mean")


def std_mean(input: Tensor, dim: Dims = None, unbiased: Optional[bool] = None, keepdim: bool = False,  # noqa: A002
             *, correction: Optional[int] = None) -> tuple[Tensor, Tensor]:
    """``(std, mean)`` over ``dim``: two outputs of one node (``StdMeanBackward0``)."""
    return _spread_mean(input, dim, unbiased, keepdim, correction, "std_mean")


def _spread_mean(input: Tensor, dim: Dims, unbiased: Optional[bool], keepdim: bool,  # noqa: A002
                 correction: Optional[int], name: str) -> tuple[Tensor, Tensor]:
    """:class:`SpreadMean`'s two outputs, after PyTorch's dtype refusal and dim checks."""
    refuse_non_float_variance(input.dtype, name)
    dims = input._dims(dim)
    if correction is None:
        correction = 0 if unbiased is False else 1
    return SpreadMean.apply(input, dims, keepdim, correction, dim, name)


def count_nonzero(input: Tensor, dim: Dims = None) -> Tensor:  # noqa: A002
    """How many elements are not zero, over ``dim`` (all dims by default); int64."""
    return (input.detach() != 0).sum(dim)


# ---- norms ----


class PowerNorm(Function):
    r""":math:`\|x\|_p = (\sum_i |x_i|^p)^{1/p}` over ``dims``;
    :math:`\partial \|x\|_p / \partial x_i = \mathrm{sign}(x_i) |x_i|^{p-1} / \|x\|_p^{p-1}`,
    taken as 0 where the norm is 0 (as PyTorch does)."""

    @staticmethod
    def forward(ctx: Context, a: Tensor, p: float, dims: tuple[int, ...], keepdim: bool) -> Tensor:
        ctx.save_for_backward(a)
        ctx.p, ctx.dims = p, dims
        norm = a.abs().pow(p).sum(dims, keepdim=True).pow(1.0 / p)
        ctx.norm = norm
        return norm if keepdim else norm.squeeze(dims)

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Tensor, None, None, None]:
        (a,) = ctx.saved_tensors
        norm = ctx.norm
        if is_grad_enabled() and a.requires_grad:  # a second derivative needs the norm as a function of a
            norm = a.abs().pow(ctx.p).sum(ctx.dims, keepdim=True).pow(1.0 / ctx.p)
        kept = grad.reshape(norm.shape)
        scale = (kept / norm.pow(ctx.p - 1)).masked_fill(norm == 0, 0.0)
        return a.sign() * a.abs().pow(ctx.p - 1) * scale, None, None, None


def vector_norm(x: Tensor, ord: Any = 2, dim: Dims = None, keepdim: bool = False,  # noqa: A002 - PyTorch's name
                *, dtype: Any = None) -> Tensor:
    r""":math:`\|x\|_{\mathrm{ord}}` over ``dim`` (all elements by default), ``x`` read as a vector
    (float16 and bfloat16 in float32, rounded once, as PyTorch computes them)."""
    return _vector_norm(x, ord, dim, keepdim, dtype=dtype)


def _vector_norm_any(x: Tensor, ord: Any, dim: Dims, keepdim: bool,  # noqa: A002 - PyTorch's name
                     *, dtype: Any = None) -> Tensor:
    if dtype is not None:
        x = x.to(dtype)
    if not x.dtype.is_floating_point:
        raise RuntimeError(
            f"linalg.vector_norm: Expected a floating point or complex tensor as input. Got {dtypes.scalar_type_name(x.dtype)}"
        )
    if isinstance(dim, (tuple, list)) and not dim:
        dim = None
    dims = _dim_tuple(x, dim)
    magnitude = x.abs()
    if ord == math.inf or ord == -math.inf:
        if x.numel() == 0 and ord == -math.inf:
            raise RuntimeError("linalg.vector_norm cannot compute the -inf norm on an empty tensor because the operation does not have an identity")
        if not dims:
            return magnitude
        if any(x.shape[d] == 0 for d in dims):
            out = magnitude.sum(dims, keepdim)  # the max of nothing is 0 for a norm
            return out
        return magnitude.amax(dims, keepdim) if ord > 0 else magnitude.amin(dims, keepdim)
    if ord == 0:
        return (x.detach() != 0).to(x.dtype).sum(dims, keepdim)
    if ord == 1:
        return magnitude.sum(dims, keepdim)
    return PowerNorm.apply(x, float(ord), dims, keepdim)


_vector_norm = in_float32(_vector_norm_any, "LinalgVectorNormBackward0")


def matrix_norm(A: Tensor, ord: Any = "fro", dim: tuple[int, int] = (-2, -1), keepdim: bool = False,  # noqa: A002,N803
                *, dtype: Any = None) -> Tensor:
    """The Frobenius (``'fro'``), 1-, inf-, -1- and -inf-norms of the matrices in the last two dims."""
    if A.dim() < 2:
        raise RuntimeError(f"linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    if dtype is not None:
        A = A.to(dtype)
    rows, cols = (d % A.dim() for d in dim)
    if ord == "fro":
        return vector_norm(A, 2, (rows, cols), keepdim)
    if ord in (1, -1, math.inf, -math.inf):
        summed, extreme = (rows, cols) if ord in (1, -1) else (cols, rows)
        sums = A.abs().sum(summed, keepdim=True)
        out = sums.amax(extreme, keepdim=True) if ord > 0 else sums.amin(extreme, keepdim=True)
        return out if keepdim else out.squeeze((rows, cols))
    raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")


#: ``torch.norm`` with the nuclear norm, from the singular values: set by :mod:`.matrix_norms`, a layer
#: above this module (``Tensor`` inherits this one's methods, so it cannot import the SVD)
nuclear_norm: Optional[Callable[..., Tensor]] = None


def norm(input: Tensor, p: Any = "fro", dim: Dims = None, keepdim: bool = False, dtype: Any = None) -> Tensor:  # noqa: A002
    """``torch.norm``: the vector p-norm over ``dim``; ``'fro'`` is the 2-norm of all elements;
    ``'nuc'`` the sum of the singular values (:data:`nuclear_norm`)."""
    if p == "fro":
        p = 2
    if p == "nuc":
        if nuclear_norm is None:
            raise RuntimeError("norm(): the nuclear norm needs minitorch.ops.matrix_norms")
        return nuclear_norm(input, p, dim, keepdim, dtype)
    return vector_norm(input, p, dim, keepdim, dtype=dtype)


# ---- orderings ----


def _stable_order_along(values: np.ndarray, axis: int, descending: bool) -> np.ndarray:
    """Indices that order ``values`` along ``axis``, ties in their order, NaN largest: one NumPy
    sort of all the rows. Descending is the ascending order of the rows reversed, read back to
    front: ties keep their order, and no value is negated (which wraps an unsigned one)."""
    if values.size == 0:
        return np.zeros(values.shape, dtype=np.int64)
    moved = np.moveaxis(values, axis, -1)
    if descending:
        last = moved.shape[-1] - 1
        order = (last - np.argsort(moved[..., ::-1], axis=-1, kind="stable"))[..., ::-1]
    else:
        order = np.argsort(moved, axis=-1, kind="stable")
    return np.moveaxis(order, -1, axis)


def argsort(input: Tensor, dim: int = -1, descending: bool = False, *, stable: bool = False) -> Tensor:  # noqa: A002
    """Indices that order ``input`` along ``dim`` (ties keep their order; NaN is largest)."""
    if input.dim() == 0:
        _one_dim(input, dim)
        return _host_tensor(np.zeros((), np.int64), input)
    d = _one_dim(input, dim)
    return _host_tensor(_stable_order_along(input.detach().numpy(force=True), d, descending), input)


def sort(input: Tensor, dim: int = -1, descending: bool = False, *, stable: bool = False) -> SortResult:  # noqa: A002
    """``(values, indices)``: ``input`` ordered along ``dim``; the gradient follows the indices."""
    indices = argsort(input, dim, descending)
    if input.dim() == 0:
        return SortResult(input.clone(), indices)
    return SortResult(input.gather(dim, indices), indices)


def topk(input: Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True) -> TopkResult:  # noqa: A002
    """The ``k`` largest (or smallest) values along ``dim`` and their indices, in order."""
    size = input.shape[_one_dim(input, dim)] if input.dim() else 1
    if not 0 <= k <= size:
        raise RuntimeError("selected index k out of range")
    if input.dtype is dtypes.bool_:
        raise RuntimeError("topk does not support bool dtypes on CPU")
    if input.dim() == 0:
        return TopkResult(input.clone(), _host_tensor(np.zeros((), np.int64), input))
    d = _one_dim(input, dim)
    indices = argsort(input, d, descending=largest).narrow(d, 0, k)
    return TopkResult(input.gather(d, indices), indices)


@accepts_numpy_names
def median(input: Tensor, dim: Optional[int] = None, keepdim: bool = False) -> Any:  # noqa: A002
    """The lower median (the smaller of the two middle values); with ``dim``, ``(values, indices)``.
    A NaN in a row makes that row's median NaN."""
    if dim is None:
        if input.numel() == 0:  # PyTorch's NaN in the input's dtype: True for bool
            if input.dtype is dtypes.bool_:
                return _host_tensor(np.ones((), np.bool_), input)
            return input.sum() * math.nan if input.dtype.is_floating_point else input.reshape(-1).sum()
        refuse_bool("median_cpu", input.dtype)
        return ChosenValue.apply(input, lambda a: median(a.reshape(-1), 0).values.view(())._standalone(),
                                 "MedianBackward0")
    if input.dim() == 0:
        _one_dim(input, dim)
        refuse_bool("median_out", input.dtype)
        return MedianResult(input.clone(), _host_tensor(np.zeros((), np.int64), input))
    d = _one_dim(input, dim)
    size = input.shape[d]
    if size == 0:
        raise IndexError(f"median(): Expected reduction dim {d} to have non-zero size.")
    refuse_bool("median_out", input.dtype)
    values = input.detach().numpy(force=True)
    order = _stable_order_along(values, d, descending=False)
    middle = np.take(order, [(size - 1) // 2], axis=d)
    if values.dtype.kind == "f":
        has_nan = np.isnan(values).any(axis=d, keepdims=True)
        first_nan = np.expand_dims(np.argmax(np.isnan(values), axis=d), d)
        middle = np.where(has_nan, first_nan, middle)
    indices = _host_tensor(middle.astype(np.int64), input)
    out = input.gather(d, indices)
    if not keepdim:
        out, indices = out.squeeze(d)._standalone(), indices.squeeze(d)._standalone()
    return MedianResult(out, indices)


class ChosenValue(Function):
    r"""One value chosen from all elements of ``a`` by ``choose`` (``median()``, ``nanmedian()``), with
    PyTorch's gradient for it: split evenly between the elements equal to the value (between the
    NaNs when it is NaN), :math:`\partial a_i = g\,[a_i = v] / \#\{j : a_j = v\}`."""

    @staticmethod
    def forward(ctx: Context, a: Tensor, choose: Any, name: str) -> Tensor:
        ctx.grad_fn_name = name
        value = choose(a)
        ctx.save_for_backward(a, value)
        return value

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Tensor, None, None]:
        a, value = ctx.saved_tensors
        chosen = (a != a) if bool(value != value) else (a == value)
        share = grad / chosen.sum()
        return share.where(chosen, a.new_zeros(())), None, None


# ---- scans ----


class StdRoot(Function):
    r""":math:`s = \sqrt{v}` of a variance :math:`v`; :math:`\partial L/\partial v = g / 2s`, and 0
    where :math:`s = 0` (PyTorch's ``std_backward``; sqrt's own gradient would give :math:`0 \cdot \infty`)."""

    grad_fn_name = "StdBackward0"

    @staticmethod
    def forward(ctx: Context, variance: Tensor) -> Tensor:
        out = variance.sqrt()
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> Tensor:
        (out,) = ctx.saved_tensors
        return (grad / (out * 2)).masked_fill(out == 0, 0.0)


#: PyTorch's warning for a variance whose correction is at least the number of elements reduced
NO_FREEDOM_WARNING = (
    "{}(): degrees of freedom is <= 0. Correction should be strictly less than the reduction factor "
    "(input numel divided by output numel)."
)


class Variance(Function):
    r""":math:`v = \frac{1}{N - c}\sum_i (x_i - \bar x)^2` over ``dims`` (correction :math:`c`), with
    PyTorch's gradient :math:`\frac{2}{N - c}\, g\, (x_i - \bar x)`: the mean's own dependence on
    :math:`x` is left out (its terms sum to 0), so an infinite element sends :math:`\mp\infty`, not
    NaN, to the others. Over all elements (``dim`` None) with :math:`N \le c` the gradient is NaN
    where :math:`x_i = \bar x` and :math:`\infty` elsewhere, as PyTorch's; for ``dim=[]`` (all
    elements too) PyTorch's backward counts :math:`N = 1`, and so does this one."""

    grad_fn_name = "VarBackward0"

    @staticmethod
    def forward(ctx: Context, a: Tensor, dims: tuple[int, ...], keepdim: bool, correction: float,
                dim: Any, name: str) -> Tensor:
        count = math.prod(a.shape[d] for d in dims)
        if count - correction <= 0:
            warnings.warn(NO_FREEDOM_WARNING.format(name), UserWarning, stacklevel=5)
        counted = 1 if isinstance(dim, (list, tuple)) and not dim else count  # PyTorch's backward's N
        ctx.save_for_backward(a)
        ctx.dims, ctx.keepdim, ctx.freedom = dims, keepdim, counted - correction
        ctx.all_dims = dim is None or a.dim() == 0
        centered = a - a.mean(dims, keepdim=True)
        return (centered * centered).sum(dims, keepdim) / max(count - correction, 0)

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Optional[Tensor], ...]:
        (a,) = ctx.saved_tensors
        freedom = ctx.freedom
        if ctx.all_dims and freedom <= 0:
            spread = a.new_full(a.shape, math.inf).masked_fill(a == a.mean(), math.nan)
            return grad * spread, None, None, None, None, None
        if not ctx.keepdim and ctx.dims:
            grad = grad.reshape([1 if d in ctx.dims else size for d, size in enumerate(a.shape)])
        scale = 2.0 / freedom if freedom else math.inf
        return scale * grad * (a - a.mean(ctx.dims, keepdim=True)), None, None, None, None, None


class SpreadMean(Function):
    r"""``var_mean`` (``std_mean`` for ``name == "std_mean"``): the variance (or its root) and the
    mean over ``dims``, as one node with two outputs, as PyTorch's. 16-bit floats are reduced in
    float32 and rounded once; the backward runs in the input's dtype. Its gradient is the sum of
    :class:`Variance`'s (through :class:`StdRoot`'s for the root) and the mean's,
    :math:`\bar\mu / N`, each only for an output that got a gradient, so an unused variance with
    no degrees of freedom sends no NaN."""

    @staticmethod
    def forward(ctx: Context, a: Tensor, dims: tuple[int, ...], keepdim: bool, correction: float, dim: Any,
                name: str) -> tuple[Tensor, Tensor]:
        ctx.grad_fn_name = "StdMeanBackward0" if name == "std_mean" else "VarMeanBackward0"
        ctx.set_materialize_grads(False)
        source = a.float() if a.dtype in dtypes.LOW_PRECISION_FLOATS else a
        with warnings.catch_warnings(record=True) as caught:  # the warning, re-raised at the caller
            warnings.simplefilter("always")
            spread = Variance.forward(ctx, source, dims, keepdim, correction, dim, name)
        for warning in caught:
            warnings.warn(warning.message, warning.category, stacklevel=user_stacklevel())
        ctx.save_for_backward(a)
        ctx.root = spread.sqrt().to(a.dtype) if name == "std_mean" else None
        ctx.count = math.prod(a.shape[d] for d in dims)
        return ctx.root if ctx.root is not None else spread.to(a.dtype), a.mean(dims, keepdim)

    @staticmethod
    def backward(ctx: Context, grad_spread: Optional[Tensor],
                 grad_mean: Optional[Tensor]) -> tuple[Optional[Tensor], ...]:
        (a,) = ctx.saved_tensors
        total = None
        if grad_spread is not None:
            grad_spread = grad_spread.to(a.dtype)  # (PyTorch's engine gives each node grads of its outputs' dtype)
            if ctx.root is not None:  # std_backward: through the root, 0 where it is 0
                grad_spread = (grad_spread / (ctx.root * 2)).masked_fill(ctx.root == 0, 0.0)
            total = Variance.backward(ctx, grad_spread)[0]
        if grad_mean is not None:
            grad_mean = grad_mean.to(a.dtype)
            if not ctx.keepdim and ctx.dims:
                grad_mean = grad_mean.reshape([1 if d in ctx.dims else size for d, size in enumerate(a.shape)])
            share = grad_mean.expand(*a.shape) / ctx.count
            total = share if total is None else total + share
        return total, None, None, None, None, None


class CumulativeSum(Function):
    r""":math:`y_j = \sum_{i \le j} x_i` along ``dim``; :math:`\partial L/\partial x_i = \sum_{j \ge i} g_j`
    (the reversed cumulative sum of the gradient). 16-bit floats are summed in float32, each
    running sum rounded once, as in PyTorch."""

    grad_fn_name = "CumsumBackward0"

    @staticmethod
    def forward(ctx: Context, a: Tensor, dim: int) -> Tensor:
        ctx.dim = dim
        values = a.numpy(force=True)
        return _host_tensor(np.cumsum(values, axis=dim, dtype=accumulates_in(values.dtype)), a).to(a.dtype)

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Tensor, None]:
        return CumulativeSum.apply(grad.flip(ctx.dim), ctx.dim).flip(ctx.dim), None


class CumulativeProduct(Function):
    r""":math:`y_j = \prod_{i \le j} x_i` along ``dim``;
    :math:`\partial L/\partial x_i = \sum_{j \ge i} g_j \prod_{k \le j, k \ne i} x_k`,
    computed without dividing by :math:`x_i`, so zeros get their true gradient. 16-bit floats are
    multiplied in float32, as in PyTorch."""

    grad_fn_name = "CumprodBackward0"

    @staticmethod
    def forward(ctx: Context, a: Tensor, dim: int) -> Tensor:
        ctx.save_for_backward(a)
        ctx.dim = dim
        values = a.numpy(force=True)
        return _host_tensor(np.cumprod(values, axis=dim, dtype=accumulates_in(values.dtype)), a).to(a.dtype)

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Tensor, None]:
        (a,) = ctx.saved_tensors
        if is_grad_enabled() and (a.requires_grad or grad.requires_grad):
            return CumulativeProduct._differentiable_backward(a, grad, ctx.dim), None
        values = np.moveaxis(a.numpy(force=True), ctx.dim, -1)
        grads = np.broadcast_to(np.moveaxis(grad.numpy(force=True), ctx.dim, -1), values.shape)
        return _host_tensor(np.moveaxis(_cumprod_grad(values, grads), -1, ctx.dim), a).to(a.dtype), None

    @staticmethod
    def _differentiable_backward(a: Tensor, grad: Tensor, dim: int) -> Tensor:
        r"""The same gradient from recorded ops, for ``create_graph``:
        :math:`\partial L / \partial x_i = \sum_{j \ge i} g_j \prod_{k \le j, k \ne i} x_k`
        (the running product of ``x`` with :math:`x_i` replaced by 1, through this op again)."""
        values, grads = a.movedim(dim, -1), grad.movedim(dim, -1)
        size = values.shape[-1]
        if size == 0:
            return a.new_zeros(a.shape)
        unit = np.eye(size, dtype=np.float64)
        result = None
        for i in range(size):
            e_i = _host_tensor(unit[i], a).to(a.dtype)
            without_i = values * (1 - e_i) + e_i
            column = (grads[..., i:] * without_i.cumprod(-1)[..., i:]).sum(-1, keepdim=True) * e_i
            result = column if result is None else result + column
        return result.movedim(-1, dim)


def _reversed_cumsum(w: np.ndarray) -> np.ndarray:
    """Sums from each position to the end of the last axis."""
    return np.cumsum(w[..., ::-1], axis=-1, dtype=accumulates_in(w.dtype)).astype(w.dtype)[..., ::-1]


def _cumprod_grad(values: np.ndarray, grads: np.ndarray) -> np.ndarray:
    r"""PyTorch's O(n) gradient of the running product along the last axis (``cumprod_backward``):
    :math:`\sum_{j \ge k} g_j y_j / x_k` where the row has no zero; in a row with zeros, that sum
    up to the first zero :math:`z_1`, at :math:`z_1` the product before it times
    :math:`\sum_{z_1 \le j < z_2} g_j \prod_{z_1 < i \le j} x_i`, and 0 after it."""
    if values.size <= 1 or values.shape[-1] == 1:
        return grads.copy()
    with np.errstate(all="ignore"):
        output = np.cumprod(values, axis=-1, dtype=accumulates_in(values.dtype)).astype(values.dtype)
        weighted = output * grads
        is_zero = values == 0
        if not is_zero.any():
            return _reversed_cumsum(weighted) / values
        zeros_so_far = np.cumsum(is_zero, axis=-1)
        before_first = zeros_so_far == 0
        out = np.where(before_first, _reversed_cumsum(np.where(before_first, weighted, 0)) / values, 0)
        up_to_second = zeros_so_far == 1
        first = np.argmax(up_to_second, axis=-1)[..., None]
        first_mask = (np.arange(values.shape[-1]) == first) & up_to_second
        between = up_to_second & ~first_mask
        running = np.cumprod(np.where(between, values, 1), axis=-1, dtype=accumulates_in(values.dtype)).astype(values.dtype)
        summed = (running * np.where(up_to_second, grads, 0)).sum(axis=-1, keepdims=True)
        previous = np.take_along_axis(output, np.maximum(first - 1, 0), axis=-1)
        at_first = summed * np.where(first == 0, 1, previous)
        return np.where(first_mask, at_first, out).astype(values.dtype)


def _scan(fn: Any, input: Tensor, dim: int, dtype: Any) -> Tensor:  # noqa: A002
    if dtype is not None:
        input = input.to(dtype)
    elif not input.dtype.is_floating_point:
        input = input.long()  # integer and bool scans are int64, as in PyTorch
    if input.dim() == 0:
        _one_dim(input, dim)
        return fn.apply(input.view(1), 0).view(())
    return fn.apply(input, _one_dim(input, dim))


def cumsum(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:  # noqa: A002
    """Running sums along ``dim``."""
    return _scan(CumulativeSum, input, dim, dtype)


def cumprod(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:  # noqa: A002
    """Running products along ``dim``."""
    return _scan(CumulativeProduct, input, dim, dtype)


class ExtraReductions:
    """These reductions as methods of :class:`~minitorch.tensor.Tensor` (which inherits them)."""

    @accepts_numpy_names
    def logsumexp(self: Tensor, dim: Dims, keepdim: bool = False) -> Tensor:
        return logsumexp(self, dim, keepdim)

    @accepts_numpy_names
    def count_nonzero(self: Tensor, dim: Dims = None) -> Tensor:
        return count_nonzero(self, dim)

    def norm(self: Tensor, p: Any = "fro", dim: Dims = None, keepdim: bool = False, dtype: Any = None) -> Tensor:
        return norm(self, p, dim, keepdim, dtype)

    @accepts_numpy_names
    def sort(self: Tensor, dim: int = -1, descending: bool = False, *, stable: bool = False) -> SortResult:
        return sort(self, dim, descending, stable=stable)

    @accepts_numpy_names
    def argsort(self: Tensor, dim: int = -1, descending: bool = False, *, stable: bool = False) -> Tensor:
        return argsort(self, dim, descending, stable=stable)

    @accepts_numpy_names
    def topk(self: Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True) -> TopkResult:  # noqa: A002
        return topk(self, k, dim, largest, sorted)

    @accepts_numpy_names
    def median(self: Tensor, dim: Optional[int] = None, keepdim: bool = False) -> Any:
        return median(self, dim, keepdim)

    @accepts_numpy_names
    def cumsum(self: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
        return cumsum(self, dim, dtype=dtype)

    @accepts_numpy_names
    def cumprod(self: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
        return cumprod(self, dim, dtype=dtype)

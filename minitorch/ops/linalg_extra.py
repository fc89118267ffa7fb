"""``torch.linalg``'s helpers built from other ops: ``multi_dot``, ``vecdot``, ``matmul``, ``diagonal``,
``matrix_rank`` and ``cond``. Each is a composition, so autograd follows through it."""

from __future__ import annotations

from typing import Any, Optional, Sequence, Union

from ..autograd.function import Node
from ..autograd.grad_mode import is_grad_enabled
from ..creation import _written
from ..dtypes import int64, scalar_type_name
from ..out_argument import write_out
from ..tensor import Tensor
from ..tensor import matmul as tensor_matmul
from ..type_info import finfo
from .decompositions import LinAlgError, check_matrices, eigvalsh, inv, svdvals
from .reductions_extra import matrix_norm
from .vector_products import Dot, _saved

#: the orders ``cond`` computes from singular values; the others need the inverse
SINGULAR_VALUE_ORDERS = (None, 2, -2)


def multi_dot(tensors: Sequence[Tensor], *, out: Optional[Tensor] = None) -> Tensor:
    """The chained product of matrices; the first may be a row vector and the last a column vector
    (1-D), which the result then drops, as ``torch.linalg.multi_dot``."""
    tensors = list(tensors)
    if len(tensors) < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {len(tensors)}")
    first, last = tensors[0], tensors[-1]
    if first.dim() not in (1, 2):
        raise RuntimeError(f"multi_dot(): the first tensor must be 1D or 2D but got {first.dim()}D")
    if last.dim() not in (1, 2):
        raise RuntimeError(f"multi_dot(): the last tensor must be 1D or 2D but got {last.dim()}D")
    for index, middle in enumerate(tensors[1:-1], start=1):
        if middle.dim() != 2:
            raise RuntimeError(f"multi_dot(): tensor {index} must be 2D but got {middle.dim()}D")
    for index, t in enumerate(tensors[1:], start=1):
        if t.dtype is not first.dtype:
            raise RuntimeError(f"multi_dot(): all tensors must have be the same dtype but tensor 0 is "
                               f"{scalar_type_name(first.dtype).lower()} and tensor {index} "
                               f"{scalar_type_name(t.dtype).lower()}")
    matrices = [first.unsqueeze(0) if first.dim() == 1 else first] + tensors[1:-1] + [
        last.unsqueeze(-1) if last.dim() == 1 else last]
    for index in range(len(matrices) - 1):
        if matrices[index].shape[-1] != matrices[index + 1].shape[0]:
            raise RuntimeError(f"multi_dot(): tensors {index} and {index + 1} with shapes "
                               f"{list(tensors[index].shape)} and {list(tensors[index + 1].shape)} cannot be multiplied")
    result = matrices[0]
    for matrix in matrices[1:]:
        result = result @ matrix
    if first.dim() == 1:
        result = result.squeeze(0)
    if last.dim() == 1:
        result = result.squeeze(-1)
    return _written(out, result, "linalg.multi_dot")


class Vdot(Dot):
    """``vdot`` of two real vectors: :class:`Dot` under PyTorch's ``VdotBackward0``."""

    grad_fn_name = "VdotBackward0"
    node_class = type("VdotBackward0", (Node,), {"_saved_self": _saved(0), "_saved_other": _saved(1)})


def vecdot(x: Tensor, y: Tensor, *, dim: int = -1, out: Optional[Tensor] = None) -> Tensor:
    """The dot product of the vectors along ``dim``, the other dims broadcast; floating point
    operands of one dtype only. Two 1-D operands make one ``vdot`` (``dim`` unused), as in PyTorch."""
    if not x.dtype.is_floating_point:
        raise RuntimeError(f"linalg.vecdot: Expected a floating point or complex tensor as input. "
                           f"Got {scalar_type_name(x.dtype)}")
    if y.dtype is not x.dtype:
        raise RuntimeError(f"linalg.vecdot: Expected x and y to have the same dtype, but found x of type "
                           f"{scalar_type_name(x.dtype)} and y of type {scalar_type_name(y.dtype)} instead")
    if out is not None and out.dtype is not x.dtype:
        raise RuntimeError(f"linalg.vecdot: Expected out of dtype{scalar_type_name(x.dtype)} but found "
                           f"{scalar_type_name(out.dtype)}")
    if x.dim() == 1 and y.dim() == 1:
        if x.shape[0] != y.shape[0]:
            raise RuntimeError(f"inconsistent tensor size, expected tensor [{x.shape[0]}] and src [{y.shape[0]}] to "
                               f"have the same number of elements, but got {x.shape[0]} and {y.shape[0]} elements "
                               "respectively")
        result = Vdot.apply(x, y)
    else:
        result = (x * y).sum(dim)
    return write_out(result, out, "linalg_vecdot")


#: the C++ names of the dtypes in PyTorch's ``matmul`` ``out=`` dtype error
CPP_TYPE_NAMES = {
    "bool": "bool", "uint8": "unsigned char", "int8": "signed char", "int16": "short int", "int32": "int",
    "int64": "long int", "float16": "c10::Half", "bfloat16": "c10::BFloat16", "float32": "float", "float64": "double",
}


def _check_matmul_out(input: Tensor, other: Tensor, result: Tensor, out: Tensor) -> None:  # noqa: A002
    """PyTorch's refusal of a ``matmul`` ``out`` of another dtype than the product's (no cast)."""
    if out.dtype is result.dtype or (is_grad_enabled() and (input.requires_grad or other.requires_grad)):
        return  # (a product that needs a gradient gets out='s autograd refusal first)
    if input.dim() == 1 and other.dim() == 1:
        raise RuntimeError(f"result dtype {scalar_type_name(out.dtype)} does not match input dtype "
                           f"{scalar_type_name(result.dtype)}")
    raise RuntimeError(f"Expected out tensor to have dtype {CPP_TYPE_NAMES[result.dtype.name]}, but got "
                       f"{CPP_TYPE_NAMES[out.dtype.name]} instead")


def linalg_matmul(input: Tensor, other: Tensor, *, out: Optional[Tensor] = None) -> Tensor:  # noqa: A002
    """``torch.linalg.matmul``: ``torch.matmul`` under the ``linalg`` name (an ``out`` of the product's dtype)."""
    result = tensor_matmul(input, other)
    if isinstance(out, Tensor):  # (anything else gets write_out's refusal)
        _check_matmul_out(input, other, result, out)
    return write_out(result, out, "matmul")


def diagonal(A: Tensor, *, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:  # noqa: N803 - PyTorch's name
    """``torch.diagonal`` with the last two dims as the default matrix dims."""
    return A.diagonal(offset, dim1, dim2)


def matrix_rank(A: Tensor, tol: Optional[float] = None, hermitian: bool = False, *,  # noqa: N803
                atol: Optional[Any] = None, rtol: Optional[Any] = None, out: Optional[Tensor] = None) -> Tensor:
    """The number of singular values above ``max(atol, rtol * largest)``; with neither given,
    ``rtol`` is ``eps * max(rows, cols)`` (``tol`` is the older name of ``atol``)."""
    if A.dim() < 2:
        raise RuntimeError("torch.linalg.matrix_rank: The input tensor input must have at least 2 dimensions.")
    atol = tol if atol is None else atol
    values = eigvalsh(A).abs() if hermitian else svdvals(A)
    largest = values.amax(-1, keepdim=True) if values.shape[-1] else values.sum(-1, keepdim=True)
    if rtol is None:
        rtol = 0.0 if atol is not None and _positive(atol) else finfo(A.dtype).eps * max(A.shape[-2], A.shape[-1])
    threshold = largest * rtol
    if isinstance(atol, Tensor):
        threshold = threshold.maximum(atol.unsqueeze(-1).to(threshold.dtype))
    elif atol is not None:
        threshold = threshold.clamp_min(atol)
    return _written(out, (values > threshold).sum(-1).to(int64), "linalg.matrix_rank")


def _positive(value: Any) -> bool:
    return bool((value > 0).all()) if isinstance(value, Tensor) else value > 0


def cond(A: Tensor, p: Optional[Union[int, float, str]] = None, *,  # noqa: N803
         out: Optional[Tensor] = None) -> Tensor:
    """The condition number: the ratio of extreme singular values for ``p`` in ``None, 2, -2``,
    else ``norm(A, p) * norm(inv(A), p)`` (``inf`` for a singular matrix)."""
    if A.dim() < 2:
        raise RuntimeError("linalg.cond: The input tensor must have at least 2 dimensions.")
    if p in SINGULAR_VALUE_ORDERS:
        values = svdvals(A)
        largest, smallest = values.amax(-1), values.amin(-1)
        result = smallest / largest if p == -2 else largest / smallest
        return _written(out, result, "linalg.cond")
    check_matrices(A, f"linalg.cond(ord={p})")
    try:
        inverse = inv(A)
    except LinAlgError:
        return _written(out, A.new_full(tuple(A.shape[:-2]), float("inf")), "linalg.cond")
    if p == "nuc":  # the sum of the singular values
        return _written(out, svdvals(A).sum(-1) * svdvals(inverse).sum(-1), "linalg.cond")
    return _written(out, matrix_norm(A, p) * matrix_norm(inverse, p), "linalg.cond")

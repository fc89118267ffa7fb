"""Small questions about tensors and dtypes, and aliases PyTorch has as methods.

``x.is_cpu``, ``x.is_signed()``, ``torch.is_nonzero(x)``, ``x.data_ptr()`` (the address of the
first element, to tell whether two tensors share memory), ``torch.can_cast`` and
``torch.result_type`` with PyTorch's promotion rules, and the method spellings ``x.addmm``,
``x.absolute`` and ``x.subtract``.
"""

from __future__ import annotations

from typing import Any

from .. import dtypes
from ..tensor import Tensor, add_tensor_methods, result_dtype
from ..toplevel import addmm


def is_nonzero(input: Tensor) -> bool:  # noqa: A002 - PyTorch's name
    """Whether the single value of ``input`` is not zero (an error for more or fewer values)."""
    count = input.numel()
    if count != 1:
        raise RuntimeError("Boolean value of Tensor with " + ("no values" if count == 0 else "more than one value")
                           + " is ambiguous")
    return bool(input.item() != 0)


def is_same_size(input: Tensor, other: Tensor) -> bool:  # noqa: A002
    return tuple(input.shape) == tuple(other.shape)


def is_signed(input: Tensor) -> bool:  # noqa: A002
    """Whether ``input``'s dtype holds negative values (not bool, not uint8)."""
    return input.dtype.is_signed


def is_complex(input: Tensor) -> bool:  # noqa: A002
    """Always False: minitorch has no complex dtypes."""
    return False


def result_type(tensor1: Any, tensor2: Any) -> dtypes.dtype:
    """The dtype an op on ``tensor1`` and ``tensor2`` (tensors or numbers) computes in."""
    if isinstance(tensor1, Tensor):
        return result_dtype(tensor1, tensor2)
    if isinstance(tensor2, Tensor):
        return result_dtype(tensor2, tensor1)
    return dtypes.result_type((), (), (tensor1, tensor2))


def promote_types(type1: dtypes.dtype, type2: dtypes.dtype) -> dtypes.dtype:
    """The smallest dtype both convert to without leaving the higher one's category."""
    return dtypes.promote_types(type1, type2)


def can_cast(from_: dtypes.dtype, to: dtypes.dtype) -> bool:
    """Whether PyTorch's type promotion casts ``from_`` to ``to``: never to a lower category
    (float to integer, integer to bool); sizes within a category do not matter."""
    return from_.category <= to.category


class TensorMethods:
    """Attached to :class:`Tensor` below."""

    @property
    def is_cpu(self: Tensor) -> bool:
        return self.device.type == "cpu"

    def is_nonzero(self: Tensor) -> bool:
        return is_nonzero(self)

    def is_same_size(self: Tensor, other: Tensor) -> bool:
        return is_same_size(self, other)

    def is_signed(self: Tensor) -> bool:
        return is_signed(self)

    def is_complex(self: Tensor) -> bool:
        return is_complex(self)

    def data_ptr(self: Tensor) -> int:
        """The address of the first element (0 for a tensor without elements), as PyTorch's."""
        if self.numel() == 0:
            return 0
        storage = self._data.storage
        interface = getattr(storage, "__cuda_array_interface__", None) or storage.__array_interface__
        return int(interface["data"][0]) + self._data.offset * storage.dtype.itemsize

    def addmm(self: Tensor, mat1: Tensor, mat2: Tensor, *, beta: float = 1, alpha: float = 1) -> Tensor:
        return addmm(self, mat1, mat2, beta=beta, alpha=alpha)

    def absolute(self: Tensor) -> Tensor:
        return self.abs()

    def absolute_(self: Tensor) -> Tensor:
        return self.abs_()

    def subtract(self: Tensor, other: Any, *, alpha: Any = 1) -> Tensor:
        return self.sub(other, alpha=alpha)


add_tensor_methods({name: method for name, method in vars(TensorMethods).items() if not name.startswith("__")})

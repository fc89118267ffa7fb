"""PyTorch's legacy tensor types, which older tutorials still use.

``torch.FloatTensor([[1, 2], [3, 4]])`` builds a tensor from data, ``torch.LongTensor(2, 3)``
one of that size, ``x.type(torch.LongTensor)`` converts, and ``isinstance(x, torch.FloatTensor)``
asks for a CPU tensor of that dtype. Each name is a class whose metaclass does those three
things; the tensors themselves are ordinary :class:`~minitorch.Tensor` objects.
"""

from __future__ import annotations

from typing import Any

from . import dtypes
from .creation import tensor, zeros
from .tensor import Tensor


class LegacyTensorType(type):
    """The metaclass of ``FloatTensor`` and friends (PyTorch's ``torch.tensortype``)."""

    legacy_dtype: dtypes.dtype

    def __call__(cls, *args: Any) -> Tensor:
        if not args:
            return zeros(0, dtype=cls.legacy_dtype)
        if all(isinstance(size, int) and not isinstance(size, bool) for size in args):
            return zeros(*args, dtype=cls.legacy_dtype)  # sizes: PyTorch leaves the values unset
        if len(args) == 1:
            return tensor(args[0], dtype=cls.legacy_dtype)
        raise TypeError(f"{cls.__name__}() takes either sizes (ints) or one sequence of data, got {args!r}")

    def __instancecheck__(cls, instance: Any) -> bool:
        return isinstance(instance, Tensor) and instance.dtype is cls.legacy_dtype and instance.device.type == "cpu"

    def __repr__(cls) -> str:
        return f"<class '{__name__.split('.')[0]}.{cls.__name__}'>"


def _legacy_type(name: str, dtype: dtypes.dtype) -> LegacyTensorType:
    return LegacyTensorType(name, (), {"legacy_dtype": dtype, "__doc__": f"The legacy name of a CPU tensor of {dtype}."})


BoolTensor = _legacy_type("BoolTensor", dtypes.bool_)
ByteTensor = _legacy_type("ByteTensor", dtypes.uint8)
CharTensor = _legacy_type("CharTensor", dtypes.int8)
ShortTensor = _legacy_type("ShortTensor", dtypes.int16)
IntTensor = _legacy_type("IntTensor", dtypes.int32)
LongTensor = _legacy_type("LongTensor", dtypes.int64)
HalfTensor = _legacy_type("HalfTensor", dtypes.float16)
BFloat16Tensor = _legacy_type("BFloat16Tensor", dtypes.bfloat16)
FloatTensor = _legacy_type("FloatTensor", dtypes.float32)
DoubleTensor = _legacy_type("DoubleTensor", dtypes.float64)

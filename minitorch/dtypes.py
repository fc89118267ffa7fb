"""Data types with PyTorch's names, and PyTorch's rules for promoting mixed operands.

Each :class:`dtype` wraps the NumPy dtype its storage uses. Promotion follows PyTorch:
the result *category* (bool < integer < floating) is decided by every operand, but within
a category a dimensioned tensor outranks a 0-d tensor, which outranks a Python number.
So ``int_tensor * 2.5`` is float32 (the default float), while ``half_tensor * 2.5`` stays
float16.
"""

from __future__ import annotations

from typing import Any, Iterable, Optional

import ml_dtypes
import numpy as np


class dtype:  # noqa: N801 - PyTorch's spelling
    """A tensor element type, e.g. ``minitorch.float32``."""

    #: the package that exports it, as PyTorch names its public classes (``<class 'minitorch.dtype'>``)
    __module__ = "minitorch"

    def __init__(self, name: str, numpy_dtype: type, category: int, itemsize: int) -> None:
        self.name = name
        self.numpy = np.dtype(numpy_dtype)
        self.category = category
        self.itemsize = itemsize

    @property
    def is_floating_point(self) -> bool:
        return self.category == FLOATING

    @property
    def is_signed(self) -> bool:
        return self.category == FLOATING or self.numpy.kind == "i"

    def __repr__(self) -> str:
        return f"minitorch.{self.name}"

    def __copy__(self) -> "dtype":
        return self  # one object per element type: copies compare with ``is``

    def __deepcopy__(self, memo: dict) -> "dtype":
        return self

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        """Pickled by name, so unpickling gives the one object again (``is`` comparisons hold)."""
        return (_named_dtype, (self.name,))


BOOLEAN, INTEGRAL, FLOATING = 0, 1, 2
#: the category of the quantized types: integers with a scale and a zero point, never promoted
QUANTIZED = 3


def _named_dtype(name: str) -> "dtype":
    """The dtype called ``name`` (how pickle finds the one object again)."""
    found = globals().get("bool_" if name == "bool" else name)
    if not isinstance(found, dtype):
        raise ValueError(f"unknown dtype name {name!r}")
    return found

bool_ = dtype("bool", np.bool_, BOOLEAN, 1)
uint8 = dtype("uint8", np.uint8, INTEGRAL, 1)
int8 = dtype("int8", np.int8, INTEGRAL, 1)
int16 = dtype("int16", np.int16, INTEGRAL, 2)
int32 = dtype("int32", np.int32, INTEGRAL, 4)
int64 = dtype("int64", np.int64, INTEGRAL, 8)
float16 = dtype("float16", np.float16, FLOATING, 2)
float32 = dtype("float32", np.float32, FLOATING, 4)
float64 = dtype("float64", np.float64, FLOATING, 8)
# bfloat16: float32's exponent with 8 bits of significand, stored as ml_dtypes' NumPy dtype (whose casts
# round to nearest even, as PyTorch's). NumPy calls its kind "V", so ask ``is_floating_point``, not ``kind``.
bfloat16 = dtype("bfloat16", ml_dtypes.bfloat16, FLOATING, 2)

ALL_DTYPES = (bool_, uint8, int8, int16, int32, int64, float16, float32, float64, bfloat16)
#: the 16-bit floats: Numba has no arithmetic for them, so the backends compute in float32 and round
LOW_PRECISION_FLOATS = (float16, bfloat16)
#: their NumPy dtypes, for the backends' test on a storage (:func:`is_low_precision`)
LOW_PRECISION_NUMPY = frozenset(d.numpy for d in LOW_PRECISION_FLOATS)
# Quantized types: a quantized tensor stores these integers, and ``scale * (q - zero_point)``
# is the value each stands for (see :mod:`minitorch.quantized`). No other tensor has them.
qint8 = dtype("qint8", np.int8, QUANTIZED, 1)
quint8 = dtype("quint8", np.uint8, QUANTIZED, 1)
qint32 = dtype("qint32", np.int32, QUANTIZED, 4)
QUANTIZED_DTYPES = (qint8, quint8, qint32)

_BY_NUMPY = {d.numpy: d for d in ALL_DTYPES}
_BY_NAME = {d.name: d for d in ALL_DTYPES}
_BY_NAME.update({"half": float16, "bfloat16": bfloat16, "float": float32, "double": float64, "long": int64, "int": int32, "short": int16})

_default_float = float32


#: PyTorch's C++ scalar type names, as its error messages print them ("expected ... Long")
SCALAR_TYPE_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half", "int64": "Long", "int32": "Int",
                     "int16": "Short", "int8": "Char", "bool": "Bool", "uint8": "Byte", "bfloat16": "BFloat16"}


def is_low_precision(numpy_dtype: np.dtype) -> bool:
    """Whether a storage of ``numpy_dtype`` is float16 or bfloat16, which the kernels compute in float32."""
    return numpy_dtype in LOW_PRECISION_NUMPY


_FLOAT32_NUMPY = np.dtype(np.float32)


def accumulates_in(numpy_dtype: np.dtype) -> Optional[np.dtype]:
    """The dtype in which NumPy must sum or multiply a storage of ``numpy_dtype`` to round as PyTorch
    does: float32 for float16 and bfloat16 (PyTorch's "opmath" type for them), else None (its own)."""
    return _FLOAT32_NUMPY if is_low_precision(numpy_dtype) else None


def through_float32(source: np.dtype, target: np.dtype) -> bool:
    """Whether PyTorch converts ``source`` values to ``target`` by way of float32: a 16-bit float
    converts directly only to float32 and to the other 16-bit float (its C++ types are built from
    and read as float), so ``float64 -> bfloat16`` rounds twice, and ``bfloat16 -> int`` reads a float32."""
    low_source, low_target = source in LOW_PRECISION_NUMPY, target in LOW_PRECISION_NUMPY
    if low_source == low_target:
        return False
    return (target if low_source else source) != _FLOAT32_NUMPY


def cast_array(array: np.ndarray, target: np.dtype) -> np.ndarray:
    """``array`` converted to the NumPy dtype ``target`` as PyTorch converts (:func:`through_float32`);
    ``array`` itself when it has that dtype."""
    if through_float32(array.dtype, target):
        array = array.astype(np.float32)
    return array.astype(target, copy=False)


def scalar_type_name(d: dtype) -> str:
    """``Long`` for int64, ``Float`` for float32: the name PyTorch's error messages use."""
    return SCALAR_TYPE_NAMES[d.name]


def get_default_dtype() -> dtype:
    """The dtype of floating-point tensors created from Python floats (float32 unless changed)."""
    return _default_float


def set_default_dtype(d: dtype) -> None:
    """Change the default floating dtype (any floating dtype, as PyTorch allows)."""
    global _default_float
    if not isinstance(d, dtype) or d.category != FLOATING:
        raise TypeError(f"only floating-point types are supported as the default type, got {d}")
    _default_float = d


def from_numpy_dtype(numpy_dtype: Any) -> dtype:
    """The minitorch dtype of a NumPy dtype, or TypeError naming it."""
    if isinstance(numpy_dtype, np.dtype):  # an array's dtype: no conversion needed
        found = _BY_NUMPY.get(numpy_dtype)
        if found is not None:
            return found
    key = np.dtype(numpy_dtype)
    if key not in _BY_NUMPY:
        supported = ", ".join(str(d.numpy) for d in ALL_DTYPES)
        raise TypeError(f"can't convert NumPy dtype {key}; the supported types are: {supported}")
    return _BY_NUMPY[key]


def as_dtype(value: Any) -> dtype:
    """Accept a minitorch dtype, a NumPy dtype, a Python type or a name like ``'float64'``."""
    if isinstance(value, dtype):
        if value.category == QUANTIZED:
            raise NotImplementedError(
                f"{value} is a quantized type: only quantize_per_tensor() and quantize_per_channel() make tensors "
                f"of it (read their integers with int_repr())"
            )
        return value
    if value is bool:
        return bool_
    if value is int:
        return int64
    if value is float:
        return get_default_dtype()
    if isinstance(value, str) and value.removeprefix("minitorch.").removeprefix("torch.") in _BY_NAME:
        return _BY_NAME[value.removeprefix("minitorch.").removeprefix("torch.")]
    try:
        return from_numpy_dtype(value)
    except TypeError:
        raise TypeError(f"{value!r} is not a dtype") from None


def promote_types(a: dtype, b: dtype) -> dtype:
    """The smallest dtype both ``a`` and ``b`` convert to without losing their category."""
    # BEGIN SOLUTION 2.6
    if a is b:
        return a
    if a.category != b.category:
        return a if a.category > b.category else b
    if a.category == FLOATING:
        if a.itemsize == b.itemsize:  # float16 with bfloat16: neither holds the other, float32 holds both
            return float32
        return a if a.itemsize > b.itemsize else b
    # integers: uint8 with a signed type needs a signed type wider than a byte
    if a is uint8 or b is uint8:
        other = b if a is uint8 else a
        return int16 if other.itemsize == 1 else other
    return a if a.itemsize >= b.itemsize else b
    # END SOLUTION


def scalar_dtype(value: Any) -> dtype:
    """The dtype a Python number would get on its own."""
    if isinstance(value, (bool, np.bool_)):
        return bool_
    if isinstance(value, (int, np.integer)):
        return int64
    if isinstance(value, (float, np.floating)):
        return get_default_dtype()
    raise TypeError(f"expected a number, got {type(value).__name__}")


def result_type(dimensioned: Iterable[dtype], zero_dim: Iterable[dtype], scalars: Iterable[Any]) -> dtype:
    """PyTorch's promotion over three priority tiers of operands.

    A lower tier only matters when it has a higher category than every tier above it; then
    it contributes its category's default (numbers) or its own dtype (0-d tensors).
    """
    # BEGIN SOLUTION 2.6
    state: dtype | None = None
    for d in dimensioned:
        state = d if state is None else promote_types(state, d)
    zero_state: dtype | None = None
    for d in zero_dim:
        zero_state = d if zero_state is None else promote_types(zero_state, d)
    if zero_state is not None and (state is None or zero_state.category > state.category):
        state = zero_state if state is None else promote_types(state, zero_state)
    for value in scalars:
        d = scalar_dtype(value)
        if state is None or d.category > state.category:
            state = d if state is None else promote_types(state, d)
    if state is None:
        raise ValueError("result_type needs at least one operand")
    return state
    # END SOLUTION

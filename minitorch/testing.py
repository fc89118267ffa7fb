"""``minitorch.testing``: :func:`assert_close`, PyTorch's ``torch.testing.assert_close``.

Two inputs are close when, element by element, ``|actual - expected| <= atol + rtol * |expected|``;
``inf`` is close only to an equal ``inf``, ``NaN`` only to ``NaN`` and only with ``equal_nan``.
Inputs are tensors (minitorch's, or two NumPy arrays, compared as tensors), Python numbers and
bools, ``None``, or Sequences and Mappings of them, walked in step. Every check is done first on
the structure (lengths, keys, types, tolerances), then on the values; the first failure raises
PyTorch's exception with PyTorch's message, naming the item where it happened.

The values are compared on the host, in NumPy, after PyTorch's type promotion.
"""

from __future__ import annotations

import cmath
import collections.abc
import contextlib
import warnings
from typing import Any, Callable, NoReturn, Optional, Union

import numpy as np

from . import dtypes
from .creation import as_tensor, tensor
from .quantized.qtensor import QuantizedTensor
from .tensor import Tensor

__all__ = ["assert_close", "assert_allclose"]

Message = Union[str, Callable[[str], str], None]
Path = tuple[Any, ...]
TensorLike = Union[Tensor, QuantizedTensor]
Check = Callable[[], None]

#: (rtol, atol) by dtype; quantized tensors are compared dequantized, with float32's tolerances
DTYPE_PRECISIONS: dict[dtypes.dtype, tuple[float, float]] = {
    dtypes.float16: (1e-3, 1e-5),
    dtypes.float32: (1.3e-6, 1e-5),
    dtypes.float64: (1e-7, 1e-7),
    **dict.fromkeys((dtypes.qint8, dtypes.quint8, dtypes.qint32), (1.3e-6, 1e-5)),
}
#: Python numbers take the tolerances of int64, float64 and complex128: exact, 1e-7, 1e-7
NUMBER_PRECISIONS: dict[type, tuple[float, float]] = {int: (0.0, 0.0), float: (1e-7, 1e-7), complex: (1e-7, 1e-7)}


class _Failure(Exception):
    """A failed check: the exception type to raise, its message and the path of the item."""

    def __init__(self, kind: type[Exception], message: str, path: Path = ()) -> None:
        super().__init__(message)
        self.kind, self.message, self.path = kind, message, path

    def to_error(self, msg: Message = None) -> Exception:
        """The user-facing exception; a ``str`` msg replaces the message, a callable edits it."""
        if isinstance(msg, str):
            return self.kind(msg)
        message = self.message
        if self.path:
            message += f"\n\nThe failure occurred for item {''.join(str([item]) for item in self.path)}"
        return self.kind(msg(message) if callable(msg) else message)


def assert_close(actual: Any, expected: Any, *, allow_subclasses: bool = True, rtol: Optional[float] = None,
                 atol: Optional[float] = None, equal_nan: bool = False, check_device: bool = True,
                 check_dtype: bool = True, check_layout: bool = True, check_stride: bool = False,
                 msg: Message = None) -> None:
    """Assert that ``actual`` and ``expected`` are close, as ``torch.testing.assert_close``.

    Without ``rtol`` and ``atol`` (give both or neither) the tolerances are the loosest of the two
    inputs' dtypes: float16 1e-3/1e-5, float32 1.3e-6/1e-5, float64 1e-7/1e-7, integers and bool
    exact. ``check_layout`` is accepted; every minitorch tensor is strided.

    :raises AssertionError: values, shapes, dtypes, devices, strides or structures differ.
    :raises TypeError: the inputs are of types that cannot be compared with each other.
    :raises ValueError: only one of ``rtol`` and ``atol`` is given.
    """
    __tracebackhide__ = True
    options = dict(allow_subclasses=allow_subclasses, rtol=rtol, atol=atol, equal_nan=equal_nan,
                   check_device=check_device, check_dtype=check_dtype, check_stride=check_stride)
    try:
        checks = _pair_up(actual, expected, (), options)
    except _Failure as failure:  # a structure that does not match: PyTorch ignores msg here
        raise failure.to_error() from None
    for check in checks:
        try:
            check()
        except _Failure as failure:
            raise failure.to_error(msg) from None


def assert_allclose(actual: Any, expected: Any, rtol: Optional[float] = None, atol: Optional[float] = None,
                    equal_nan: bool = True, msg: str = "") -> None:
    """The deprecated predecessor of :func:`assert_close`: converts both inputs to tensors of
    ``actual``'s dtype, ignores dtypes, treats NaNs as equal, and has looser default tolerances."""
    warnings.warn(
        "`torch.testing.assert_allclose()` is deprecated since 1.12 and will be removed in a future release. "
        "Please use `torch.testing.assert_close()` instead. "
        "You can find detailed upgrade instructions in https://github.com/pytorch/pytorch/issues/61844.",
        FutureWarning, stacklevel=2,
    )
    if not isinstance(actual, Tensor):
        actual = tensor(actual)
    if not isinstance(expected, Tensor):
        expected = tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        legacy = {dtypes.float16: (1e-3, 1e-3), dtypes.float32: (1e-4, 1e-5), dtypes.float64: (1e-5, 1e-8)}
        rtol, atol = (max(pair) for pair in zip(*(legacy.get(t.dtype, (0.0, 0.0)) for t in (actual, expected))))
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan, check_device=True,
                 check_dtype=False, check_stride=False, msg=msg or None)


# ---- the structure: walk Sequences and Mappings in step, one check per leaf ----

def _pair_up(actual: Any, expected: Any, path: Path, options: dict[str, Any]) -> list[Check]:
    """The checks for every pair of leaves, or a _Failure for a structure that does not match."""
    if all(isinstance(x, collections.abc.Sequence) and not isinstance(x, str) for x in (actual, expected)):
        if len(actual) != len(expected):
            raise _Failure(AssertionError, f"The length of the sequences mismatch: {len(actual)} != {len(expected)}",
                           path)
        return [check for i in range(len(actual)) for check in _pair_up(actual[i], expected[i], (*path, i), options)]
    if all(isinstance(x, collections.abc.Mapping) for x in (actual, expected)):
        actual_keys, expected_keys = set(actual.keys()), set(expected.keys())
        if actual_keys != expected_keys:
            raise _Failure(AssertionError, "The keys of the mappings do not match:\n"
                           f"Missing keys in the actual mapping: {sorted(expected_keys - actual_keys)}\n"
                           f"Additional keys in the actual mapping: {sorted(actual_keys - expected_keys)}", path)
        keys: Any = actual_keys
        with contextlib.suppress(Exception):  # a deterministic order where the keys have one
            keys = sorted(keys)
        return [check for key in keys for check in _pair_up(actual[key], expected[key], (*path, key), options)]
    return [_leaf_check(actual, expected, path, options)]


def _leaf_check(actual: Any, expected: Any, path: Path, options: dict[str, Any]) -> Check:
    """The check for two leaves: None, bools, numbers or tensor-likes (tried in that order)."""
    if actual is None or expected is None:
        return lambda: _check_none(actual, expected, path)
    booleans = (bool, np.bool_)
    if isinstance(actual, booleans) and isinstance(expected, booleans):
        return lambda: _check_bools(bool(actual), bool(expected), path)
    numbers = (int, float, complex, np.number)
    if isinstance(actual, numbers) and isinstance(expected, numbers):
        if isinstance(actual, booleans) or isinstance(expected, booleans):
            raise _Failure(RuntimeError, f"Cannot compare {type(actual).__name__}() {actual} with "
                           f"{type(expected).__name__}() {expected}: a bool compares only with a bool.", path)
        a, e = (x.item() if isinstance(x, np.number) else x for x in (actual, expected))
        rtol, atol = _tolerances(options, [NUMBER_PRECISIONS[type(x)] for x in (a, e)], path)
        return lambda: _check_numbers(a, e, rtol, atol, options, path)
    pair = _as_tensors(actual, expected, options["allow_subclasses"], path)
    if pair is None:
        raise _Failure(TypeError, f"No comparison pair was able to handle inputs of type {type(actual)} and "
                       f"{type(expected)}.", path)
    rtol, atol = _tolerances(options, [DTYPE_PRECISIONS.get(t.dtype, (0.0, 0.0)) for t in pair], path)
    return lambda: _check_tensors(*pair, rtol, atol, options, path)


def _tolerances(options: dict[str, Any], precisions: list[tuple[float, float]], path: Path) -> tuple[float, float]:
    """The given (rtol, atol), or the loosest defaults of the inputs' dtypes."""
    rtol, atol = options["rtol"], options["atol"]
    if (rtol is None) != (atol is None):
        raise _Failure(ValueError, "Both 'rtol' and 'atol' must be either specified or omitted, "
                       f"but got no {'rtol' if rtol is None else 'atol'}.", path)
    if rtol is not None:
        return rtol, atol
    return max(r for r, _ in precisions), max(a for _, a in precisions)


def _as_tensors(actual: Any, expected: Any, allow_subclasses: bool, path: Path) -> Optional[tuple[TensorLike, ...]]:
    """Both inputs as tensors when their types are directly related (a quantized tensor counts as
    a Tensor), or None; two NumPy arrays become tensors."""
    types = [Tensor if isinstance(x, QuantizedTensor) else type(x) for x in (actual, expected)]
    related = issubclass(types[0], types[1]) or issubclass(types[1], types[0])
    if not related or (not allow_subclasses and types[0] is not types[1]):
        return None
    if isinstance(actual, (Tensor, QuantizedTensor)):
        return actual, expected
    for x in (actual, expected):
        if isinstance(x, np.ndarray) and x.dtype.kind == "c":
            raise _Failure(TypeError, f"minitorch has no complex dtype: cannot compare arrays of {x.dtype}.", path)
    try:
        return as_tensor(actual), as_tensor(expected)
    except Exception:  # noqa: BLE001 - whatever as_tensor cannot take, no pair handles
        return None


# ---- the leaves ----

def _fail(message: str, path: Path) -> NoReturn:
    raise _Failure(AssertionError, message, path)


def _check_none(actual: Any, expected: Any, path: Path) -> None:
    if not (actual is None and expected is None):
        _fail(f"None mismatch: {actual} is not {expected}", path)


def _check_bools(actual: bool, expected: bool, path: Path) -> None:
    if actual is not expected:
        _fail(f"Booleans mismatch: {actual} is not {expected}", path)


def _check_numbers(actual: Union[int, float, complex], expected: Union[int, float, complex], rtol: float,
                   atol: float, options: dict[str, Any], path: Path) -> None:
    if options["check_dtype"] and type(actual) is not type(expected):
        _fail(f"The (d)types do not match: {type(actual)} != {type(expected)}.", path)
    if actual == expected or (options["equal_nan"] and cmath.isnan(actual) and cmath.isnan(expected)):
        return
    difference = abs(actual - expected)
    if not (cmath.isfinite(difference) and difference <= atol + rtol * abs(expected)):
        _fail(_scalar_message(actual, expected, rtol, atol, "Scalars"), path)


def _check_tensors(actual: TensorLike, expected: TensorLike, rtol: float, atol: float, options: dict[str, Any],
                   path: Path) -> None:
    """The attributes (shape, quantization, stride, device, dtype), then the values."""

    def mismatch(attribute: str, actual_value: Any, expected_value: Any) -> NoReturn:
        _fail(f"The values for attribute '{attribute}' do not match: {actual_value} != {expected_value}.", path)

    if actual.shape != expected.shape:
        mismatch("shape", actual.shape, expected.shape)
    if actual.is_quantized != expected.is_quantized:
        mismatch("is_quantized", actual.is_quantized, expected.is_quantized)
    quantized = actual.is_quantized
    if quantized and actual.qscheme() != expected.qscheme():
        mismatch("qscheme()", actual.qscheme(), expected.qscheme())
    if options["check_stride"] and not quantized and actual.stride() != expected.stride():
        mismatch("stride()", actual.stride(), expected.stride())
    if options["check_device"] and actual.device != expected.device:
        mismatch("device", actual.device, expected.device)
    if options["check_dtype"] and actual.dtype != expected.dtype:
        mismatch("dtype", actual.dtype, expected.dtype)

    if quantized:
        actual, expected, what = actual.dequantize(), expected.dequantize(), "Quantized tensor-likes"
    else:
        what = "Tensor-likes"
    common = dtypes.promote_types(actual.dtype, expected.dtype).numpy
    a, e = (t.detach().cpu().numpy().astype(common, copy=False) for t in (actual, expected))
    matches = _isclose(a, e, rtol, atol, options["equal_nan"])
    if matches.all():
        return
    if a.ndim == 0:
        _fail(_scalar_message(a.item(), e.item(), rtol, atol, "Quantized scalars" if quantized else "Scalars"), path)
    _fail(_tensor_message(a, e, matches, rtol, atol, what), path)


def _isclose(a: np.ndarray, e: np.ndarray, rtol: float, atol: float, equal_nan: bool) -> np.ndarray:
    """``torch.isclose`` on two arrays of one dtype. Its arithmetic is done in that dtype, and
    integers and bools are first converted to the default float dtype, as PyTorch does."""
    close = a == e
    if equal_nan and a.dtype.kind == "f":
        close |= np.isnan(a) & np.isnan(e)
    if rtol == 0 and atol == 0:
        return close
    if a.dtype.kind != "f":
        default = dtypes.get_default_dtype().numpy
        a, e = a.astype(default), e.astype(default)
    with np.errstate(all="ignore"):
        error = np.abs(a - e)
        allowed = a.dtype.type(atol) + np.abs(e * a.dtype.type(rtol))
        return close | (np.isfinite(error) & (error <= allowed))


# ---- the messages ----

def _mismatch_message(what: str, extra: str, abs_diff: Any, abs_index: Optional[tuple[int, ...]], atol: float,
                      rel_diff: Any, rel_index: Optional[tuple[int, ...]], rtol: float) -> str:
    equality = rtol == 0 and atol == 0

    def line(kind: str, diff: Any, index: Optional[tuple[int, ...]], tolerance: float) -> str:
        text = f"{kind.title()} difference: {diff}" if index is None else \
            f"Greatest {kind} difference: {diff} at index {index}"
        return text if equality else f"{text} (up to {tolerance} allowed)"

    return (f"{what} are not {'equal' if equality else 'close'}!\n\n{extra}\n"
            f"{line('absolute', abs_diff, abs_index, atol)}\n{line('relative', rel_diff, rel_index, rtol)}")


def _scalar_message(actual: Any, expected: Any, rtol: float, atol: float, what: str) -> str:
    difference = abs(actual - expected)
    relative = float("inf") if expected == 0 else difference / abs(expected)
    return _mismatch_message(what, f"Expected {expected} but got {actual}.", difference, None, atol, relative, None,
                             rtol)


def _tensor_message(a: np.ndarray, e: np.ndarray, matches: np.ndarray, rtol: float, atol: float, what: str) -> str:
    """The count of mismatches and the greatest absolute and relative differences among them.

    Integers and bools are subtracted as int64 and divided in the default float dtype, as PyTorch does."""
    total, mismatched = matches.size, matches.size - int(matches.sum())
    extra = f"Mismatched elements: {mismatched} / {total} ({mismatched / total:.1%})"
    if a.dtype.kind != "f":
        a, e = a.astype(np.int64), e.astype(np.int64)
    floating = a.dtype if a.dtype.kind == "f" else dtypes.get_default_dtype().numpy
    with np.errstate(all="ignore"):
        abs_diff = np.abs(a - e)
        abs_diff[matches] = 0
        rel_diff = abs_diff.astype(floating) / np.abs(e).astype(floating)
        rel_diff[matches] = 0

    def greatest(diff: np.ndarray) -> tuple[Any, tuple[int, ...]]:
        flat = int(np.argmax(diff))  # the first NaN, else the first maximum: as torch.max
        return diff.flat[flat].item(), tuple(int(i) for i in np.unravel_index(flat, diff.shape))

    return _mismatch_message(what, extra, *greatest(abs_diff), atol, *greatest(rel_diff), rtol)

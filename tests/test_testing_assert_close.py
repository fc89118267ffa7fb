"""``minitorch.testing.assert_close`` against ``torch.testing.assert_close``, PyTorch as the oracle.

Each case is one call, made under both libraries: both pass, or both raise the same exception
type with the same message. Messages are compared exactly, except in the cases of
``RENAMED_CASES``, whose messages print a class, a dtype or a ``Size``: there minitorch's spelling
(``minitorch.float32``, ``minitorch.Size([2])``, ``<class 'minitorch.Tensor'>``) is mapped to
PyTorch's before comparing, and that is the only difference allowed.
"""

from __future__ import annotations

import re
import warnings
from types import ModuleType
from typing import Any, Callable, Optional

import numpy as np
import pytest

import minitorch

Call = Callable[[ModuleType], None]

NAN, INF = float("nan"), float("inf")


def close(*args: Any, **kwargs: Any) -> Call:
    """The call ``lib.testing.assert_close(*args, **kwargs)``; a callable argument is given the
    library and builds the value (a tensor, or a structure of them)."""
    def call(lib: ModuleType) -> None:
        values = [arg(lib) if callable(arg) else arg for arg in args]
        lib.testing.assert_close(*values, **kwargs)
    return call


def allclose(*args: Any, **kwargs: Any) -> Call:
    """The same for the deprecated ``assert_allclose`` (its FutureWarning is tested on its own)."""
    def call(lib: ModuleType) -> None:
        values = [arg(lib) if callable(arg) else arg for arg in args]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            lib.testing.assert_allclose(*values, **kwargs)
    return call


def t(data: Any, dtype: Optional[str] = None, **kwargs: Any) -> Callable[[ModuleType], Any]:
    """A tensor of ``data`` in either library (``dtype`` by name)."""
    return lambda lib: lib.tensor(data, dtype=getattr(lib, dtype) if dtype else None, **kwargs)


def transposed(data: Any) -> Callable[[ModuleType], Any]:
    return lambda lib: lib.tensor(data).t()


def quantized(data: Any, scale: float = 0.1, dtype: str = "qint8") -> Callable[[ModuleType], Any]:
    return lambda lib: lib.quantize_per_tensor(lib.tensor(data), scale, 0, getattr(lib, dtype))


def tree(build: Callable[[Callable[[Any], Any]], Any]) -> Callable[[ModuleType], Any]:
    """A nested structure whose leaves ``build`` makes with the library's ``tensor``."""
    return lambda lib: build(lib.tensor)


CASES: dict[str, Call] = {
    # exact equality, and the default tolerances of each dtype
    "equal float32": close(t([1.0, 2.0, 3.0]), t([1.0, 2.0, 3.0])),
    "equal int64": close(t([1, 2, 3]), t([1, 2, 3])),
    "equal bool": close(t([True, False]), t([True, False])),
    "float32 within 1.3e-6 and 1e-5": close(t([1.0, 100.0]), t([1.000005, 100.000125])),
    "float32 outside": close(t([1.0, 2.0, 3.0]), t([1.0, 2.0, 3.5])),
    "float32 two mismatches, the first greatest": close(t([1.0, 5.0, 3.0]), t([1.0, 3.0, 1.0])),
    "float32 mismatch in 2-d": close(t([[1.0, 1.0], [2.0, 2.0]]), t([[1.0, 2.0], [1.0, 3.0]])),
    "float64 within 1e-7": close(t([1.0], "float64"), t([1.00000005], "float64")),
    "float64 outside": close(t([1.0], "float64"), t([1.000001], "float64")),
    "float16 within 1e-3": close(t([1.0, 100.0], "float16"), t([1.0, 100.06], "float16")),
    "float16 outside": close(t([1.0, 100.0], "float16"), t([1.002, 100.2], "float16")),
    "int64 exact": close(t([1, 5, 3]), t([1, 3, 4])),
    "int8 differences in int64": close(t([-128], "int8"), t([127], "int8")),
    "bool mismatch": close(t([True, False]), t([False, False])),
    # custom tolerances
    "rtol and atol pass": close(t([1.0, 2.0, 3.0]), t([1.0, 2.0, 3.2]), rtol=0.1, atol=0.0),
    "rtol and atol fail": close(t([1.0, 2.0, 3.0]), t([1.0, 2.0, 3.2]), rtol=0.01, atol=0.1),
    "zero tolerances: equality": close(t([1.0, 2.0]), t([1.0, 2.1]), rtol=0, atol=0),
    "integer tolerances": close(t([1, 2]), t([1, 3]), rtol=0.1, atol=0),
    "integers compared in float32": close(t([16777217]), t([16777216]), rtol=0.0, atol=0.5),
    "only rtol": close(t([1.0]), t([1.0]), rtol=0.1),
    "only atol": close(t([1.0]), t([1.0]), atol=0.1),
    "only rtol, msg ignored": close(t([1.0]), t([1.0]), rtol=0.1, msg="custom"),
    "only atol, Python numbers": close(1.0, 1.0, atol=0.1),
    # NaN and inf
    "nan without equal_nan": close(t([1.0, NAN, 3.0]), t([1.0, 2.0, NAN])),
    "nan with nan": close(t([NAN, 1.0]), t([NAN, 1.0])),
    "nan with nan and equal_nan": close(t([NAN, 1.0]), t([NAN, 1.0]), equal_nan=True),
    "nan with a number and equal_nan": close(t([NAN, 1.0]), t([2.0, 1.0]), equal_nan=True),
    "inf equals inf": close(t([INF, -INF]), t([INF, -INF])),
    "inf against -inf": close(t([INF, 1.0]), t([-INF, 1.0])),
    "inf against a number": close(t([INF]), t([1e38])),
    "0-d nan": close(t(NAN), t(NAN)),
    # dtypes
    "float32 vs int64, check_dtype=False": close(t([1.0, 2.0]), t([1, 2]), check_dtype=False),
    "int64 vs float32 values, check_dtype=False": close(t([1, 2]), t([1.0, 2.5]), check_dtype=False),
    "float32 vs float64 take float32's tolerances": close(t([1.0]), t([1.000005], "float64"), check_dtype=False),
    "float32 vs float64 outside": close(t([1.0]), t([1.0001], "float64"), check_dtype=False),
    "bool vs int64, check_dtype=False": close(t([True, False]), t([1, 2]), check_dtype=False),
    "uint8 vs int8 promote to int16": close(t([200], "uint8"), t([-100], "int8"), check_dtype=False),
    # 0-d and empty tensors
    "0-d float": close(t(0.1), t(0.2)),
    "0-d float within": close(t(0.1), t(0.1000001)),
    "0-d int": close(t(3), t(5)),
    "0-d bool": close(t(True), t(False)),
    "empty": close(t([]), t([])),
    "empty 2-d": close(lambda lib: lib.zeros(0, 3), lambda lib: lib.zeros(0, 3)),
    # Python and NumPy scalars, None
    "ints equal": close(3, 3),
    "ints differ": close(3, 4),
    "floats differ": close(1.0, 1.5),
    "floats within 1e-7": close(1.0, 1.00000001),
    "float vs int": close(1.0, 1),
    "float vs int, check_dtype=False": close(1.0, 1, check_dtype=False),
    "int vs float differ, check_dtype=False": close(1, 1.5, check_dtype=False),
    "complex numbers differ": close(1 + 1j, 1 + 2j),
    "complex numbers within": close(1 + 1j, 1 + 1j + 1e-9),
    "float nan": close(NAN, NAN),
    "float nan, equal_nan": close(NAN, NAN, equal_nan=True),
    "float inf": close(INF, INF),
    "float inf vs -inf": close(INF, -INF),
    "bools equal": close(True, True),
    "bools differ": close(True, False),
    "numpy bool vs bool": close(np.bool_(True), False),
    "numpy bool vs int": close(np.bool_(True), 1),
    "numpy float32 vs float64": close(np.float32(1.0), np.float64(1.5)),
    "numpy int vs int": close(np.int64(2), 2),
    "None and None": close(None, None),
    "None and a number": close(None, 1),
    "strings": close("a", "a"),
    "objects": close(object, object),
    # NumPy arrays: compared as tensors when both are arrays
    "numpy arrays differ": close(np.array([1.0, 2.0]), np.array([1.0, 2.5])),
    "numpy arrays equal": close(np.array([[1, 2]]), np.array([[1, 2]])),
    "numpy float32 arrays": close(np.array([1.0], np.float32), np.array([1.000005], np.float32)),
    # sequences and mappings, with the failing item's path
    "list of numbers": close([1.0, 2.0], (1.0, 2.5)),
    "list of tensors": close(tree(lambda T: [T([1.0]), T([2.0])]), tree(lambda T: [T([1.0]), T([2.5])])),
    "first failure reported": close(tree(lambda T: [T(1.0), T(2.0), T(3.0)]), tree(lambda T: [T(1.0), T(2.5), T(3.5)])),
    "nested": close(tree(lambda T: {"a": [T(1.0), (T([1, 2]),)], "b": T(0)}),
                    tree(lambda T: {"a": [T(1.0), (T([1, 3]),)], "b": T(0)})),
    "dict keys in sorted order": close(tree(lambda T: {"b": T([1.0]), "a": T([1.0])}),
                                       tree(lambda T: {"a": T([2.0]), "b": T([3.0])})),
    "int keys": close({1: 1.0, 0: 2.0}, {0: 2.0, 1: 1.5}),
    "lengths differ": close([1, 2], [1, 2, 3]),
    "nested lengths differ": close([[1, 2]], [[1, 2, 3]]),
    "keys differ": close({"a": 1, "b": 2}, {"a": 1, "c": 2}),
    "nested keys differ": close([{"a": 1}], [{"b": 1}]),
    "a structure error before a value error": close(tree(lambda T: [T([1.0]), "a"]), tree(lambda T: [T([2.0]), "b"])),
    "empty list": close([], []),
    # msg
    "msg str": close(t([1.0, 2.0, 3.0]), t([1.0, 4.0, 5.0]), msg="Argh, the tensors are not close!"),
    "msg callable": close(t([1.0, 2.0, 3.0]), t([1.0, 4.0, 5.0]), msg=lambda m: f"Header\n\n{m}\n\nFooter"),
    "msg callable with item": close(tree(lambda T: [T(1.0), T(2.0)]), tree(lambda T: [T(1.0), T(3.0)]),
                                    msg=lambda m: m.upper()),
    "msg str with item": close([1, 2], [1, 3], msg="custom"),
    "msg str ignored for lengths": close([[1, 2]], [[1, 2, 3]], msg="custom"),
    # strides and layouts
    "transposed view, strides unchecked": close(transposed([[1.0, 2.0], [3.0, 4.0]]),
                                                lambda lib: lib.tensor([[1.0, 2.0], [3.0, 4.0]]).t().contiguous()),
    "transposed view, check_stride": close(transposed([[1.0, 2.0], [3.0, 4.0]]),
                                           lambda lib: lib.tensor([[1.0, 2.0], [3.0, 4.0]]).t().contiguous(),
                                           check_stride=True),
    "transposed values": close(transposed([[1.0, 1.0], [2.0, 2.0]]), t([[1.0, 2.0], [1.0, 3.0]])),
    "check_layout=False": close(t([1.0]), t([1.0]), check_layout=False),
    # autograd
    "requires grad, equal": close(t([0.1, 0.2], requires_grad=True), t([0.1, 0.2])),
    "requires grad, differ": close(t([0.1, 0.2], requires_grad=True), t([0.1, 0.3], requires_grad=True)),
    "a graph result": close(lambda lib: lib.tensor([1.0, 2.0], requires_grad=True) * 2, t([2.0, 4.0])),
    "Parameter vs Tensor": close(lambda lib: lib.nn.Parameter(lib.tensor([1.0])), t([1.0])),
    # quantized tensors: compared dequantized
    "quantized differ": close(quantized([1.0, 2.0]), quantized([1.0, 2.5])),
    "quantized 0-d": close(quantized(1.0), quantized(2.0)),
    "quantized, other scales": close(quantized([1.0, 2.0]), quantized([1.0, 2.0], scale=0.05)),
    "quantized vs float": close(quantized([1.0, 2.0]), t([1.0, 2.0])),
    # the deprecated assert_allclose
    "allclose lists": allclose([1.0, 2.0], [1.0, 2.001]),
    "allclose looser tolerance": allclose(t([1.0, 2.0]), [1.0, 2.0001]),
    "allclose nan": allclose(t([NAN]), [NAN]),
    "allclose ints": allclose(t([1, 2]), [1, 3]),
    "allclose msg": allclose(t([1.0, 2.0]), [1, 3], msg="hey"),
    "allclose only rtol": allclose(t([1.0, 2.0]), [1, 3], rtol=1.0),
    "allclose float64": allclose(t([1.0], "float64"), t([1.000001], "float64")),
}

#: cases whose messages name a class, dtype or Size (see the module docstring)
RENAMED_CASES: dict[str, Call] = {
    "shape": close(t([1.0, 2.0]), t([1.0, 2.0, 3.0])),
    "empty shapes": close(lambda lib: lib.zeros(0, 3), lambda lib: lib.zeros(3, 0)),
    "dtype": close(t([1.0, 2.0]), t([1.0, 2.0], "float64")),
    "dtype int vs float": close(t([1, 2]), t([1.0, 2.0])),
    "dtype with item": close(tree(lambda T: [T([1.0]), {"w": T([1])}]), tree(lambda T: [T([1.0]), {"w": T([1.0])}])),
    "numpy dtypes": close(np.array([1, 2], np.int32), np.array([1, 2], np.int64)),
    "tensor vs number": close(t([1.0, 2.0]), 1.0),
    "0-d tensor vs number": close(t(1.0), 1.0),
    "tensor vs list": close(t([1.0]), [1.0]),
    "numpy array vs tensor": close(np.array([1.0, 2.0]), t([1.0, 2.0])),
    "Parameter vs Tensor, allow_subclasses=False": close(lambda lib: lib.nn.Parameter(lib.tensor([1.0])), t([1.0]),
                                                         allow_subclasses=False),
    "quantized dtypes": close(quantized([1.0]), quantized([1.0], dtype="quint8")),
}

#: minitorch's spelling of a name in a message -> PyTorch's
TORCH_SPELLING = [
    (r"minitorch\.Size\(", "torch.Size("),
    (r"<class 'minitorch\.Tensor'>", "<class 'torch.Tensor'>"),
    (r"<class 'minitorch\.nn\.parameter\.Parameter'>", "<class 'torch.nn.parameter.Parameter'>"),
    (r"\bminitorch\.(?=(float|int|uint|bool|qint|quint)\d*\b)", "torch."),
]


def outcome(lib: ModuleType, call: Call) -> tuple[Optional[type], str]:
    """(exception type, message) of the call, or (None, "") when it passes."""
    try:
        call(lib)
    except Exception as error:  # noqa: BLE001 - the exception is the result compared
        return type(error), str(error)
    return None, ""


@pytest.mark.parametrize("name", CASES)
def test_passes_or_fails_as_torch(name: str, torch_ref: ModuleType) -> None:
    assert outcome(minitorch, CASES[name]) == outcome(torch_ref, CASES[name])


@pytest.mark.parametrize("name", RENAMED_CASES)
def test_fails_as_torch_up_to_the_package_name(name: str, torch_ref: ModuleType) -> None:
    kind, message = outcome(minitorch, RENAMED_CASES[name])
    assert "minitorch" in message  # else the case belongs in CASES
    for pattern, replacement in TORCH_SPELLING:
        message = re.sub(pattern, replacement, message)
    assert (kind, message) == outcome(torch_ref, RENAMED_CASES[name])


def test_the_brief_example_word_for_word() -> None:
    """The message, written out, so that a change in both libraries' wording is seen too."""
    with pytest.raises(AssertionError) as error:
        minitorch.testing.assert_close(minitorch.tensor([1.0, 2.0, 3.0]), minitorch.tensor([1.0, 2.0, 3.5]))
    assert str(error.value) == (
        "Tensor-likes are not close!\n\nMismatched elements: 1 / 3 (33.3%)\n"
        "Greatest absolute difference: 0.5 at index (2,) (up to 1e-05 allowed)\n"
        "Greatest relative difference: 0.1428571492433548 at index (2,) (up to 1.3e-06 allowed)"
    )


def test_a_bool_against_a_number_is_refused_with_torchs_type_and_a_clear_message(torch_ref: ModuleType) -> None:
    """PyTorch fails here with a RuntimeError about its own internals ("Originating a NumberPair()
    ... please file an issue"); minitorch raises the same type and says what is wrong."""
    for lib in (minitorch, torch_ref):
        with pytest.raises(RuntimeError):
            lib.testing.assert_close(True, 1)
    with pytest.raises(RuntimeError, match=r"Cannot compare bool\(\) True with int\(\) 1: a bool compares only with "
                                           r"a bool\.\n\nThe failure occurred for item \[0\]"):
        minitorch.testing.assert_close([True], [1])


def test_complex_numpy_arrays_are_refused_clearly() -> None:
    """minitorch has no complex dtype (PyTorch compares these arrays); Python complex numbers are
    compared, as in PyTorch (see CASES)."""
    with pytest.raises(TypeError, match="minitorch has no complex dtype: cannot compare arrays of complex128"):
        minitorch.testing.assert_close(np.array([1j]), np.array([1j]))


def test_device_mismatch_has_torchs_message() -> None:
    """PyTorch's CPU build has no second device to compare against: its message is written out."""
    if not minitorch.cuda.is_available():
        pytest.skip("no CUDA GPU, and NUMBA_ENABLE_CUDASIM is off")
    cpu = minitorch.tensor([1.0, 2.0])
    gpu = cpu.to("cuda")
    with pytest.raises(AssertionError) as error:
        minitorch.testing.assert_close(cpu, gpu)
    assert str(error.value) == "The values for attribute 'device' do not match: cpu != cuda:0."
    minitorch.testing.assert_close(cpu, gpu, check_device=False)
    with pytest.raises(AssertionError, match=r"Greatest absolute difference: 1\.0 at index \(0,\)"):
        minitorch.testing.assert_close(cpu, gpu + 1, check_device=False)


def test_assert_allclose_warns_as_torch(torch_ref: ModuleType) -> None:
    messages = []
    for lib in (minitorch, torch_ref):
        with pytest.warns(FutureWarning) as record:
            lib.testing.assert_allclose([1.0], [1.0])
        messages.append([str(w.message) for w in record if w.category is FutureWarning])
    assert messages[0] == messages[1]


def test_reachable_as_torch_testing() -> None:
    import minitorch.testing
    from minitorch.testing import assert_close

    assert minitorch.testing.assert_close is assert_close
    assert set(minitorch.testing.__all__) == {"assert_close", "assert_allclose"}

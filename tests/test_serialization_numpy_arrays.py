"""NumPy arrays inside a checkpoint (``save(np_array, f)``), against ``torch.save``/``torch.load``.

The time-sequence example saves its NumPy training data with ``torch.save`` and reads it back
with ``torch.load``. Each case runs under both libraries and must load the same: type, dtype,
shape, values, memory order, writability, identity of an array reached twice, and the
``weights_only`` refusal and allowlisting.
"""

from __future__ import annotations

import io
import json
import pickle
import zipfile
from typing import Any

import numpy as np
import pytest

import minitorch
from minitorch.serialization import SerializationError
from torch_oracle import import_torch

SEED = 7
ROWS, COLS = 3, 5
HEADER = "minitorch/header.json"


def _arrays() -> dict[str, Any]:
    rng = np.random.default_rng(SEED)
    base = rng.standard_normal((ROWS, COLS))
    return {
        "float64": base,
        "column_view": base[1:, ::2],  # a strided view: saved as its own elements
        "same_again": base,
        "float32": base.astype(np.float32),
        "int64": rng.integers(-9, 9, size=(COLS,)),
        "int32_fortran": np.asfortranarray(rng.integers(0, 9, size=(ROWS, COLS)).astype(np.int32)),
        "uint8": np.arange(4, dtype=np.uint8),
        "bool": base > 0,
        "big_endian": base[0].astype(">f4"),
        "zero_dim": np.array(2.5),
        "empty": np.zeros((0, 2)),
    }


def _roundtrip(lib: Any, obj: Any, **load_kwargs: Any) -> Any:
    buffer = io.BytesIO()
    lib.save(obj, buffer)
    buffer.seek(0)
    return lib.load(buffer, **load_kwargs)


def _describe(value: np.ndarray) -> tuple:
    return (type(value), value.dtype.newbyteorder("="), value.shape, value.flags.c_contiguous,
            value.flags.f_contiguous, value.flags.writeable)


def test_arrays_load_as_pytorch_loads_them() -> None:
    torch = import_torch()
    saved = _arrays()
    mine = _roundtrip(minitorch, saved, weights_only=False)
    theirs = _roundtrip(torch, saved, weights_only=False)
    assert list(mine) == list(theirs)
    for key, expected in theirs.items():
        got = mine[key]
        assert _describe(got) == _describe(expected), (key, _describe(got), _describe(expected))
        np.testing.assert_array_equal(got, expected, err_msg=key)
        np.testing.assert_array_equal(got, saved[key], err_msg=key)
    assert (mine["float64"] is mine["same_again"]) == (theirs["float64"] is theirs["same_again"]) is True
    assert not np.shares_memory(mine["float64"], mine["column_view"])


def test_arrays_sit_beside_tensors_and_are_snapshots() -> None:
    data = np.sin(np.arange(8.0)).reshape(2, 4)
    buffer = io.BytesIO()
    minitorch.save({"data": data, "weight": minitorch.ones(2)}, buffer)
    data[0, 0] = 100.0  # after saving: the file keeps what was saved
    buffer.seek(0)
    loaded = minitorch.load(buffer, weights_only=False)
    assert isinstance(loaded["weight"], minitorch.Tensor) and loaded["weight"].tolist() == [1.0, 1.0]
    assert loaded["data"][0, 0] == 0.0 and loaded["data"][1, 3] == np.sin(7.0)
    as_tensor = minitorch.from_numpy(loaded["data"][:, 1:])
    assert as_tensor.shape == (2, 3) and not as_tensor.is_contiguous()


def test_weights_only_refuses_arrays_as_pytorch_does() -> None:
    torch = import_torch()
    saved = {"data": np.arange(3.0)}
    with pytest.raises(pickle.UnpicklingError) as theirs:
        _roundtrip(torch, saved)
    with pytest.raises(pickle.UnpicklingError) as mine:
        _roundtrip(minitorch, saved)
    assert "Weights only load failed" in str(theirs.value)
    message = str(mine.value)
    assert "Weights only load failed" in message and "obj['data']" in message and "weights_only=False" in message


def test_allowlisting_the_numpy_globals_loads_arrays_in_both() -> None:
    torch = import_torch()
    saved = {"data": np.arange(3.0)}
    allow = [np._core.multiarray._reconstruct, np.ndarray, np.dtype, type(np.dtype(np.float64))]
    with torch.serialization.safe_globals(allow):
        theirs = _roundtrip(torch, saved)
    with minitorch.serialization.safe_globals(allow):
        mine = _roundtrip(minitorch, saved)
    np.testing.assert_array_equal(mine["data"], theirs["data"])
    with minitorch.serialization.safe_globals([np.ndarray]):
        assert _roundtrip(minitorch, saved)["data"].tolist() == [0.0, 1.0, 2.0]
    with pytest.raises(pickle.UnpicklingError):  # the allowlist is restored after the block
        _roundtrip(minitorch, saved)


@pytest.mark.parametrize("array", [np.array(["text"]), np.array([1 + 2j]), np.array([object()])],
                         ids=["str", "complex", "object"])
def test_arrays_without_a_tensor_type_are_refused_naming_them(array: np.ndarray) -> None:
    buffer = io.BytesIO()
    with pytest.raises(SerializationError) as info:
        minitorch.save({"extra": [array]}, buffer)
    message = str(info.value)
    assert "obj['extra'][0]" in message and "ndarray" in message and str(array.dtype) in message
    assert buffer.getvalue() == b""


def _with_root(root: Any) -> bytes:
    """A checkpoint of one float64 row whose object tree is ``root``."""
    buffer = io.BytesIO()
    minitorch.save(np.arange(2.0), buffer)
    with zipfile.ZipFile(io.BytesIO(buffer.getvalue())) as archive:
        entries = {name: archive.read(name) for name in archive.namelist()}
    head = json.loads(entries[HEADER])
    head["root"] = root
    entries[HEADER] = json.dumps(head).encode("ascii")
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_STORED) as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return out.getvalue()


@pytest.mark.parametrize(
    "root,message",
    [
        ({"type": "ndarray", "index": 9, "fortran": False}, r"array 9 is not in the table of 1 tensors"),
        ({"type": "ndarray", "index": -1, "fortran": False}, r"'index' must be a non-negative integer, got -1"),
        ({"type": "ndarray", "index": 0, "fortran": "yes"}, r"'fortran' must be a bool, got 'yes'"),
    ],
    ids=["index_past_table", "negative_index", "fortran_not_bool"],
)
def test_a_forged_array_node_is_refused(root: dict, message: str) -> None:
    forged = _with_root(root)
    with pytest.raises(SerializationError, match=message):
        minitorch.load(io.BytesIO(forged), weights_only=False)
    assert _roundtrip_bytes(_with_root({"type": "ndarray", "index": 0, "fortran": False})).tolist() == [0.0, 1.0]


def _roundtrip_bytes(data: bytes) -> np.ndarray:
    return minitorch.load(io.BytesIO(data), weights_only=False)

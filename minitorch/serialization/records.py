"""One tensor in the archive: a row of the header's tensor table and a record of raw bytes.

A record holds the tensor's elements in row-major order as little-endian bytes, nothing
else: a view (a slice, a transpose) is saved as its own compact copy, and a tensor on a
GPU is copied to the host first. The table row says how to read the bytes back::

    {"record": "minitorch/data/0", "dtype": "float32", "shape": [2, 3],
     "location": "cpu", "requires_grad": false, "parameter": false}

Reading trusts nothing in the row: the dtype must be known, the shape sane, and the size it
implies equal to the size of the record actually present in the archive, before a single
byte is allocated.
"""

from __future__ import annotations

import math
import zipfile
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import dtypes
from ..tensor import Tensor
from .errors import SerializationError
from .format import DTYPES_BY_NAME, MAX_DIMS, READ_CHUNK_BYTES, RECORD_NAME, little_endian
from .tree import parse_device

PARAMETER_KEY = "parameter"


def saved_location(t: Tensor) -> str:
    """Where ``t`` lives, as PyTorch writes it: ``'cpu'`` or ``'cuda:<index>'``."""
    on = t.device
    return "cpu" if on.type == "cpu" else f"{on.type}:{on.index or 0}"


def is_parameter(t: Tensor) -> bool:
    """Whether ``t`` is an ``nn.Parameter`` (when this build has ``nn``)."""
    try:
        from ..nn import Parameter
    except ImportError:
        return False
    return isinstance(t, Parameter)


def tensor_bytes(t: Tensor) -> np.ndarray:
    """The elements of ``t`` as a flat, contiguous, little-endian NumPy array (a copy when needed)."""
    # BEGIN SOLUTION 8.2
    host = t.detach().cpu().numpy()
    return np.ascontiguousarray(host, dtype=little_endian(t.dtype)).reshape(-1)
    # END SOLUTION


def table_row(t: Tensor, record: str) -> dict[str, Any]:
    """The header's description of ``t`` stored in ``record``."""
    return {
        "record": record,
        "dtype": t.dtype.name,
        "shape": list(t.shape),
        "location": saved_location(t),
        "requires_grad": bool(t.requires_grad),
        PARAMETER_KEY: is_parameter(t),
    }


@dataclass(frozen=True)
class TensorSpec:
    """A validated row of the tensor table."""

    record: str
    dtype: dtypes.dtype
    shape: tuple[int, ...]
    location: str
    requires_grad: bool
    parameter: bool

    @property
    def nbytes(self) -> int:
        return math.prod(self.shape) * self.dtype.itemsize


def parse_row(row: Any, where: str) -> TensorSpec:
    """Check one row of the tensor table; ``where`` names it in errors."""

    def bad(what: str) -> SerializationError:
        return SerializationError(f"malformed checkpoint: {where}: {what}")

    if type(row) is not dict:
        raise bad(f"expected an object, got a JSON {type(row).__name__}")
    record, name, shape = row.get("record"), row.get("dtype"), row.get("shape")
    if not isinstance(record, str) or not RECORD_NAME.fullmatch(record):
        raise bad(f"bad record name {record!r:.80}")
    if not isinstance(name, str) or name not in DTYPES_BY_NAME:
        raise bad(f"unknown dtype {name!r:.80} (known: {', '.join(DTYPES_BY_NAME)})")
    if type(shape) is not list or len(shape) > MAX_DIMS or not all(type(s) is int and s >= 0 for s in shape):
        raise bad(f"shape must be a list of at most {MAX_DIMS} non-negative integers, got {shape!r:.80}")
    flags = {key: row.get(key, False) for key in ("requires_grad", PARAMETER_KEY)}
    for key, value in flags.items():
        if type(value) is not bool:
            raise bad(f"'{key}' must be true or false, got {value!r:.80}")
    if flags["requires_grad"] and not DTYPES_BY_NAME[name].is_floating_point:
        raise bad(f"a {name} tensor can't require grad (only floating-point tensors can)")
    location = str(parse_device(row.get("location"), where))
    return TensorSpec(record, DTYPES_BY_NAME[name], tuple(shape), location, flags["requires_grad"], flags[PARAMETER_KEY])


def checked_record(archive: zipfile.ZipFile, spec: TensorSpec) -> zipfile.ZipInfo:
    """The archive entry of ``spec``'s record, which must exist and hold exactly the bytes
    that dtype and shape imply."""
    # BEGIN SOLUTION 8.3
    try:
        info = archive.getinfo(spec.record)
    except KeyError:
        raise SerializationError(f"malformed checkpoint: record {spec.record} is missing from the archive") from None
    if info.file_size != spec.nbytes:
        raise SerializationError(
            f"malformed checkpoint: record {spec.record} holds {info.file_size} bytes but a {spec.dtype.name} "
            f"tensor of shape {list(spec.shape)} needs {spec.nbytes}"
        )
    return info
    # END SOLUTION


def read_record(archive: zipfile.ZipFile, spec: TensorSpec) -> np.ndarray:
    """The elements of ``spec``'s record as a writable NumPy array of its shape and dtype.

    The record's size in the archive must equal what dtype and shape imply
    (:func:`checked_record`); the archive's entries were already checked against the real
    file size and each other, so nothing here can allocate more than the file holds.
    """
    # BEGIN SOLUTION 8.3
    info = checked_record(archive, spec)
    raw = np.empty(spec.nbytes, dtype=np.uint8)
    filled = 0
    with archive.open(info) as stream:
        while filled < spec.nbytes:
            chunk = stream.read(min(READ_CHUNK_BYTES, spec.nbytes - filled))
            if not chunk:
                raise SerializationError(f"truncated checkpoint: record {spec.record} ends after {filled} bytes")
            raw[filled : filled + len(chunk)] = np.frombuffer(chunk, dtype=np.uint8)
            filled += len(chunk)
        if stream.read(1):
            raise SerializationError(f"malformed checkpoint: record {spec.record} is longer than {spec.nbytes} bytes")
    if spec.dtype is dtypes.bool_ and raw.size and raw.max() > 1:
        raise SerializationError(f"malformed checkpoint: record {spec.record} has bool bytes other than 0 and 1")
    values = raw.view(little_endian(spec.dtype)).astype(spec.dtype.numpy, copy=False)
    # viewed as NumPy's own dtype object ('<f4' is equal to float32 but another object, which
    # the kernels' quick dtype checks compare by identity)
    return values.view(spec.dtype.numpy).reshape(spec.shape)
    # END SOLUTION

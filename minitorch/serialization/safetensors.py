"""``.safetensors`` files: weights exchanged with PyTorch and the wider model ecosystem.

The format is small enough to write by hand::

    8 bytes        N, the header's length, unsigned little-endian
    N bytes        a JSON object, padded with spaces to a multiple of 8 bytes:
                   {"__metadata__": {"str": "str"},            (optional)
                    "weight": {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]}, ...}
    the rest       the tensors' bytes, row-major, little-endian, back to back

``data_offsets`` count from the start of the byte buffer; together the tensors cover the
buffer exactly, with no gap and no overlap. A reader checks all of that before it reads a
tensor, and measures the header's JSON (depth, objects and arrays, values) before parsing
it, so no file makes it allocate more than the file's own size in tensors plus a bounded
header. Files written here load with
``safetensors.torch.load_file`` and files from ``safetensors.torch.save_file`` load here.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import struct
from typing import IO, Any, Mapping, Optional, Union

import numpy as np

from .. import dtypes
from ..device import DeviceLike
from ..tensor import Tensor
from .atomic import atomic_write
from .errors import SerializationError
from .format import MAX_DIMS, MAX_JSON_CONTAINERS, MAX_JSON_VALUES, READ_CHUNK_BYTES, little_endian
from .json_limits import JsonLimits, exceeded
from .location import move_to
from .records import tensor_bytes

FileLike = Union[str, "os.PathLike[str]", IO[bytes]]
#: the header's length is one unsigned 64-bit little-endian integer
LENGTH_FORMAT = "<Q"
LENGTH_BYTES = struct.calcsize(LENGTH_FORMAT)
#: the header is padded so the byte buffer starts 8-byte aligned
HEADER_ALIGNMENT = 8
#: the reference implementation's limit on the header's size
MAX_HEADER_BYTES = 100_000_000
METADATA_KEY = "__metadata__"
#: the header is an object of entries, each an object holding the shape and offsets arrays
MAX_JSON_DEPTH = 3
HEADER_LIMITS = JsonLimits(depth=MAX_JSON_DEPTH, containers=MAX_JSON_CONTAINERS, values=MAX_JSON_VALUES)
ENTRY_KEYS = {"dtype", "shape", "data_offsets"}

CODES = {
    dtypes.bool_: "BOOL", dtypes.uint8: "U8", dtypes.int8: "I8", dtypes.int16: "I16", dtypes.int32: "I32", dtypes.int64: "I64",
    dtypes.float16: "F16", dtypes.float32: "F32", dtypes.float64: "F64", dtypes.bfloat16: "BF16",
}
DTYPES_BY_CODE = {code: d for d, code in CODES.items()}
#: the reference writer's layout: dtypes in this order (element sizes never grow), then names
LAYOUT_ORDER = ("I64", "F64", "F32", "I32", "BF16", "F16", "I16", "U8", "I8", "BOOL")
#: safetensors dtypes that exist but minitorch has no dtype for
FOREIGN_CODES = ("U16", "U32", "U64", "F8_E4M3", "F8_E5M2", "F4", "F6_E2M3", "F6_E3M2", "E8M0")


def _bad(what: str) -> SerializationError:
    return SerializationError(f"malformed safetensors file: {what}")


def safetensors_bytes(
    tensors: Mapping[str, Tensor], metadata: Optional[Mapping[str, str]] = None
) -> tuple[bytes, list[np.ndarray]]:
    """The padded header (length prefix included) and each tensor's bytes in file order.

    Tensors are laid out in the reference writer's order (``LAYOUT_ORDER``, then by name):
    element sizes never grow along the file, so every tensor starts aligned to its element size.
    """
    # BEGIN SOLUTION 8.6
    if not isinstance(tensors, Mapping):
        raise TypeError(f"expected a dict of name -> Tensor, got {type(tensors).__name__}")
    for name, t in tensors.items():
        if not isinstance(name, str) or name == METADATA_KEY:
            raise SerializationError(f"can't save tensor name {name!r}: names must be str other than {METADATA_KEY!r}")
        if not isinstance(t, Tensor):
            raise SerializationError(f"can't save tensors[{name!r}]: expected a Tensor, got {type(t).__name__}")
    if metadata is not None and not all(isinstance(k, str) and isinstance(v, str) for k, v in metadata.items()):
        raise SerializationError("safetensors metadata must map str to str")
    order = sorted(tensors, key=lambda name: (LAYOUT_ORDER.index(CODES[tensors[name].dtype]), name))
    header: dict[str, Any] = {} if metadata is None else {METADATA_KEY: dict(metadata)}
    payloads, offset = [], 0
    for name in order:
        data = tensor_bytes(tensors[name])
        t = tensors[name]
        header[name] = {"dtype": CODES[t.dtype], "shape": list(t.shape), "data_offsets": [offset, offset + data.nbytes]}
        payloads.append(data)
        offset += data.nbytes
    try:  # UTF-8 as the reference writes it (a lone surrogate has no UTF-8 form)
        text = json.dumps(header, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as error:
        raise SerializationError(f"can't save a name or metadata that is not valid Unicode: {error}") from None
    problem = exceeded(text, HEADER_LIMITS)
    if problem:  # a file that load_safetensors would refuse is never written
        raise SerializationError(f"can't save: the safetensors header {problem}")
    text += b" " * (-len(text) % HEADER_ALIGNMENT)
    return struct.pack(LENGTH_FORMAT, len(text)) + text, payloads
    # END SOLUTION


def save_safetensors(tensors: Mapping[str, Tensor], f: FileLike, metadata: Optional[Mapping[str, str]] = None) -> None:
    """Write a dict of named tensors (e.g. ``model.state_dict()``) as a ``.safetensors`` file.

    ``metadata`` is an optional dict of strings stored in the header. A path is replaced
    atomically. Views are saved as compact copies; GPU tensors are copied to the host.
    """
    header, payloads = safetensors_bytes(tensors, metadata)

    def write(stream: IO[bytes]) -> None:
        stream.write(header)
        for data in payloads:
            stream.write(data.view(np.uint8))

    if isinstance(f, (str, os.PathLike)):
        atomic_write(f, write)
    else:
        write(f)


def _entry_spec(name: str, entry: Any) -> tuple[dtypes.dtype, tuple[int, ...], int, int]:
    """Validate one header entry: dtype, shape and offsets agree with each other."""
    if type(entry) is not dict or set(entry) != ENTRY_KEYS:
        raise _bad(f"entry {name!r:.80} must have exactly the keys {sorted(ENTRY_KEYS)}")
    code, shape, offsets = entry["dtype"], entry["shape"], entry["data_offsets"]
    if code in FOREIGN_CODES:
        raise SerializationError(f"tensor {name!r:.80} has dtype {code}, which minitorch does not support")
    if not isinstance(code, str) or code not in DTYPES_BY_CODE:
        raise _bad(f"tensor {name!r:.80} has unknown dtype {code!r:.40}")
    if type(shape) is not list or len(shape) > MAX_DIMS or not all(type(s) is int and s >= 0 for s in shape):
        raise _bad(f"tensor {name!r:.80} has a bad shape {shape!r:.80}")
    if type(offsets) is not list or len(offsets) != 2 or not all(type(o) is int and o >= 0 for o in offsets):
        raise _bad(f"tensor {name!r:.80} has bad data_offsets {offsets!r:.80}")
    d = DTYPES_BY_CODE[code]
    begin, end = offsets
    if end - begin != math.prod(shape) * d.itemsize:
        raise _bad(
            f"tensor {name!r:.80} of dtype {code} and shape {shape} needs {math.prod(shape) * d.itemsize} bytes, "
            f"its data_offsets [{begin}, {end}] span {end - begin}"
        )
    return d, tuple(shape), begin, end


def _parse_header(stream: IO[bytes], file_size: int) -> tuple[dict, int]:
    """The validated entries and the byte buffer's start; nothing is trusted before it is checked."""
    # BEGIN SOLUTION 8.6
    prefix = stream.read(LENGTH_BYTES)
    if len(prefix) < LENGTH_BYTES:
        raise _bad(f"the file has {file_size} bytes, fewer than the {LENGTH_BYTES}-byte header length")
    (length,) = struct.unpack(LENGTH_FORMAT, prefix)
    if length > MAX_HEADER_BYTES:
        raise _bad(f"header length {length} exceeds the limit of {MAX_HEADER_BYTES} bytes")
    if LENGTH_BYTES + length > file_size:
        raise _bad(f"header length {length} runs past the end of the {file_size}-byte file")
    raw = stream.read(length)
    problem = exceeded(raw, HEADER_LIMITS)
    if problem:
        raise _bad(f"the header {problem}")
    try:
        header = json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError) as error:
        raise _bad(f"the header is not valid JSON ({error})") from None
    if type(header) is not dict:
        raise _bad("the header must be a JSON object")
    metadata = header.pop(METADATA_KEY, {})
    if type(metadata) is not dict or not all(isinstance(v, str) for v in metadata.values()):
        raise _bad(f"{METADATA_KEY} must map str to str")
    return {name: _entry_spec(name, entry) for name, entry in header.items()}, LENGTH_BYTES + length
    # END SOLUTION


def load_safetensors(f: FileLike, device: DeviceLike = "cpu") -> dict[str, Tensor]:
    """Read a ``.safetensors`` file into a dict of tensors on ``device``, in the header's order.

    The header is checked against the real file size before anything is allocated, and the
    tensors must cover the byte buffer exactly; otherwise :class:`SerializationError`.
    """
    if not isinstance(f, (str, os.PathLike)) and not f.seekable():
        f = io.BytesIO(f.read())
    with open(f, "rb") if isinstance(f, (str, os.PathLike)) else contextlib.nullcontext(f) as stream:
        base = stream.tell()
        file_size = stream.seek(0, io.SEEK_END) - base
        stream.seek(base)
        entries, start = _parse_header(stream, file_size)
        buffer_size = file_size - start
        position = 0
        for name, (_, _, begin, end) in sorted(entries.items(), key=lambda item: item[1][2:]):
            if begin != position:
                raise _bad(f"tensor {name!r:.80} starts at byte {begin}, expected {position} (a gap or an overlap)")
            position = end
        if position != buffer_size:
            raise _bad(f"the tensors cover {position} bytes but the data section holds {buffer_size}")
        out: dict[str, Tensor] = {}
        for name, (d, shape, begin, end) in entries.items():
            stream.seek(base + start + begin)
            raw = _read_exactly(stream, end - begin, name)
            if d is dtypes.bool_ and raw.size and raw.max() > 1:
                raise _bad(f"bool tensor {name!r:.80} has bytes other than 0 and 1")
            values = raw.view(little_endian(d)).astype(d.numpy, copy=False).view(d.numpy).reshape(shape)  # NumPy's own dtype object
            out[name] = move_to(Tensor._from_numpy_array(values), device or "cpu")
        return out


def _read_exactly(stream: IO[bytes], nbytes: int, name: str) -> np.ndarray:
    raw = np.empty(nbytes, dtype=np.uint8)
    filled = 0
    while filled < nbytes:
        chunk = stream.read(min(READ_CHUNK_BYTES, nbytes - filled))
        if not chunk:
            raise _bad(f"tensor {name!r:.80} is truncated")
        raw[filled : filled + len(chunk)] = np.frombuffer(chunk, dtype=np.uint8)
        filled += len(chunk)
    return raw

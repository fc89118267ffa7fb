"""``minitorch.save`` and ``minitorch.load``: checkpoints as plain-data zip archives.

See :mod:`minitorch.serialization.format` for the layout. Saving checks the whole object
first (so an unsupported value deep inside fails before any byte is written) and writes a
path atomically. Loading validates the archive before trusting it, cheapest checks first
and all of them before the data they guard is read or allocated: entry names and sizes
against the real file size; the entries' spans, from their local headers (no two
overlap); the header's size, then its JSON's depth and counts, then its format and
version; every row of the tensor table against its record, and the table's total.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import struct
import zipfile
from typing import IO, Any, Iterator, Optional, Union

import numpy as np

from ..tensor import Tensor
from .atomic import atomic_write
from .errors import SerializationError
from .format import (
    FORMAT_NAME, FORMAT_VERSION, HEADER_NAME, MAX_HEADER_BYTES, MAX_JSON_CONTAINERS, MAX_JSON_DEPTH, MAX_JSON_VALUES,
    RECORD_NAME, RECORD_PREFIX, ZIP_TIMESTAMP,
)
from .json_limits import JsonLimits, exceeded
from .location import MapLocation, Placement
from .records import TensorSpec, checked_record, parse_row, read_record, table_row, tensor_bytes
from .arrays import ArrayDecoder
from .objects import ObjectDecoder
from .tree import TreeDecoder, TreeEncoder
from .zip_layout import directory_start, entry_span

FileLike = Union[str, "os.PathLike[str]", IO[bytes]]
#: the first byte of a pickle stream (protocol 2 and later)
PICKLE_MAGIC = b"\x80"
#: a safetensors file starts with its header's length in 8 bytes, then the JSON header
SAFETENSORS_PREFIX_BYTES = 8
#: zip entry flag bits: encrypted; sizes in a trailing data descriptor; UTF-8 name
ENCRYPTED_FLAG = 0x1
DATA_DESCRIPTOR_FLAG = 0x8
UTF8_NAME_FLAG = 0x800
#: any other flag (strong encryption, patched data, ...) means a feature we don't read
ALLOWED_FLAGS = DATA_DESCRIPTOR_FLAG | UTF8_NAME_FLAG
#: fixed part of a zip local file header, before the name and extra field
LOCAL_HEADER_BYTES = 30
#: what the archive reader may raise on a damaged file (all reported as SerializationError)
READ_ERRORS = (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, struct.error, ValueError, OverflowError, OSError)
#: what the header's JSON may hold, checked before it is parsed (and before a save writes it)
HEADER_LIMITS = JsonLimits(depth=MAX_JSON_DEPTH, containers=MAX_JSON_CONTAINERS, values=MAX_JSON_VALUES)


def _entry(name: str) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name, date_time=ZIP_TIMESTAMP)
    info.compress_type = zipfile.ZIP_STORED
    return info


def _write_archive(stream: IO[bytes], header: bytes, tensors: list[Tensor], records: list[str]) -> None:
    with zipfile.ZipFile(stream, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as archive:
        archive.writestr(_entry(HEADER_NAME), header)
        for t, record in zip(tensors, records):
            data = tensor_bytes(t)
            info = _entry(record)
            info.file_size = data.nbytes
            with archive.open(info, "w") as out:
                out.write(data.view(np.uint8))


def save(obj: Any, f: FileLike) -> None:
    """Save ``obj`` (tensors in dicts, lists and tuples of plain values, or whole modules) to a path or binary file.

    A path is replaced atomically: a crash or an exception mid-save leaves the previous
    file as it was. Objects of other types are refused with a :class:`SerializationError`
    naming where they sit inside ``obj``.
    """
    encoder = TreeEncoder()
    root = encoder.encode(obj)
    records = [f"{RECORD_PREFIX}{i}" for i in range(len(encoder.tensors))]
    header = {
        "format": FORMAT_NAME,
        "version": FORMAT_VERSION,
        "tensors": [table_row(t, record) for t, record in zip(encoder.tensors, records)],
        "root": root,
    }
    try:  # ASCII with \u escapes: any Python str round-trips, even a lone surrogate
        payload = json.dumps(header, ensure_ascii=True, separators=(",", ":")).encode("ascii")
    except ValueError as error:  # e.g. an int too long to write in decimal
        raise SerializationError(f"can't save: {error}") from None
    if len(payload) > MAX_HEADER_BYTES:
        raise SerializationError(
            f"can't save: the object tree needs {len(payload)} bytes of header, more than {MAX_HEADER_BYTES}"
        )
    problem = exceeded(payload, HEADER_LIMITS)
    if problem:  # a file that load would refuse is never written
        raise SerializationError(f"can't save: the header of this object tree {problem}")

    def write(stream: IO[bytes]) -> None:
        _write_archive(stream, payload, encoder.tensors, records)

    if isinstance(f, (str, os.PathLike)):
        atomic_write(f, write)
    else:
        write(f)


# ---- loading ----


@contextlib.contextmanager
def _reading(what: str) -> Iterator[None]:
    """Report any low-level failure while reading ``what`` as a SerializationError."""
    try:
        yield
    except SerializationError:
        raise
    except RecursionError:
        raise SerializationError(f"malformed checkpoint: {what} is nested too deeply") from None
    except READ_ERRORS as error:
        raise SerializationError(f"corrupt or truncated checkpoint while reading {what}: {error}") from error


def _stream_size(stream: IO[bytes]) -> int:
    position = stream.tell()
    size = stream.seek(0, io.SEEK_END)
    stream.seek(position)
    return size


def _not_an_archive_hint(stream: IO[bytes]) -> str:
    """A word on what the file might be instead."""
    position = stream.tell()
    stream.seek(0)
    start = stream.read(SAFETENSORS_PREFIX_BYTES + 1)
    stream.seek(position)
    if start[:1] == PICKLE_MAGIC:
        return " It looks like a pickle stream; minitorch never unpickles, because unpickling runs code."
    if start[SAFETENSORS_PREFIX_BYTES:] == b"{":
        return " It looks like a .safetensors file: read it with minitorch.load_safetensors."
    return ""


def _check_entries(archive: zipfile.ZipFile, stream: IO[bytes], archive_size: int) -> None:
    """Every entry must be one of ours, stored uncompressed, and fit inside the real file;
    together the entries must lie one after another (no two overlap), before the central
    directory, as their local headers in ``stream`` show (see :func:`entry_span`)."""
    # BEGIN SOLUTION 8.3
    names = archive.namelist()
    if HEADER_NAME not in names:
        if any(name.endswith("data.pkl") for name in names):
            raise SerializationError(
                "not a minitorch checkpoint: this is a PyTorch pickle checkpoint (data.pkl), which minitorch "
                "refuses to load because unpickling runs code; save the weights with safetensors instead"
            )
        raise SerializationError(f"not a minitorch checkpoint: the archive has no {HEADER_NAME}")
    if len(set(names)) != len(names):
        raise SerializationError("malformed checkpoint: the archive has duplicate entry names")
    for info in archive.infolist():
        name = info.filename
        if name.startswith(("/", "\\")) or ".." in name.split("/") or "\\" in name or ":" in name or "\x00" in name:
            raise SerializationError(f"hostile checkpoint: unsafe entry name {name!r:.120} (path traversal)")
        if name != HEADER_NAME and not RECORD_NAME.fullmatch(name):
            raise SerializationError(f"malformed checkpoint: unexpected entry {name!r:.120}")
        if info.flag_bits & ENCRYPTED_FLAG:
            raise SerializationError(f"malformed checkpoint: entry {name} is encrypted")
        if info.flag_bits & ~ALLOWED_FLAGS:
            raise SerializationError(f"malformed checkpoint: entry {name} uses unsupported zip flags {info.flag_bits:#x}")
        if info.compress_type != zipfile.ZIP_STORED or info.compress_size != info.file_size:
            raise SerializationError(
                f"malformed checkpoint: entry {name} is compressed (method {info.compress_type}); "
                "minitorch checkpoints store entries uncompressed"
            )
        end = info.header_offset + LOCAL_HEADER_BYTES + len(info.orig_filename.encode("utf-8")) + info.file_size
        if info.header_offset < 0 or end > archive_size:
            raise SerializationError(
                f"corrupt or truncated checkpoint: entry {name} claims {info.file_size} bytes at offset "
                f"{info.header_offset}, beyond the end of the {archive_size}-byte file"
            )
    spans = sorted((entry_span(stream, info) for info in archive.infolist()), key=lambda span: span.start)
    for before, after in zip(spans, spans[1:]):
        if after.start < before.end:
            raise SerializationError(
                f"hostile checkpoint: entries overlap ({before.name} spans bytes {before.start} to {before.end}, "
                f"{after.name} starts at byte {after.start} inside it)"
            )
    directory = directory_start(archive, archive_size)
    if spans and spans[-1].end > directory:
        raise SerializationError(
            f"corrupt checkpoint: entry {spans[-1].name} ends at byte {spans[-1].end}, "
            f"inside the central directory that starts at byte {directory}"
        )
    # END SOLUTION


def open_archive(stream: IO[bytes]) -> zipfile.ZipFile:
    """Open ``stream`` as a zip archive and vet its entries before anything is read from them.

    A file that isn't a zip archive, or whose entries are not exactly a minitorch
    checkpoint's (stored, unencrypted, safely named, inside the real file), raises
    :class:`SerializationError`.
    """
    # BEGIN SOLUTION 8.3
    size = _stream_size(stream)
    try:
        archive = zipfile.ZipFile(stream)
    except zipfile.BadZipFile:
        hint = _not_an_archive_hint(stream)
        raise SerializationError(f"not a minitorch checkpoint: not a zip archive, or a truncated one.{hint}") from None
    except NotImplementedError as error:  # e.g. a zip feature version from the future
        raise SerializationError(f"malformed checkpoint: unsupported zip archive ({error})") from None
    try:
        _check_entries(archive, stream, size)
    except BaseException:
        archive.close()
        raise
    return archive
    # END SOLUTION


def _read_header(archive: zipfile.ZipFile) -> dict:
    info = archive.getinfo(HEADER_NAME)
    if info.file_size > MAX_HEADER_BYTES:
        raise SerializationError(
            f"malformed checkpoint: header of {info.file_size} bytes exceeds the limit of {MAX_HEADER_BYTES}"
        )
    with archive.open(info) as stream:
        raw = stream.read(info.file_size + 1)
    problem = exceeded(raw, HEADER_LIMITS)
    if problem:
        raise SerializationError(f"malformed checkpoint: {HEADER_NAME} {problem}")
    header = json.loads(raw.decode("utf-8"))
    if type(header) is not dict or header.get("format") != FORMAT_NAME:
        raise SerializationError(f"not a minitorch checkpoint: {HEADER_NAME} does not describe a {FORMAT_NAME} archive")
    version = header.get("version")
    if type(version) is not int:
        raise SerializationError(f"malformed checkpoint: format version must be an integer, got {version!r:.80}")
    if version != FORMAT_VERSION:
        newer = " (written by a newer minitorch; upgrade to load it)" if version > FORMAT_VERSION else ""
        raise SerializationError(
            f"unsupported checkpoint format version {version}; this minitorch reads version {FORMAT_VERSION}{newer}"
        )
    if type(header.get("tensors")) is not list or "root" not in header:
        raise SerializationError("malformed checkpoint: the header needs a 'tensors' list and a 'root'")
    return header


class _TensorTable:
    """The header's tensor table; each tensor is read on first reference and shared after.

    Every row is checked against its record when the table is built, before any tensor
    is read: ``archive_size`` bounds what the rows may declare in total.
    """

    def __init__(
        self, archive: zipfile.ZipFile, archive_size: int, rows: list, placement: Placement, parameter_class: Any
    ) -> None:
        self._archive = archive
        self._specs: list[TensorSpec] = [parse_row(row, f"tensor table row {i}") for i, row in enumerate(rows)]
        records = [spec.record for spec in self._specs]
        if len(set(records)) != len(records):
            raise SerializationError("malformed checkpoint: two rows of the tensor table share one record")
        declared = sum(spec.nbytes for spec in self._specs)
        if declared > archive_size:
            raise SerializationError(
                f"malformed checkpoint: the tensor table needs {declared} bytes of records, "
                f"more than the whole {archive_size}-byte file"
            )
        for spec in self._specs:
            checked_record(archive, spec)
        self._placement = placement
        self._parameter_class = parameter_class
        self._loaded: dict[int, Tensor] = {}

    def tensor_at(self, index: int, path: str) -> Tensor:
        if index >= len(self._specs):
            raise SerializationError(
                f"malformed checkpoint at {path}: tensor {index} is not in the table of {len(self._specs)} tensors"
            )
        if index not in self._loaded:
            spec = self._specs[index]
            with _reading(f"record {spec.record}"):
                values = read_record(self._archive, spec)
            t = self._placement.place(Tensor._from_numpy_array(values), spec.location)
            if spec.parameter and self._parameter_class is not None:
                t = self._parameter_class(t, requires_grad=spec.requires_grad)
            elif spec.requires_grad:
                t = t.detach().requires_grad_(True)
            self._loaded[index] = t
        return self._loaded[index]

    def array_at(self, index: int, path: str) -> np.ndarray:
        """Row ``index``'s elements as a new NumPy array (a saved array: no device, no autograd)."""
        if index >= len(self._specs):
            raise SerializationError(
                f"malformed checkpoint at {path}: array {index} is not in the table of {len(self._specs)} tensors"
            )
        spec = self._specs[index]
        with _reading(f"record {spec.record}"):
            return read_record(self._archive, spec)


def _parameter_class() -> Any:
    try:
        from ..nn import Parameter
    except ImportError:
        return None
    return Parameter


@contextlib.contextmanager
def _open_for_reading(f: FileLike) -> Iterator[IO[bytes]]:
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as stream:
            yield stream
    elif not f.seekable():  # a pipe or a socket: a zip archive is read from its end
        yield io.BytesIO(f.read())
    else:
        yield f


def load(f: FileLike, map_location: MapLocation = None, weights_only: Optional[bool] = True) -> Any:
    """Load an object saved by :func:`save` from a path or binary file.

    ``map_location`` decides where tensors land (see :mod:`minitorch.serialization.location`).
    A file holding a whole module (``save(model, f)``) is rebuilt only for classes on the
    allowlist (:func:`~minitorch.serialization.add_safe_globals`), and with
    ``weights_only=False`` for minitorch's own classes too; ``None`` means ``True``, as in
    PyTorch. Whatever its value, loading never runs code from the file or imports anything
    it names. A damaged, hostile or foreign file raises :class:`SerializationError` saying
    what is wrong.
    """
    placement = Placement(map_location)
    strict = weights_only is None or bool(weights_only)
    objects = ObjectDecoder(weights_only=strict)
    with _open_for_reading(f) as stream:
        with _reading("the archive"):
            size = _stream_size(stream)
            archive = open_archive(stream)
        with archive:
            with _reading(HEADER_NAME):
                header = _read_header(archive)
            table = _TensorTable(archive, size, header["tensors"], placement, _parameter_class())
            arrays = ArrayDecoder(strict, table.array_at)
            return TreeDecoder(table.tensor_at, objects, arrays).decode(header["root"])

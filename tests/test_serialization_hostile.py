"""Loading damaged and hostile files (task 8.3): every one is refused with SerializationError.

The corpus is built by hand with ``zipfile``, ``json`` and ``pickle`` (never with
``minitorch.save``, except for the valid checkpoint that the mutation tests damage):
pickle payloads, truncated archives, headers claiming terabytes, path-traversal entry
names, compressed "zip bombs", wrong versions and dtype/shape/size contradictions.
Hypothesis then flips bytes of a valid checkpoint and rewrites parts of its header: the
result is always either a clean ``SerializationError`` or the original object.
"""

from __future__ import annotations

import io
import json
import math
import os
import pickle
import re
import struct
import subprocess
import sys
import tracemalloc
import zipfile
import zlib
from collections import OrderedDict
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import minitorch
from minitorch import Tensor
from minitorch.serialization import SerializationError
from minitorch.serialization.format import MAX_JSON_CONTAINERS, MAX_JSON_DEPTH, MAX_NESTING
from minitorch.serialization import json_limits
from minitorch.serialization.json_limits import JsonLimits

pytestmark = pytest.mark.task("8.3")

HEADER = "minitorch/header.json"
RECORD = "minitorch/data/0"
#: a load of a hostile file may use at most this much new memory
MEMORY_LIMIT_BYTES = 4 * 2**20
#: offsets inside a zip central-directory entry (APPNOTE 4.3.12)
CENTRAL_SIGNATURE = b"PK\x01\x02"
CENTRAL_COMPRESSED_SIZE = 20
CENTRAL_FLAGS = 8


def row(**changes: Any) -> dict:
    base = {"record": RECORD, "dtype": "float32", "shape": [2], "location": "cpu", "requires_grad": False, "parameter": False}
    base.update(changes)
    return base


def header(rows: list | None = None, root: Any = None, **changes: Any) -> dict:
    base = {
        "format": "minitorch.save",
        "version": 1,
        "tensors": [row()] if rows is None else rows,
        "root": {"type": "tensor", "index": 0} if root is None else root,
    }
    base.update(changes)
    return base


_DEFAULT = object()


def build(head: Any = _DEFAULT, records: dict[str, bytes] | None = None, compression: int = zipfile.ZIP_STORED) -> bytes:
    """A zip archive holding ``head`` (a dict, raw bytes, or None for none) and ``records``."""
    head = header() if head is _DEFAULT else head
    records = {RECORD: np.array([1.0, 2.0], dtype="<f4").tobytes()} if records is None else records
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=compression) as archive:
        if head is not None:
            archive.writestr(HEADER, head if isinstance(head, bytes) else json.dumps(head))
        for name, data in records.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def patch_central_entry(data: bytes, index: int, offset: int, fmt: str, value: int) -> bytes:
    """Overwrite one field of the ``index``-th central-directory entry."""
    position = -1
    for _ in range(index + 1):
        position = data.index(CENTRAL_SIGNATURE, position + 1)
    patched = bytearray(data)
    struct.pack_into(fmt, patched, position + offset, value)
    return bytes(patched)


def load_bytes(data: bytes, **kwargs: Any) -> Any:
    return minitorch.load(io.BytesIO(data), **kwargs)


def child_env() -> dict[str, str]:
    """The environment of a child Python that imports this very minitorch."""
    return dict(os.environ, PYTHONPATH=str(Path(minitorch.__file__).resolve().parents[1]))


def test_the_handmade_archive_is_valid() -> None:
    """The corpus below starts from this archive, which loads."""
    assert load_bytes(build()).tolist() == [1.0, 2.0]


# ---------------------------------------------------------------- the corpus


class Marker:
    """Unpickling this creates a file: the proof that code ran."""

    path = ""

    def __reduce__(self) -> tuple:
        return (open, (self.path, "w"))


def pickle_payload(marker: Path) -> bytes:
    Marker.path = str(marker)
    return pickle.dumps({"model": Marker()})


def torch_style_archive(marker: Path) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("archive/data.pkl", pickle_payload(marker))
        archive.writestr("archive/version", "3\n")
    return buffer.getvalue()


def test_pickle_payloads_are_never_executed(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    with pytest.raises(SerializationError, match="pickle"):
        load_bytes(pickle_payload(marker))
    with pytest.raises(SerializationError, match=r"PyTorch pickle checkpoint \(data.pkl\)"):
        load_bytes(torch_style_archive(marker))
    assert not marker.exists()


def test_a_real_torch_checkpoint_is_refused(torch_ref: Any, tmp_path: Path) -> None:
    path = tmp_path / "model.pt"
    torch_ref.save({"w": torch_ref.ones(2)}, path)
    with pytest.raises(SerializationError, match="data.pkl"):
        minitorch.load(path)


HOSTILE = {
    "empty_file": (b"", "not a zip archive"),
    "text": (b"hello, world\n" * 10, "not a zip archive"),
    "no_header": (build(head=None), "no minitorch/header.json"),
    "header_not_json": (build(b"{not json"), "minitorch/header.json"),
    "header_not_utf8": (build(b"\xff\xfe\x00"), "minitorch/header.json"),
    "header_is_a_list": (build(b"[]"), "not a minitorch checkpoint"),
    "deeply_nested_json": (build(b"[" * 100_000 + b"]" * 100_000), "minitorch/header.json"),
    "wrong_format": (build(header(format="pytorch")), "not a minitorch checkpoint"),
    "newer_version": (build(header(version=2)), "version 2.*newer"),
    "older_version": (build(header(version=0)), "version 0"),
    "version_as_string": (build(header(version="1")), "version must be an integer"),
    "missing_root": (build({"format": "minitorch.save", "version": 1, "tensors": []}), "'root'"),
    "tensors_not_a_list": (build(header(tensors={})), "'tensors' list"),
    "traversal_parent": (build(header(), {"../evil": b"x", RECORD: b"\0" * 8}), "unsafe entry name '../evil'"),
    "traversal_absolute": (build(header(), {"/etc/cron.d/evil": b"x", RECORD: b"\0" * 8}), "unsafe entry name"),
    "traversal_inside": (build(header(), {"minitorch/../../evil": b"x", RECORD: b"\0" * 8}), "unsafe entry name"),
    "traversal_backslash": (build(header(), {"minitorch\\..\\evil": b"x", RECORD: b"\0" * 8}), "unsafe entry name"),
    "traversal_drive": (build(header(), {"C:/evil": b"x", RECORD: b"\0" * 8}), "unsafe entry name"),
    "unexpected_entry": (build(header(), {RECORD: b"\0" * 8, "minitorch/notes.txt": b"x"}), "unexpected entry"),
    "record_named_like_header": (build(header([row(record=HEADER)])), "bad record name"),
    "record_missing": (build(header([row(record="minitorch/data/7")])), "data/7 is missing"),
    "record_too_short": (build(header([row(shape=[2, 3])])), "holds 8 bytes but a float32 tensor of shape \\[2, 3\\] needs 24"),
    "record_too_long": (build(header([row(shape=[1])])), "holds 8 bytes.*needs 4"),
    "unknown_dtype": (build(header([row(dtype="complex64")])), "unknown dtype 'complex64'"),
    "dtype_not_a_string": (build(header([row(dtype=["float32"])])), "unknown dtype"),
    "negative_shape": (build(header([row(shape=[-2])])), "shape"),
    "shape_of_bools": (build(header([row(shape=[True, True])])), "shape"),
    "shape_of_floats": (build(header([row(shape=[2.0])])), "shape"),
    "too_many_dims": (build(header([row(shape=[1] * 65)])), "at most 64"),
    "bad_location": (build(header([row(location="tpu:0")])), "bad device 'tpu:0'"),
    "location_not_a_string": (build(header([row(location=0)])), "device name must be a string"),
    "requires_grad_not_bool": (build(header([row(requires_grad="yes")])), "'requires_grad' must be true or false"),
    "int_requires_grad": (build(header([row(dtype="int32", requires_grad=True)])), "int32 tensor can't require grad"),
    "row_not_an_object": (build(header(["minitorch/data/0"])), "tensor table row 0"),
    "two_rows_one_record": (build(header([row(), row()], root={"type": "list", "items": []})), "share one record"),
    "tensor_index_out_of_range": (build(header(root={"type": "tensor", "index": 5})), "tensor 5 is not in the table of 1"),
    "tensor_index_negative": (build(header(root={"type": "tensor", "index": -1})), "non-negative integer"),
    "tensor_index_bool": (build(header(root={"type": "tensor", "index": True})), "non-negative integer"),
    "unknown_tag": (build(header(root={"type": "module", "items": []})), "unknown type tag 'module'"),
    "untagged_object": (build(header(root={"a": 1})), "unknown type tag None"),
    "bare_json_list": (build(header(root=[1, 2])), "got a JSON list"),
    "items_not_a_list": (build(header(root={"type": "list", "items": "abc"})), "'items' must be a list"),
    "dict_item_not_a_pair": (build(header(root={"type": "dict", "items": [[1, 2, 3]]})), "pairs"),
    "unhashable_key": (
        build(header(root={"type": "dict", "items": [[{"type": "list", "items": []}, 1]]})),
        "key of type list can't be hashed",
    ),
    "tensor_key": (build(header(root={"type": "dict", "items": [[{"type": "tensor", "index": 0}, 1]]})), "dict key"),
    "unknown_dtype_value": (build(header(root={"type": "dtype", "name": "object"})), "unknown dtype 'object'"),
    "bad_size": (build(header(root={"type": "size", "items": [-1]})), "non-negative"),
    "nesting_too_deep": (
        build(header(root=json.loads('{"type":"list","items":[' * 300 + "]}" * 300))),
        "nested deeper than 200",
    ),
    "bool_bytes_not_0_or_1": (
        build(header([row(dtype="bool", shape=[2])]), {RECORD: b"\x01\x07"}),
        "bool bytes other than 0 and 1",
    ),
    "compressed_entry": (build(compression=zipfile.ZIP_DEFLATED), "compressed"),
}


@pytest.mark.parametrize("name", list(HOSTILE))
def test_hostile_file_is_refused_with_a_reason(name: str, tmp_path: Path, monkeypatch: Any) -> None:
    data, reason = HOSTILE[name]
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "hostile.mt"
    path.write_bytes(data)
    with pytest.raises(SerializationError, match=reason):
        minitorch.load(path)
    with pytest.raises(SerializationError, match=reason):
        load_bytes(data)
    # no side effect: nothing was written anywhere near the file (nor, for traversal names, above it)
    assert os.listdir(tmp_path) == ["hostile.mt"]
    assert not (tmp_path.parent / "evil").exists()
    assert path.read_bytes() == data


def test_truncated_archives(tmp_path: Path) -> None:
    data = _valid_checkpoint()
    for cut in sorted({1, 4, 22, len(data) // 4, len(data) // 2, len(data) - 23, len(data) - 1}):
        with pytest.raises(SerializationError):
            load_bytes(data[:cut])


def measure_peak(action: Callable[[], Any]) -> int:
    tracemalloc.start()
    try:
        with pytest.raises(SerializationError) as info:
            action()
        return tracemalloc.get_traced_memory()[1], str(info.value)  # type: ignore[return-value]
    finally:
        tracemalloc.stop()


@pytest.mark.in_process  # it measures the memory the loader allocates in this process
def test_a_header_claiming_terabytes_allocates_nothing() -> None:
    shape = [2**20, 2**20, 2**10]  # 2**50 float64 elements: 8 PiB
    peak, message = measure_peak(lambda: load_bytes(build(header([row(dtype="float64", shape=shape)]))))
    assert f"needs {math.prod(shape) * 8}" in message
    assert peak < MEMORY_LIMIT_BYTES


@pytest.mark.in_process  # it measures the memory the loader allocates in this process
def test_a_central_directory_claiming_gigabytes_is_checked_against_the_file_size() -> None:
    data = build()
    # the record is the second entry; claim 4 GiB, compressed and uncompressed alike
    claim = 0xFFFFFFF0
    data = patch_central_entry(data, 1, CENTRAL_COMPRESSED_SIZE, "<I", claim)
    data = patch_central_entry(data, 1, CENTRAL_COMPRESSED_SIZE + 4, "<I", claim)
    peak, message = measure_peak(lambda: load_bytes(data))
    assert f"claims {claim} bytes" in message and "beyond the end" in message
    assert peak < MEMORY_LIMIT_BYTES


@pytest.mark.in_process  # it measures the memory the loader allocates in this process
def test_a_zip_bomb_is_refused_without_inflating_it() -> None:
    size = 64 * 2**20
    bomb = build(header([row(dtype="uint8", shape=[size])]), {RECORD: bytes(size)}, compression=zipfile.ZIP_DEFLATED)
    assert len(bomb) < size // 100
    peak, message = measure_peak(lambda: load_bytes(bomb))
    assert "compressed" in message
    assert peak < MEMORY_LIMIT_BYTES


def test_an_encrypted_entry_is_refused() -> None:
    data = patch_central_entry(build(), 1, CENTRAL_FLAGS, "<H", 0x1)
    with pytest.raises(SerializationError, match="encrypted"):
        load_bytes(data)


def test_unsupported_zip_flags_are_refused() -> None:
    strong_encryption = 0x40
    data = patch_central_entry(build(), 1, CENTRAL_FLAGS, "<H", strong_encryption)
    with pytest.raises(SerializationError, match="flags"):
        load_bytes(data)


def test_a_zip_feature_version_from_the_future_is_refused() -> None:
    version_needed_to_extract = 6
    data = patch_central_entry(build(), 0, version_needed_to_extract, "<H", 84)
    with pytest.raises(SerializationError, match="unsupported zip archive"):
        load_bytes(data)


def test_an_oversized_header_is_refused_before_reading(monkeypatch: Any) -> None:
    from minitorch.serialization import archive

    monkeypatch.setattr(archive, "MAX_HEADER_BYTES", 64)
    data = build(header(padding="x" * 100))
    with pytest.raises(SerializationError, match="exceeds the limit of 64"):
        load_bytes(data)


def test_duplicate_entries_are_refused() -> None:
    buffer = io.BytesIO()
    with pytest.warns(UserWarning, match="Duplicate name"):
        with zipfile.ZipFile(buffer, "w") as archive:
            archive.writestr(HEADER, json.dumps(header()))
            archive.writestr(RECORD, b"\0" * 8)
            archive.writestr(RECORD, b"\0" * 8)
    with pytest.raises(SerializationError, match="duplicate"):
        load_bytes(buffer.getvalue())


def test_a_safetensors_file_gets_a_hint() -> None:
    buffer = io.BytesIO()
    minitorch.save_safetensors({"w": minitorch.ones(2)}, buffer)
    with pytest.raises(SerializationError, match="load_safetensors"):
        load_bytes(buffer.getvalue())


# ---------------------------------------------------------------- random damage


def _valid_checkpoint() -> bytes:
    buffer = io.BytesIO()
    minitorch.save(VALID_OBJECT, buffer)
    return buffer.getvalue()


VALID_OBJECT = {
    "epoch": 3,
    "model": OrderedDict([("w", minitorch.tensor([[1.0, -2.0], [0.5, 4.0]])), ("mask", minitorch.tensor([True, False]))]),
    "opt": {"state": {0: {"step": 2, "buf": minitorch.tensor([7, 8], dtype=minitorch.int64)}}, "lr": 0.1},
    "rng": minitorch.random.get_rng_state(),
}


def same(a: Any, b: Any) -> bool:
    """Deep equality, tensors compared by dtype, shape and bytes."""
    if isinstance(a, Tensor) or isinstance(b, Tensor):
        return (
            isinstance(a, Tensor) and isinstance(b, Tensor) and a.dtype is b.dtype and a.shape == b.shape
            and a.detach().numpy().tobytes() == b.detach().numpy().tobytes()
        )
    if isinstance(a, dict):
        return type(a) is type(b) and list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def test_the_valid_checkpoint_loads() -> None:
    assert same(load_bytes(_valid_checkpoint()), VALID_OBJECT)


@given(st.data())
def test_random_byte_mutations_give_a_clean_error_or_the_original(data: st.DataObject) -> None:
    original = _valid_checkpoint()
    damaged = bytearray(original)
    flips = data.draw(st.lists(st.tuples(st.integers(0, len(original) - 1), st.integers(1, 255)), min_size=1, max_size=4))
    for position, xor in flips:
        damaged[position] ^= xor
    try:
        loaded = load_bytes(bytes(damaged))
    except SerializationError:
        return
    assert same(loaded, VALID_OBJECT)


@given(st.integers(0, 10**6))
def test_random_truncations_give_a_clean_error(cut: int) -> None:
    original = _valid_checkpoint()
    with pytest.raises(SerializationError):
        load_bytes(original[: cut % len(original)])


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats() | st.text(max_size=8)
    | st.sampled_from(["tensor", "list", "tuple", "dict", "odict", "dtype", "device", "size", "float32", "cuda:0", RECORD]),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(
        st.sampled_from(["type", "items", "index", "name", "record", "dtype", "shape", "location"]) | st.text(max_size=4),
        children, max_size=4,
    ),
    max_leaves=12,
)


def _paths(node: Any, prefix: tuple = ()) -> list[tuple]:
    """Every position inside a JSON value, as a tuple of keys and indices."""
    out = [prefix]
    if isinstance(node, dict):
        for key, value in node.items():
            out += _paths(value, prefix + (key,))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            out += _paths(value, prefix + (i,))
    return out


@given(st.data())
def test_random_header_rewrites_give_a_clean_error_or_a_load(data: st.DataObject) -> None:
    """A well-formed archive (sizes and CRCs right) whose header has one part replaced by random JSON."""
    original = _valid_checkpoint()
    with zipfile.ZipFile(io.BytesIO(original)) as archive:
        head = json.loads(archive.read(HEADER))
        records = {name: archive.read(name) for name in archive.namelist() if name != HEADER}
    positions = _paths(head)[1:]
    where = data.draw(st.sampled_from(positions))
    replacement = data.draw(json_values)
    node = head
    for key in where[:-1]:
        node = node[key]
    node[where[-1]] = replacement
    try:
        load_bytes(build(head, records))
    except SerializationError:
        pass


# ---------------------------------------------------------------- bounded loads: entries that overlap

#: zip records built by hand (APPNOTE 4.3.7, 4.3.12, 4.3.16): a local file header, a central
#: directory entry and the end-of-central-directory record, each before its name
LOCAL_HEADER = struct.Struct("<4s5H3I2H")
CENTRAL_ENTRY = struct.Struct("<4s6H3I5H2I")
END_RECORD = struct.Struct("<4s4H2IH")
ZIP_VERSION = 20
#: 1980-01-01 as an MS-DOS date
DOS_DATE = (1 << 5) | 1


def zip_from_parts(locals_and_data: bytes, entries: list[tuple[str, int, int, int]]) -> bytes:
    """``locals_and_data`` followed by a central directory of (name, offset, size, crc) entries."""
    directory = b"".join(
        CENTRAL_ENTRY.pack(b"PK\x01\x02", ZIP_VERSION, ZIP_VERSION, 0, 0, 0, DOS_DATE, crc, size, size,
                           len(name), 0, 0, 0, 0, 0, offset) + name.encode()
        for name, offset, size, crc in entries
    )
    end = END_RECORD.pack(b"PK\x05\x06", 0, 0, len(entries), len(entries), len(directory), len(locals_and_data), 0)
    return locals_and_data + directory + end


def local_entry(name: str, data_size: int, crc: int) -> bytes:
    return LOCAL_HEADER.pack(b"PK\x03\x04", ZIP_VERSION, 0, 0, 0, DOS_DATE, crc, data_size, data_size, len(name), 0) + name.encode()


def overlapping_archive(count: int, payload: int) -> tuple[bytes, int]:
    """A checkpoint whose ``count`` uint8 records all run to the end of one shared payload.

    Record i's data is the local headers of records i+1, i+2, ... and the payload, so each
    entry fits in the file and its CRC is right (zipfile reads every entry without a
    complaint), but together they declare far more bytes than the file holds. Returns the
    file and the bytes its header declares.
    """
    tail = bytes(range(256)) * (payload // 256)
    records: list[tuple[str, int, int]] = []  # name, size, crc, built from the last record back
    for i in reversed(range(count)):
        name = f"minitorch/data/{i}"
        crc = zlib.crc32(tail)
        records.insert(0, (name, len(tail), crc))
        tail = local_entry(name, len(tail), crc) + tail
    rows = [row(record=name, dtype="uint8", shape=[size]) for name, size, _ in records]
    head = json.dumps(header(rows, root={"type": "list", "items": [{"type": "tensor", "index": i} for i in range(count)]}))
    head_bytes = head.encode()
    head_entry = local_entry(HEADER, len(head_bytes), zlib.crc32(head_bytes)) + head_bytes
    entries = [(HEADER, 0, len(head_bytes), zlib.crc32(head_bytes))]
    offset = len(head_entry)
    for name, size, crc in records:
        entries.append((name, offset, size, crc))
        offset += LOCAL_HEADER.size + len(name)
    return zip_from_parts(head_entry + tail, entries), sum(size for _, size, _ in records)


def test_the_handmade_zip_writer_makes_archives_that_load() -> None:
    head = json.dumps(header()).encode()
    data = np.array([1.0, 2.0], dtype="<f4").tobytes()
    first = local_entry(HEADER, len(head), zlib.crc32(head)) + head
    second = local_entry(RECORD, len(data), zlib.crc32(data)) + data
    archive = zip_from_parts(first + second, [(HEADER, 0, len(head), zlib.crc32(head)), (RECORD, len(first), 8, zlib.crc32(data))])
    assert load_bytes(archive).tolist() == [1.0, 2.0]


@pytest.mark.in_process  # it measures the memory the loader allocates in this process
def test_overlapping_entries_are_refused_before_any_data_is_read() -> None:
    """400 entries that share their bytes: 177 KB of file declaring 30 MB (with a 17 MB
    payload the same layout declares 7 GB, and loading it died with MemoryError)."""
    data, declared = overlapping_archive(count=400, payload=2**16)
    assert declared > 150 * len(data)
    with zipfile.ZipFile(io.BytesIO(data)) as archive:  # the oracle: a valid zip apart from the overlap
        assert archive.testzip() is None
    peak, message = measure_peak(lambda: load_bytes(data))
    assert "entries overlap" in message and "minitorch/data/0" in message
    assert peak < MEMORY_LIMIT_BYTES


def test_two_entries_sharing_one_local_header_are_refused() -> None:
    data = build(records={RECORD: b"\0" * 8, "minitorch/data/1": b"\0" * 8})
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        shared = archive.getinfo(RECORD).header_offset
    # the third central entry (data/1) points at data/0's local header (its last field)
    patched = patch_central_entry(data, 2, CENTRAL_ENTRY.size - 4, "<I", shared)
    with pytest.raises(SerializationError, match="local header at offset .* names b'minitorch/data/0'"):
        load_bytes(patched)


def test_an_entry_running_into_the_central_directory_is_refused() -> None:
    data = build()
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        info = archive.getinfo(RECORD)
        grown = archive.start_dir - info.header_offset - LOCAL_HEADER.size - len(RECORD) + 10  # 10 bytes into it
    data = patch_central_entry(data, 1, CENTRAL_COMPRESSED_SIZE, "<I", grown)
    data = patch_central_entry(data, 1, CENTRAL_COMPRESSED_SIZE + 4, "<I", grown)
    with pytest.raises(SerializationError, match="inside the central directory"):
        load_bytes(data)


def test_a_checkpoint_of_many_tensors_loads() -> None:
    """The layout checks read one local header per entry and refuse nothing valid."""
    tensors = {f"w{i}": minitorch.full((i % 5,), float(i)) for i in range(2000)}
    buffer = io.BytesIO()
    minitorch.save(tensors, buffer)
    loaded = load_bytes(buffer.getvalue())
    assert list(loaded) == list(tensors)
    assert all(loaded[k].tolist() == [float(i)] * (i % 5) for i, k in enumerate(tensors))


@pytest.mark.in_process  # it measures the memory the loader allocates in this process
def test_a_table_declaring_more_bytes_than_the_file_is_refused_before_allocating() -> None:
    rows = [row(record=f"minitorch/data/{i}", dtype="float64", shape=[2**30]) for i in range(1000)]
    data = build(header(rows, root={"type": "list", "items": []}))
    peak, message = measure_peak(lambda: load_bytes(data))
    assert f"the tensor table needs {1000 * 2**33} bytes of records, more than the whole {len(data)}-byte file" in message
    assert peak < MEMORY_LIMIT_BYTES


# ---------------------------------------------------------------- bounded loads: the JSON header


@pytest.mark.in_process  # it measures the memory the loader allocates in this process
def test_a_header_of_a_million_empty_objects_is_refused_before_parsing() -> None:
    """3 MB of ``{},`` would be 75 MB of Python objects; the limit is checked on the text."""
    count = MAX_JSON_CONTAINERS + 1
    text = b"[" + b",".join([b"{}"] * count) + b"]"
    data = build(text, records={})
    peak, message = measure_peak(lambda: load_bytes(data))
    assert re.search(f"holds at least [0-9]+ JSON objects and arrays, more than the limit of {MAX_JSON_CONTAINERS}", message)
    assert peak < 4 * len(text)


def json_size(value: Any, depth: int = 0) -> tuple[int, int, int]:
    """Containers, values (keys included) and nesting depth of a parsed JSON value."""
    if isinstance(value, (list, dict)):
        children = list(value.values()) if isinstance(value, dict) else value
        sizes = [json_size(child, depth + 1) for child in children]
        containers = 1 + sum(c for c, _, _ in sizes)
        values = 1 + sum(v for _, v, _ in sizes) + (len(value) if isinstance(value, dict) else 0)
        return containers, values, max([depth + 1] + [d for _, _, d in sizes])
    return 0, 1, depth


TRICKY_TEXT = st.text(alphabet='[]{},:"\\aé\n\u2603', max_size=6)
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | TRICKY_TEXT,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(TRICKY_TEXT, children, max_size=4),
    max_leaves=30,
)


@given(JSON_VALUES, st.sampled_from([1, 2, 7, 4096]), st.booleans(), st.sampled_from([None, 1]))
def test_the_json_measure_agrees_with_the_parsed_value(value: Any, chunk: int, ascii_only: bool, indent: Any) -> None:
    """Oracle: walking what ``json.loads`` returns. Strings full of brackets, quotes and
    backslashes count for nothing, also when a chunk boundary cuts an escape."""
    text = json.dumps(value, ensure_ascii=ascii_only, indent=indent).encode()
    measured = json_limits.measure(text, chunk_bytes=chunk)
    containers, values, depth = json_size(json.loads(text))
    assert (measured.containers, measured.depth) == (containers, depth)
    assert values <= measured.values <= values + containers  # an empty container has no first value


def test_too_many_values_are_refused_and_strings_hide_no_brackets(monkeypatch: Any) -> None:
    from minitorch.serialization import archive

    monkeypatch.setattr(archive, "HEADER_LIMITS", JsonLimits(depth=8, containers=50, values=100))
    with pytest.raises(SerializationError, match="holds up to 101 JSON values or more, more than the limit of 100"):
        load_bytes(build(json.dumps(list(range(100))).encode(), records={}))
    # brackets, commas and escaped quotes inside strings count for nothing
    tricky = header(rows=[], root="[[[[{{{{,,,,::::\\\"]]]]" * 50)
    assert load_bytes(build(tricky, records={})) == tricky["root"]


@pytest.mark.parametrize("depth", [MAX_JSON_DEPTH + 1, 900, 100_000])
def test_a_header_nested_too_deeply_is_refused_before_parsing(depth: int) -> None:
    text = b"[" * depth + b"]" * depth
    with pytest.raises(SerializationError, match=f"nested at least {depth} levels deep, deeper than the limit of {MAX_JSON_DEPTH}"):
        load_bytes(build(text, records={}))


@pytest.mark.in_process  # a child process imports the code under test from its files
def test_deep_nesting_is_refused_even_with_a_raised_recursion_limit(tmp_path: Path) -> None:
    """The depth check doesn't lean on Python's recursion limit, which a program may raise
    (the JSON parser recursing 200,000 levels deep in C would crash the process)."""
    path = tmp_path / "deep.mt"
    path.write_bytes(build(b"[" * 200_000 + b"]" * 200_000, records={}))
    script = (
        "import sys, minitorch\n"
        "sys.setrecursionlimit(10**6)\n"
        "try:\n"
        "    minitorch.load(sys.argv[1])\n"
        "except minitorch.serialization.SerializationError as error:\n"
        "    print('refused:', error)\n"
    )
    done = subprocess.run([sys.executable, "-c", script, str(path)], capture_output=True, text=True, timeout=300,
                          env=child_env())
    assert done.returncode == 0, done.stderr[-2000:]
    assert "refused: malformed checkpoint: minitorch/header.json is nested at least 200000 levels deep" in done.stdout


def test_the_deepest_object_save_accepts_loads() -> None:
    """No false refusal at the limits: dicts nested ``MAX_NESTING`` deep, a tuple key and a
    Size at the bottom (the deepest JSON a checkpoint can hold)."""
    deepest: Any = {(): minitorch.Size([2, 3])}
    for level in range(MAX_NESTING - 1):
        deepest = {level: deepest}
    buffer = io.BytesIO()
    minitorch.save(deepest, buffer)
    assert same(load_bytes(buffer.getvalue()), deepest)
    with pytest.raises(SerializationError, match="nested deeper than"):
        minitorch.save({0: deepest}, io.BytesIO())


def test_save_refuses_a_header_that_load_would_refuse(monkeypatch: Any) -> None:
    from minitorch.serialization import archive

    monkeypatch.setattr(archive, "HEADER_LIMITS", JsonLimits(depth=50, containers=50, values=1000))
    with pytest.raises(SerializationError, match="can't save: the header of this object tree holds .* JSON objects"):
        minitorch.save([[] for _ in range(60)], io.BytesIO())

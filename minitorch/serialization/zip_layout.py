"""Where an entry's bytes really lie in a zip archive: read from its local header.

A zip archive ends with a central directory that lists each entry's size and the offset
of its *local header*; the entry's bytes follow that header (30 fixed bytes, the name, an
extra field whose length only the local header gives). Checking each entry on its own
("its size fits in the file") is not enough: nothing in the format stops entries from
overlapping, and 400 entries that each span most of a 17 MB file declare 7 GB. So a
reader finds every entry's span from its local header and checks that the spans lie one
after another, before the central directory, before it reads any entry's data.
"""

from __future__ import annotations

import struct
import zipfile
from dataclasses import dataclass
from typing import IO

from .errors import SerializationError

#: signature, version, flags, method, time, date, CRC, sizes (2), name length, extra length
LOCAL_HEADER = struct.Struct("<4sHHHHHIIIHH")
LOCAL_SIGNATURE = b"PK\x03\x04"


@dataclass(frozen=True)
class Span:
    """Bytes ``[start, end)`` of the file hold one entry: its local header, then its data."""

    name: str
    start: int
    end: int


def entry_span(stream: IO[bytes], info: zipfile.ZipInfo) -> Span:
    """The span of ``info``'s entry, from the local header the central directory points to.

    The local header must be there (its signature) and name the same entry.
    """
    stream.seek(info.header_offset)
    fixed = stream.read(LOCAL_HEADER.size)
    if len(fixed) < LOCAL_HEADER.size or fixed[:4] != LOCAL_SIGNATURE:
        raise SerializationError(
            f"corrupt checkpoint: entry {info.filename} has no local header at offset {info.header_offset}"
        )
    *_, name_length, extra_length = LOCAL_HEADER.unpack(fixed)
    name = stream.read(name_length)
    if name != info.orig_filename.encode("utf-8"):
        raise SerializationError(
            f"corrupt checkpoint: the local header at offset {info.header_offset} names {name[:120]!r}, "
            f"the central directory {info.filename}"
        )
    data_start = info.header_offset + LOCAL_HEADER.size + name_length + extra_length
    return Span(info.filename, info.header_offset, data_start + info.compress_size)


def directory_start(archive: zipfile.ZipFile, archive_size: int) -> int:
    """Where the central directory starts: every entry must end before it."""
    return getattr(archive, "start_dir", archive_size)

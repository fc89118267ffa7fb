"""Constants of the minitorch archive format, shared by the writer and the reader.

A checkpoint is an uncompressed zip archive::

    minitorch/header.json    the object tree as JSON, plus a table of tensors
    minitorch/data/0         raw little-endian bytes of tensor 0, row-major
    minitorch/data/1         ...

Everything is plain data: loading never runs code from the file.
"""

from __future__ import annotations

import re

from .. import dtypes

#: what ``header.json["format"]`` must say
FORMAT_NAME = "minitorch.save"
#: bumped whenever the layout changes incompatibly; the reader accepts only this version
FORMAT_VERSION = 1
#: every entry of the archive lives under this folder
ARCHIVE_ROOT = "minitorch"
HEADER_NAME = f"{ARCHIVE_ROOT}/header.json"
RECORD_PREFIX = f"{ARCHIVE_ROOT}/data/"
RECORD_NAME = re.compile(r"minitorch/data/(0|[1-9][0-9]{0,8})")

#: the JSON header may not be larger than this (a header claim is never trusted further)
MAX_HEADER_BYTES = 64 * 2**20
#: nesting depth of containers inside a saved object
MAX_NESTING = 200
#: nesting depth of the header's JSON: a container of the object tree is up to three
#: levels of JSON (its tagged object, the items array, a [key, value] pair)
MAX_JSON_DEPTH = 3 * (MAX_NESTING + 1)
#: JSON objects and arrays in one header, and JSON values (containers, keys and scalars):
#: enough for ~60,000 tensors with their optimizer state; at these limits the parsed
#: header takes at most a few hundred MB, however its 64 MB are spent
MAX_JSON_CONTAINERS = 1_000_000
MAX_JSON_VALUES = 4_000_000
#: dimensions of one tensor
MAX_DIMS = 64
#: the name of the saved object in error messages, as in ``obj['model']['weight']``
ROOT_PATH = "obj"
#: bytes read from the archive at a time when filling a tensor
READ_CHUNK_BYTES = 1 << 22
#: a fixed timestamp for every entry, so saving the same object twice gives the same bytes
ZIP_TIMESTAMP = (1980, 1, 1, 0, 0, 0)

DTYPES_BY_NAME = {d.name: d for d in dtypes.ALL_DTYPES}


def little_endian(d: dtypes.dtype):  # noqa: ANN201 - a NumPy dtype
    """The NumPy dtype of ``d``'s bytes on disk: little-endian whatever the host is."""
    return d.numpy.newbyteorder("<")

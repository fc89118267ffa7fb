"""Building checkpoint files by hand for the whole-module tests: ``zipfile`` and ``json`` only."""

from __future__ import annotations

import io
import json
import zipfile
from typing import Any, Callable

HEADER = "minitorch/header.json"


def archive(header: dict, records: dict[str, bytes] | None = None) -> bytes:
    """A stored (uncompressed) zip with ``header`` as the header and ``records`` as data entries."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_STORED) as zf:
        zf.writestr(HEADER, json.dumps(header))
        for name, data in (records or {}).items():
            zf.writestr(name, data)
    return out.getvalue()


def rewrite_header(raw: bytes, edit: Callable[[dict], Any]) -> bytes:
    """``raw`` with its header passed through ``edit`` (which changes it in place), records kept."""
    with zipfile.ZipFile(io.BytesIO(raw)) as zf:
        header = json.loads(zf.read(HEADER))
        records = {name: zf.read(name) for name in zf.namelist() if name != HEADER}
    edit(header)
    return archive(header, records)


def header_of(root: Any, tensors: list | None = None) -> dict:
    """A version-1 header around the tree ``root``."""
    return {"format": "minitorch.save", "version": 1, "tensors": tensors or [], "root": root}

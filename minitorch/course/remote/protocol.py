"""The wire format both ends of the remote-object channel share: framing and plain values.

A message is a 4-byte big-endian length followed by that many bytes of UTF-8 JSON (one
object). Values travel as JSON scalars, or as one-key objects naming what they are:

- ``{"list": [...]}``, ``{"tuple": [...]}``, ``{"set": [...]}``, ``{"frozenset": [...]}``,
  ``{"dict": [[key, value], ...]}``, ``{"odict": [[key, value], ...]}`` (an ``OrderedDict``),
  ``{"slice": [start, stop, step]}``, ``{"bytes": base64}``, ``{"ellipsis": null}``,
  ``{"dtype": "<f8"}`` and ``{"nptype": "<f8"}`` (a NumPy dtype, a NumPy scalar type),
  ``{"nbtype": "<f8"}`` (a Numba scalar type, which a kernel factory may take),
  ``{"builtin": "float"}`` (one of the builtin value types of :data:`BUILTIN_TYPES`, as itself);
- ``{"path": n, "rel": "a/b"}``: a path inside shared folder ``n`` (see :mod:`.folders`), with
  ``"str": true`` a string naming one (a command line's ``--out``);
- ``{"pathvalue": "out/demo.png"}``: a path as a value only, naming no file the other side shares
  (a relative path; any path the worker sends back that is not in a shared folder);
- ``{"range": [start, stop, step]}``;
- ``{"namedtuple": [module, qualname, fields], "items": [...]}``: a namedtuple of a test's class,
  by value (the worker makes a plain namedtuple class of that name and those fields; one
  coming back is an instance of the test's own class again);
- ``{"bytesio": base64, "pos": n}``: an ``io.BytesIO``, by its contents and position (the
  receiver gets its own buffer; after a call, the caller's is updated from it);
- ``{"npy": base64}``: a NumPy array in ``.npy`` format, read with ``allow_pickle=False``
  (with ``"id"``: the worker's handle of that array, so one array stays one array);
- ``{"ref": n, ...}``: a handle to an object that lives in the worker;
- ``{"cb": n}``: a handle to an object of the trusted side the worker may call back.

Nothing here imports, evaluates or unpickles anything named by a message: decoding builds
only the containers above, NumPy arrays of plain dtypes and the handles the receiving side
already knows. This module imports nothing from minitorch (the trusted side loads it
without minitorch, the worker next to a submission).
"""

from __future__ import annotations

import base64
import builtins
import collections
import io
from collections import OrderedDict
from pathlib import Path, PurePath
import json
import os
import re
import select
import struct
import time
from typing import Any, Callable, Optional

import numpy as np

#: the largest message either side accepts (a bigger one is a protocol error)
MAX_MESSAGE_BYTES = 256 * 1024 * 1024
#: how deeply values may nest before a message is refused
MAX_DEPTH = 256
HEADER = struct.Struct(">I")
#: the longest dtype string accepted (``'<M8[ns]'`` and the like are far shorter)
MAX_DTYPE_CHARS = 16
#: the classes of NumPy's dtype objects (``np.dtype('f8')`` is an instance of a subclass)
NUMPY_DTYPE_CLASSES = frozenset(type(np.dtype(code)) for code in "?bBhHiIlLqQefdgFDGSUmM")
#: exceptions a worker's error may be re-raised as on the trusted side (by builtin name)
SAFE_BUILTIN_EXCEPTIONS = frozenset(
    name for name, value in vars(__import__("builtins")).items()
    if isinstance(value, type) and issubclass(value, Exception)
)


#: argument types a call gets as copies, whose changes are written back into the caller's
#: originals after the call (device arrays too, on the trusted side)
COPIED_ARGUMENTS = (np.ndarray, io.BytesIO)
#: builtin classes that travel by name, as themselves (``as_dtype(float)``, ``type(x) is int``)
BUILTIN_TYPES = {t.__name__: t for t in (bool, int, float, complex, str, bytes, bytearray, list, tuple, dict, set,
                                          frozenset, slice, range, object, type)}


class ProtocolError(Exception):
    """A message that breaks the protocol: not JSON, a wrong shape, an unknown handle."""


class ChannelClosed(ProtocolError):
    """The other end went away (exited, crashed or closed its pipe)."""


class ChannelTimeout(ProtocolError):
    """The other end did not answer in time."""


# ---------------------------------------------------------------------- framing


def _read_exactly(fd: int, count: int, deadline: Optional[float]) -> bytes:
    chunks: list[bytes] = []
    while count:
        if deadline is not None:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([fd], [], [], max(0.0, left))
            if not ready:
                raise ChannelTimeout("no answer in time")
        chunk = os.read(fd, min(count, 1 << 20))
        if not chunk:
            raise ChannelClosed("the other end closed the channel")
        chunks.append(chunk)
        count -= len(chunk)
    return b"".join(chunks)


def read_message(fd: int, deadline: Optional[float] = None) -> dict:
    """One message from ``fd``; ProtocolError for anything but a framed JSON object."""
    (size,) = HEADER.unpack(_read_exactly(fd, HEADER.size, deadline))
    if size > MAX_MESSAGE_BYTES:
        raise ProtocolError(f"a message of {size} bytes is larger than the limit of {MAX_MESSAGE_BYTES}")
    body = _read_exactly(fd, size, deadline)
    try:
        message = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        raise ProtocolError(f"a message is not JSON: {str(error)[:200]}") from None
    if not isinstance(message, dict):
        raise ProtocolError("a message is not a JSON object")
    return message


def write_message(fd: int, message: dict) -> None:
    """Frame and write ``message`` (non-finite floats travel as JSON's NaN/Infinity extension)."""
    body = json.dumps(message, separators=(",", ":")).encode("utf-8")
    data = HEADER.pack(len(body)) + body
    view = memoryview(data)
    while view:
        try:
            written = os.write(fd, view)
        except (BrokenPipeError, OSError) as error:
            raise ChannelClosed(f"the other end closed the channel ({error.__class__.__name__})") from None
        view = view[written:]


# ---------------------------------------------------------------------- values


def array_to_text(array: np.ndarray) -> str:
    """``array`` as base64 ``.npy`` bytes (ValueError for object arrays: they need pickle)."""
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def array_from_text(text: Any) -> np.ndarray:
    """The array of :func:`array_to_text`; never unpickles."""
    if not isinstance(text, str):
        raise ProtocolError("an array is not a base64 string")
    try:
        return np.load(io.BytesIO(base64.b64decode(text, validate=True)), allow_pickle=False)
    except (ValueError, OSError, EOFError, TypeError) as error:
        raise ProtocolError(f"a malformed array: {str(error)[:200]}") from None


def encode(value: Any, other: Callable[[Any], dict], depth: int = 0, identify: Optional[Callable[[Any], int]] = None,
           strings: Optional[Callable[[str], Any]] = None) -> Any:
    """``value`` as JSON; anything that is not a plain value goes through ``other`` (a handle).

    With ``identify``, an array also carries its sender's handle number (``"id"``), so the
    receiver can keep one array per sender-side array (``storage is storage``). With
    ``strings``, a string may travel as something else (a path in a shared folder)."""
    if depth > MAX_DEPTH:
        raise ValueError("a value nested too deeply to send")
    if type(value) is str and strings is not None:
        return strings(value)
    if value is None or isinstance(value, (bool, str)) or type(value) in (int, float):
        return value
    kind = type(value)
    if kind is list:
        return {"list": [encode(v, other, depth + 1, identify, strings) for v in value]}
    if kind is tuple:
        return {"tuple": [encode(v, other, depth + 1, identify, strings) for v in value]}
    if kind is dict or kind is OrderedDict:
        pairs = [[encode(k, other, depth + 1, identify, strings), encode(v, other, depth + 1, identify, strings)] for k, v in value.items()]
        body = {"dict" if kind is dict else "odict": pairs}
        metadata = getattr(value, "_metadata", None)  # a state_dict's versions travel with it
        if kind is OrderedDict and type(metadata) in (dict, OrderedDict):
            body["metadata"] = encode(metadata, other, depth + 1, identify, strings)
        return body
    if kind is set or kind is frozenset:
        return {kind.__name__: [encode(v, other, depth + 1, identify, strings) for v in value]}
    if kind is slice:
        return {"slice": [encode(p, other, depth + 1, identify, strings) for p in (value.start, value.stop, value.step)]}
    if kind is range:
        return {"range": [value.start, value.stop, value.step]}
    if kind is bytes:
        return {"bytes": base64.b64encode(value).decode("ascii")}
    if value is Ellipsis:
        return {"ellipsis": None}
    if kind is io.BytesIO:
        return {"bytesio": base64.b64encode(value.getvalue()).decode("ascii"), "pos": value.tell()}
    if kind is type and BUILTIN_TYPES.get(value.__name__) is value:
        return {"builtin": value.__name__}
    if kind is np.ndarray and value.dtype != object:
        body: dict[str, Any] = {"npy": array_to_text(value)}
        if identify is not None:
            body["id"] = identify(value)
        return body
    if kind in NUMPY_DTYPE_CLASSES and value.fields is None and value.kind not in "OV":
        return {"dtype": value.str}
    if isinstance(value, type) and issubclass(value, np.generic) and np.dtype(value).kind not in "OV":
        return {"nptype": np.dtype(value).str}
    if isinstance(value, np.generic) and not isinstance(value, np.object_):
        return {"npy": array_to_text(np.asarray(value)), "scalar": True}
    return other(value)


def decode(data: Any, handle: Callable[[str, dict], Any], depth: int = 0) -> Any:
    """The value :func:`encode` sent; ``handle(kind, data)`` resolves ``ref``/``cb`` objects."""
    if depth > MAX_DEPTH:
        raise ProtocolError("a value nested too deeply")
    if data is None or isinstance(data, (bool, int, float, str)):
        return data
    if not isinstance(data, dict) or not data:
        raise ProtocolError(f"not a value: {str(data)[:100]}")
    if "ref" in data or "cb" in data:
        return handle("ref" if "ref" in data else "cb", data)
    (key, body), *_ = data.items()
    if key in ("list", "tuple"):
        items = [decode(v, handle, depth + 1) for v in _sequence(body)]
        return items if key == "list" else tuple(items)
    if key in ("set", "frozenset"):
        members = [decode(v, handle, depth + 1) for v in _sequence(body)]
        try:
            return set(members) if key == "set" else frozenset(members)
        except TypeError:
            raise ProtocolError("an unhashable set member") from None
    if key in ("dict", "odict"):
        result: dict = {} if key == "dict" else OrderedDict()
        for pair in _sequence(body):
            pair = _sequence(pair)
            if len(pair) != 2:
                raise ProtocolError("a dict entry is not a pair")
            try:
                result[decode(pair[0], handle, depth + 1)] = decode(pair[1], handle, depth + 1)
            except TypeError:
                raise ProtocolError("an unhashable dict key") from None
        if key == "odict" and "metadata" in data:
            metadata = decode(data["metadata"], handle, depth + 1)
            if type(metadata) not in (dict, OrderedDict):
                raise ProtocolError("a state_dict's metadata is not a dict")
            result._metadata = metadata  # type: ignore[attr-defined]
        return result
    if key == "range":
        parts = _sequence(body)
        if len(parts) != 3 or not all(type(p) is int for p in parts) or parts[2] == 0:
            raise ProtocolError("a malformed range")
        return range(*parts)
    if key == "namedtuple":
        spec = _sequence(body)
        if len(spec) != 3 or not all(isinstance(n, str) for n in spec[:2]) or not isinstance(spec[2], list) \
                or not all(isinstance(f, str) and f.isidentifier() and not f.startswith("_") for f in spec[2]):
            raise ProtocolError("a malformed namedtuple")
        items = [decode(v, handle, depth + 1) for v in _sequence(data.get("items"))]
        if len(items) != len(spec[2]):
            raise ProtocolError("a namedtuple with the wrong number of items")
        return handle("namedtuple", {"namedtuple": spec, "items": items})
    if key == "slice":
        parts = [decode(v, handle, depth + 1) for v in _sequence(body)]
        if len(parts) != 3:
            raise ProtocolError("a slice does not have three parts")
        return slice(*parts)
    if key == "bytes":
        try:
            return base64.b64decode(str(body), validate=True)
        except ValueError:
            raise ProtocolError("malformed bytes") from None
    if key == "ellipsis":
        return Ellipsis
    if key == "bytesio":
        position = data.get("pos")
        if not isinstance(body, str) or not isinstance(position, int) or isinstance(position, bool) or position < 0:
            raise ProtocolError("a malformed buffer")
        try:
            buffer = io.BytesIO(base64.b64decode(body, validate=True))
        except ValueError:
            raise ProtocolError("a malformed buffer") from None
        buffer.seek(position)
        return buffer
    if key == "path":
        if not isinstance(body, int) or isinstance(body, bool) or not isinstance(data.get("rel"), str):
            raise ProtocolError("a malformed shared path")
        path = handle("path", {"path": body, "rel": data["rel"]})
        return str(path) if data.get("str") is True else path
    if key == "pathvalue":
        if not isinstance(body, str) or len(body) > 4096 or "\0" in body:
            raise ProtocolError("a malformed path value")
        return PurePath(body) if data.get("pure") is True else Path(body)
    if key == "builtin":
        if not isinstance(body, str) or body not in BUILTIN_TYPES:
            raise ProtocolError(f"not a builtin type that travels: {str(body)[:40]!r}")
        return BUILTIN_TYPES[body]
    if key in ("dtype", "nptype"):
        dtype = _plain_dtype(body)
        return dtype if key == "dtype" else dtype.type
    if key == "nbtype":
        return handle("nbtype", {"nbtype": _plain_dtype(body)})
    if key == "npy":
        array = array_from_text(body)
        if array.dtype == object:
            raise ProtocolError("an object array")
        if data.get("scalar") and array.ndim == 0:
            return array[()]
        return handle("npy", {"npy": array, "id": data["id"]}) if "id" in data else array
    raise ProtocolError(f"unknown value kind {key[:40]!r}")


def is_namedtuple(value: Any) -> bool:
    return isinstance(value, tuple) and isinstance(getattr(type(value), "_fields", None), tuple)


def namedtuple_body(value: tuple, items: list) -> dict:
    """A namedtuple by value: its class's module, name and fields, and its encoded ``items``."""
    kind = type(value)
    return {"namedtuple": [kind.__module__, kind.__qualname__, list(kind._fields)], "items": items}


def stand_in_namedtuple(spec: list) -> type:
    """A plain namedtuple class named and laid out as the other end's (made here, never imported)."""
    module, qualname, fields = spec
    name = qualname.rsplit(".", 1)[-1]
    cls = collections.namedtuple(name if name.isidentifier() else "Record", fields)
    cls.__module__, cls.__qualname__ = module[:200], qualname[:200]
    return cls


def _plain_dtype(text: Any) -> np.dtype:
    """The NumPy dtype named by a type string such as ``'<f8'`` (never object or structured)."""
    if not isinstance(text, str) or len(text) > MAX_DTYPE_CHARS:
        raise ProtocolError("a malformed dtype")
    try:
        dtype = np.dtype(text)
    except (TypeError, ValueError):
        raise ProtocolError(f"not a dtype: {text[:20]!r}") from None
    if dtype.kind in "OV" or dtype.fields is not None:
        raise ProtocolError("only plain dtypes travel")
    return dtype


def _sequence(body: Any) -> list:
    if not isinstance(body, list):
        raise ProtocolError("a sequence is not a JSON list")
    return body


def error_body(error: BaseException) -> dict:
    """An exception as it travels: its type's name, its message and its builtin bases."""
    bases = [c.__name__ for c in type(error).__mro__ if c.__module__ == "builtins" and c.__name__ in SAFE_BUILTIN_EXCEPTIONS]
    try:
        # the one argument itself where there is one: str() of a KeyError quotes it, and the
        # error raised again from the message would quote it a second time
        only = error.args[0] if len(error.args) == 1 and isinstance(error.args[0], str) else None
        message = only if only is not None else str(error)
    except Exception:  # a __str__ that fails: still an answer
        message = "(the exception's message could not be read)"
    return {"type": type(error).__name__, "message": message[:4000], "bases": bases[:8]}


#: the warning categories a worker's warning is issued again as on the trusted side (by builtin name)
SAFE_BUILTIN_WARNINGS = frozenset(
    name for name, value in vars(builtins).items() if isinstance(value, type) and issubclass(value, Warning)
)
#: at most this many warnings travel with one reply
MAX_WARNINGS = 32
#: at most this many characters of what the graded code printed travel with one reply, per stream
MAX_OUTPUT_CHARS = 64 * 1024
#: how a text names shared folder ``n`` (the worker's copy, or the test's folder): each end
#: writes its own path of that folder for it (see :func:`shared_folder_token`)
SHARED_FOLDER_TOKEN = re.compile("\x00shared:([0-9]{1,9})\x00")


def shared_folder_token(number: int) -> str:
    return f"\x00shared:{number}\x00"


def warning_bodies(caught: list) -> list:
    """Warnings the graded code issued while answering, as they travel: category name and message."""
    bodies = []
    for record in caught[:MAX_WARNINGS]:
        category = getattr(record, "category", UserWarning)
        name = category.__name__ if isinstance(category, type) else "UserWarning"
        try:
            message = str(record.message)
        except Exception:  # noqa: BLE001 - a message that cannot be read is still a warning
            message = "(the warning's message could not be read)"
        bodies.append({"category": name if name in SAFE_BUILTIN_WARNINGS else "UserWarning", "message": message[:2000]})
    return bodies

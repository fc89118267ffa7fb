"""The trusted side: ``minitorch`` as proxies of objects that live in the sandboxed worker.

:class:`RemoteFinder` sits first on ``sys.meta_path``, so ``import minitorch`` and every
``import minitorch.x`` in the tests give a :class:`RemoteModule`. Every attribute, call,
operator, iteration, ``len``, ``bool``, comparison or ``repr`` on a proxy is a request to
the worker, whose answer is a plain value (see :mod:`.protocol`) or a handle, which becomes
a proxy again (one proxy per worker object while it is alive, so ``is`` works).

What the tests hand to minitorch stays here: a function or a lambda, a test's own object
(an instance of a class defined in a test module), an iterator or a class deriving from a proxied class
becomes a callback handle the worker may call; the call runs the test's own code on the
trusted side with values and handles as arguments. Nothing else of this process is ever
reachable from the worker.
"""

from __future__ import annotations

import builtins
import importlib.abc
import importlib.machinery
import inspect
import io
import os
import re
import secrets
import sys
import threading
import types
import warnings
import weakref
from collections import OrderedDict
from collections.abc import Iterator
from pathlib import Path, PurePath, PurePosixPath
from typing import Any, Callable, Optional

import numpy as np

from .endpoint import Endpoint
from .folders import FolderTable, checked_relative
from .protocol import (
    COPIED_ARGUMENTS,
    MAX_OUTPUT_CHARS,
    MAX_WARNINGS,
    SAFE_BUILTIN_EXCEPTIONS,
    SHARED_FOLDER_TOKEN,
    SAFE_BUILTIN_WARNINGS,
    ProtocolError,
    array_to_text,
    decode,
    encode,
    error_body,
    is_namedtuple,
    namedtuple_body,
    stand_in_namedtuple,
)

FDS_VARIABLE = "MINITORCH_REMOTE_FDS"
TIMEOUT_VARIABLE = "MINITORCH_REMOTE_TIMEOUT"
#: comma-separated modules that alone come from the worker; unset: all of ``minitorch`` does
MODULES_VARIABLE = "MINITORCH_REMOTE_MODULES"
#: seconds one request may wait for the worker's answer unless the environment says otherwise
DEFAULT_REQUEST_TIMEOUT = 120.0
PACKAGE = "minitorch"
#: dunder names a proxied module forwards (the import system's own are answered locally)
MODULE_DUNDERS = frozenset({"__all__", "__version__"})
#: dunder methods of a test's subclass that the worker-side class calls back too
SUBCLASS_DUNDERS = frozenset({"__init__", "__call__", "__repr__", "__str__", "__len__", "__getitem__", "__iter__"})


#: argument types a callback may change in place (a hook renaming a state_dict's keys): the
#: worker's originals are updated from them after the call
CONTAINERS = (dict, OrderedDict, list)


#: the live connections by token, for :func:`unpickle_in_worker`
_CONNECTIONS: "weakref.WeakValueDictionary[str, Connection]" = weakref.WeakValueDictionary()


def unpickle_in_worker(token: str, payload: bytes) -> Any:
    """What a pickled proxy unpickles to: the worker unpickles its own bytes, and a proxy of
    the object it made comes back."""
    conn = _CONNECTIONS.get(token) if isinstance(token, str) else None
    if conn is None or type(payload) is not bytes:
        raise TypeError("this pickle holds an object of a graded code's process that is gone")
    return conn.request({"op": "op", "name": "unpickle", "obj": conn.encode(payload), "args": conn.encode([])})


class RemoteError(Exception):
    """An exception raised by the graded code whose type is not one of Python's builtins."""


def is_test_module(name: str) -> bool:
    """True for the modules of the tests themselves (their classes' objects may be shared)."""
    top = name.split(".", 1)[0]
    return top in ("tests", "conftest") or top.startswith("test_") or top.endswith("_test")


def _public_attribute_of_test_object(target: Any, name: Any) -> bool:
    """Whether the worker may read or set attribute ``name`` of trusted object ``target``: a
    public name, on an object of a class the tests define."""
    return isinstance(name, str) and not name.startswith("_") and is_test_module(type(target).__module__)


def _is_course_code(value: Any) -> bool:
    """Whether ``value`` is (or is an object of) the course's own ``minitorch``, which runs on
    the trusted side when only some modules are proxied: graded code must not call it back."""
    modules = (getattr(value, "__module__", None), type(value).__module__)
    return any(isinstance(m, str) and (m == PACKAGE or m.startswith(PACKAGE + ".")) for m in modules)


def _label(value: Any) -> str:
    name = getattr(value, "__qualname__", None) or type(value).__qualname__
    return str(name)[:60]


def _shallow_copy(container: Any) -> Any:
    return list(container.items()) if isinstance(container, dict) else list(container)


def _changed(container: Any, before: list) -> bool:
    """Whether a list or dict holds other members than ``before`` (compared by identity: a
    member may be a proxy, whose ``==`` would ask the worker)."""
    now = _shallow_copy(container)
    if len(now) != len(before):
        return True
    if isinstance(container, dict):
        return any(k1 is not k2 and k1 != k2 or v1 is not v2 for (k1, v1), (k2, v2) in zip(now, before))
    return any(a is not b for a, b in zip(now, before))


def _own(obj: Any, name: str) -> Any:
    return object.__getattribute__(obj, name)


class Connection:
    """The trusted side's tables: proxies by handle, shared trusted objects by number."""

    def __init__(self, read_fd: int, write_fd: int, timeout: Optional[float] = DEFAULT_REQUEST_TIMEOUT,
                 boundary: Optional[frozenset[str]] = None) -> None:
        #: the modules proxied (None: every ``minitorch`` module); the rest is the course's own
        self.boundary = boundary
        #: folders whose paths may be handed to the worker, as mirrors (see :mod:`.folders`):
        #: the test's temporary folders, below these roots (the plugin adds pytest's)
        self.shared_roots: list[Path] = []
        #: per thread (``.fetched``), while a callback runs: the lists and dicts it read from
        #: worker objects, with their contents then (what it changes in them is changed in the
        #: worker's, see :meth:`serve`)
        self.callback_reads = threading.local()
        #: True while a test's body runs (the plugin says so): a SystemExit may come back then
        self.in_test = False
        #: interrupts the tests' callbacks raised, passed through the graded code
        self.interrupts: list[KeyboardInterrupt] = []
        self.folders = FolderTable()
        self.folder_numbers: dict[Path, int] = {}
        self.folder_count = 0
        #: names this connection in the pickles of its proxies (see :func:`unpickle_in_worker`)
        self.token = secrets.token_hex(8)
        _CONNECTIONS[self.token] = self
        self.endpoint = Endpoint(read_fd, write_fd, self.serve, timeout, folders=self.folders)
        self.proxies: "weakref.WeakValueDictionary[int, RemoteObject]" = weakref.WeakValueDictionary()
        self.modules: dict[int, RemoteModule] = {}
        self.subclasses: dict[int, type] = {}
        self.classes: dict[int, type] = {}  # the local class of each worker class met (see class_proxy)
        self.exception_classes: dict[tuple[str, tuple[str, ...]], type] = {}
        self.shared: dict[int, Any] = {}
        self.shared_numbers: dict[int, int] = {}
        #: worker handles whose proxies or arrays were collected (dropped with the next request)
        self.released: list[int] = []
        #: how many times each worker handle came in since it was last dropped: the worker
        #: forgets an object only once the drops count every time it sent the handle, so a
        #: drop that crosses a reply carrying the same handle (a test's other thread) is harmless
        self.received: dict[int, int] = {}
        self.handles_lock = threading.RLock()
        self.arrays: "weakref.WeakValueDictionary[int, np.ndarray]" = weakref.WeakValueDictionary()
        self.register_modules = False  # True once :func:`install` made this the process's minitorch

    # ------------------------------------------------------------------ values

    def handle(self, value: Any) -> dict:
        """A handle for a trusted-side value that is not plain data."""
        known_class = remote_class_handle(value) if isinstance(value, type) else None
        if known_class is not None:
            if known_class[0] is not self:
                raise TypeError("an object of another worker cannot be passed here")
            return {"ref": known_class[1]}
        if isinstance(value, (RemoteObject, RemoteModule)):
            if _own(value, "_remote_conn") is not self:
                raise TypeError("an object of another worker cannot be passed here")
            return {"ref": _own(value, "_remote_number")}
        if isinstance(value, Iterator):
            return {"cb": self.share(value), "iterator": True}
        if isinstance(value, PurePath):
            return self.shared_path(value)
        if is_namedtuple(value) and is_test_module(type(value).__module__):  # a test's record, by value
            return namedtuple_body(value, [self.encode(v) for v in value])
        if is_device_array(value):  # the kernel gets a copy; :meth:`call` copies its changes back
            return {"npy": array_to_text(value.copy_to_host())}
        numba_dtype = numba_scalar_dtype(value)
        if numba_dtype is not None:
            return {"nbtype": numba_dtype.str}
        if not callable(value) and not is_test_module(type(value).__module__) and type(value) is not object:
            raise TypeError(f"{type(value).__name__} objects cannot be passed to the graded code")
        if self.boundary is not None and _is_course_code(value):
            raise TypeError(f"the course's own {_label(value)} cannot be passed to the graded code")
        if isinstance(value, types.FunctionType):  # the worker's stub is then a function too (LambdaLR checks)
            return {"cb": self.share(value), "function": True}
        kind = type(value)  # the worker's stand-in takes the class's name (error messages name it)
        return {"cb": self.share(value), "cls": [str(kind.__module__), str(kind.__qualname__)]}

    @staticmethod
    def test_namedtuple(spec: list) -> type:
        """The test's own namedtuple class the worker names (looked up among the test modules
        already imported, never imported), or a plain one of that name and those fields."""
        module, qualname, fields = spec
        found: Any = sys.modules.get(module) if is_test_module(module) else None
        for part in qualname.split(".") if found is not None else ():
            found = getattr(found, part, None) if not part.startswith("_") else None
        if isinstance(found, type) and issubclass(found, tuple) and tuple(getattr(found, "_fields", ())) == tuple(fields):
            return found
        return stand_in_namedtuple(spec)

    def shared_path(self, path: PurePath) -> dict:
        """A path in a test's temporary folder, as the worker's mirror of that folder will have it."""
        if not path.is_absolute():  # names no file of this side: a value (``Path("out/demo.png")``)
            return {"pathvalue": str(path), "pure": not isinstance(path, Path)}
        absolute = Path(os.path.abspath(path))
        for root in self.shared_roots:
            try:
                inside = absolute.relative_to(root)
            except ValueError:
                continue
            if not inside.parts:
                break
            top = root / inside.parts[0]  # the test's own folder is what is mirrored
            if top.is_symlink() or not top.is_dir():
                break
            number = self.folder_numbers.get(top)
            if number is None:
                self.folder_count += 1
                number = self.folder_numbers[top] = self.folder_count
                self.folders.add(number, top)
            return {"path": number, "rel": PurePosixPath(*inside.parts[1:]).as_posix() if inside.parts[1:] else ""}
        raise TypeError(f"only paths inside the test's temporary folder can be passed to the graded code, not {str(path)[:200]!r}")

    def end_test(self) -> None:
        """Stop sharing the folders of the test that ended (the worker drops its mirrors)."""
        self.folders.forget()
        self.folder_numbers.clear()

    def share(self, value: Any) -> int:
        """The callback number of ``value`` (kept alive for the whole session)."""
        number = self.shared_numbers.get(id(value))
        if number is None:
            number = len(self.shared) + 1
            self.shared[number], self.shared_numbers[id(value)] = value, number
        return number

    def encode(self, value: Any) -> Any:
        return encode(value, self.handle, strings=self.shared_string if self.shared_roots else None)

    def shared_string(self, text: str) -> Any:
        """A string naming a path in a test's temporary folder travels as that path (as a string)."""
        if not any(text.startswith(str(root) + os.sep) for root in self.shared_roots):
            return text
        try:
            return dict(self.shared_path(PurePath(text)), str=True)
        except TypeError:
            return text

    def resolve(self, kind: str, data: dict) -> Any:
        if kind == "npy":
            with self.handles_lock:
                return self.array(data["id"], data["npy"])
        if kind == "namedtuple":
            return self.test_namedtuple(data["namedtuple"])(*data["items"])
        if kind == "path":
            root = self.folders.roots.get(data["path"])
            if root is None:
                raise ProtocolError(f"the worker named a shared folder #{data['path']} it was never given")
            return root / checked_relative(data["rel"]) if data["rel"] else root
        number = data.get(kind)
        if not isinstance(number, int) or isinstance(number, bool):
            raise ProtocolError("a malformed handle")
        if kind == "cb":
            if number not in self.shared:
                raise ProtocolError(f"the worker named a trusted object #{number} it was never given")
            return self.shared[number]
        with self.handles_lock:
            self.received[number] = self.received.get(number, 0) + 1
            return self._worker_object(number, data)

    def _worker_object(self, number: int, data: dict) -> Any:
        """The local stand-in of worker handle ``number``: a table's entry, the live proxy or a new one."""
        for table in (self.subclasses, self.classes, self.modules):
            if number in table:
                return table[number]
        proxy = self.proxies.get(number)
        if proxy is not None:
            return proxy
        kind_name, name = data.get("kind"), data.get("name")
        name = name if isinstance(name, str) else ""
        if kind_name == "module":
            return self.module(number, name)
        if kind_name == "class" and isinstance(data.get("bases"), list):
            return self.exception_class(name, [b for b in data["bases"] if isinstance(b, str)])
        if kind_name == "class":
            return self.class_proxy(number, data)
        twin = data.get("twin")
        if isinstance(twin, int) and twin in self.subclasses:
            proxy_class = instance_proxy_class(self.subclasses[twin])
        else:
            of_class = data.get("cls")
            proxy_class = self.class_proxy(of_class["ref"], of_class) if isinstance(of_class, dict) and isinstance(
                of_class.get("ref"), int) and not isinstance(of_class.get("ref"), bool) else RemoteObject
        proxy = object.__new__(proxy_class)
        RemoteObject.__init__(proxy, self, number, name)
        self.proxies[number] = proxy
        return proxy

    def class_proxy(self, number: int, data: dict) -> type:
        """The local class standing for worker class ``number``: one per class for the whole
        session, so ``type(x) is minitorch.Tensor`` and ``type(x).__name__`` hold; its
        instances are the proxies of that class's objects."""
        known = self.classes.get(number)
        if known is not None:
            return known
        name, module = data.get("name"), data.get("module")
        qualname = name if isinstance(name, str) and name else "RemoteObject"
        label = qualname.rsplit(".", 1)[-1]
        proxy_class = RemoteClassMeta(label if label.isidentifier() else "RemoteObject", (RemoteObject,), {
            "__slots__": (), "_remote_instance_proxy": True, "__qualname__": qualname,
            "__module__": module if isinstance(module, str) else "minitorch"})
        type.__setattr__(proxy_class, "_remote_class_conn", self)
        type.__setattr__(proxy_class, "_remote_class_number", number)
        self.classes[number] = proxy_class
        return proxy_class

    def array(self, number: Any, array: np.ndarray) -> np.ndarray:
        """One local array per worker-side array: the one already given out, refreshed with
        ``array``'s contents, while it is alive and has the same layout (so ``is`` works)."""
        if not isinstance(number, int) or isinstance(number, bool):
            raise ProtocolError("a malformed array id")
        self.received[number] = self.received.get(number, 0) + 1
        known = self.arrays.get(number)
        if known is not None and known.shape == array.shape and known.dtype == array.dtype and known.flags.writeable:
            known[...] = array
            return known
        self.arrays[number] = array
        weakref.finalize(array, self.release, number)
        return array

    def release(self, number: int) -> None:
        """Worker handle ``number`` lost its local stand-in (dropped with the next request)."""
        self.released.append(number)

    def module(self, number: int, name: str) -> "RemoteModule":
        if number in self.modules:
            return self.modules[number]
        module = RemoteModule(name or f"{PACKAGE}.<remote>", self, number)
        self.modules[number] = module
        if self.register_modules and self.proxies_module(name) and name not in sys.modules:
            sys.modules[name] = module
        return module

    def proxies_module(self, name: str) -> bool:
        """Whether ``import name`` gives the worker's module (else the course's own, or none)."""
        if name != PACKAGE and not name.startswith(PACKAGE + "."):
            return False
        return self.boundary is None or any(name == m or name.startswith(m + ".") for m in self.boundary)

    def exception_class(self, name: str, bases: list[str]) -> type:
        """A local exception class standing for a worker's (builtins come back as themselves)."""
        if name in SAFE_BUILTIN_EXCEPTIONS:
            return getattr(builtins, name)
        chain = tuple(b for b in bases if b in SAFE_BUILTIN_EXCEPTIONS and b != name)[:1]
        key = (name, chain)
        if key not in self.exception_classes:
            parents = (RemoteError, *(getattr(builtins, b) for b in chain if b != "Exception"))
            label = name if name.isidentifier() else "RemoteError"
            self.exception_classes[key] = type(label, parents, {"__module__": "minitorch.remote"})
        return self.exception_classes[key]

    def decode(self, data: Any) -> Any:
        return decode(data, self.resolve)

    def decode_reply(self, data: Any) -> Any:
        """A value the worker answered; a malformed one breaks the channel for good."""
        try:
            return self.decode(data)
        except ProtocolError as error:
            raise self.endpoint.fail(str(error)) from None

    def error(self, body: Any) -> BaseException:
        if not isinstance(body, dict):
            return RemoteError("the graded code failed (its error could not be read)")
        name, message = str(body.get("type", "Exception")), str(body.get("message", ""))
        if name == "KeyboardInterrupt" and self.interrupts:  # the test's own interrupt, come back
            return self.interrupts.pop()
        message = self.local_paths(message)
        if name == "SystemExit" and self.in_test:  # a command line's exit, which pytest contains
            return SystemExit(int(message) if message.lstrip("-").isdigit() else message)
        bases = body.get("bases") if isinstance(body.get("bases"), list) else []
        return self.exception_class(name, [str(b) for b in bases])(message)

    # ------------------------------------------------------------------ requests

    def request_raw(self, message: dict) -> dict:
        released, self.released = self.released, []
        with self.handles_lock:  # a thread may be making a new proxy of one of them meanwhile
            drop = [[n, self.received.pop(n, 0)] for n in dict.fromkeys(released)
                    if n not in self.proxies and n not in self.arrays]
        if drop:
            message = dict(message, drop=drop)
        reply = self.endpoint.request(message)
        self.replay_output(reply)
        if isinstance(reply.get("warnings"), list):
            self.reissue(reply["warnings"])
        if "error" in reply:
            raise self.error(reply["error"])
        return reply

    def replay_output(self, reply: dict) -> None:
        """Print here what the graded code printed while answering (``capsys`` reads it here)."""
        for key, stream in (("stdout", sys.stdout), ("stderr", sys.stderr)):
            text = reply.get(key)
            if isinstance(text, str) and text:
                stream.write(self.local_paths(text[:MAX_OUTPUT_CHARS]))

    def local_paths(self, text: str) -> str:
        """``text`` with the worker's copies of shared folders named by the test's folders."""
        def folder(match: "re.Match[str]") -> str:
            root = self.folders.roots.get(int(match.group(1)))
            return str(root) if root is not None else "<a folder no longer shared>"

        return SHARED_FOLDER_TOKEN.sub(folder, text)

    @staticmethod
    def reissue(bodies: list) -> None:
        """Issue here the warnings the graded code issued while answering (builtin categories only)."""
        for body in bodies[:MAX_WARNINGS]:
            if not isinstance(body, dict):
                continue
            name = str(body.get("category", "UserWarning"))
            category = getattr(builtins, name) if name in SAFE_BUILTIN_WARNINGS else UserWarning
            warnings.warn(str(body.get("message", ""))[:2000], category, stacklevel=4)

    def request(self, message: dict) -> Any:
        return self.decode_reply(self.request_raw(message).get("value"))

    def call(self, target: Any, args: tuple, kwargs: dict) -> Any:
        message = {"op": "call", "obj": self.encode(target), "args": self.encode(list(args)), "kwargs": self.encode(kwargs)}
        reply = self.request_raw(message)
        value = self.decode_reply(reply.get("value"))
        passed = [*args, *kwargs.values()]
        self._copy_back([a for a in passed if type(a) in COPIED_ARGUMENTS or is_device_array(a)], reply.get("arrays"))
        return value

    def _copy_back(self, originals: list[Any], sent: Any) -> None:
        """Write into the caller's arrays (host or device) what the graded code changed in its copies.

        Only changed copies are written, all compared before any is: two arguments may share
        memory (an in-place op passes its storage as input and as output), and the unchanged
        copy of the input must not overwrite what the kernel wrote through the output."""
        if not originals or not isinstance(sent, list) or len(sent) != len(originals):
            return
        updates = []
        for original, data in zip(originals, sent):
            copy = self.decode_reply(data)
            if type(original) is io.BytesIO:
                if type(copy) is io.BytesIO:  # a buffer: its contents and position, as the call left them
                    updates.append((original, copy))
                continue
            if not isinstance(copy, np.ndarray) or copy.shape != original.shape or copy.dtype != original.dtype:
                continue
            before = original.copy_to_host() if is_device_array(original) else original
            if copy.tobytes() != np.ascontiguousarray(before).tobytes():
                updates.append((original, copy))
        for original, copy in updates:
            if type(original) is io.BytesIO:
                original.seek(0)
                original.truncate()
                original.write(copy.getvalue())
                original.seek(copy.tell())
            elif is_device_array(original):
                original.copy_to_device(copy)
            elif original.flags.writeable:
                original[...] = copy

    def operation(self, name: str, first: Any, *rest: Any) -> Any:
        return self.request({"op": "op", "name": name, "obj": self.encode(first), "args": self.encode(list(rest))})

    def serve(self, message: dict) -> dict:
        """Answer a worker's callback: call a shared object, or read a public attribute of a test's object."""
        try:
            target = self.resolve("cb", {"cb": message.get("cb")})
            if message["op"] == "call":
                args, kwargs = self.decode(message.get("args", {"list": []})), self.decode(message.get("kwargs", {"dict": []}))
                if not isinstance(args, list) or not isinstance(kwargs, dict) or not all(isinstance(k, str) for k in kwargs):
                    raise ProtocolError("malformed arguments")
                reads = self.callback_reads
                outer, reads.fetched = getattr(reads, "fetched", None), []
                try:
                    value = target(*args, **kwargs)
                    changed = [[ref, name, self.encode(copy)] for ref, name, copy, before in reads.fetched
                               if _changed(copy, before)]
                finally:
                    reads.fetched = outer
                reply = {"value": self.encode(value)}
                if any(type(a) in CONTAINERS for a in args):  # what the test's code changed in them goes back
                    reply["args_after"] = [self.encode(a) if type(a) in CONTAINERS else None for a in args]
                if changed:  # and in the lists and dicts it read from the graded code's objects
                    reply["attrs_after"] = changed
                return reply
            elif message["op"] == "next":
                if not isinstance(target, Iterator):
                    raise TypeError(f"{type(target).__name__!r} object is not an iterator")
                value = next(target)
            elif message["op"] == "getattr":
                name = message.get("name")
                if not _public_attribute_of_test_object(target, name):
                    raise AttributeError(f"{str(name)[:40]!r} cannot be read from the trusted side")
                value = getattr(target, name)
            elif message["op"] == "vars":  # a test object's ``__dict__``: its public attributes
                if not is_test_module(type(target).__module__) or not hasattr(target, "__dict__"):
                    raise AttributeError("__dict__ cannot be read from the trusted side")
                value = {key: item for key, item in vars(target).items() if not key.startswith("_")}
            elif message["op"] == "setattr":  # what graded code holding a test's object may do in-process too
                name = message.get("name")
                if not _public_attribute_of_test_object(target, name):
                    raise AttributeError(f"{str(name)[:40]!r} cannot be set from the graded code")
                setattr(target, name, self.decode(message.get("value")))
                value = None
            else:
                raise ProtocolError(f"unknown callback {str(message['op'])[:40]!r}")
            return {"value": self.encode(value)}
        except ProtocolError:
            raise
        except BaseException as error:  # the test's own code failed: the worker sees it as an error
            if isinstance(error, KeyboardInterrupt):
                # raised in the graded code too (its clean-up must run), and again here once
                # the worker's answer comes (see :meth:`error`)
                self.interrupts.append(error)
            return {"error": error_body(error)}

    def close(self) -> None:
        for fd in (self.endpoint.read_fd, self.endpoint.write_fd):
            try:
                os.close(fd)
            except OSError:
                pass


# ---------------------------------------------------------------------- proxies


def _binary(name: str, reflected: bool = False):
    def method(self: "RemoteObject", other: Any) -> Any:
        conn = _own(self, "_remote_conn")
        try:
            conn.encode(other)
        except (TypeError, ValueError):
            return NotImplemented
        return conn.operation(name, other, self) if reflected else conn.operation(name, self, other)

    method.__name__ = f"__{'r' if reflected else ''}{name.rstrip('_')}__"
    return method


def _unary(name: str):
    def method(self: "RemoteObject", *args: Any) -> Any:
        return _own(self, "_remote_conn").operation(name, self, *args)

    method.__name__ = f"__{name}__"
    return method


class RemoteObject:
    """A proxy of one worker-side object."""

    __slots__ = ("_remote_conn", "_remote_number", "_remote_name", "__weakref__")

    def __init__(self, conn: Connection, number: int, name: str = "") -> None:
        object.__setattr__(self, "_remote_conn", conn)
        object.__setattr__(self, "_remote_number", number)
        object.__setattr__(self, "_remote_name", name)

    def __del__(self) -> None:
        try:
            _own(self, "_remote_conn").release(_own(self, "_remote_number"))
        except Exception:
            pass

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_remote_"):
            raise AttributeError(name)
        conn = _own(self, "_remote_conn")
        value = conn.request({"op": "getattr", "obj": self._ref(), "name": name})
        fetched = getattr(conn.callback_reads, "fetched", None)
        if fetched is not None and type(value) in CONTAINERS:  # a callback may change it in place
            fetched.append((self._ref(), name, value, _shallow_copy(value)))
        return value

    def __setattr__(self, name: str, value: Any) -> None:
        conn = _own(self, "_remote_conn")
        conn.request({"op": "setattr", "obj": self._ref(), "name": name, "value": conn.encode(value)})

    def __delattr__(self, name: str) -> None:
        _own(self, "_remote_conn").request({"op": "delattr", "obj": self._ref(), "name": name})

    def _ref(self) -> dict:
        return {"ref": _own(self, "_remote_number")}

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return _own(self, "_remote_conn").call(self, args, kwargs)

    def __repr__(self) -> str:
        try:
            return str(_own(self, "_remote_conn").operation("repr", self))
        except Exception:
            return f"<remote {_own(self, '_remote_name') or 'object'} #{_own(self, '_remote_number')}>"

    def __str__(self) -> str:
        return str(_own(self, "_remote_conn").operation("str", self))

    def __format__(self, spec: str) -> str:
        return str(_own(self, "_remote_conn").operation("format", self, spec))

    def __bool__(self) -> bool:
        return bool(_own(self, "_remote_conn").operation("truth", self))

    def __len__(self) -> int:
        return int(_own(self, "_remote_conn").operation("len", self))

    def __hash__(self) -> int:
        return int(_own(self, "_remote_conn").operation("hash", self))

    def __iter__(self) -> Any:
        return _own(self, "_remote_conn").operation("iter", self)

    def __next__(self) -> Any:
        return _own(self, "_remote_conn").operation("next", self)

    def __contains__(self, item: Any) -> bool:
        return bool(_own(self, "_remote_conn").operation("contains", self, item))

    def __float__(self) -> float:
        return float(_own(self, "_remote_conn").operation("float", self))

    def __int__(self) -> int:
        return int(_own(self, "_remote_conn").operation("int", self))

    def __index__(self) -> int:
        return int(_own(self, "_remote_conn").operation("index", self))

    def __enter__(self) -> Any:
        return _own(self, "_remote_conn").operation("enter", self)

    def __exit__(self, *exc_info: Any) -> Any:
        return _own(self, "_remote_conn").operation("exit", self, None, None, None)

    def __dir__(self) -> list:
        return list(_own(self, "_remote_conn").operation("dir", self))

    def __copy__(self) -> Any:
        return _own(self, "_remote_conn").operation("copy", self)

    def __deepcopy__(self, memo: dict) -> Any:
        """A deep copy made by the worker (sharing inside the copied object is kept)."""
        return _own(self, "_remote_conn").operation("deepcopy", self)

    def __reduce_ex__(self, protocol: Any) -> Any:
        """Pickled here, a proxy holds the worker's pickle of its object as opaque bytes, and
        unpickling sends them back to the worker (:func:`unpickle_in_worker`): the trusted side
        never unpickles anything the graded code made."""
        conn = _own(self, "_remote_conn")
        payload = conn.operation("pickle", self)
        if type(payload) is not bytes:
            raise TypeError("the graded code's pickle of an object is not bytes")
        return unpickle_in_worker, (conn.token, payload)

    __getitem__ = _unary("getitem")
    __setitem__ = _unary("setitem")
    __delitem__ = _unary("delitem")
    __neg__, __pos__, __abs__, __invert__ = _unary("neg"), _unary("pos"), _unary("abs"), _unary("invert")
    __round__, __reversed__ = _unary("round"), _unary("reversed")
    __lt__, __le__, __gt__, __ge__ = _binary("lt"), _binary("le"), _binary("gt"), _binary("ge")
    __eq__, __ne__ = _binary("eq"), _binary("ne")


_ARITHMETIC = ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "lshift", "rshift", "and_", "or_", "xor")
for _name in _ARITHMETIC:
    _dunder = _name.rstrip("_")
    setattr(RemoteObject, f"__{_dunder}__", _binary(_name))
    setattr(RemoteObject, f"__r{_dunder}__", _binary(_name, reflected=True))
    setattr(RemoteObject, f"__i{_dunder}__", _binary(f"i{_name}"))
setattr(RemoteObject, "__divmod__", _binary("divmod"))
setattr(RemoteObject, "__rdivmod__", _binary("divmod", reflected=True))


def parameters(function: Callable[..., Any]) -> list:
    """``function``'s parameters as they travel: ``[name, kind]`` each (an ``inspect.Parameter``
    kind's number), with its default as a third item where it has one. The worker's member
    that calls back carries this signature, so code that reads it (FX tracing names its
    placeholders after ``forward``'s parameters) sees the test's method."""
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return []
    spec = []
    for parameter in signature.parameters.values():
        entry = [parameter.name, int(parameter.kind)]
        if parameter.default is not inspect.Parameter.empty:
            entry.append(parameter.default)
        spec.append(entry)
    return spec


class RemoteSubclassMeta(type):
    """The metaclass of a test's class deriving from proxied classes: the worker gets a twin
    class whose methods call this class's back; the twin answers for everything else."""

    def __new__(mcls, name: str, bases: tuple, namespace: dict, **kwargs: Any) -> type:
        cls = super().__new__(mcls, name, bases, namespace, **kwargs)
        if namespace.get("_remote_instance_proxy"):
            return cls
        parents = [b for b in namespace.get("__orig_bases__", bases) if isinstance(b, type) and
                   remote_class_handle(b) is not None]
        if not parents:
            return cls
        conn: Connection = remote_class_handle(parents[0])[0]
        members = []
        for key, value in namespace.items():
            if key.startswith("__") and key not in SUBCLASS_DUNDERS:
                continue
            if isinstance(value, staticmethod):
                kind, function = "static", value.__func__
            elif isinstance(value, classmethod):
                kind, function = "class", value.__func__
            elif isinstance(value, property) and value.fget is not None:
                kind, function = "property", value.fget
            elif isinstance(value, types.FunctionType):
                kind, function = "method", value
            else:
                continue
            members.append([key, kind, conn.share(function), parameters(function)])
        reply = conn.request_raw({"op": "subclass", "obj": conn.encode(tuple(parents)), "name": name, "members": conn.encode(members)})
        number = reply.get("value", {}).get("ref") if isinstance(reply.get("value"), dict) else None
        if not isinstance(number, int):
            raise ProtocolError("the worker did not make the subclass")
        type.__setattr__(cls, "_remote_conn", conn)
        type.__setattr__(cls, "_remote_number", number)
        conn.subclasses[number] = cls
        return cls

    def __getattr__(cls, name: str) -> Any:
        if name.startswith("__") or "_remote_number" not in vars(cls):
            raise AttributeError(name)
        return cls._remote_conn.request({"op": "getattr", "obj": {"ref": cls._remote_number}, "name": name})

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        return cls._remote_conn.call(cls, args, kwargs)

    def __instancecheck__(cls, instance: Any) -> bool:
        if type.__instancecheck__(cls, instance):
            return True
        if not isinstance(instance, RemoteObject) or "_remote_number" not in vars(cls):
            return False
        return bool(cls._remote_conn.operation("isinstance", instance, cls))


    def __subclasscheck__(cls, subclass: Any) -> bool:
        if type.__subclasscheck__(cls, subclass):
            return True
        if remote_class_handle(subclass) is None or "_remote_number" not in vars(cls):
            return False
        return bool(cls._remote_conn.operation("issubclass", subclass, cls))


class RemoteClassMeta(type):
    """The metaclass of the local classes standing for worker classes (``minitorch.Tensor``).

    Such a class derives from :class:`RemoteObject` (its instances are the proxies of the
    worker class's objects) and keeps its own handle in ``_remote_class_conn`` and
    ``_remote_class_number`` (``_remote_conn`` is an instance slot). A test's
    ``class Net(minitorch.nn.Module)`` is made by :class:`RemoteSubclassMeta`, deriving from
    :class:`RemoteSubclassBase` in place of the proxied bases, which the worker's twin class
    derives from."""

    def __new__(mcls, name: str, bases: tuple, namespace: dict, **kwargs: Any) -> type:
        if namespace.get("_remote_instance_proxy"):
            return super().__new__(mcls, name, bases, namespace, **kwargs)
        replaced = tuple(RemoteSubclassBase if isinstance(b, RemoteClassMeta) else b for b in bases)
        unique = tuple(b for i, b in enumerate(replaced) if b not in replaced[:i])
        return RemoteSubclassMeta(name, unique, dict(namespace, __orig_bases__=bases), **kwargs)

    def __getattr__(cls, name: str) -> Any:
        if name.startswith("__") or name.startswith("_remote_"):
            raise AttributeError(name)
        return vars(cls)["_remote_class_conn"].request({"op": "getattr", "obj": {"ref": vars(cls)["_remote_class_number"]},
                                                       "name": name})

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        return vars(cls)["_remote_class_conn"].call(cls, args, kwargs)

    def __instancecheck__(cls, instance: Any) -> bool:
        if type.__instancecheck__(cls, instance):
            return True
        if not isinstance(instance, RemoteObject):
            return False
        return bool(vars(cls)["_remote_class_conn"].operation("isinstance", instance, cls))

    def __subclasscheck__(cls, subclass: Any) -> bool:
        if type.__subclasscheck__(cls, subclass):
            return True
        if not isinstance(subclass, (RemoteClassMeta, RemoteSubclassMeta)) or remote_class_handle(subclass) is None:
            return False
        return bool(vars(cls)["_remote_class_conn"].operation("issubclass", subclass, cls))

    def __repr__(cls) -> str:
        return f"<class '{cls.__module__}.{cls.__qualname__}'>"


def remote_class_handle(cls: Any) -> Optional[tuple["Connection", int]]:
    """``(connection, number)`` of a class standing for a worker class (a proxied class, or a
    test's class with a twin in the worker); None for any other class."""
    if isinstance(cls, RemoteClassMeta) and "_remote_class_number" in vars(cls):
        return vars(cls)["_remote_class_conn"], vars(cls)["_remote_class_number"]
    if isinstance(cls, RemoteSubclassMeta) and "_remote_number" in vars(cls):
        return vars(cls)["_remote_conn"], vars(cls)["_remote_number"]
    return None


class RemoteSubclassBase(metaclass=RemoteSubclassMeta):
    """What a proxied base class stands for in a test's class statement.

    ``super().name`` in a test's method, on an instance living in the worker, reaches
    ``name`` of the proxied base class, run by the worker on that instance."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        _super_of(self, "__init__")(*args, **kwargs)


def _super_of(instance: Any, name: str) -> Any:
    """``getattr(super(twin, instance), name)`` in the worker, where ``twin`` is the worker's
    class of the test's class that derives from proxied classes directly."""
    if not isinstance(instance, RemoteObject):
        raise TypeError("super() of a class deriving from minitorch reaches minitorch only on objects made by it")
    first = next(c for c in reversed(type(instance).__mro__) if isinstance(c, RemoteSubclassMeta) and "_remote_number" in vars(c))
    conn: Connection = _own(instance, "_remote_conn")
    return conn.request({"op": "super", "obj": {"ref": vars(first)["_remote_number"]}, "instance": {"ref": _own(instance, "_remote_number")},
                         "name": name})


_INSTANCE_PROXY_CLASSES: "weakref.WeakKeyDictionary[type, type]" = weakref.WeakKeyDictionary()


def instance_proxy_class(trusted: type) -> type:
    """The class of proxies of worker objects made from the test's class ``trusted``: a
    subclass of both, so ``isinstance`` and ``super()`` in the test's methods work, while
    attributes and operators still go to the worker first."""
    if trusted not in _INSTANCE_PROXY_CLASSES:
        _INSTANCE_PROXY_CLASSES[trusted] = RemoteSubclassMeta(trusted.__name__, (RemoteObject, trusted), {
            "_remote_instance_proxy": True, "__module__": trusted.__module__, "__qualname__": trusted.__qualname__,
            "__dict__": property(_worker_dict)})
    return _INSTANCE_PROXY_CLASSES[trusted]


def _worker_dict(proxy: RemoteObject) -> Any:
    """The worker object's ``__dict__`` (a copy), not the proxy's own, which the test's class
    would otherwise give."""
    return _own(proxy, "_remote_conn").request({"op": "getattr", "obj": proxy._ref(), "name": "__dict__"})


#: an attribute the worker's module did not have before a test set it
_MISSING = object()


class RemoteModule(types.ModuleType):
    """A proxy of a worker-side ``minitorch`` module (a real module object, so imports work)."""

    def __init__(self, name: str, conn: Connection, number: int) -> None:
        super().__init__(name)
        self.__dict__["_remote_conn"], self.__dict__["_remote_number"] = conn, number
        self.__dict__["__path__"] = []  # a package: its submodules come from the finder too

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name not in MODULE_DUNDERS or name.startswith("_remote_"):
            raise AttributeError(name)
        return self.__dict__["_remote_conn"].request({"op": "getattr", "obj": {"ref": self.__dict__["_remote_number"]}, "name": name})

    def __setattr__(self, name: str, value: Any) -> None:
        """Set in the worker's module (a test's ``monkeypatch.setattr`` must reach the graded
        code); the import system's own attributes and submodules stay here."""
        if name.startswith("__") or name.startswith("_remote_") or isinstance(value, RemoteModule):
            super().__setattr__(name, value)
            return
        conn, ref = self.__dict__["_remote_conn"], {"ref": self.__dict__["_remote_number"]}
        patched = self.__dict__.setdefault("_remote_patched", {})
        if name not in patched:  # what the worker had, for :meth:`__delattr__`
            try:
                patched[name] = conn.request({"op": "getattr", "obj": ref, "name": name})
            except AttributeError:
                patched[name] = _MISSING
        conn.request({"op": "setattr", "obj": ref, "name": name, "value": conn.encode(value)})

    def __delattr__(self, name: str) -> None:
        """Undo a :meth:`__setattr__` (what pytest's ``monkeypatch`` does for a name the module's
        ``__dict__`` did not hold here), or delete the worker's attribute."""
        if name.startswith("__") or name in self.__dict__:
            super().__delattr__(name)
            return
        conn, ref = self.__dict__["_remote_conn"], {"ref": self.__dict__["_remote_number"]}
        original = self.__dict__.get("_remote_patched", {}).pop(name, _MISSING)
        if original is _MISSING:
            conn.request({"op": "delattr", "obj": ref, "name": name})
        else:
            conn.request({"op": "setattr", "obj": ref, "name": name, "value": conn.encode(original)})

    def __repr__(self) -> str:
        return f"<remote module {self.__name__!r}>"


class RemoteFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Answers ``import minitorch...`` with a :class:`RemoteModule`: every such import, or
    only those of the connection's boundary modules (the others find the course's own)."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Optional[importlib.machinery.ModuleSpec]:
        if not self.conn.proxies_module(fullname):
            return None
        return importlib.machinery.ModuleSpec(fullname, self, is_package=True)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        reply = self.conn.request_raw({"op": "import", "name": spec.name})
        value = reply.get("value")
        if not isinstance(value, dict) or value.get("kind") != "module" or not isinstance(value.get("ref"), int):
            raise ImportError(f"the graded code gave no module for {spec.name}")
        return self.conn.module(value["ref"], spec.name)

    def exec_module(self, module: types.ModuleType) -> None:
        """Nothing to run here: the module's code runs in the worker."""


def install(conn: Connection) -> RemoteFinder:
    """Put a finder for ``minitorch`` first on ``sys.meta_path`` (forgetting any real copy)."""
    for name in [n for n in sys.modules if conn.proxies_module(n)]:
        del sys.modules[name]
    conn.register_modules = True
    finder = RemoteFinder(conn)
    sys.meta_path.insert(0, finder)
    return finder


def connect_from_environment() -> Connection:
    """The connection whose descriptors the grader named in the environment."""
    read_fd, write_fd = (int(part) for part in os.environ[FDS_VARIABLE].split(","))
    timeout = float(os.environ.get(TIMEOUT_VARIABLE, DEFAULT_REQUEST_TIMEOUT))
    named = os.environ.get(MODULES_VARIABLE)
    boundary = frozenset(m.strip() for m in named.split(",") if m.strip()) if named else None
    return Connection(read_fd, write_fd, timeout, boundary)


def is_device_array(value: Any) -> bool:
    """Whether ``value`` is a Numba CUDA device array (a real one, or the simulator's)."""
    return type(value).__module__.startswith("numba.cuda") and callable(getattr(value, "copy_to_host", None)) and \
        callable(getattr(value, "copy_to_device", None))


def numba_scalar_dtype(value: Any) -> Optional[np.dtype]:
    """The NumPy dtype of a Numba scalar type such as ``numba.float32``; None for anything else."""
    if not type(value).__module__.startswith("numba.core.types"):
        return None
    try:
        dtype = np.dtype(str(value))
    except TypeError:
        return None
    return dtype if dtype.kind in "biuf" else None

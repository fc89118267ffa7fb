"""The worker: the only process that imports the graded ``minitorch``; it answers requests.

Run inside the sandbox as ``python -m <this package>.worker`` with the channel's two file
descriptors in ``MINITORCH_REMOTE_FDS`` (``read,write``). Each request names one action on
worker-side objects (import a ``minitorch`` module, get or set an attribute, call, apply
an operator, make a subclass whose methods call back); the reply is a value or a handle
(see :mod:`.protocol`). The worker is untrusted: nothing it says decides a score except
through the values the tests check.
"""

from __future__ import annotations

import builtins
import contextlib
import copy
import importlib
import inspect
import io
import operator
import os
import pickle
import sys
import tempfile
import threading
import types
import warnings
from pathlib import Path, PurePath
from typing import Any, Callable, Iterator, Optional

import numpy as np

from .endpoint import Endpoint
from .folders import FolderTable, checked_relative
from .protocol import (
    COPIED_ARGUMENTS,
    MAX_OUTPUT_CHARS,
    SAFE_BUILTIN_EXCEPTIONS,
    ProtocolError,
    decode,
    encode,
    error_body,
    is_namedtuple,
    namedtuple_body,
    shared_folder_token,
    stand_in_namedtuple,
    warning_bodies,
)

FDS_VARIABLE = "MINITORCH_REMOTE_FDS"
#: the only top-level package a request may import
PACKAGE = "minitorch"


def _enter(obj: Any) -> Any:
    return obj.__enter__()


def _exit(obj: Any, *args: Any) -> Any:
    return obj.__exit__(*args)


#: what an ``op`` request may apply, by name
OPERATIONS: dict[str, Callable[..., Any]] = {
    name: getattr(operator, name)
    for name in (
        "add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "lshift", "rshift", "and_", "or_", "xor",
        "iadd", "isub", "imul", "itruediv", "ifloordiv", "imod", "ipow", "imatmul", "iand", "ior", "ixor",
        "neg", "pos", "invert", "lt", "le", "eq", "ne", "gt", "ge", "getitem", "setitem", "delitem", "contains",
        "index", "truth",
    )
}
OPERATIONS.update(
    abs=abs, len=len, iter=iter, next=next, repr=repr, str=str, hash=hash, float=float, int=int, complex=complex,
    round=round, format=format, isinstance=isinstance, issubclass=issubclass, divmod=divmod, reversed=reversed,
    enter=_enter, exit=_exit, dir=dir, copy=copy.copy, deepcopy=copy.deepcopy,
    # a proxy pickled on the trusted side holds the worker's own pickle, opaque, and is
    # unpickled here again: the trusted side never unpickles what the worker made
    pickle=pickle.dumps, unpickle=pickle.loads,
)
#: how a trusted class's member becomes a worker-side member that calls back
MEMBER_KINDS = {"static": staticmethod, "class": classmethod, "method": lambda f: f, "property": property}


class TrustedStub:
    """A trusted-side object the worker was given (a callback, a test's own object): calling
    it or reading a public attribute asks the trusted side."""

    __slots__ = ("_number", "_worker")

    def __init__(self, number: int, worker: "Worker") -> None:
        self._number, self._worker = number, worker

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._worker.callback({"op": "call", "cb": self._number, "args": self._worker.encode(list(args)),
                                      "kwargs": self._worker.encode(kwargs)}, args)

    def __getattr__(self, name: str) -> Any:
        if name == "__dict__":  # a test's object: its public attributes, changed there when this dict is
            return TrustedAttributes(self)
        if name.startswith("_"):
            raise AttributeError(name)
        return self._worker.callback({"op": "getattr", "cb": self._number, "name": name})

    def __repr__(self) -> str:
        return f"<trusted object #{self._number}>"


class TrustedAttributes(dict):
    """The ``__dict__`` of a test's object in the worker: its public attributes as they are on
    the trusted side; setting or updating an entry sets that attribute there (as
    ``LambdaLR.load_state_dict`` does to a callable object's ``__dict__``)."""

    def __init__(self, stub: TrustedStub) -> None:
        worker, number = stub._worker, stub._number
        super().__init__(worker.callback({"op": "vars", "cb": number}))
        self._set = lambda name, value: worker.callback(
            {"op": "setattr", "cb": number, "name": name, "value": worker.encode(value)})

    def __setitem__(self, name: str, value: Any) -> None:
        self._set(name, value)
        super().__setitem__(name, value)

    def update(self, *args: Any, **kwargs: Any) -> None:
        for name, value in dict(*args, **kwargs).items():
            self[name] = value


class TrustedIteratorStub(TrustedStub):
    """A trusted-side iterator the worker was given: ``next`` asks the trusted side."""

    __slots__ = ()

    def __iter__(self) -> "TrustedIteratorStub":
        return self

    def __next__(self) -> Any:
        return self._worker.callback({"op": "next", "cb": self._number})


class _Stream(io.TextIOBase):
    """``sys.stdout`` or ``sys.stderr`` of the worker: what a thread prints goes to the buffer
    of the request that thread is answering (nothing, outside one)."""

    def __init__(self, buffers: threading.local, index: int) -> None:
        self._buffers, self._index = buffers, index

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        stack = getattr(self._buffers, "stack", None)
        if stack:
            stack[-1][self._index].write(text)
        return len(text)


class LaneOutput:
    """What each request prints and warns, kept apart per thread.

    ``contextlib.redirect_stdout`` and ``warnings.catch_warnings`` swap process-wide state and
    restore it on exit: two lanes' requests, interleaved at their callbacks, would restore
    each other's. Here the streams and the warning hook are installed once per request (graded
    code may have replaced them) and look up the calling thread's innermost request.
    """

    def __init__(self) -> None:
        self.buffers = threading.local()  # .stack: (stdout, stderr, warnings) of each open request
        self.stdout, self.stderr = _Stream(self.buffers, 0), _Stream(self.buffers, 1)

    def record_warning(self, message: Any, category: type, filename: str, lineno: int, file: Any = None,
                       line: Optional[str] = None) -> None:
        stack = getattr(self.buffers, "stack", None)
        if stack:
            stack[-1][2].append(warnings.WarningMessage(message, category, filename, lineno, file, line))

    @contextlib.contextmanager
    def capture(self, stdout: io.StringIO, stderr: io.StringIO, caught: list) -> Iterator[None]:
        """Inside the block, this thread's output goes to ``stdout``/``stderr`` and every warning
        it issues (each time, as ``simplefilter("always")`` says) to ``caught``."""
        sys.stdout, sys.stderr = self.stdout, self.stderr
        warnings.showwarning = self.record_warning
        warnings.simplefilter("always")
        stack = getattr(self.buffers, "stack", None)
        if stack is None:
            stack = self.buffers.stack = []
        stack.append((stdout, stderr, caught))
        try:
            yield
        finally:
            stack.pop()


class Worker:
    """The worker's tables: handles of its objects, stubs of trusted objects."""

    def __init__(self, read_fd: int, write_fd: int) -> None:
        self.objects: dict[int, Any] = {}
        self.last_number = 0  # handles are never reused: a stale one is refused, never another object
        self.sent: dict[int, int] = {}  # how many times each handle went out since the trusted side last dropped it
        self.numbers: dict[int, int] = {}  # id(object) -> handle number
        self.stubs: dict[int, Any] = {}  # a TrustedStub, or a function calling one for a trusted function
        self.function_stubs: dict[int, int] = {}  # id(function stub) -> its callback number
        self.twins: set[type] = set()  # classes made by ``subclass``: their instances say so
        self.stub_classes: dict[tuple[type, str, str], type] = {}  # stand-ins named like the trusted classes
        self.stand_ins: dict[tuple, type] = {}  # namedtuple classes of the tests' records
        self.folders = FolderTable()
        self.mirror_root: Optional[Path] = None
        self.output = LaneOutput()
        # a test's threads each get a lane here, served one at a time (see :mod:`.endpoint`)
        self.endpoint = Endpoint(read_fd, write_fd, self.serve, folders=self.folders, make_folder=self.mirror,
                                 open_lanes=False, exclusive=True)

    # ------------------------------------------------------------------ values

    def mirror(self, number: int) -> Path:
        """This worker's copy of the trusted side's shared folder ``number`` (made empty)."""
        if self.mirror_root is None:
            self.mirror_root = Path(tempfile.mkdtemp(prefix="shared-"))
        folder = self.mirror_root / str(number)
        folder.mkdir()
        return folder

    def handle(self, obj: Any) -> dict:
        if isinstance(obj, PurePath):  # in a mirror: the test's path; elsewhere: a path as a value
            shared = self.shared_path(obj)
            return shared if shared is not None else {"pathvalue": str(obj), "pure": not isinstance(obj, Path)}
        if isinstance(obj, TrustedStub):
            return {"cb": obj._number, "iterator": isinstance(obj, TrustedIteratorStub)}
        if is_namedtuple(obj) and type(obj) in self.stand_ins.values():  # a test's record goes back by value
            return namedtuple_body(obj, [self.encode(v) for v in obj])
        stub_number = self.function_stubs.get(id(obj))
        if stub_number is not None and self.stubs.get(stub_number) is obj:
            return {"cb": stub_number, "function": True}
        number = self.numbers.get(id(obj))
        if number is None:
            self.last_number += 1
            number = self.last_number
            self.objects[number], self.numbers[id(obj)] = obj, number
        self.sent[number] = self.sent.get(number, 0) + 1
        body: dict[str, Any] = {"ref": number, "kind": "object"}
        if isinstance(obj, types.ModuleType):
            body.update(kind="module", name=obj.__name__)
        elif self.twins and any(c in self.twins for c in type(obj).__mro__):
            body["twin"] = self.handle(type(obj))["ref"]
        elif isinstance(obj, type):
            body.update(kind="class", name=str(obj.__qualname__), module=str(obj.__module__))
            if issubclass(obj, BaseException):
                body["bases"] = [c.__name__ for c in obj.__mro__ if c.__module__ == "builtins" and c.__name__ in SAFE_BUILTIN_EXCEPTIONS]
        else:  # its class too, so that the trusted side's ``type(x)`` is the proxy of that class
            body["cls"] = self.handle(type(obj))
        return body

    def shared_path(self, path: PurePath) -> Optional[dict]:
        """A path inside a mirror, as the trusted side names it; None for any other path."""
        for number, root in self.folders.roots.items():
            try:
                inside = Path(os.path.abspath(path)).relative_to(root)
            except ValueError:
                continue
            return {"path": number, "rel": inside.as_posix() if inside.parts else ""}
        return None

    def encode(self, value: Any) -> Any:
        strings = self.shared_string if self.folders.roots else None
        return encode(value, self.handle, identify=lambda array: self.handle(array)["ref"], strings=strings)

    def shared_string(self, text: str) -> Any:
        """A string naming a path in a mirror travels as the trusted side's path (as a string)."""
        if self.mirror_root is None or not text.startswith(str(self.mirror_root) + os.sep):
            return text
        shared = self.shared_path(PurePath(text))
        return text if shared is None else dict(shared, str=True)

    def resolve(self, kind: str, data: dict) -> Any:
        if kind == "npy":
            return data["npy"]  # an array the trusted side sends is its own copy (a device array's too)
        if kind == "nbtype":
            return numba_scalar_type(data["nbtype"])
        if kind == "namedtuple":
            key = tuple(tuple(part) if isinstance(part, list) else part for part in data["namedtuple"])
            if key not in self.stand_ins:
                self.stand_ins[key] = stand_in_namedtuple(data["namedtuple"])
            return self.stand_ins[key](*data["items"])
        if kind == "path":
            number = data["path"]
            if number not in self.folders.roots:
                self.folders.add(number, self.mirror(number))
            root = self.folders.roots[number]
            return root / checked_relative(data["rel"]) if data["rel"] else root
        number = data.get(kind)
        if kind == "ref":
            if number not in self.objects:
                raise ProtocolError(f"unknown handle {str(number)[:20]}")
            return self.objects[number]
        if not isinstance(number, int):
            raise ProtocolError("a malformed callback handle")
        if number not in self.stubs:
            stub_class = TrustedIteratorStub if data.get("iterator") is True else TrustedStub
            named = data.get("cls")
            if isinstance(named, list) and len(named) == 2 and all(isinstance(n, str) for n in named):
                stub_class = self.stub_class(stub_class, named[0][:200], named[1][:200])
            stub = stub_class(number, self)
            if data.get("function") is True:  # a trusted function: a real function here, calling back
                function = _forwarder(stub, "trusted_function")
                self.function_stubs[id(function)] = number
                self.stubs[number] = function
            else:
                self.stubs[number] = stub
        return self.stubs[number]

    def stub_class(self, base: type, module: str, qualname: str) -> type:
        """A stand-in class named like the trusted object's class (``test_x.Opaque``)."""
        key = (base, module, qualname)
        if key not in self.stub_classes:
            label = qualname.rsplit(".", 1)[-1]
            self.stub_classes[key] = type(label if label.isidentifier() else base.__name__, (base,), {
                "__slots__": (), "__module__": module, "__qualname__": qualname})
        return self.stub_classes[key]

    def decode(self, data: Any) -> Any:
        return decode(data, self.resolve)

    def drop(self, entries: Any) -> None:
        """Forget the objects whose handles the trusted side no longer holds: ``[number, count]``
        says it received ``number`` ``count`` times since its last drop of it; while the handle
        went out more often than that (a reply still on its way), the object stays."""
        for entry in entries if isinstance(entries, list) else []:
            if not (isinstance(entry, list) and len(entry) == 2 and all(type(v) is int for v in entry)):
                continue
            number, count = entry
            left = self.sent.get(number, 0) - count
            if left > 0:
                self.sent[number] = left
                continue
            self.sent.pop(number, None)
            obj = self.objects.pop(number, None)
            if obj is not None:
                self.numbers.pop(id(obj), None)

    # ------------------------------------------------------------------ requests

    def serve(self, message: dict) -> dict:
        self.drop(message.get("drop"))
        arrays: list[np.ndarray] = []
        printed, errors, caught = io.StringIO(), io.StringIO(), []
        with self.output.capture(printed, errors, caught):
            try:
                value = self.perform(message, arrays)
                reply: dict[str, Any] = {"value": self.encode(value)}
                if arrays:  # what the call left in the copies it was given, for the caller's originals
                    reply["arrays"] = [encode(a, _refuse) for a in arrays]
            except BaseException as error:  # graded code may raise anything, SystemExit included
                reply = {"error": error_body(error)}
        if caught:  # the tests' ``pytest.warns`` looks for them on the trusted side
            reply["warnings"] = warning_bodies(caught)
        for key, stream in (("stdout", printed), ("stderr", errors)):  # the tests' ``capsys`` reads it there
            if stream.tell():
                reply[key] = self.shared_tokens(stream.getvalue()[:MAX_OUTPUT_CHARS])
        if "error" in reply:
            reply["error"]["message"] = self.shared_tokens(reply["error"]["message"])
        return reply

    def shared_tokens(self, text: str) -> str:
        """``text`` with each mirror's path written as its folder's token (the trusted side
        writes the test's folder there)."""
        for number, root in self.folders.roots.items():
            text = text.replace(str(root), shared_folder_token(number))
        return text

    def perform(self, message: dict, arrays: list) -> Any:
        op = message["op"]
        if op == "import":
            name = str(message.get("name"))
            if name != PACKAGE and not name.startswith(PACKAGE + "."):
                raise ImportError(f"only {PACKAGE} modules can be imported, not {name!r}")
            return importlib.import_module(name)
        target = self.decode(message.get("obj"))
        if op == "getattr":
            return getattr(target, str(message.get("name")))
        if op == "setattr":
            return setattr(target, str(message.get("name")), self.decode(message.get("value")))
        if op == "delattr":
            return delattr(target, str(message.get("name")))
        if op == "call":
            args = self.decode(message.get("args", {"list": []}))
            kwargs = self.decode(message.get("kwargs", {"dict": []}))
            arrays.extend(a for a in [*args, *kwargs.values()] if type(a) in COPIED_ARGUMENTS)
            return target(*args, **kwargs)
        if op == "op":
            function = OPERATIONS.get(str(message.get("name")))
            if function is None:
                raise ProtocolError(f"unknown operation {str(message.get('name'))[:40]!r}")
            return function(target, *self.decode(message.get("args", {"list": []})))
        if op == "subclass":
            return self.subclass(target, message)
        if op == "super":
            instance = self.decode(message.get("instance"))
            return getattr(super(target, instance), str(message.get("name")))
        raise ProtocolError(f"unknown request {op[:40]!r}")

    def subclass(self, bases: Any, message: dict) -> type:
        """A class deriving from ``bases`` whose listed members call the trusted side back."""
        namespace: dict[str, Any] = {"__module__": "remote_tests", "__qualname__": str(message.get("name"))}
        for name, kind, number, *spec in self.decode(message.get("members", {"list": []})):
            stub = self.resolve("cb", {"cb": number})
            member = _forwarder(stub, str(name))
            signature = _signature(spec[0]) if spec else None
            if signature is not None:
                member.__signature__ = signature
            namespace[str(name)] = MEMBER_KINDS[kind](member)
        first = bases[0]
        twin = type(first)(str(message.get("name")), tuple(bases), namespace)
        self.twins.add(twin)
        return twin

    def callback(self, message: dict, args: tuple = ()) -> Any:
        reply = self.endpoint.request(message)
        if "error" in reply:
            body = reply["error"] if isinstance(reply["error"], dict) else {}
            name, text = str(body.get("type", "Exception")), str(body.get("message", ""))
            bases = [b for b in body.get("bases", []) if isinstance(b, str) and b in SAFE_BUILTIN_EXCEPTIONS]
            if name == "KeyboardInterrupt":  # a test interrupts the graded code on purpose
                raise KeyboardInterrupt(text)
            builtin = name if name in SAFE_BUILTIN_EXCEPTIONS else next(iter(bases), None)
            kind = getattr(builtins, builtin) if builtin is not None else RuntimeError
            raise kind(text if builtin == name else f"{name}: {text}")
        after = reply.get("args_after")
        if isinstance(after, list) and len(after) == len(args):
            for original, changed in zip(args, after):
                if changed is not None:
                    _update_in_place(original, self.decode(changed))
        for entry in reply.get("attrs_after", []) if isinstance(reply.get("attrs_after"), list) else []:
            if isinstance(entry, list) and len(entry) == 3 and isinstance(entry[1], str):  # a list the callback changed
                _update_in_place(getattr(self.decode(entry[0]), entry[1]), self.decode(entry[2]))
        return self.decode(reply.get("value"))


def _refuse(value: Any) -> dict:
    raise ProtocolError(f"a copied argument became a {type(value).__name__}")


def numba_scalar_type(dtype: np.dtype) -> Any:
    """The Numba scalar type of a plain numeric dtype (``numba.float32`` for float32)."""
    if dtype.kind not in "biuf":
        raise ProtocolError(f"no Numba scalar type travels for dtype {dtype.str!r}")
    import numba

    return numba.from_dtype(dtype)


def _update_in_place(original: Any, changed: Any) -> None:
    """Give a dict or list the test's callback was handed the contents the callback left in its copy."""
    if isinstance(original, dict) and isinstance(changed, dict):
        original.clear()
        original.update(changed)
    elif isinstance(original, list) and isinstance(changed, list):
        original[:] = changed


#: ``inspect.Parameter`` kinds by the numbers they travel as
PARAMETER_KINDS = {int(kind): kind for kind in (
    inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.VAR_POSITIONAL,
    inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.VAR_KEYWORD)}


def _signature(spec: Any) -> Optional[inspect.Signature]:
    """The signature the trusted side gave a member (see ``client.parameters``); None if malformed."""
    if not isinstance(spec, list):
        return None
    try:
        return inspect.Signature([
            inspect.Parameter(str(entry[0]), PARAMETER_KINDS[entry[1]],
                              **({"default": entry[2]} if len(entry) > 2 else {}))
            for entry in spec
        ])
    except (TypeError, ValueError, IndexError, KeyError):
        return None


def _forwarder(stub: TrustedStub, name: str) -> Callable[..., Any]:
    def member(*args: Any, **kwargs: Any) -> Any:
        return stub(*args, **kwargs)

    member.__name__ = member.__qualname__ = name
    return member


def main(argv: Optional[list[str]] = None) -> int:
    read_fd, write_fd = (int(part) for part in os.environ[FDS_VARIABLE].split(","))
    sys.stdin = open(os.devnull)
    Worker(read_fd, write_fd).endpoint.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())

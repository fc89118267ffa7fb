r"""Whole modules in a checkpoint (``minitorch.save(model, f)``), saved and rebuilt without pickle.

A module is stored as its class's import path and its ``__dict__``, every entry plain data
encoded as the rest of the tree (its parameters, buffers, submodules, numbers, strings)::

    {"type": "object", "class": "minitorch.nn.modules.linear.Linear", "state": [[name, value], ...]}

A module reached a second time (one layer shared by two places) is ``{"type": "object_ref",
"index": i}``: the ``i``-th module completed so far, children before their parents, so a
shared module loads as one object. A ``set`` (a module's names of non-persistent buffers) is
``{"type": "set", "items": [...]}`` (inside a module only: a plain checkpoint holds no sets).
A function, lambda, method, class, module or open file
in a module's attributes is not data: saving raises, naming the attribute.

Loading rebuilds a module only when its class path is, by exact string, one of

- minitorch's own module classes (with ``weights_only=False``), or
- the allowlist of :mod:`~minitorch.serialization.safe_globals` (with either value).

The class is looked up in those, never imported or searched for in a module, so a file can't
make the loader import anything or reach ``os.system``. The object is made with
``cls.__new__(cls)`` (``__init__`` does not run) and its ``__dict__`` filled with the decoded
state, after checking it is a module's (its registries are dicts of parameters, buffers and
modules, its hook tables empty): nothing else of the class is called.
"""

from __future__ import annotations

import io
import keyword
import types
from typing import TYPE_CHECKING, Any

from .errors import SerializationError, UnpicklingError
from .format import MAX_NESTING
from .safe_globals import allowed_classes, class_path

if TYPE_CHECKING:
    from .tree import TreeDecoder, TreeEncoder

OBJECT_TAG = "object"
REF_TAG = "object_ref"
SET_TAG = "set"
CLASS_KEY = "class"
STATE_KEY = "state"
INDEX_KEY = "index"
ITEMS_KEY = "items"
#: whole objects in one file: far more modules than any model has
MAX_OBJECTS = 100_000
#: the longest class path a file may name
MAX_CLASS_PATH = 500
#: a module's registries: attribute name -> what each value must be
REGISTRIES = ("_parameters", "_buffers", "_modules")
#: values that are code or handles, not data, and what to call them in a message
_NOT_DATA: tuple[tuple[tuple[type, ...], str], ...] = (
    ((types.FunctionType, types.BuiltinFunctionType, types.MethodType, types.BuiltinMethodType,
      types.MethodWrapperType, types.WrapperDescriptorType), "function"),
    ((type,), "class"),
    ((types.ModuleType,), "Python module"),
    ((io.IOBase,), "open file"),
    ((types.GeneratorType, types.CoroutineType), "generator"),
)


def _module_class() -> type:
    from ..nn import Module

    return Module


def _parameter_class() -> type:
    from ..nn import Parameter

    return Parameter


def _fail(path: str, what: str) -> SerializationError:
    return SerializationError(f"malformed checkpoint at {path}: {what}")


class ObjectEncoder:
    """The part of :class:`~minitorch.serialization.tree.TreeEncoder` that saves modules and sets."""

    def __init__(self) -> None:
        self._done: dict[int, int] = {}
        self._open: set[int] = set()
        self._keep_alive: list[Any] = []  # ids stay unique while the objects live

    def encode(self, tree: "TreeEncoder", value: Any, path: str, depth: int) -> Any:
        """The JSON form of a module or a set inside one, or ``None`` for any other value."""
        if type(value) is set and self._open:  # a module's names of non-persistent buffers
            items = [tree.encode(v, f"{path} (an item)", depth + 1) for v in value]
            return {"type": SET_TAG, ITEMS_KEY: sorted(items, key=repr)}
        if not isinstance(value, _module_class()):
            if self._open:  # inside a module: say why code can't be saved
                _check_data(value, path)
            return None
        if depth > MAX_NESTING:
            raise SerializationError(f"can't save {path}: containers are nested deeper than {MAX_NESTING} levels")
        key = id(value)
        if key in self._open:
            raise SerializationError(f"can't save {path}: it contains itself (a reference cycle)")
        if key in self._done:
            return {"type": REF_TAG, INDEX_KEY: self._done[key]}
        cls = type(value)
        if "<locals>" in cls.__qualname__:
            raise SerializationError(
                f"can't save {path}: its class {cls.__qualname__} is defined inside a function, so no import path "
                "names it; define the class at module level, or save its state_dict() instead"
            )
        self._open.add(key)
        try:
            state = []
            for name, attribute in vars(value).items():
                attribute_path = f"{path}.{name}"
                state.append([name, tree.encode(attribute, attribute_path, depth + 1)])
        finally:
            self._open.discard(key)
        self._done[key] = len(self._done)
        self._keep_alive.append(value)
        return {"type": OBJECT_TAG, CLASS_KEY: class_path(cls), STATE_KEY: state}


def _check_data(value: Any, path: str) -> None:
    for kinds, what in _NOT_DATA:
        if isinstance(value, kinds):
            name = getattr(value, "__qualname__", None) or getattr(value, "name", None) or type(value).__name__
            raise SerializationError(
                f"can't save {path}: it is a {what} ({name}), not data. A whole module is saved as its class's "
                "import path and its data attributes (tensors, numbers, strings, containers, submodules); keep "
                f"the {what} out of the module's attributes, or save model.state_dict() instead"
            )


def _own_classes() -> dict[str, type]:
    """minitorch's own module classes by import path (found among the loaded subclasses of Module)."""
    found: dict[str, type] = {}
    pending = [_module_class()]
    while pending:
        cls = pending.pop()
        if cls.__module__.split(".")[0] == "minitorch" and "<locals>" not in cls.__qualname__:
            found.setdefault(class_path(cls), cls)
        pending.extend(cls.__subclasses__())
    return found


def _short(name: str) -> str:
    return name.rsplit(".", 1)[-1]


class ObjectDecoder:
    """Rebuilds the modules of a file, from the allowlist only (see the module docstring)."""

    def __init__(self, weights_only: bool) -> None:
        self._weights_only = weights_only
        self._allowed = allowed_classes()
        self._own = {} if weights_only else _own_classes()
        self._done: list[Any] = []
        self._count = 0

    def decode(self, tree: "TreeDecoder", node: dict, tag: str, path: str, depth: int) -> Any:
        if tag == SET_TAG:
            return self._decode_set(tree, node, path, depth)
        if tag == REF_TAG:
            index = node.get(INDEX_KEY)
            if type(index) is not int or not 0 <= index < len(self._done):
                raise _fail(path, f"a reference to module {index!r:.40}, which is not among the "
                                  f"{len(self._done)} modules read so far")
            return self._done[index]
        return self._decode_object(tree, node, path, depth)

    def _decode_set(self, tree: "TreeDecoder", node: dict, path: str, depth: int) -> set:
        items = node.get(ITEMS_KEY)
        if type(items) is not list:
            raise _fail(path, "a set's 'items' must be a list")
        out = set()
        for item in items:
            value = tree.decode(item, f"{path} (an item)", depth + 1)
            if type(value) not in (type(None), bool, int, float, str, tuple):
                raise _fail(path, f"a set can't hold a {type(value).__name__}")
            try:
                out.add(value)
            except TypeError:
                raise _fail(path, f"a set item of type {type(value).__name__} can't be hashed") from None
        return out

    def _resolve(self, name: Any, path: str) -> type:
        if type(name) is not str or not 0 < len(name) <= MAX_CLASS_PATH:
            raise _fail(path, f"a class path must be a string of 1 to {MAX_CLASS_PATH} characters")
        cls = self._allowed.get(name) or self._own.get(name)
        if cls is None:
            allow = (f"minitorch.serialization.add_safe_globals([{_short(name)}]) or the "
                     f"minitorch.serialization.safe_globals([{_short(name)}]) context manager")
            if self._weights_only:
                raise UnpicklingError(
                    f"Weights only load failed: the checkpoint holds a whole object of class '{name}' (at {path}), and "
                    f"weights_only=True "
                    f"rebuilds only allowlisted classes. If you trust the source of this file, load it with "
                    f"weights_only=False (enough for minitorch's own classes), or allowlist the class with {allow}."
                )
            raise SerializationError(
                f"refusing to rebuild {path}, an object of class '{name}': the class is neither one of minitorch's own nor allowlisted, and "
                f"loading never imports or runs what a file names. If you trust this class, allowlist it with {allow}."
            )
        if not issubclass(cls, _module_class()):
            raise SerializationError(
                f"refusing to rebuild {path}: class '{name}' is allowlisted but is not a minitorch.nn.Module; "
                "only modules are saved and rebuilt whole"
            )
        return cls

    def _decode_object(self, tree: "TreeDecoder", node: dict, path: str, depth: int) -> Any:
        cls = self._resolve(node.get(CLASS_KEY), path)  # before anything of the state is read
        self._count += 1
        if self._count > MAX_OBJECTS:
            raise _fail(path, f"more than {MAX_OBJECTS} modules in one file")
        pairs = node.get(STATE_KEY)
        if type(pairs) is not list:
            raise _fail(path, "a module's 'state' must be a list of [name, value] pairs")
        state: dict[str, Any] = {}
        for pair in pairs:
            if type(pair) is not list or len(pair) != 2 or type(pair[0]) is not str:
                raise _fail(path, "a module's state holds [name, value] pairs with string names")
            name = pair[0]
            if not name.isidentifier() or keyword.iskeyword(name) or name.startswith("__") or name in state:
                raise _fail(path, f"bad or repeated attribute name {name!r:.80}")
            state[name] = tree.decode(pair[1], f"{path}.{name}", depth + 1)
        _check_module_state(state, path)
        obj = cls.__new__(cls)
        vars(obj).update(state)
        self._done.append(obj)
        return obj


_MISSING = object()


def _check_module_state(state: dict[str, Any], path: str) -> None:
    """The state is a module's: registries of the right kinds, hook tables empty, ``training`` a bool."""
    from ..tensor import Tensor

    module, parameter = _module_class(), _parameter_class()
    kinds = {"_parameters": (parameter, "Parameter"), "_buffers": (Tensor, "Tensor"), "_modules": (module, "Module")}
    for name, (kind, kind_name) in kinds.items():
        registry = state.get(name)
        if not isinstance(registry, dict):
            raise _fail(path, f"a module's state needs '{name}', a dict")
        for key, value in registry.items():
            if type(key) is not str or not (value is None or isinstance(value, kind)):
                raise _fail(path, f"{name}[{key!r:.60}] must be a {kind_name} or None under a string name")
    for name, fresh in vars(module()).items():  # what Module.__init__ sets: each must be there, of its kind
        if name in kinds:
            continue
        value = state.get(name, _MISSING)
        if type(value) is not type(fresh) or (isinstance(fresh, dict) and value):
            what = "an empty dict (hooks are code, never saved)" if isinstance(fresh, dict) else f"a {type(fresh).__name__}"
            raise _fail(path, f"a module's state needs '{name}', {what}")

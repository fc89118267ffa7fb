"""The object tree of a checkpoint as JSON, and back.

Python values map to JSON like this; every container is a tagged JSON object, so a dict
keeps its key order and keys that are not strings, and a tuple stays a tuple:

- ``None``, ``bool``, ``int``, ``float``, ``str``: themselves (``nan`` and ``inf`` are
  written ``NaN`` and ``Infinity``; NumPy scalars are saved as the Python number);
- ``list``, ``tuple``: ``{"type": "list" | "tuple", "items": [...]}``;
- ``dict``, ``OrderedDict``: ``{"type": "dict" | "odict", "items": [[key, value], ...]}``;
- ``Tensor``: ``{"type": "tensor", "index": i}``, row ``i`` of the header's tensor table;
- ``dtype``, ``device``: ``{"type": "dtype" | "device", "name": "float32" | "cuda:0"}``;
- ``Size``: ``{"type": "size", "items": [2, 3]}``;
- a quantized tensor: ``{"type": "qtensor", "dtype": "qint8", "qscheme": "per_tensor_affine",
  "int_repr": <tensor>, "scale": 0.1, "zero_point": 3}``; per channel, ``"scale"`` and
  ``"zero_point"`` are tensors (float64, int64) and ``"axis"`` says along which dimension;
- a whole ``nn.Module``: ``{"type": "object", ...}``, and a ``set`` inside one (see
  :mod:`minitorch.serialization.objects`, which also says what loading rebuilds);
- a NumPy array: ``{"type": "ndarray", "index": i, "fortran": false}`` (see
  :mod:`minitorch.serialization.arrays`).

Anything else is refused when saving, with the path of the offending value inside the
object, e.g. ``obj['optimizer']['state'][0]``.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, Callable

import numpy as np

from .. import dtypes
from ..device import device
from ..quantized.qscheme import named_qscheme
from ..quantized.qtensor import QuantizedTensor, quantized_from_parts
from ..size import Size
from ..tensor import Tensor
from .errors import SerializationError
from .format import DTYPES_BY_NAME, MAX_NESTING, ROOT_PATH
from .arrays import ARRAY_TAG, ArrayDecoder, ArrayEncoder
from .objects import OBJECT_TAG, REF_TAG, SET_TAG, ObjectDecoder, ObjectEncoder

TYPE_KEY = "type"
ITEMS_KEY = "items"
NAME_KEY = "name"
INDEX_KEY = "index"
NATIVE_TYPES = (type(None), bool, int, float, str)
QUANTIZED_TAG = "qtensor"
QUANTIZED_DTYPES_BY_NAME = {d.name: d for d in dtypes.QUANTIZED_DTYPES}
_CONTAINER_TAGS: dict[type, str] = {list: "list", tuple: "tuple"}


def child_path(path: str, key: Any) -> str:
    """``obj`` and key ``'model'`` give ``obj['model']``."""
    return f"{path}[{key!r}]"


def _save_hint(value: Any) -> str:
    if hasattr(value, "state_dict") and callable(value.state_dict):
        return "; save its state_dict() instead"
    if isinstance(value, np.ndarray):
        return "; convert it with minitorch.from_numpy first"
    return ""


class TreeEncoder:
    """Turns a Python object into JSON-ready data, collecting its tensors in a table.

    A tensor reached twice (the same object, or two tensors viewing the same elements of the
    same storage, e.g. ``w`` and ``w.detach()``) is stored once and loads as one tensor.
    Other tensors that share storage (e.g. a tensor and a slice of it) are stored separately
    and load as independent copies.
    """

    def __init__(self) -> None:
        self.tensors: list[Tensor] = []
        self._seen: dict[tuple, int] = {}
        self._open: set[int] = set()
        self._objects = ObjectEncoder()
        self._arrays = ArrayEncoder()

    def tensor_index(self, t: Tensor) -> int:
        """Row of ``t`` in the tensor table (added when new)."""
        layout = t._data
        key = (id(layout.storage), layout.offset, layout.shape, layout.strides, t.dtype.name, str(t.device),
               t.requires_grad, type(t))
        if key not in self._seen:
            self._seen[key] = len(self.tensors)
            self.tensors.append(t)
        return self._seen[key]

    def encode(self, value: Any, path: str = ROOT_PATH, depth: int = 0) -> Any:
        """JSON-ready form of ``value``; ``path`` names it in error messages."""
        if type(value) not in NATIVE_TYPES and not isinstance(value, Tensor):  # a whole module, a set
            special = self._objects.encode(self, value, path, depth)
            if special is not None:
                return special
            if type(value) is np.ndarray:
                return self._arrays.encode(self, value, path)
        # BEGIN SOLUTION 8.1
        if depth > MAX_NESTING:
            raise SerializationError(f"can't save {path}: containers are nested deeper than {MAX_NESTING} levels")
        if isinstance(value, (np.bool_, np.integer, np.floating)):
            value = value.item()
        kind = type(value)
        if kind in NATIVE_TYPES:
            return value
        if isinstance(value, Tensor):
            return {TYPE_KEY: "tensor", INDEX_KEY: self.tensor_index(value)}
        if kind is QuantizedTensor:
            return self._encode_quantized(value)
        if kind is dtypes.dtype:
            return {TYPE_KEY: "dtype", NAME_KEY: value.name}
        if kind is device:
            return {TYPE_KEY: "device", NAME_KEY: str(value)}
        if kind is Size:
            return {TYPE_KEY: "size", ITEMS_KEY: [int(s) for s in value]}
        if kind in _CONTAINER_TAGS or isinstance(value, dict):
            if id(value) in self._open:
                raise SerializationError(f"can't save {path}: it contains itself (a reference cycle)")
            self._open.add(id(value))
            try:
                if isinstance(value, dict):
                    tag = "odict" if isinstance(value, OrderedDict) else "dict"
                    items: list = [
                        [self._encode_key(k, path, depth + 1), self.encode(v, child_path(path, k), depth + 1)]
                        for k, v in value.items()
                    ]
                else:
                    tag = _CONTAINER_TAGS[kind]
                    items = [self.encode(v, child_path(path, i), depth + 1) for i, v in enumerate(value)]
            finally:
                self._open.discard(id(value))
            return {TYPE_KEY: tag, ITEMS_KEY: items}
        raise SerializationError(
            f"can't save {path}: objects of type {kind.__module__}.{kind.__qualname__} are not supported "
            f"(minitorch.save stores tensors, dicts, lists, tuples, str, int, float, bool and None){_save_hint(value)}"
        )
        # END SOLUTION

    def _encode_quantized(self, value: QuantizedTensor) -> dict:
        node = {TYPE_KEY: QUANTIZED_TAG, "dtype": value.dtype.name, "qscheme": value.qscheme().name,
                "int_repr": {TYPE_KEY: "tensor", INDEX_KEY: self.tensor_index(value.int_repr())}}
        if value.qscheme().per_channel:
            node["scale"] = {TYPE_KEY: "tensor", INDEX_KEY: self.tensor_index(value.q_per_channel_scales())}
            node["zero_point"] = {TYPE_KEY: "tensor", INDEX_KEY: self.tensor_index(value.q_per_channel_zero_points())}
            node["axis"] = value.q_per_channel_axis()
        else:
            node["scale"] = value.q_scale()
            node["zero_point"] = value.q_zero_point()
        return node

    def _encode_key(self, key: Any, path: str, depth: int) -> Any:
        """A dict key: a number, string, None, or a tuple of those (at ``depth``, as the
        loader counts it)."""
        key_path = f"{path} (the key {key!r:.60})"
        try:
            hash(key)
        except TypeError:
            raise SerializationError(f"can't save {key_path}: an unhashable key") from None
        if isinstance(key, Tensor):
            raise SerializationError(f"can't save {key_path}: a tensor can't be a dict key in a checkpoint")
        return self.encode(key, key_path, depth)


def _fail(path: str, what: str) -> SerializationError:
    return SerializationError(f"malformed checkpoint at {path}: {what}")


def _int_field(node: dict, key: str, path: str) -> int:
    value = node.get(key)
    if type(value) is not int or value < 0:
        raise _fail(path, f"'{key}' must be a non-negative integer, got {value!r:.80}")
    return value


def _list_field(node: dict, key: str, path: str) -> list:
    value = node.get(key)
    if type(value) is not list:
        raise _fail(path, f"'{key}' must be a list, got {type(value).__name__}")
    return value


class TreeDecoder:
    """Rebuilds the Python object from its JSON form; ``tensor_at(index, path)`` supplies tensors."""

    def __init__(
        self, tensor_at: Callable[[int, str], Tensor], objects: ObjectDecoder | None = None,
        arrays: ArrayDecoder | None = None,
    ) -> None:
        self._tensor_at = tensor_at
        self._objects = objects
        self._arrays = arrays

    def decode(self, node: Any, path: str = ROOT_PATH, depth: int = 0) -> Any:
        if depth > MAX_NESTING:
            raise _fail(path, f"containers are nested deeper than {MAX_NESTING} levels")
        if type(node) in NATIVE_TYPES:
            return node
        if type(node) is not dict:
            raise _fail(path, f"expected a value or a tagged object, got a JSON {type(node).__name__}")
        tag = node.get(TYPE_KEY)
        if tag == "tensor":
            return self._tensor_at(_int_field(node, INDEX_KEY, path), path)
        if tag in ("list", "tuple"):
            items = [self.decode(v, child_path(path, i), depth + 1) for i, v in enumerate(_list_field(node, ITEMS_KEY, path))]
            return items if tag == "list" else tuple(items)
        if tag in ("dict", "odict"):
            return self._decode_dict(node, tag, path, depth)
        if tag == "dtype":
            name = node.get(NAME_KEY)
            if not isinstance(name, str) or name not in {**DTYPES_BY_NAME, **QUANTIZED_DTYPES_BY_NAME}:
                raise _fail(path, f"unknown dtype {name!r:.80}")
            return DTYPES_BY_NAME.get(name) or QUANTIZED_DTYPES_BY_NAME[name]
        if tag == QUANTIZED_TAG:
            return self._decode_quantized(node, path, depth)
        if tag == "device":
            return parse_device(node.get(NAME_KEY), path)
        if tag == "size":
            items = _list_field(node, ITEMS_KEY, path)
            if not all(type(s) is int and s >= 0 for s in items):
                raise _fail(path, "a Size holds non-negative integers")
            return Size(items)
        if tag == ARRAY_TAG and self._arrays is not None:
            return self._arrays.decode(node, path)
        if tag in (OBJECT_TAG, REF_TAG, SET_TAG) and self._objects is not None:
            return self._objects.decode(self, node, tag, path, depth)
        raise _fail(path, f"unknown type tag {tag!r:.80}")

    def _decode_quantized(self, node: dict, path: str, depth: int) -> QuantizedTensor:
        dtype = QUANTIZED_DTYPES_BY_NAME.get(node.get("dtype"))  # type: ignore[arg-type]
        if dtype is None:
            raise _fail(path, f"unknown quantized dtype {node.get('dtype')!r:.80}")
        try:
            scheme = named_qscheme(node.get("qscheme"))  # type: ignore[arg-type]
        except (ValueError, TypeError):
            raise _fail(path, f"unknown quantization scheme {node.get('qscheme')!r:.80}") from None
        parts = {}
        for key in ("int_repr", "scale", "zero_point"):
            if key not in node:
                raise _fail(path, f"a quantized tensor needs '{key}'")
            value = node[key]
            parts[key] = self.decode(value, f"{path} ({key})", depth + 1) if type(value) is dict else value
        if type(parts["scale"]) is bool or type(parts["zero_point"]) is bool:
            raise _fail(path, "a quantized tensor's scale and zero point are numbers, not booleans")
        axis = node.get("axis")
        if axis is not None and type(axis) is not int:
            raise _fail(path, f"'axis' must be an integer, got {axis!r:.80}")
        try:
            return quantized_from_parts(parts["int_repr"], dtype, scheme, parts["scale"], parts["zero_point"], axis)
        except (ValueError, TypeError) as error:
            raise _fail(path, f"a bad quantized tensor: {error}") from None

    def _decode_dict(self, node: dict, tag: str, path: str, depth: int) -> dict:
        out: dict = OrderedDict() if tag == "odict" else {}
        for pair in _list_field(node, ITEMS_KEY, path):
            if type(pair) is not list or len(pair) != 2:
                raise _fail(path, "dict items must be [key, value] pairs")
            key = self.decode(pair[0], f"{path} (a key)", depth + 1)
            try:
                hash(key)
            except TypeError:
                raise _fail(path, f"a dict key of type {type(key).__name__} can't be hashed") from None
            if isinstance(key, Tensor):
                raise _fail(path, "a tensor can't be a dict key")
            out[key] = self.decode(pair[1], child_path(path, key), depth + 1)
        return out


def parse_device(name: Any, path: str) -> device:
    """A device named in the file, or a SerializationError."""
    if not isinstance(name, str):
        raise _fail(path, f"a device name must be a string, got {type(name).__name__}")
    try:
        return device(name)
    except (RuntimeError, TypeError) as error:
        raise _fail(path, f"bad device {name!r:.80} ({error})") from None

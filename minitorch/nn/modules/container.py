"""Containers: modules that hold other modules or parameters and register them.

``Sequential`` chains children in order; ``ModuleList``/``ModuleDict`` are a list and a dict
whose entries are registered children (a plain Python list of modules would be invisible to
``parameters()``); ``ParameterList``/``ParameterDict`` do the same for parameters.
Children are registered under their position (``"0"``, ``"1"``, ...) or key.
"""

from __future__ import annotations

import operator
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from itertools import chain, islice
from typing import Any, Iterator, Optional, Union

from ...tensor import Tensor
from ..parameter import Parameter
from .module import Module, _addindent

__all__ = ["ModuleDict", "ModuleList", "ParameterDict", "ParameterList", "Sequential"]


def _absolute_index(index: Any, size: int) -> int:
    """``index`` as a position in ``[0, size)``; IndexError when out of range."""
    index = operator.index(index)
    if not -size <= index < size:
        raise IndexError(f"index {index} is out of range")
    return index % size if size else index


def _renumber(container: Module) -> None:
    """Re-key the children ``"0"``, ``"1"``, ... after a deletion."""
    modules = list(container._modules.values())
    container._modules.clear()
    container._modules.update((str(i), m) for i, m in enumerate(modules))


class Sequential(Module):
    """Runs its children in order, each on the previous one's output.

    ``Sequential(a, b, c)`` names them ``"0"``, ``"1"``, ``"2"``;
    ``Sequential(OrderedDict(name=module, ...))`` uses the given names.
    """

    def __init__(self, *args: Any) -> None:
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for name, module in args[0].items():
                self.add_module(name, module)
        else:
            for index, module in enumerate(args):
                self.add_module(str(index), module)

    def __getitem__(self, idx: Union[int, slice]) -> Union[Module, "Sequential"]:
        # BEGIN SOLUTION 4.5
        if isinstance(idx, slice):
            return type(self)(OrderedDict(list(self._modules.items())[idx]))
        position = _absolute_index(idx, len(self))
        return next(islice(self._modules.values(), position, None))
        # END SOLUTION

    def __setitem__(self, idx: int, module: Module) -> None:
        key = next(islice(self._modules.keys(), _absolute_index(idx, len(self)), None))
        setattr(self, key, module)

    def __delitem__(self, idx: Union[int, slice]) -> None:
        keys = list(self._modules.keys())
        doomed = keys[idx] if isinstance(idx, slice) else [keys[_absolute_index(idx, len(self))]]
        for key in doomed:
            delattr(self, key)
        _renumber(self)

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def __add__(self, other: "Sequential") -> "Sequential":
        if not isinstance(other, Sequential):
            raise ValueError(f"add operator supports only objects of Sequential class, but {type(other)} is given.")
        combined = Sequential()
        for module in chain(self, other):
            combined.append(module)
        return combined

    def __iadd__(self, other: "Sequential") -> "Sequential":
        if not isinstance(other, Sequential):
            raise ValueError(f"add operator supports only objects of Sequential class, but {type(other)} is given.")
        return self.extend(other)

    def __mul__(self, other: int) -> "Sequential":
        if not isinstance(other, int):
            raise TypeError(f"unsupported operand type(s) for *: {type(self)} and {type(other)}")
        if other <= 0:
            raise ValueError(f"Non-positive multiplication factor {other} for {type(self)}")
        combined = Sequential()
        for _ in range(other):
            combined.extend(self)
        return combined

    __rmul__ = __mul__

    def append(self, module: Module) -> "Sequential":
        """Add ``module`` at the end; returns ``self``."""
        self.add_module(str(len(self)), module)
        return self

    def insert(self, index: int, module: Module) -> "Sequential":
        """Put ``module`` before position ``index`` (negative counts from the end); returns ``self``."""
        if not isinstance(module, Module):
            raise AssertionError(f"module should be of type: {Module}")
        size = len(self)
        if not -size <= index <= size:
            raise IndexError(f"Index out of range: {index}")
        if index < 0:
            index += size
        for i in range(size, index, -1):
            self._modules[str(i)] = self._modules[str(i - 1)]
        self._modules[str(index)] = module
        return self

    def extend(self, modules: Iterable[Module]) -> "Sequential":
        """Append every module of ``modules``; returns ``self``."""
        for module in list(modules):
            self.append(module)
        return self

    def pop(self, key: Union[int, slice]) -> Any:
        value = self[key]
        del self[key]
        return value

    def forward(self, input: Any) -> Any:  # noqa: A002 - PyTorch's argument name
        # BEGIN SOLUTION 4.5
        for module in self:
            input = module(input)
        return input
        # END SOLUTION


class ModuleList(Module):
    """A list of registered child modules (indexing, slicing, append, extend, insert, pop)."""

    def __init__(self, modules: Optional[Iterable[Module]] = None) -> None:
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def __getitem__(self, idx: Union[int, slice]) -> Union[Module, "ModuleList"]:
        # BEGIN SOLUTION 4.5
        if isinstance(idx, slice):
            return type(self)(list(self._modules.values())[idx])
        return self._modules[str(_absolute_index(idx, len(self)))]
        # END SOLUTION

    def __setitem__(self, idx: int, module: Module) -> None:
        setattr(self, str(_absolute_index(idx, len(self))), module)

    def __delitem__(self, idx: Union[int, slice]) -> None:
        positions = range(len(self))[idx] if isinstance(idx, slice) else [_absolute_index(idx, len(self))]
        for position in positions:
            delattr(self, str(position))
        _renumber(self)

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def __iadd__(self, modules: Iterable[Module]) -> "ModuleList":
        return self.extend(modules)

    def __add__(self, other: Iterable[Module]) -> "ModuleList":
        combined = ModuleList()
        for index, module in enumerate(chain(self, other)):
            combined.add_module(str(index), module)
        return combined

    def insert(self, index: int, module: Module) -> None:
        """Put ``module`` before position ``index``, as ``list.insert`` does."""
        size = len(self)
        index = max(0, index + size) if index < 0 else min(index, size)
        for i in range(size, index, -1):
            self._modules[str(i)] = self._modules[str(i - 1)]
        self._modules[str(index)] = module

    def append(self, module: Module) -> "ModuleList":
        self.add_module(str(len(self)), module)
        return self

    def pop(self, key: Union[int, slice]) -> Any:
        value = self[key]
        del self[key]
        return value

    def extend(self, modules: Iterable[Module]) -> "ModuleList":
        if not isinstance(modules, Iterable):
            raise TypeError(f"ModuleList.extend should be called with an iterable, but got {type(modules).__name__}")
        offset = len(self)
        for index, module in enumerate(list(modules)):
            self.add_module(str(offset + index), module)
        return self

    def __repr__(self) -> str:
        """Runs of identical children print once: ``(0-2): 3 x Linear(...)``."""
        reprs = [repr(module) for module in self]
        if not reprs:
            return f"{self._get_name()}()"
        runs: list[list[Any]] = []  # [first index, last index, repr]
        for index, text in enumerate(reprs):
            if runs and runs[-1][2] == text:
                runs[-1][1] = index
            else:
                runs.append([index, index, text])
        lines = []
        for first, last, text in runs:
            line = f"({first}): {text}" if first == last else f"({first}-{last}): {last - first + 1} x {text}"
            lines.append(_addindent(line, 2))
        return f"{self._get_name()}(\n  " + "\n  ".join(lines) + "\n)"


class ModuleDict(Module):
    """An ordered dict of registered child modules."""

    def __init__(self, modules: Optional[Union[Mapping[str, Module], Iterable[tuple[str, Module]]]] = None) -> None:
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str) -> Module:
        return self._modules[key]

    def __setitem__(self, key: str, module: Module) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        del self._modules[key]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def __contains__(self, key: object) -> bool:
        return key in self._modules

    def clear(self) -> None:
        self._modules.clear()

    def pop(self, key: str) -> Module:
        value = self[key]
        del self[key]
        return value

    def keys(self) -> Iterable[str]:
        return self._modules.keys()

    def items(self) -> Iterable[tuple[str, Module]]:
        return self._modules.items()

    def values(self) -> Iterable[Module]:
        return self._modules.values()

    def update(self, modules: Union[Mapping[str, Module], Iterable[tuple[str, Module]]]) -> None:
        """Add the entries of a mapping (in its order) or of an iterable of ``(key, module)`` pairs."""
        if not isinstance(modules, Iterable):
            raise TypeError(f"ModuleDict.update should be called with an iterable of key/value pairs, but got {type(modules).__name__}")
        if isinstance(modules, (Mapping, ModuleDict)):
            for key, module in modules.items():
                self[key] = module
            return
        _update_from_pairs("ModuleDict", self, modules)


def _update_from_pairs(kind: str, container: Module, pairs: Iterable[Any]) -> None:
    """``container[key] = value`` for each ``(key, value)`` pair, refusing anything else as
    PyTorch does (its messages name the container ``kind``)."""
    for number, pair in enumerate(pairs):
        if not isinstance(pair, Iterable):
            raise TypeError(f"{kind} update sequence element #{number} should be Iterable; is{type(pair).__name__}")
        pair = tuple(pair)
        if len(pair) != 2:
            raise ValueError(f"{kind} update sequence element #{number} has length {len(pair)}; 2 is required")
        container[pair[0]] = pair[1]


def _parameter_line(name: Any, value: Any, dtype_text: str) -> str:
    """One line of a parameter container's repr."""
    if not isinstance(value, Tensor):
        return f"  ({name}): Object of type: {type(value).__name__}"
    size = "x".join(str(n) for n in value.shape)
    on_device = f" ({value.device})" if value.device.type != "cpu" else ""
    kind = "Parameter" if isinstance(value, Parameter) else "Tensor"
    return f"  ({name}): {kind} containing: [{dtype_text} of size {size}{on_device}]"


class ParameterList(Module):
    """A list of registered parameters; plain tensors appended are made Parameters."""

    def __init__(self, values: Optional[Iterable[Any]] = None) -> None:
        super().__init__()
        self._size = 0
        if values is not None:
            self.extend(values)

    def __getitem__(self, idx: Union[int, slice]) -> Any:
        if isinstance(idx, slice):
            out = type(self)()
            for position in range(len(self))[idx]:
                out.append(self[position])
            return out
        return getattr(self, str(_absolute_index(idx, len(self))))

    def __setitem__(self, idx: int, param: Any) -> None:
        position = _absolute_index(idx, len(self))
        self._store(str(position), param)

    def _store(self, name: str, param: Any) -> None:
        if isinstance(param, Tensor) and not isinstance(param, Parameter):
            param = Parameter(param)
        setattr(self, name, param)

    def __len__(self) -> int:
        return self._size

    def __iter__(self) -> Iterator[Any]:
        return (self[i] for i in range(len(self)))

    def __iadd__(self, values: Iterable[Any]) -> "ParameterList":
        return self.extend(values)

    def append(self, value: Any) -> "ParameterList":
        self._size += 1
        self._store(str(self._size - 1), value)
        return self

    def extend(self, values: Iterable[Any]) -> "ParameterList":
        if not isinstance(values, Iterable) or isinstance(values, Tensor):
            raise TypeError(f"ParameterList.extend should be called with an iterable, but got {type(values).__name__}")
        for value in values:
            self.append(value)
        return self

    def extra_repr(self) -> str:
        return "\n".join(_parameter_line(i, p, str(p.dtype) if isinstance(p, Tensor) else "") for i, p in enumerate(self))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("ParameterList should not be called.")


class ParameterDict(Module):
    """An ordered dict of registered parameters; plain tensors stored are made Parameters.

    A plain ``dict`` given to the constructor or ``update`` is added in sorted key order (as
    PyTorch does); an ``OrderedDict``, a ``ParameterDict`` or a list of pairs keeps its order.
    """

    def __init__(self, parameters: Any = None) -> None:
        super().__init__()
        self._keys: dict[str, None] = {}
        if parameters is not None:
            self.update(parameters)

    @staticmethod
    def _attribute(key: Any) -> str:
        if not isinstance(key, str):
            raise TypeError(
                "Index given to ParameterDict cannot be used as a key as it is not a string "
                f"(type is '{type(key).__name__}')."
            )
        return key

    def __getitem__(self, key: str) -> Any:
        return getattr(self, self._attribute(key))

    def __setitem__(self, key: str, value: Any) -> None:
        name = self._attribute(key)
        if isinstance(value, Tensor) and not isinstance(value, Parameter):
            value = Parameter(value)
        setattr(self, name, value)
        self._keys[key] = None

    def __delitem__(self, key: str) -> None:
        del self._keys[key]
        delattr(self, self._attribute(key))

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __reversed__(self) -> Iterator[str]:
        return reversed(list(self._keys))

    def __contains__(self, key: object) -> bool:
        return key in self._keys

    def keys(self) -> Iterable[str]:
        return self._keys.keys()

    def items(self) -> Iterator[tuple[str, Any]]:
        return ((k, self[k]) for k in self._keys)

    def values(self) -> Iterator[Any]:
        return (self[k] for k in self._keys)

    def get(self, key: str, default: Any = None) -> Any:
        return self[key] if key in self else default

    def setdefault(self, key: str, default: Any = None) -> Any:
        if key not in self:
            self[key] = default
        return self[key]

    def pop(self, key: str) -> Any:
        value = self[key]
        del self[key]
        return value

    def popitem(self) -> tuple[str, Any]:
        key = list(self._keys)[-1]
        return key, self.pop(key)

    def clear(self) -> None:
        for key in list(self._keys):
            del self[key]

    def copy(self) -> "ParameterDict":
        return ParameterDict(OrderedDict((k, self[k]) for k in self._keys))

    def update(self, parameters: Any) -> None:
        """Add the entries of a mapping or of an iterable of ``(key, value)`` pairs."""
        if not isinstance(parameters, Iterable):
            raise TypeError(
                f"ParametersDict.update should be called with an iterable of key/value pairs, but got {type(parameters).__name__}"
            )
        if isinstance(parameters, (OrderedDict, ParameterDict)):
            pairs: Iterable[Any] = list(parameters.items())
        elif isinstance(parameters, Mapping):
            pairs = sorted(parameters.items())
        else:
            pairs = parameters
        _update_from_pairs("ParameterDict", self, pairs)

    def __or__(self, other: "ParameterDict") -> "ParameterDict":
        combined = self.copy()
        combined.update(other)
        return combined

    def __ior__(self, other: "ParameterDict") -> "ParameterDict":
        self.update(other)
        return self

    def extra_repr(self) -> str:
        return "\n".join(
            _parameter_line(k, p, f"minitorch.{p.type_name()}" if isinstance(p, Tensor) else "") for k, p in self.items()
        )

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("ParameterDict should not be called.")

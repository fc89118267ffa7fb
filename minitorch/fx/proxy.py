"""``Proxy``: the stand-in value that records operations into a graph while tracing."""

from __future__ import annotations

import dis
import inspect
import operator
from typing import Any, Iterator

from .node import Node


class TraceError(ValueError):
    """Raised when tracing meets something a graph cannot record (data-dependent control flow)."""


class Proxy:
    """Wraps a ``Node``; every operation on it adds a node to the tracer's graph."""

    def __init__(self, node: Node, tracer: Any = None) -> None:
        self.node = node
        self.tracer = tracer

    def __repr__(self) -> str:
        return f"Proxy({self.node.name})"

    def __getattr__(self, attr: str) -> "Attribute":
        if attr.startswith("__") and attr.endswith("__"):
            raise AttributeError(attr)
        return Attribute(self, attr)

    def __call__(self, *args: Any, **kwargs: Any) -> "Proxy":
        return self.tracer.create_proxy("call_method", "__call__", (self,) + args, kwargs)

    def __getitem__(self, key: Any) -> "Proxy":
        return self.tracer.create_proxy("call_function", operator.getitem, (self, key), {})

    def __iter__(self) -> Iterator["Proxy"]:
        # `a, b = proxy` is fine: the caller's bytecode says how many items it unpacks
        frame = inspect.currentframe()
        caller = frame.f_back if frame is not None else None
        if caller is not None:
            for inst in dis.get_instructions(caller.f_code):
                if inst.offset == caller.f_lasti and inst.opname == "UNPACK_SEQUENCE":
                    return (self[i] for i in range(inst.argval))
        raise TraceError("Proxy object cannot be iterated. This can be attempted when the Proxy is used in a loop or as a *args or **kwargs function argument. See the torch.fx docs on pytorch.org for a more detailed explanation of what types of control flow can be traced, and check out the Proxy docstring for help troubleshooting Proxy iteration errors")

    def __bool__(self) -> bool:
        raise TraceError("symbolically traced variables cannot be used as inputs to control flow")

    def __len__(self) -> int:
        raise RuntimeError("'len' is not supported in symbolic tracing by default. If you want this call to be recorded, please call torch.fx.wrap('len') at module scope")

    def keys(self) -> "Proxy":
        return self.tracer.create_proxy("call_method", "keys", (self,), {})


class Attribute(Proxy):
    """``proxy.attr``: becomes a ``call_method`` when called, else a ``getattr`` node on first use."""

    def __init__(self, root: Proxy, attr: str) -> None:
        self.root = root
        self.attr = attr
        self.tracer = root.tracer
        self._node = None

    @property
    def node(self) -> Node:  # type: ignore[override]
        if self._node is None:
            self._node = self.tracer.create_proxy("call_function", getattr, (self.root, self.attr), {}).node
        return self._node

    def __call__(self, *args: Any, **kwargs: Any) -> Proxy:
        return self.tracer.create_proxy("call_method", self.attr, (self.root,) + args, kwargs)


_BINARY = ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and_", "or_", "xor",
           "lshift", "rshift", "eq", "ne", "lt", "le", "gt", "ge")
_UNARY = ("neg", "pos", "invert", "abs")


def _install_magic_methods() -> None:
    for name in _BINARY:
        fn = getattr(operator, name)
        dunder = name.rstrip("_")

        def forward(self: Proxy, other: Any, _fn: Any = fn) -> Proxy:
            return self.tracer.create_proxy("call_function", _fn, (self, other), {})

        def reflected(self: Proxy, other: Any, _fn: Any = fn) -> Proxy:
            return self.tracer.create_proxy("call_function", _fn, (other, self), {})

        setattr(Proxy, f"__{dunder}__", forward)
        if name not in ("eq", "ne", "lt", "le", "gt", "ge"):
            setattr(Proxy, f"__r{dunder}__", reflected)
    for name in _UNARY:
        def unary(self: Proxy, _fn: Any = getattr(operator, name)) -> Proxy:
            return self.tracer.create_proxy("call_function", _fn, (self,), {})
        setattr(Proxy, f"__{name}__", unary)
    Proxy.__hash__ = object.__hash__  # type: ignore[method-assign]


_install_magic_methods()

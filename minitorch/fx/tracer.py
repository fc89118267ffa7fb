"""``Tracer`` and ``symbolic_trace``: run ``forward`` on proxies and record a ``Graph``.

Top-level functions (``minitorch.relu``, ``F.relu`` ...) are recorded by swapping them, only for
the duration of a trace, for wrappers that record a ``call_function`` when an argument is a
``Proxy``; outside tracing nothing is wrapped, so there is no cost.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import sys
import types
from typing import Any, Callable, Iterator, Optional, Union

from ..nn import functional
from ..nn.modules.container import Sequential
from ..nn.modules.module import Module
from ..nn.parameter import Parameter
from ..tensor import Tensor
from .graph import Graph
from .node import Node
from .proxy import Proxy


def _has_proxy(value: Any) -> bool:
    if isinstance(value, Proxy):
        return True
    if isinstance(value, (tuple, list)):
        return any(_has_proxy(v) for v in value)
    if isinstance(value, dict):
        return any(_has_proxy(v) for v in value.values())
    return False


def _patchable_namespaces() -> list[types.ModuleType]:
    """The top-level package (already loaded: it is what imported us) and ``nn.functional``."""
    return [sys.modules[__name__.split(".")[0]], functional]


class Tracer:
    """Turns a module's ``forward`` into a ``Graph``; override ``is_leaf_module`` to change depth."""

    def __init__(self) -> None:
        self.graph = Graph()
        self.root: Module = Module()
        self._path_of_module: dict[int, str] = {}
        self._tensor_constants = 0

    def is_leaf_module(self, m: Module, module_qualified_name: str) -> bool:
        """Modules of the framework's ``nn`` (except ``Sequential``) are recorded, not traced into."""
        return type(m).__module__.startswith("minitorch.nn") and not isinstance(m, Sequential)

    def path_of_module(self, mod: Module) -> str:
        try:
            return self._path_of_module[id(mod)]
        except KeyError:
            raise NameError("module is not installed as a submodule") from None

    def create_node(self, kind: str, target: Any, args: tuple, kwargs: dict, name: Optional[str] = None,
                    type_expr: Any = None) -> Node:
        return self.graph.create_node(kind, target, args, kwargs, name, type_expr)

    def proxy(self, node: Node) -> Proxy:
        return Proxy(node, self)

    def create_proxy(self, kind: str, target: Any, args: tuple, kwargs: dict, name: Optional[str] = None,
                     type_expr: Any = None) -> Proxy:
        node = self.create_node(kind, target, self.create_arg(args), self.create_arg(kwargs), name, type_expr)
        return self.proxy(node)

    def create_arg(self, a: Any) -> Any:
        """Turn proxies into their nodes and tensors owned by the root into ``get_attr`` nodes."""
        if isinstance(a, Proxy):
            return a.node
        if isinstance(a, tuple):
            return tuple(self.create_arg(v) for v in a)
        if isinstance(a, list):
            return [self.create_arg(v) for v in a]
        if isinstance(a, dict):
            return {k: self.create_arg(v) for k, v in a.items()}
        if isinstance(a, Tensor):
            for name, value in list(self.root.named_parameters()) + list(self.root.named_buffers()):
                if value is a:
                    return self.create_node("get_attr", name, (), {})
            name = f"_tensor_constant{self._tensor_constants}"
            self._tensor_constants += 1
            setattr(self.root, name, a)
            return self.create_node("get_attr", name, (), {})
        return a

    def call_module(self, m: Module, forward: Callable, args: tuple, kwargs: dict) -> Any:
        """Record a leaf module as ``call_module``; trace into any other."""
        name = self.path_of_module(m)
        if not self.is_leaf_module(m, name):
            return forward(*args, **kwargs)
        return self.create_proxy("call_module", name, args, kwargs)

    def getattr(self, attr: str, attr_val: Any, parameter_proxy_cache: dict) -> Any:
        """A parameter read inside ``forward`` becomes a ``get_attr`` proxy."""
        if isinstance(attr_val, Parameter):
            for name, param in self.root.named_parameters():
                if param is attr_val:
                    if name not in parameter_proxy_cache:
                        parameter_proxy_cache[name] = self.create_proxy("get_attr", name, (), {})
                    return parameter_proxy_cache[name]
        return attr_val

    def trace(self, root: Union[Module, Callable], concrete_args: Optional[dict] = None) -> Graph:
        """Trace ``root`` and return its graph."""
        self.graph = Graph()
        if isinstance(root, Module):
            self.root, fn = root, type(root).forward
        else:
            self.root, fn = Module(), root
        self._path_of_module = {id(m): name for name, m in self.root.named_modules()}
        concrete_args = concrete_args or {}
        params = list(inspect.signature(fn).parameters.values())
        args: list[Any] = [self.root] if isinstance(root, Module) else []
        for param in params[len(args):]:
            if param.name in concrete_args:
                args.append(concrete_args[param.name])
            else:
                default = () if param.default is inspect.Parameter.empty else (param.default,)
                args.append(self.create_proxy("placeholder", param.name, default, {}))
        with self._patched():
            result = fn(*args)
        self.create_node("output", "output", (self.create_arg(result),), {})
        return self.graph

    @contextlib.contextmanager
    def _patched(self) -> Iterator[None]:
        tracer = self
        saved: list[tuple[Any, str, Any]] = []
        cache: dict = {}

        def record(fn: Callable) -> Callable:
            @functools.wraps(fn)
            def wrapper(*args: Any, **kwargs: Any) -> Any:
                if _has_proxy(args) or _has_proxy(kwargs):
                    return tracer.create_proxy("call_function", fn, args, kwargs)
                return fn(*args, **kwargs)
            return wrapper

        def module_call(module: Module, *args: Any, **kwargs: Any) -> Any:
            return tracer.call_module(module, module.forward, args, kwargs)

        def module_getattr(module: Module, name: str) -> Any:
            return tracer.getattr(name, original_getattr(module, name), cache)

        original_getattr = Module.__getattr__
        for namespace in _patchable_namespaces():
            for name, value in list(vars(namespace).items()):
                if isinstance(value, types.FunctionType) and not name.startswith("_"):
                    saved.append((namespace, name, value))
                    setattr(namespace, name, record(value))
        saved += [(Module, "__call__", Module.__call__), (Module, "__getattr__", original_getattr)]
        Module.__call__ = module_call  # type: ignore[method-assign]
        Module.__getattr__ = module_getattr  # type: ignore[method-assign]
        try:
            yield
        finally:
            for owner, name, value in reversed(saved):
                setattr(owner, name, value)


def symbolic_trace(root: Union[Module, Callable], concrete_args: Optional[dict] = None) -> Any:
    """Trace ``root`` with a ``Tracer`` and wrap the graph in a ``GraphModule``."""
    from .graph_module import GraphModule

    tracer = Tracer()
    graph = tracer.trace(root, concrete_args)
    name = type(root).__name__ if isinstance(root, Module) else root.__name__
    return GraphModule(tracer.root, graph, name)

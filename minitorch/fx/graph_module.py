"""``GraphModule``: a ``Module`` whose ``forward`` is generated from a ``Graph``."""

from __future__ import annotations

from typing import Any, Union

from ..nn.modules.module import Module
from .codegen import python_code
from .graph import Graph


def _fetch(root: Module, path: str) -> Any:
    value: Any = root
    for part in path.split("."):
        if not hasattr(value, part):
            raise RuntimeError(f"Node referenced nonexistent target {path}")
        value = getattr(value, part)
    return value


def _install(owner: Module, path: str, value: Any) -> None:
    *parents, leaf = path.split(".")
    for part in parents:
        if not hasattr(owner, part):
            owner.add_module(part, Module())
        owner = getattr(owner, part)
    setattr(owner, leaf, value)


def _remove(owner: Module, path: str) -> None:
    *parents, leaf = path.split(".")
    for part in parents:
        owner = getattr(owner, part)
    delattr(owner, leaf)


class GraphModule(Module):
    """Holds the submodules and tensors the graph's targets name; ``forward`` runs ``code``."""

    def __new__(cls, *args: Any, **kwargs: Any) -> "GraphModule":
        # one class per instance, so recompile() can set this instance's forward
        if cls is GraphModule:
            cls = type("GraphModuleImpl", (GraphModule,), {})
        return super().__new__(cls)

    def __init__(self, root: Union[Module, dict], graph: Graph, class_name: str = "GraphModule") -> None:
        super().__init__()
        type(self).__name__ = class_name
        for node in graph.nodes:
            if node.op in ("get_attr", "call_module"):
                source = root[node.target] if isinstance(root, dict) else _fetch(root, node.target)
                _install(self, node.target, source)
        self.graph = graph

    @property
    def graph(self) -> Graph:
        return self.__dict__["_graph"]

    @graph.setter
    def graph(self, g: Graph) -> None:
        self.__dict__["_graph"] = g
        g.owning_module = self
        self.recompile()

    @property
    def code(self) -> str:
        return self.__dict__["_code"]

    def recompile(self) -> str:
        """Regenerate ``code`` from ``graph`` and make it this module's ``forward``."""
        source, globals_ = python_code(self.graph)
        namespace: dict[str, Any] = dict(globals_)
        exec(compile(source, f"<eval_with_key>.{id(self)}", "exec"), namespace)  # noqa: S102
        self.__dict__["_code"] = source
        type(self).forward = namespace["forward"]
        return source

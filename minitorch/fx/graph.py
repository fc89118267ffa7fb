"""``Graph``: an ordered list of ``Node`` s with editing helpers (PyTorch's ``torch.fx.Graph``)."""

from __future__ import annotations

import builtins
import contextlib
import keyword
import re
from typing import Any, Iterator, Optional

from .node import Node, _target_str, map_arg

_IMPURE_OPS = ("placeholder", "output")
# names generated code must not shadow (PyTorch: `sum` node is named `sum_1`)
_RESERVED = frozenset(dir(builtins)) | frozenset(keyword.kwlist) | {"self"}


def _base_name(op: str, target: Any) -> str:
    """PyTorch's node naming: the target's last name, dots to underscores, snake case."""
    if op == "output":
        return "output"
    if isinstance(target, str):
        name = target.replace(".", "_")
    else:
        name = getattr(target, "__name__", "node")
    name = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower().strip("_") or "node"
    return "_" + name if name[0].isdigit() else name


class Graph:
    """The nodes of a traced program, in execution order."""

    def __init__(self) -> None:
        self._nodes: list[Node] = []
        self._used_names: set[str] = set()
        self._insert_at: Optional[int] = None  # None: append

    @property
    def nodes(self) -> list[Node]:
        """The nodes in order (a copy: editing the graph while iterating is safe)."""
        return list(self._nodes)

    def _unique(self, candidate: str) -> str:
        name, index = candidate, 0
        while name in self._used_names or name in _RESERVED:
            index += 1
            name = f"{candidate}_{index}"
        self._used_names.add(name)
        return name

    def create_node(self, op: str, target: Any, args: Optional[tuple] = None, kwargs: Optional[dict] = None,
                    name: Optional[str] = None, type_expr: Any = None) -> Node:
        """Insert a new node at the current insertion point."""
        node = Node(self, self._unique(name or _base_name(op, target)), op, target, args or (), kwargs or {})
        node.type = type_expr
        if self._insert_at is None:
            self._nodes.append(node)
        else:
            self._nodes.insert(self._insert_at, node)
            self._insert_at += 1
        return node

    @contextlib.contextmanager
    def _inserting_at(self, index: Optional[int]) -> Iterator[None]:
        saved, self._insert_at = self._insert_at, index
        try:
            yield
        finally:
            self._insert_at = saved

    def inserting_before(self, n: Optional[Node] = None) -> contextlib.AbstractContextManager:
        """New nodes go before ``n`` (before everything when ``n`` is None)."""
        return self._inserting_at(0 if n is None else self._nodes.index(n))

    def inserting_after(self, n: Optional[Node] = None) -> contextlib.AbstractContextManager:
        """New nodes go after ``n`` (at the end when ``n`` is None)."""
        return self._inserting_at(None if n is None else self._nodes.index(n) + 1)

    def placeholder(self, name: str, type_expr: Any = None, default_value: Any = ...) -> Node:
        args = () if default_value is ... else (default_value,)
        return self.create_node("placeholder", name, args, name=name, type_expr=type_expr)

    def get_attr(self, qualified_name: str, type_expr: Any = None) -> Node:
        return self.create_node("get_attr", qualified_name, type_expr=type_expr)

    def call_module(self, module_name: str, args: Optional[tuple] = None, kwargs: Optional[dict] = None,
                    type_expr: Any = None) -> Node:
        return self.create_node("call_module", module_name, args, kwargs, type_expr=type_expr)

    def call_method(self, method_name: str, args: Optional[tuple] = None, kwargs: Optional[dict] = None,
                    type_expr: Any = None) -> Node:
        return self.create_node("call_method", method_name, args, kwargs, type_expr=type_expr)

    def call_function(self, the_function: Any, args: Optional[tuple] = None, kwargs: Optional[dict] = None,
                      type_expr: Any = None) -> Node:
        return self.create_node("call_function", the_function, args, kwargs, type_expr=type_expr)

    def output(self, result: Any, type_expr: Any = None) -> Node:
        return self.create_node("output", "output", (result,), type_expr=type_expr)

    def erase_node(self, to_erase: Node) -> None:
        """Remove a node nobody reads."""
        if to_erase.users:
            raise RuntimeError(f"Tried to erase Node {to_erase} but it still had {len(to_erase.users)} users in the graph: {dict(to_erase.users)}!")
        to_erase._update_args_kwargs((), {})
        self._nodes.remove(to_erase)

    def node_copy(self, node: Node, arg_transform: Any = lambda n: n) -> Node:
        """Copy ``node`` (from any graph) here, mapping its inputs with ``arg_transform``."""
        return self.create_node(node.op, node.target, map_arg(node.args, arg_transform),
                                map_arg(node.kwargs, arg_transform), name=node.name)

    def eliminate_dead_code(self) -> bool:
        """Erase nodes without users (except placeholders and output); True if any was erased."""
        changed = False
        for node in reversed(self.nodes):
            if node.op not in _IMPURE_OPS and not node.users:
                self.erase_node(node)
                changed = True
        return changed

    def lint(self) -> None:
        """Check names are unique, ops known, inputs defined earlier in this graph."""
        seen: set[Node] = set()
        names: set[str] = set()
        for node in self._nodes:
            if node.graph is not self:
                raise RuntimeError(f"Node '{node}' does not belong to this Graph!")
            if node.name in names:
                raise RuntimeError(f"Node redefined name {node.name}!")
            for arg in node.all_input_nodes:
                if arg not in seen:
                    raise RuntimeError(f"Argument '{arg}' of Node '{node}' was used before it has been defined!")
            seen.add(node)
            names.add(node.name)

    def print_tabular(self) -> None:
        """Print ``opcode name target args kwargs`` per node (``tabulate``'s plain layout)."""
        headers = ["opcode", "name", "target", "args", "kwargs"]
        rows = [[n.op, n.name, _target_str(n.target), str(n.args), str(n.kwargs)] for n in self._nodes]
        widths = [max(len(row[i]) for row in [headers] + rows) for i in range(len(headers))]
        line = lambda cells: "  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()  # noqa: E731
        print("\n".join([line(headers), line(["-" * w for w in widths])] + [line(r) for r in rows]))

    def __str__(self) -> str:
        return "graph():\n" + "\n".join("    " + n.format_node() for n in self._nodes)

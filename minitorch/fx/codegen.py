"""Python source for a ``Graph``: what ``GraphModule.code`` shows and ``recompile`` runs."""

from __future__ import annotations

import operator
from typing import Any

from .graph import Graph
from .node import Node

_INFIX = {operator.add: "+", operator.sub: "-", operator.mul: "*", operator.truediv: "/",
          operator.floordiv: "//", operator.mod: "%", operator.pow: "**", operator.matmul: "@",
          operator.and_: "&", operator.or_: "|", operator.xor: "^", operator.lshift: "<<",
          operator.rshift: ">>", operator.eq: "==", operator.ne: "!=", operator.lt: "<",
          operator.le: "<=", operator.gt: ">", operator.ge: ">="}
_PREFIX = {operator.neg: "-", operator.pos: "+", operator.invert: "~"}


def _attr_path(path: str) -> str:
    expr = "self"
    for part in path.split("."):
        expr = f"{expr}.{part}" if part.isidentifier() else f"getattr({expr}, {part!r})"
    return expr


def python_code(graph: Graph) -> tuple[str, dict[str, Any]]:
    """The ``forward`` source of ``graph`` and the globals it needs."""
    globals_: dict[str, Any] = {}

    def global_name(obj: Any) -> str:
        base = getattr(obj, "__name__", "fn")
        module = getattr(obj, "__module__", "") or ""
        prefix = module.replace(".", "_").lstrip("_")
        name = f"{prefix}_{base}" if prefix else base
        while name in globals_ and globals_[name] is not obj:
            name += "_"
        globals_[name] = obj
        return name

    def fmt(value: Any) -> str:
        if isinstance(value, Node):
            return value.name
        if isinstance(value, tuple):
            inner = ", ".join(fmt(v) for v in value)
            return f"({inner},)" if len(value) == 1 else f"({inner})"
        if isinstance(value, list):
            return "[" + ", ".join(fmt(v) for v in value) + "]"
        if isinstance(value, dict):
            return "{" + ", ".join(f"{k!r}: {fmt(v)}" for k, v in value.items()) + "}"
        if isinstance(value, slice):
            return f"slice({fmt(value.start)}, {fmt(value.stop)}, {fmt(value.step)})"
        if value is Ellipsis:
            return "..."
        if isinstance(value, (int, float, bool, str, type(None))):
            return repr(value)
        return global_name(value)

    def call_args(args: tuple, kwargs: dict) -> str:
        return ", ".join([fmt(a) for a in args] + [f"{k} = {fmt(v)}" for k, v in kwargs.items()])

    params: list[str] = []
    body: list[str] = []
    for node in graph.nodes:
        if node.op == "placeholder":
            params.append(node.name if not node.args else f"{node.name} = {fmt(node.args[0])}")
            continue
        if node.op == "output":
            body.append(f"return {fmt(node.args[0])}")
            continue
        if node.op == "get_attr":
            expr = _attr_path(node.target)
        elif node.op == "call_module":
            expr = f"{_attr_path(node.target)}({call_args(node.args, node.kwargs)})"
        elif node.op == "call_method":
            expr = f"{fmt(node.args[0])}.{node.target}({call_args(node.args[1:], node.kwargs)})"
        elif node.target in _INFIX and len(node.args) == 2 and not node.kwargs:
            expr = f"{fmt(node.args[0])} {_INFIX[node.target]} {fmt(node.args[1])}"
        elif node.target in _PREFIX and len(node.args) == 1:
            expr = f"{_PREFIX[node.target]}{fmt(node.args[0])}"
        elif node.target is operator.getitem and len(node.args) == 2:
            expr = f"{fmt(node.args[0])}[{fmt(node.args[1])}]"
        elif node.target is getattr and len(node.args) == 2 and isinstance(node.args[1], str):
            expr = f"{fmt(node.args[0])}.{node.args[1]}"
        else:
            expr = f"{global_name(node.target)}({call_args(node.args, node.kwargs)})"
        body.append(f"{node.name} = {expr}")
    lines = [f"def forward(self, {', '.join(params)}):".replace("(self, )", "(self)")]
    lines += ["    " + line for line in body or ["pass"]]
    return "\n".join(lines) + "\n", globals_

"""``Node``: one operation of an FX ``Graph`` (PyTorch's ``torch.fx.Node``)."""

from __future__ import annotations

from typing import Any, Callable

OPCODES = ("placeholder", "get_attr", "call_function", "call_method", "call_module", "output")


def map_arg(value: Any, fn: Callable[["Node"], Any]) -> Any:
    """Apply ``fn`` to every ``Node`` inside nested tuples, lists and dicts of ``value``."""
    if isinstance(value, Node):
        return fn(value)
    if isinstance(value, tuple):
        return tuple(map_arg(item, fn) for item in value)
    if isinstance(value, list):
        return [map_arg(item, fn) for item in value]
    if isinstance(value, dict):
        return {key: map_arg(item, fn) for key, item in value.items()}
    return value


def _collect_nodes(value: Any) -> list["Node"]:
    found: list[Node] = []
    map_arg(value, found.append)
    return found


class Node:
    """A graph node: ``op``, ``target``, ``args``, ``kwargs``, a unique ``name`` and its users."""

    def __init__(self, graph: Any, name: str, op: str, target: Any, args: tuple, kwargs: dict) -> None:
        if op not in OPCODES:
            raise ValueError(f"Unknown opcode {op}")
        self.graph = graph
        self.name = name
        self.op = op
        self.target = target
        self.users: dict[Node, None] = {}
        self.meta: dict[str, Any] = {}
        self._args: tuple = ()
        self._kwargs: dict = {}
        self._update_args_kwargs(args, kwargs)

    def _update_args_kwargs(self, args: tuple, kwargs: dict) -> None:
        for old in self.all_input_nodes:
            old.users.pop(self, None)
        self._args, self._kwargs = tuple(args), dict(kwargs)
        for new in self.all_input_nodes:
            new.users.setdefault(self, None)

    @property
    def args(self) -> tuple:
        return self._args

    @args.setter
    def args(self, value: tuple) -> None:
        self._update_args_kwargs(value, self._kwargs)

    @property
    def kwargs(self) -> dict:
        return self._kwargs

    @kwargs.setter
    def kwargs(self, value: dict) -> None:
        self._update_args_kwargs(self._args, value)

    @property
    def all_input_nodes(self) -> list["Node"]:
        """The distinct nodes this node reads, in order of first use."""
        return list(dict.fromkeys(_collect_nodes((self._args, self._kwargs))))

    def replace_input_with(self, old_input: "Node", new_input: "Node") -> None:
        """Make this node read ``new_input`` wherever it read ``old_input``."""
        swap = lambda node: new_input if node is old_input else node  # noqa: E731
        self._update_args_kwargs(map_arg(self._args, swap), map_arg(self._kwargs, swap))

    def replace_all_uses_with(self, replace_with: "Node") -> list["Node"]:
        """Make every user of this node read ``replace_with`` instead; returns those users."""
        users = list(self.users)
        for user in users:
            user.replace_input_with(self, replace_with)
        return users

    def format_node(self) -> str:
        return f"%{self.name} : [num_users={len(self.users)}] = {self.op}[target={_target_str(self.target)}](args = {self._args}, kwargs = {self._kwargs})"

    def __repr__(self) -> str:
        return self.name


def _target_str(target: Any) -> str:
    """How ``print_tabular`` and ``format_node`` write a target."""
    if isinstance(target, str):
        return target
    module = getattr(target, "__module__", None)
    name = getattr(target, "__qualname__", getattr(target, "__name__", repr(target)))
    if module in (None, "builtins", "_operator", "operator"):
        return f"<built-in function {name}>" if module else name
    return f"<function {name}>"

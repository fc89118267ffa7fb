"""Nested containers of tensors (``torch.func``'s "pytrees"): flatten to a list of leaves and
rebuild the same structure around new leaves.

A tree is a tuple, list, dict or named tuple whose items are trees, or anything else (a leaf).
``vmap``'s ``in_dims`` and ``out_dims`` are read against a tree by :func:`broadcast_prefix`: an
``int`` or ``None`` where the tree has a whole subtree applies to each of its leaves.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, Callable, Optional


@dataclass(frozen=True)
class TreeSpec:
    """The shape of a tree without its leaves: a container's kind, its keys and its children.

    ``kind`` is None for a leaf; ``keys`` are a dict's keys in order (None for sequences).
    """

    kind: Optional[type]
    keys: Optional[tuple[Any, ...]]
    children: tuple["TreeSpec", ...]
    #: what rebuilding needs besides keys and children: a defaultdict's ``default_factory`` (not part
    #: of the structure: two defaultdicts with the same keys match whatever their factories)
    context: Any = field(default=None, compare=False)

    @property
    def num_leaves(self) -> int:
        return 1 if self.kind is None else sum(child.num_leaves for child in self.children)

    def describe(self) -> str:
        """The structure in words, for errors: ``(*, {'a': *})`` with ``*`` for each leaf."""
        if self.kind is None:
            return "*"
        inner = [child.describe() for child in self.children]
        if self.keys is not None:
            return "{" + ", ".join(f"{key!r}: {text}" for key, text in zip(self.keys, inner)) + "}"
        if self.kind is list:
            return "[" + ", ".join(inner) + "]"
        return "(" + ", ".join(inner) + ("," if len(inner) == 1 else "") + ")"


LEAF = TreeSpec(None, None, ())


def _children(tree: Any) -> Optional[tuple[Optional[tuple[Any, ...]], list[Any]]]:
    """``(keys, items)`` of a container, None for a leaf."""
    if isinstance(tree, dict):
        return tuple(tree.keys()), list(tree.values())
    if isinstance(tree, (tuple, list)):
        return None, list(tree)
    return None


def tree_flatten(tree: Any) -> tuple[list[Any], TreeSpec]:
    """The leaves of ``tree`` in order (dicts in their insertion order) and its structure."""
    leaves: list[Any] = []

    def walk(node: Any) -> TreeSpec:
        found = _children(node)
        if found is None:
            leaves.append(node)
            return LEAF
        keys, items = found
        context = node.default_factory if isinstance(node, defaultdict) else None
        return TreeSpec(type(node), keys, tuple(walk(item) for item in items), context)

    spec = walk(tree)
    return leaves, spec


def tree_unflatten(leaves: list[Any], spec: TreeSpec) -> Any:
    """The tree of structure ``spec`` holding ``leaves`` in order."""
    if len(leaves) != spec.num_leaves:
        raise ValueError(f"a tree of structure {spec.describe()} holds {spec.num_leaves} leaves, got {len(leaves)}")
    position = 0

    def build(node: TreeSpec) -> Any:
        nonlocal position
        if node.kind is None:
            position += 1
            return leaves[position - 1]
        items = [build(child) for child in node.children]
        if node.keys is not None:
            if issubclass(node.kind, defaultdict):
                return node.kind(node.context, zip(node.keys, items))
            return node.kind(zip(node.keys, items))
        if node.kind is list:
            return items
        if issubclass(node.kind, tuple) and hasattr(node.kind, "_fields"):
            return node.kind(*items)
        return node.kind(items)

    return build(spec)


def tree_map(function: Callable[[Any], Any], tree: Any) -> Any:
    """``tree`` with ``function`` applied to each leaf."""
    leaves, spec = tree_flatten(tree)
    return tree_unflatten([function(leaf) for leaf in leaves], spec)


def broadcast_prefix(prefix: Any, tree: Any) -> Optional[list[Any]]:
    """One entry of ``prefix`` per leaf of ``tree``, or None when ``prefix`` is not a prefix of it.

    ``prefix`` has ``tree``'s structure down to some depth; an ``int`` or ``None`` in it stands for
    every leaf below that point (``in_dims=(0, None)`` against ``(dict_of_tensors, x)``). Any other
    leaf of ``prefix`` is broadcast the same way, for the caller to reject with its own message.
    As in PyTorch, the kinds of dict (``dict``, ``OrderedDict``, ``defaultdict``) match each other.
    """
    found: list[Any] = []

    def walk(part: Any, node: Any) -> bool:
        part_children, node_children = _children(part), _children(node)
        if part_children is None:  # a leaf of the prefix (the caller checks it is an int or None)
            found.extend([part] * tree_flatten(node)[1].num_leaves)
            return True
        if node_children is None:
            return False
        both_dicts = isinstance(part, dict) and isinstance(node, dict)  # dict, OrderedDict, defaultdict
        if type(part) is not type(node) and not both_dicts:
            return False
        (part_keys, part_items), (node_keys, node_items) = part_children, node_children
        if len(part_items) != len(node_items):
            return False
        if part_keys is not None and set(part_keys) != set(node_keys or ()):
            return False
        if part_keys is not None:
            lookup = dict(zip(part_keys, part_items))
            part_items = [lookup[key] for key in node_keys or ()]
        return all(walk(p, n) for p, n in zip(part_items, node_items))

    return found if walk(prefix, tree) else None

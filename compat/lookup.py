"""Look a torch name up in this checkout's minitorch (no torch needed)."""

from __future__ import annotations

import importlib
import inspect
from typing import Any, Optional

MISSING = object()


def resolve(name: str) -> Any:
    """The minitorch object for a dotted ``torch.`` name, or MISSING."""
    parts = name.split(".")
    obj: Any = importlib.import_module("minitorch")
    for depth, part in enumerate(parts[1:], start=1):
        if hasattr(obj, part):
            obj = getattr(obj, part)
            continue
        try:  # a submodule not imported by its package
            obj = importlib.import_module("minitorch." + ".".join(parts[1:depth + 1]))
        except ImportError:
            return MISSING
    return obj


def accepts(obj: Any, keyword: str) -> Optional[bool]:
    """Whether a callable takes this keyword (None when its signature cannot be read)."""
    target = obj.__init__ if inspect.isclass(obj) else obj
    try:
        params = inspect.signature(target).parameters.values()
    except (TypeError, ValueError):
        return None
    return any(p.kind is p.VAR_KEYWORD or p.name == keyword for p in params)

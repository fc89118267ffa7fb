"""Handles that remove a registered hook."""

from __future__ import annotations

import itertools
import weakref
from typing import Any, MutableMapping, Optional


class RemovableHandle:
    """Returned by every ``register_*hook``: ``handle.remove()`` unregisters the hook.

    Hooks live in dicts keyed by the handle's ``id``, so removing one while the hooks are
    being iterated (from inside a hook) is safe for the callers that iterate a copy. Also a
    context manager: the hook is removed when the ``with`` block ends.
    """

    _next_id = itertools.count()

    def __init__(self, hooks_dict: MutableMapping[int, Any], *, extra_dict: Optional[MutableMapping[int, Any] | list] = None) -> None:
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = next(RemovableHandle._next_id)
        extras = extra_dict if isinstance(extra_dict, list) else ([extra_dict] if extra_dict is not None else [])
        self.extra_dict_refs = tuple(weakref.ref(d) for d in extras)

    def remove(self) -> None:
        """Unregister the hook; removing twice is harmless."""
        for ref in (self.hooks_dict_ref, *self.extra_dict_refs):
            hooks = ref()
            if hooks is not None:
                hooks.pop(self.id, None)

    def __getstate__(self) -> tuple:
        """The dicts themselves, not weak references: a deep-copied module's handle (a lazy module keeps
        its hook's) then removes from the copy's dicts."""
        return self.hooks_dict_ref(), self.id, tuple(ref() for ref in self.extra_dict_refs)

    def __setstate__(self, state: tuple) -> None:
        hooks, self.id, extras = state
        self.hooks_dict_ref = _weak(hooks)
        self.extra_dict_refs = tuple(_weak(d) for d in extras)

    def __enter__(self) -> "RemovableHandle":
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()

    def __repr__(self) -> str:
        return f"RemovableHandle(id={self.id})"


def _gone() -> None:
    """Stands for the weak reference of a hooks dict that was gone before the handle was copied."""
    return None


def _weak(hooks: Optional[MutableMapping[int, Any]]) -> Any:
    return weakref.ref(hooks) if hooks is not None else _gone

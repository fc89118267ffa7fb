"""The allowlist of classes that ``minitorch.load`` may rebuild from a whole-object checkpoint.

PyTorch's names: :func:`add_safe_globals`, :func:`get_safe_globals`, :func:`clear_safe_globals`
and the context manager :class:`safe_globals`. An entry is a class, or a pair ``(class, path)``
when files name the class by another import path (it was moved or renamed); NumPy's
``_reconstruct`` (or ``numpy.ndarray``) allows NumPy arrays. Loading looks a
file's class path up in this list (and in minitorch's own classes): it never imports a module
or looks a name up in one, so a file can only name classes the program already holds.
"""

from __future__ import annotations

import threading
from typing import Any, Callable, Iterable, Optional, Union

SafeGlobal = Union[type, tuple[type, str], Callable[..., Any]]  # the callable: NumPy's _reconstruct

_LOCK = threading.Lock()
_ALLOWED: list[SafeGlobal] = []


def class_path(cls: type) -> str:
    """The import path a file names ``cls`` by: ``package.module.QualName``."""
    return f"{cls.__module__}.{cls.__qualname__}"


def is_numpy_reconstruct(entry: Any) -> bool:
    """Whether ``entry`` is NumPy's ``_reconstruct``, the global PyTorch's message asks to allow for arrays."""
    return (callable(entry) and getattr(entry, "__name__", None) == "_reconstruct"
            and str(getattr(entry, "__module__", "")).startswith("numpy"))


def _checked(entry: Any) -> SafeGlobal:
    if isinstance(entry, type) or is_numpy_reconstruct(entry):
        return entry
    if (isinstance(entry, tuple) and len(entry) == 2 and isinstance(entry[0], type) and isinstance(entry[1], str)):
        return entry
    raise TypeError(
        f"add_safe_globals expects classes or (class, 'module.Name') pairs, got {type(entry).__name__}: {entry!r:.80}"
    )


def add_safe_globals(safe_globals: Iterable[SafeGlobal]) -> None:
    """Allow ``minitorch.load`` to rebuild objects of these classes (for this process)."""
    entries = [_checked(entry) for entry in safe_globals]
    with _LOCK:
        _ALLOWED.extend(entry for entry in entries if entry not in _ALLOWED)


def get_safe_globals() -> list[SafeGlobal]:
    """The entries added by :func:`add_safe_globals` (a copy)."""
    with _LOCK:
        return list(_ALLOWED)


def clear_safe_globals() -> None:
    """Forget every entry added by :func:`add_safe_globals`."""
    with _LOCK:
        _ALLOWED.clear()


def allowed_classes() -> dict[str, type]:
    """The allowlist as a map from the path a file names a class by to the class."""
    with _LOCK:
        entries = list(_ALLOWED)
    found: dict[str, type] = {}
    for entry in entries:
        if isinstance(entry, tuple):
            cls, path = entry
        elif isinstance(entry, type):
            cls, path = entry, class_path(entry)
        else:  # NumPy's _reconstruct: it allows arrays (see minitorch.serialization.arrays), not a class
            continue
        found[path] = cls
    return found


class safe_globals:  # noqa: N801 - PyTorch's name
    """``with safe_globals([Net]):`` allows ``Net`` inside the block only (the list is restored after)."""

    def __init__(self, safe_globals: Iterable[SafeGlobal]) -> None:
        self._entries = [_checked(entry) for entry in safe_globals]
        self._saved: Optional[list[SafeGlobal]] = None

    def __enter__(self) -> "safe_globals":
        self._saved = get_safe_globals()
        add_safe_globals(self._entries)
        return self

    def __exit__(self, *exc_info: Any) -> None:
        with _LOCK:
            _ALLOWED[:] = self._saved or []

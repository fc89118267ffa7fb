"""NumPy's spelling of PyTorch keywords that PyTorch also accepts (``axis=`` for ``dim=``).

Tutorials written by NumPy users call ``counts.sum(axis=1, keepdims=True)`` or
``torch.cat(parts, axis=0)``; PyTorch's argument parser takes NumPy's names for four of its
parameters in every op it binds: ``axis`` for ``dim``, ``keepdims`` for ``keepdim``, ``x``,
``a`` or ``x1`` for ``input`` and ``x2`` for ``other``. :func:`accepts_numpy_names` gives a
function the same aliases, for the parameters it has.
"""

from __future__ import annotations

import functools
import inspect
from typing import Any, Callable, TypeVar

F = TypeVar("F", bound=Callable[..., Any])

#: PyTorch's parameter name -> the NumPy names its argument parser also accepts for it
NUMPY_NAMES: dict[str, tuple[str, ...]] = {
    "dim": ("axis",),
    "keepdim": ("keepdims",),
    "input": ("x", "a", "x1"),
    "other": ("x2",),
}


def _aliases_of(signature: inspect.Signature) -> dict[str, str]:
    """``{numpy_name: parameter}`` for the parameters of ``signature`` that have NumPy names."""
    parameters = signature.parameters
    return {
        alias: name
        for name, aliases in NUMPY_NAMES.items()
        if name in parameters
        for alias in aliases
        if alias not in parameters
    }


def _with_aliases(signature: inspect.Signature, aliases: dict[str, str]) -> inspect.Signature:
    """``signature`` with each alias added as a keyword-only parameter (for ``help`` and ``inspect``)."""
    parameters = list(signature.parameters.values())
    var_keyword = [p for p in parameters if p.kind is inspect.Parameter.VAR_KEYWORD]
    named = [p for p in parameters if p.kind is not inspect.Parameter.VAR_KEYWORD]
    extra = [inspect.Parameter(alias, inspect.Parameter.KEYWORD_ONLY, default=None) for alias in aliases]
    return signature.replace(parameters=named + extra + var_keyword)


def accepts_numpy_names(function: F) -> F:
    """Let ``function`` take NumPy's names (``axis``, ``keepdims``, ...) for its PyTorch parameters."""
    signature = inspect.signature(function)
    aliases = _aliases_of(signature)
    if not aliases:
        return function

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if kwargs:
            for alias in aliases.keys() & kwargs.keys():
                name = aliases[alias]
                if name in kwargs:
                    raise TypeError(f"{function.__name__}() got both {name} and {alias}, which name one argument")
                kwargs[name] = kwargs.pop(alias)
        return function(*args, **kwargs)

    wrapper.__signature__ = _with_aliases(signature, aliases)  # type: ignore[attr-defined]
    return wrapper  # type: ignore[return-value]


def give_numpy_names(namespace: dict[str, Any]) -> None:
    """Give every public function of a module's ``namespace`` NumPy's names (the top-level ops)."""
    for name, value in list(namespace.items()):
        if not name.startswith("_") and inspect.isfunction(value):
            namespace[name] = accepts_numpy_names(value)

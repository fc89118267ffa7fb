"""NumPy's spelling of PyTorch keywords that PyTorch also accepts (``keepdims`` for ``keepdim``).

Tutorials written by NumPy users call ``counts.sum(1, keepdims=True)``; PyTorch's argument
parser takes both names for its reductions, so these functions do too.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


def accepts_keepdims(function: F) -> F:
    """Let ``function`` take ``keepdims=`` as another name for its ``keepdim`` argument."""

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if "keepdims" in kwargs:
            if "keepdim" in kwargs:
                raise TypeError(f"{function.__name__}() got both keepdim and keepdims, which name one argument")
            kwargs["keepdim"] = kwargs.pop("keepdims")
        return function(*args, **kwargs)

    return wrapper  # type: ignore[return-value]

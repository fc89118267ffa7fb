"""Whether operations record the graph for backward: ``no_grad`` and friends.

Each works as a context manager and as a decorator, as in PyTorch.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, TypeVar

F = TypeVar("F", bound=Callable[..., Any])

_grad_enabled = True


def is_grad_enabled() -> bool:
    """True when new operations record how to differentiate them."""
    return _grad_enabled


def _set_enabled(mode: bool) -> None:
    global _grad_enabled
    _grad_enabled = bool(mode)


class _GradModeContext:
    """Sets grad mode on entry, restores the previous mode on exit; also a decorator.

    Subclasses say which mode they want in :meth:`_target`; ``_args`` rebuilds a fresh
    context for each call of a decorated function.
    """

    _args: tuple[Any, ...] = ()

    def __init__(self) -> None:
        self._previous: list[bool] = []

    def _target(self) -> bool:
        raise NotImplementedError

    def __enter__(self) -> None:
        self._previous.append(is_grad_enabled())
        _set_enabled(self._target())

    def __exit__(self, *exc: object) -> None:
        _set_enabled(self._previous.pop())

    def __call__(self, fn: F) -> F:
        make = type(self)
        args = self._args

        @functools.wraps(fn)
        def wrapper(*call_args: Any, **call_kwargs: Any) -> Any:
            with make(*args):
                return fn(*call_args, **call_kwargs)

        return wrapper  # type: ignore[return-value]


class no_grad(_GradModeContext):  # noqa: N801
    """Disable gradient recording in the block or decorated function."""

    def _target(self) -> bool:
        return False


class enable_grad(_GradModeContext):  # noqa: N801
    """Enable gradient recording, e.g. inside a ``no_grad`` block."""

    def _target(self) -> bool:
        return True


class inference_mode(_GradModeContext):  # noqa: N801
    """Like ``no_grad``; ``inference_mode(False)`` leaves the mode as it is."""

    def __init__(self, mode: bool = True) -> None:
        super().__init__()
        self._args = (mode,)
        self.mode = mode

    def _target(self) -> bool:
        return False if self.mode else is_grad_enabled()


class set_grad_enabled(_GradModeContext):  # noqa: N801
    """Set grad mode to ``mode``: at once when called, and back when its ``with`` block ends."""

    def __init__(self, mode: bool) -> None:
        super().__init__()
        self._args = (mode,)
        self._previous.append(is_grad_enabled())
        _set_enabled(mode)

    def __enter__(self) -> None:
        pass

    def __call__(self, fn: F) -> F:
        # used as a decorator: the mode applies to calls of ``fn`` only
        _set_enabled(self._previous.pop())
        return super().__call__(fn)

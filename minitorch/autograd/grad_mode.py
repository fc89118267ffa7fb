"""Whether operations record the graph for backward: ``no_grad`` and friends.

Each works as a context manager and as a decorator, as in PyTorch. The mode belongs to the
thread that sets it: a ``no_grad`` block in one thread leaves every other thread recording,
and a new thread starts with grad enabled whatever mode the thread that started it is in.
"""

from __future__ import annotations

import functools
import threading
from typing import Any, Callable, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


class GradMode:
    """One thread's grad mode: a mutable box, so a hot path looks the thread up once per op."""

    __slots__ = ("enabled",)

    def __init__(self) -> None:
        self.enabled = True


class _PerThread(threading.local):
    """Per-thread state; ``__init__`` runs once in each thread that touches it."""

    def __init__(self) -> None:
        self.grad_mode = GradMode()  # every thread starts with grad enabled
        self.inference_modes: list[bool] = []  # the open ``inference_mode`` blocks' modes, innermost last


#: ``per_thread.grad_mode`` is the calling thread's :class:`GradMode` (``Function.apply``
#: reads it directly); the object is never replaced, so modules may bind it at import
per_thread = _PerThread()


def is_grad_enabled() -> bool:
    """True when new operations in this thread record how to differentiate them."""
    return per_thread.grad_mode.enabled


def is_inference_mode_enabled() -> bool:
    """True inside an ``inference_mode()`` block of this thread (not one of ``inference_mode(False)``)."""
    modes = per_thread.inference_modes
    return bool(modes) and modes[-1]


def _set_enabled(mode: bool) -> None:
    per_thread.grad_mode.enabled = bool(mode)


class _GradModeContext:
    """Sets grad mode on entry, restores the previous mode on exit; also a decorator.

    Subclasses say which mode they want in :meth:`_target`; ``_args`` rebuilds a fresh
    context for each call of a decorated function. The modes to restore are kept per thread,
    so one context object may be entered by several threads at once (and nested in one).
    """

    _args: tuple[Any, ...] = ()

    def __init__(self) -> None:
        self._previous: dict[int, list[bool]] = {}

    def _target(self) -> bool:
        raise NotImplementedError

    def _save_mode(self) -> None:
        self._previous.setdefault(threading.get_ident(), []).append(is_grad_enabled())

    def _restore_mode(self) -> None:
        thread = threading.get_ident()
        saved = self._previous[thread]
        _set_enabled(saved.pop())
        if not saved:
            del self._previous[thread]

    def __enter__(self) -> None:
        self._save_mode()
        _set_enabled(self._target())

    def __exit__(self, *exc: object) -> None:
        self._restore_mode()

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

    def __enter__(self) -> None:
        super().__enter__()
        per_thread.inference_modes.append(bool(self.mode))

    def __exit__(self, *exc: object) -> None:
        per_thread.inference_modes.pop()
        super().__exit__(*exc)


class set_grad_enabled(_GradModeContext):  # noqa: N801
    """Set grad mode to ``mode``: at once when called, and back when its ``with`` block ends."""

    def __init__(self, mode: bool) -> None:
        super().__init__()
        self._args = (mode,)
        self._save_mode()
        _set_enabled(mode)

    def __enter__(self) -> None:
        pass

    def __call__(self, fn: F) -> F:
        # used as a decorator: the mode applies to calls of ``fn`` only
        self._restore_mode()
        return super().__call__(fn)

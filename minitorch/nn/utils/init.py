"""``skip_init``: build a module without spending time initialising its parameters."""

from __future__ import annotations

import contextlib
import inspect
from typing import Any, Callable, Iterator

from .. import init as nn_init


def _keep(tensor: Any, *args: Any, **kwargs: Any) -> Any:
    """An in-place initialiser that leaves ``tensor`` as it is."""
    return tensor


@contextlib.contextmanager
def _initialisers_disabled() -> Iterator[None]:
    """Make every in-place ``nn.init`` function (``name_``) a no-op for the block."""
    saved: dict[str, Callable[..., Any]] = {
        name: value for name, value in vars(nn_init).items()
        if name.endswith("_") and not name.startswith("_") and callable(value)
    }
    try:
        for name in saved:
            setattr(nn_init, name, _keep)
        yield
    finally:
        for name, value in saved.items():
            setattr(nn_init, name, value)


def skip_init(module_cls: type, *args: Any, **kwargs: Any) -> Any:
    """``module_cls(*args, **kwargs)`` with its parameters and buffers left uninitialised.

    Like PyTorch, the class must accept a ``device`` argument (the sign that it creates its
    tensors through the factory functions). The values are unspecified, so fill them
    before use (for example with ``load_state_dict``).
    """
    from ..modules import Module

    if not isinstance(module_cls, type) or not issubclass(module_cls, Module):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    with _initialisers_disabled():
        return module_cls(*args, **kwargs)


__all__ = ["skip_init"]

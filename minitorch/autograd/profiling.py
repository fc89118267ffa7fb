"""Where a running profiler listens: the op path costs nothing extra when none runs.

``minitorch.profiler`` sits above autograd. While a profile is taken it calls :func:`install`:
``Function.apply`` is swapped for one that times each op as an event (and calls the original),
and the backward engine, which tests :data:`active` once per node, times each node's backward.
:func:`uninstall` puts the original ``apply`` back, so outside a profile every op runs exactly
the code it runs without a profiler.
"""

from __future__ import annotations

from typing import Any, Optional

#: the recorder of the profile being taken, or None; it has ``op(function, args, run)`` and
#: ``backward(node_name, run)``, each running ``run()`` inside a timed event and returning its result
active: Optional[Any] = None
_original_apply: Optional[Any] = None


def install(recorder: Any) -> None:
    """Send every op and every backward node to ``recorder`` until :func:`uninstall`."""
    global active, _original_apply
    from .function import Function

    if active is not None:
        raise RuntimeError("Profiler is already enabled on this thread")
    original = Function.__dict__["apply"]

    def recorded_apply(cls: type, *args: Any, **kwargs: Any) -> Any:
        return recorder.op(cls, args, lambda: original.__func__(cls, *args, **kwargs))

    _original_apply = original
    Function.apply = classmethod(recorded_apply)  # type: ignore[method-assign,assignment]
    active = recorder


def uninstall() -> None:
    """Stop recording: the original ``Function.apply`` again."""
    global active, _original_apply
    from .function import Function

    if _original_apply is not None:
        Function.apply = _original_apply  # type: ignore[method-assign]
    active, _original_apply = None, None

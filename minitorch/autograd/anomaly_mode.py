r"""Anomaly mode: find the forward operation behind an error in backward.

While it is on (``detect_anomaly()``, ``set_detect_anomaly(True)``):

1. every node keeps, in ``grad_fn.metadata["traceback_"]``, the traceback of the forward
   call that made it, and a node made while another node's backward ran (a double
   backward's graph) keeps that node as ``metadata["parent_"]``;
2. when a node's backward (or one of its hooks) raises, the engine warns
   ``Error detected in MulBackward0. Traceback of forward call that caused the error: ...``
   (and one warning for each parent) before the error goes on;
3. with ``check_nan``, a node whose backward returns a gradient containing NaN raises
   ``Function 'SqrtBackward0' returned nan values in its 0th output.``

As in PyTorch the mode is one flag for the whole process, not per thread. Off, it costs one
test of :data:`anomaly` per node made, and two tests of locals per node in backward. On, the
engine tells this module, per thread, which node's backward runs (:func:`running_node`).
"""

from __future__ import annotations

import os
import sys
import threading
import traceback
import warnings
from typing import TYPE_CHECKING, Any, Optional, Sequence

from ..dispatch import tensor_class
from .grad_mode import no_grad

if TYPE_CHECKING:
    from .function import Node

ENABLED_WARNING = ("Anomaly Detection has been enabled. This mode will increase the runtime "
                   "and should only be enabled for debugging.")


class AnomalyMode:
    """The process's anomaly mode: a mutable box, so a hot path reads it with one attribute lookup."""

    __slots__ = ("enabled", "check_nan")

    def __init__(self) -> None:
        self.enabled = False
        self.check_nan = True


#: read by ``Node.__init__`` and the engine; the object is never replaced
anomaly = AnomalyMode()


def is_anomaly_enabled() -> bool:
    """Whether anomaly mode is on."""
    return anomaly.enabled


def is_anomaly_check_nan_enabled() -> bool:
    """Whether anomaly mode, when on, raises on a NaN gradient."""
    return anomaly.check_nan


def _type_name(value: Any) -> str:
    kind = type(value)
    return kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}"


def set_anomaly_enabled(enabled: bool, check_nan: bool = True) -> None:
    """Turn anomaly mode on or off (PyTorch's ``torch.set_anomaly_enabled``: Python bools only)."""
    for position, (name, value) in enumerate((("enabled", enabled), ("check_nan", check_nan)), start=1):
        if type(value) is not bool:
            raise TypeError(f"set_anomaly_enabled(): argument '{name}' (position {position}) must be bool, "
                            f"not {_type_name(value)}")
    anomaly.enabled, anomaly.check_nan = enabled, check_nan


class detect_anomaly:  # noqa: N801
    """Context manager that turns anomaly mode on in its block (see the module's docstring).

    Warns when made, as PyTorch does: the mode slows every op and backward node. Like
    PyTorch's it is not a decorator, and the mode it restores is the one it found when made.
    """

    def __init__(self, check_nan: bool = True) -> None:
        self.prev = is_anomaly_enabled()
        self.check_nan = check_nan
        self.prev_check_nan = is_anomaly_check_nan_enabled()
        warnings.warn(ENABLED_WARNING, stacklevel=2)

    def __enter__(self) -> None:
        set_anomaly_enabled(True, self.check_nan)

    def __exit__(self, *args: object) -> None:
        set_anomaly_enabled(self.prev, self.prev_check_nan)


class set_detect_anomaly:  # noqa: N801
    """Set anomaly mode to ``mode`` at once; as a context manager, restore the previous mode
    when its block ends."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev = is_anomaly_enabled()
        self.prev_check_nan = is_anomaly_check_nan_enabled()
        set_anomaly_enabled(mode, check_nan)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *args: object) -> None:
        set_anomaly_enabled(self.prev, self.prev_check_nan)


class _RunningNode(threading.local):
    """The node whose backward (or hook) this thread runs now, in its innermost backward pass;
    the engine sets it only while anomaly mode is on."""

    node: "Optional[Node]" = None


_running = _RunningNode()


def running_node() -> "Optional[Node]":
    """The node whose backward this thread is running (None outside backward, or with the mode off)."""
    return _running.node


def set_running_node(node: "Optional[Node]") -> None:
    _running.node = node


_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
#: minitorch code a traceback keeps: layers are written on top of ops, as PyTorch's are
_LAYERS = os.path.join(_PACKAGE, "nn") + os.sep


def _is_op_machinery(filename: str) -> bool:
    return filename.startswith(_PACKAGE) and not filename.startswith(_LAYERS)


def record_forward(node: "Node") -> None:
    """Keep in ``node.metadata`` the traceback of the code that made it and the node whose
    backward was running then (``Node.__init__`` calls this while the mode is on).

    The traceback ends at the last frame outside minitorch's op machinery (``Tensor``, ops,
    autograd, dispatch): the user's line, or the layer's, that called the op.
    """
    frame = sys._getframe(1)
    while frame is not None and _is_op_machinery(frame.f_code.co_filename):
        frame = frame.f_back
    stack = traceback.extract_stack(frame if frame is not None else sys._getframe(1))
    metadata = node.metadata
    metadata["traceback_"] = traceback.format_list(stack)
    parent = running_node()
    if parent is not None:
        metadata["parent_"] = parent


def _forward_call(node: "Node", is_parent: bool) -> str:
    trace = node.metadata.get("traceback_")
    if trace is None:
        return (f"Error detected in {node.name()}. No forward pass information available. "
                "Enable detect anomaly during forward pass for more information.")
    if is_parent:
        return (f"\n\nPrevious calculation was induced by {node.name()}. "
                f"Traceback of forward call that induced the previous calculation:\n{''.join(trace)}")
    return f"Error detected in {node.name()}. Traceback of forward call that caused the error:\n{''.join(trace)}"


def report_error(node: "Node") -> None:
    """Warn where ``node``, whose backward just raised, and each node that made it were made."""
    warnings.warn(_forward_call(node, False))
    parent = node.metadata.get("parent_")
    while parent is not None:
        warnings.warn(_forward_call(parent, True))
        parent = parent.metadata.get("parent_")


def check_nan(node: "Node", grads: Sequence[Optional[Any]]) -> None:
    """Raise PyTorch's error if one of the gradients ``node`` returned contains NaN."""
    tensor = tensor_class()
    with no_grad():
        for index, grad in enumerate(grads):
            if isinstance(grad, tensor) and grad.dtype.is_floating_point and bool(grad.isnan().any()):
                raise RuntimeError(f"Function '{node.name()}' returned nan values in its {index}th output.")

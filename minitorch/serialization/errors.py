"""The one exception type that serialization raises for a bad file or an unsavable object."""

from __future__ import annotations


class SerializationError(RuntimeError):
    """A file that can't be loaded (malformed, truncated, hostile, wrong version) or an
    object that can't be saved (a type outside the supported set).

    The message says what is wrong and, for objects, where inside the saved tree
    (e.g. ``obj['optimizer']['state'][0]``). A subclass of :class:`RuntimeError`, the type
    PyTorch raises for a bad checkpoint.
    """

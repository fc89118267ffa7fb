"""The exception types that serialization raises for a bad file or an unsavable object."""

from __future__ import annotations

import pickle


class SerializationError(RuntimeError):
    """A file that can't be loaded (malformed, truncated, hostile, wrong version) or an
    object that can't be saved (a type outside the supported set).

    The message says what is wrong and, for objects, where inside the saved tree
    (e.g. ``obj['optimizer']['state'][0]``). A subclass of :class:`RuntimeError`, the type
    PyTorch raises for a bad checkpoint.
    """


class UnpicklingError(SerializationError, pickle.UnpicklingError):
    """A ``weights_only=True`` load refused (a class or array the allowlist lacks).

    PyTorch raises :class:`pickle.UnpicklingError` there, and programs catch it by that name;
    minitorch's files are not pickles, but the refusal is the same, so it is one of both types.
    """

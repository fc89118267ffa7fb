"""Utilities: hook handles and data loading (``utils.data``)."""

from . import data, hooks

__all__ = ["data", "hooks"]

"""Utilities: hook handles (and, in later steps, data loading)."""

from . import hooks

__all__ = ["hooks"]

"""Utilities: hook handles, data loading (``utils.data``), activation checkpointing (``utils.checkpoint``) and
timing (``utils.benchmark``)."""

from . import benchmark, checkpoint, data, hooks

__all__ = ["benchmark", "checkpoint", "data", "hooks"]

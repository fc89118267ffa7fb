"""Reproducibility switches as PyTorch scripts set them: ``use_deterministic_algorithms`` and the
debug mode built on it.

minitorch's kernels are deterministic already (no atomics race on the CPU), so these flags only
record what the script asked for and report it back, with PyTorch's argument checks and errors.
"""

from __future__ import annotations

import builtins
from typing import Union


class _Flags:
    """The process-wide switches (PyTorch keeps them in one global context as well)."""

    deterministic = False
    warn_only = False


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """Ask for deterministic algorithms (``mode=True``); ``warn_only`` would warn instead of raise."""
    for name, position, value in (("mode", 1, mode), ("warn_only", 2, warn_only)):
        if not isinstance(value, builtins.bool):
            raise TypeError(f"_set_deterministic_algorithms(): argument '{name}' (position {position}) "
                            f"must be bool, not {type(value).__name__}")
    _Flags.deterministic = mode
    _Flags.warn_only = warn_only


def are_deterministic_algorithms_enabled() -> bool:
    """Whether :func:`use_deterministic_algorithms` last turned them on."""
    return _Flags.deterministic


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    """Whether they were turned on with ``warn_only=True``."""
    return _Flags.warn_only


_DEBUG_MODES = {"default": 0, "warn": 1, "error": 2}


def set_deterministic_debug_mode(debug_mode: Union[int, str]) -> None:
    """``0``/``"default"``: off; ``1``/``"warn"``: on, warn only; ``2``/``"error"``: on."""
    if not isinstance(debug_mode, (builtins.int, str)):
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    if isinstance(debug_mode, str):
        if debug_mode not in _DEBUG_MODES:
            raise RuntimeError("invalid value of debug_mode, expected one of `default`, "
                               f"`warn`, `error`, but got {debug_mode}")
        debug_mode = _DEBUG_MODES[debug_mode]
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}")
    use_deterministic_algorithms(debug_mode != 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode() -> int:
    """The debug mode the flags amount to: 0 off, 1 warn only, 2 error."""
    if not _Flags.deterministic:
        return 0
    return 1 if _Flags.warn_only else 2

"""The option list of a module's ``extra_repr``, PyTorch's way: only what differs from the default."""

from __future__ import annotations

from typing import Any


def changed_options(module: Any, defaults: dict[str, Any]) -> str:
    """``", name=value"`` for each option of ``module`` whose value is not its default, in order.

    ``changed_options(lstm, {"num_layers": 1, "bias": True})`` is ``", num_layers=2"`` for a
    two-layer LSTM with bias.
    """
    return "".join(f", {name}={getattr(module, name)}" for name, default in defaults.items()
                   if getattr(module, name) != default)

"""Quantized modules (``torch.ao.nn.quantized``); the dynamic ones are in :mod:`.dynamic`."""

from . import dynamic

__all__ = ["dynamic"]

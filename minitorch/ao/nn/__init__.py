"""Modules of model optimisation (``torch.ao.nn``)."""

from . import quantized

__all__ = ["quantized"]

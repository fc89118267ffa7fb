"""Model optimisation (``torch.ao``): quantization."""

from . import nn, quantization

__all__ = ["nn", "quantization"]

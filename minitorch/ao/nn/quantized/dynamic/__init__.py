"""Dynamic quantized modules (``torch.ao.nn.quantized.dynamic``): int8 weights, activations
quantized per batch."""

from .linear import Linear, LinearPackedParams

__all__ = ["Linear", "LinearPackedParams"]

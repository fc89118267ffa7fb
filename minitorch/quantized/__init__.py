"""Quantized tensors (``quantize_per_tensor``, ``quantize_per_channel``, ``dequantize``) and the
int8 kernels they feed. The modules and the model conversion (``quantize_dynamic``) live in
:mod:`minitorch.ao`, under PyTorch's names."""

from .qscheme import (
    ALL_QSCHEMES, per_channel_affine, per_channel_affine_float_qparams, per_channel_symmetric, per_tensor_affine,
    per_tensor_symmetric, qscheme,
)
from .qtensor import QuantizedTensor, dequantize, quantize_per_channel, quantize_per_tensor

__all__ = [
    "ALL_QSCHEMES", "QuantizedTensor", "dequantize", "per_channel_affine", "per_channel_affine_float_qparams",
    "per_channel_symmetric", "per_tensor_affine", "per_tensor_symmetric", "qscheme", "quantize_per_channel",
    "quantize_per_tensor",
]

"""Quantizing models (``torch.ao.quantization``): observers, QConfigs and ``quantize_dynamic``."""

from .observer import (
    MinMaxObserver, ObserverBase, PerChannelMinMaxObserver, PlaceholderObserver, default_dynamic_quant_observer,
    default_observer, default_per_channel_weight_observer, default_weight_observer,
)
from .qconfig import QConfig, default_dynamic_qconfig, per_channel_dynamic_qconfig
from .quantize import convert, get_default_dynamic_quant_module_mappings, propagate_qconfig_, quantize_dynamic, swap_module

__all__ = [
    "MinMaxObserver", "ObserverBase", "PerChannelMinMaxObserver", "PlaceholderObserver", "QConfig", "convert",
    "default_dynamic_qconfig", "default_dynamic_quant_observer", "default_observer",
    "default_per_channel_weight_observer", "default_weight_observer", "get_default_dynamic_quant_module_mappings",
    "per_channel_dynamic_qconfig", "propagate_qconfig_", "quantize_dynamic", "swap_module",
]

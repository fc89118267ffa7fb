"""The dynamic quantized ``Linear`` (``torch.ao.nn.quantized.dynamic.Linear``).

Its weight is stored as qint8 (a quarter of float32's bytes) and its forward pass quantizes
each batch of activations to quint8 on the fly and multiplies integers
(:mod:`minitorch.quantized.dynamic_linear`). It is for inference: it has no parameters to
train, and its output carries no gradient.

The state dict is PyTorch's: ``scale``, ``zero_point`` (unused by dynamic quantization, kept
for the format), ``_packed_params.dtype`` and ``_packed_params._packed_params``, the tuple
``(quantized weight, bias)``.
"""

from __future__ import annotations

from typing import Any, Mapping, Optional

from ..... import dtypes
from .....creation import tensor, zeros
from .....nn.modules.module import Module
from .....quantized.dynamic_linear import PackedWeight, linear_dynamic
from .....quantized.qtensor import QuantizedTensor, quantize_per_channel, quantize_per_tensor
from .....tensor import Tensor

#: the state dict format of LinearPackedParams: ``dtype`` and ``_packed_params`` keys
PACKED_PARAMS_VERSION = 3
#: the state dict format of Linear: activations quantized with reduce_range
LINEAR_VERSION = 4


class LinearPackedParams(Module):
    """Holds a quantized Linear's weight (packed for the int8 kernel) and its float bias."""

    _version = PACKED_PARAMS_VERSION

    def __init__(self, dtype: dtypes.dtype = dtypes.qint8) -> None:
        super().__init__()
        if dtype is not dtypes.qint8:
            raise NotImplementedError(f"minitorch's quantized Linear stores qint8 weights, got dtype {dtype}")
        self.dtype = dtype
        self.set_weight_bias(quantize_per_tensor(zeros(1, 1), 1.0, 0, dtypes.qint8), None)  # type: ignore[arg-type]

    def set_weight_bias(self, weight: QuantizedTensor, bias: Optional[Tensor]) -> None:
        if not isinstance(weight, QuantizedTensor):
            raise TypeError(f"the weight of a quantized Linear must be a quantized tensor, got {type(weight).__name__}")
        if bias is not None and (not isinstance(bias, Tensor) or bias.shape != (weight.shape[0],)):
            shape = tuple(bias.shape) if isinstance(bias, Tensor) else type(bias).__name__
            raise RuntimeError(f"the bias of a quantized Linear with {weight.shape[0]} outputs must be a float "
                               f"tensor of shape ({weight.shape[0]},), got {shape}")
        # plain attributes, as PyTorch's packed parameters are opaque: the bias (often the float
        # model's Parameter) must not become a parameter of this module
        object.__setattr__(self, "_packed_params", PackedWeight(weight))
        object.__setattr__(self, "_bias", bias)

    def _weight_bias(self) -> tuple[QuantizedTensor, Optional[Tensor]]:
        return self._packed_params.weight, self._bias

    def forward(self, x: Any) -> Any:
        return x

    def _save_to_state_dict(self, destination: Any, prefix: str, keep_vars: bool) -> None:
        super()._save_to_state_dict(destination, prefix, keep_vars)
        destination[prefix + "dtype"] = self.dtype
        destination[prefix + "_packed_params"] = self._weight_bias()

    def _load_from_state_dict(self, state_dict: Any, prefix: str, local_metadata: dict, strict: bool,
                              missing_keys: list[str], unexpected_keys: list[str], error_msgs: list[str]) -> None:
        for name in ("dtype", "_packed_params"):
            if prefix + name not in state_dict:
                missing_keys.append(prefix + name)
        if prefix + "dtype" in state_dict:
            self.dtype = state_dict.pop(prefix + "dtype")
        if prefix + "_packed_params" in state_dict:
            packed = state_dict.pop(prefix + "_packed_params")
            try:
                weight, bias = packed
                self.set_weight_bias(weight, bias)
            except (TypeError, ValueError, RuntimeError) as error:
                error_msgs.append(f"While loading {prefix}_packed_params, a (quantized weight, bias) pair: {error}")
        super()._load_from_state_dict(state_dict, prefix, local_metadata, False, missing_keys, unexpected_keys,
                                      error_msgs)


class Linear(Module):
    """``y = x W^T + b`` with a qint8 weight and activations quantized per batch (quint8)."""

    _version = LINEAR_VERSION

    def __init__(self, in_features: int, out_features: int, bias_: bool = True, dtype: dtypes.dtype = dtypes.qint8) -> None:
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        weight = quantize_per_tensor(zeros(out_features, in_features), 1.0, 0, dtypes.qint8)
        self._packed_params = LinearPackedParams(dtype)
        self._packed_params.set_weight_bias(weight, zeros(out_features) if bias_ else None)  # type: ignore[arg-type]
        self.scale = 1.0
        self.zero_point = 0

    def forward(self, x: Tensor) -> Tensor:
        packed = self._packed_params
        return linear_dynamic(x, packed._packed_params, packed._bias, reduce_range=True)

    def weight(self) -> QuantizedTensor:
        return self._packed_params._weight_bias()[0]

    def bias(self) -> Optional[Tensor]:
        return self._packed_params._weight_bias()[1]

    def set_weight_bias(self, weight: QuantizedTensor, bias: Optional[Tensor]) -> None:
        self._packed_params.set_weight_bias(weight, bias)

    def _get_name(self) -> str:
        return "DynamicQuantizedLinear"

    def extra_repr(self) -> str:
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"dtype={self._packed_params.dtype}, qscheme={self.weight().qscheme()}")

    def _repr_children(self) -> list[tuple[str, Module]]:
        """``repr`` leaves out the packed weight, as PyTorch's does."""
        return [(name, child) for name, child in self._modules.items() if not isinstance(child, LinearPackedParams)]

    def _save_to_state_dict(self, destination: Any, prefix: str, keep_vars: bool) -> None:
        super()._save_to_state_dict(destination, prefix, keep_vars)
        destination[prefix + "scale"] = tensor(self.scale)
        destination[prefix + "zero_point"] = tensor(self.zero_point)

    def _load_from_state_dict(self, state_dict: Any, prefix: str, local_metadata: dict, strict: bool,
                              missing_keys: list[str], unexpected_keys: list[str], error_msgs: list[str]) -> None:
        for name, convert in (("scale", float), ("zero_point", int)):
            if prefix + name in state_dict:
                setattr(self, name, convert(state_dict.pop(prefix + name)))
            else:
                missing_keys.append(prefix + name)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, False, missing_keys, unexpected_keys,
                                      error_msgs)

    @classmethod
    def from_float(cls, mod: Module, use_precomputed_fake_quant: bool = False) -> "Linear":
        """The quantized twin of a float ``nn.Linear``: its weight observed and quantized with
        ``mod.qconfig.weight`` (the default: qint8, symmetric, one scale), its bias kept in float."""
        from ....quantization.qconfig import default_dynamic_qconfig

        qconfig = getattr(mod, "qconfig", None) or default_dynamic_qconfig
        observer = qconfig.weight()
        if observer.dtype is not dtypes.qint8:
            raise NotImplementedError(f"dynamic quantized Linear supports qint8 weights, the qconfig asks for {observer.dtype}")
        weight = mod.weight.detach().float()
        observer(weight)
        scales, zero_points = observer.calculate_qparams()
        if observer.qscheme.per_channel:
            qweight = quantize_per_channel(weight, scales.double(), zero_points.long(), 0, dtypes.qint8)
        else:
            qweight = quantize_per_tensor(weight, float(scales.item()), int(zero_points.item()), dtypes.qint8)
        quantized = cls(mod.in_features, mod.out_features, dtype=observer.dtype)
        quantized.set_weight_bias(qweight, mod.bias)
        return quantized

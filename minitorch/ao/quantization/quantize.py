"""``quantize_dynamic``: a copy of a model whose ``Linear`` layers compute in int8.

As PyTorch does it: each module gets a ``qconfig`` (by its type or its name in
``qconfig_spec``, else its parent's), every module whose type has a quantized counterpart in
``mapping`` and a ``qconfig`` is replaced by that counterpart's ``from_float(module)``, and the
``qconfig`` attributes are removed again. Forward pre-hooks and forward hooks move to the
replacement.
"""

from __future__ import annotations

import copy
from typing import Any, Mapping, Optional, Union

from ... import dtypes
from ...nn.modules.module import Module
from ...nn.modules.linear import Linear
from ...nn.modules.rnn import GRU, LSTM
from ...nn.modules.rnn_cell import GRUCell, LSTMCell, RNNCell
from ..nn.quantized.dynamic import Linear as DynamicQuantizedLinear
from .qconfig import QConfig, default_dynamic_qconfig

#: the float modules quantize_dynamic replaces, and their replacements
DEFAULT_DYNAMIC_QUANT_MODULE_MAPPINGS: dict[type, type] = {Linear: DynamicQuantizedLinear}
#: what PyTorch quantizes when no qconfig_spec is given; minitorch has int8 versions of Linear only
_DEFAULT_DYNAMIC_TYPES = (Linear, LSTM, GRU, LSTMCell, RNNCell, GRUCell)


def get_default_dynamic_quant_module_mappings() -> dict[type, type]:
    return dict(DEFAULT_DYNAMIC_QUANT_MODULE_MAPPINGS)


def _spec_as_dict(qconfig_spec: Any, dtype: dtypes.dtype) -> dict[Any, Optional[QConfig]]:
    if dtype is not dtypes.qint8:
        raise NotImplementedError(f"quantize_dynamic supports dtype=minitorch.qint8 only, got {dtype}")
    if qconfig_spec is None:
        return dict.fromkeys(_DEFAULT_DYNAMIC_TYPES, default_dynamic_qconfig)
    if isinstance(qconfig_spec, (set, frozenset, list, tuple)):
        return dict.fromkeys(qconfig_spec, default_dynamic_qconfig)
    if isinstance(qconfig_spec, Mapping):
        return dict(qconfig_spec)
    raise TypeError(f"qconfig_spec must be a set of module types or names, or a dict of them to QConfigs; "
                    f"got {type(qconfig_spec).__name__}")


def propagate_qconfig_(module: Module, qconfig_dict: Optional[Mapping[Any, Optional[QConfig]]] = None) -> None:
    """Give each module a ``qconfig``: its name's entry, else its type's, else its parent's."""
    spec = dict(qconfig_dict or {})

    def visit(m: Module, inherited: Optional[QConfig], prefix: str) -> None:
        chosen = spec.get(type(m), inherited)
        chosen = spec.get(prefix, chosen)
        m.qconfig = chosen
        for name, child in m.named_children():
            visit(child, chosen, f"{prefix}.{name}" if prefix else name)

    visit(module, None, "")


def swap_module(module: Module, mapping: Mapping[type, type]) -> Module:
    """``mapping[type(module)].from_float(module)`` with its forward hooks, or ``module`` itself."""
    if getattr(module, "qconfig", None) is None or type(module) not in mapping:
        return module
    swapped = mapping[type(module)].from_float(module)
    for handle_id, hook in module._forward_pre_hooks.items():
        swapped._forward_pre_hooks[handle_id] = hook
    for handle_id, hook in module._forward_hooks.items():
        swapped._forward_hooks[handle_id] = hook
    return swapped


def convert(module: Module, mapping: Optional[Mapping[type, type]] = None, inplace: bool = False) -> Module:
    """Replace every module that has a ``qconfig`` and a counterpart in ``mapping``."""
    mapping = get_default_dynamic_quant_module_mappings() if mapping is None else mapping
    if not inplace:
        module = copy.deepcopy(module)
    for name, child in list(module.named_children()):
        convert(child, mapping, inplace=True)
        module._modules[name] = swap_module(child, mapping)
    return module


def _remove_qconfig(module: Module) -> None:
    for m in module.modules():
        if "qconfig" in m.__dict__:
            del m.__dict__["qconfig"]


def _refuse_unsupported(model: Module, spec: Mapping[Any, Optional[QConfig]], mapping: Mapping[type, type]) -> None:
    """Fail, naming the module, where PyTorch would quantize a module minitorch can't."""
    requested = {key for key, value in spec.items() if isinstance(key, type) and value is not None}
    for name, m in model.named_modules():
        if type(m) in requested and type(m) not in mapping:
            raise NotImplementedError(
                f"quantize_dynamic: minitorch has no dynamic quantized {type(m).__name__} (module '{name}'); "
                f"it quantizes {', '.join(t.__name__ for t in mapping)} only: pass qconfig_spec={{nn.Linear}}"
            )


def quantize_dynamic(model: Module, qconfig_spec: Union[set, Mapping, None] = None, dtype: dtypes.dtype = dtypes.qint8,
                     mapping: Optional[Mapping[type, type]] = None, inplace: bool = False) -> Module:
    """A copy of ``model`` (or ``model`` itself with ``inplace=True``), in eval mode, whose
    ``nn.Linear`` layers are int8 dynamic quantized ``Linear`` modules.

    ``qconfig_spec``: a set of module types or names to quantize, or a dict of them to
    QConfigs (``per_channel_dynamic_qconfig`` for one weight scale per output feature).
    """
    spec = _spec_as_dict(qconfig_spec, dtype)
    mapping = get_default_dynamic_quant_module_mappings() if mapping is None else mapping
    _refuse_unsupported(model, spec, mapping)
    if not inplace:
        model = copy.deepcopy(model)
    model.eval()
    propagate_qconfig_(model, spec)
    convert(model, mapping, inplace=True)
    _remove_qconfig(model)
    return model

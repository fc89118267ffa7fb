r"""Weight normalisation by a forward pre-hook (``nn.utils.weight_norm``), PyTorch's older API.

``weight_norm(module)`` writes a weight as a length times a direction (Salimans and Kingma, 2016),

.. math:: w = g\,\frac{v}{\lVert v \rVert},

with the norm taken over every dimension but ``dim`` (one length per output row with the
default ``dim=0``; over the whole weight with ``dim=None``). As in PyTorch the parameter
``<name>`` is replaced by the parameters ``<name>_g`` and ``<name>_v``, and ``module.<name>``
becomes a plain attribute that the hook recomputes before every forward. PyTorch deprecates
this API for :func:`.parametrizations.weight_norm`, which loads the state dicts it writes.
"""

from __future__ import annotations

import warnings
from typing import Any, Optional, TypeVar

from ...tensor import Tensor
from ..modules.module import Module
from ..parameter import Parameter, UninitializedParameter
from .parametrizations import norm_except_dim, weight_from_parts
from .spectral_norm import find_hook

ModuleT = TypeVar("ModuleT", bound=Module)

#: the suffixes of the length and the direction parameters
LENGTH, DIRECTION = "_g", "_v"
DEPRECATION = ("`torch.nn.utils.weight_norm` is deprecated in favor of "
               "`torch.nn.utils.parametrizations.weight_norm`.")


class WeightNorm:
    """The forward pre-hook: sets ``module.<name>`` to ``<name>_g * <name>_v / ||<name>_v||``."""

    def __init__(self, name: str, dim: Optional[int]) -> None:
        self.name = name
        self.dim = -1 if dim is None else dim

    def compute_weight(self, module: Module) -> Tensor:
        return weight_from_parts(getattr(module, self.name + LENGTH), getattr(module, self.name + DIRECTION), self.dim)

    @staticmethod
    def apply(module: Module, name: str, dim: Optional[int]) -> "WeightNorm":
        warnings.warn(DEPRECATION, FutureWarning, stacklevel=3)
        if find_hook(module._forward_pre_hooks, WeightNorm, name) is not None:
            raise RuntimeError(f"Cannot register two weight_norm hooks on the same parameter {name}")
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        if isinstance(weight, UninitializedParameter):
            raise ValueError("The module passed to `WeightNorm` can't have uninitialized parameters. "
                             "Make sure to run the dummy forward before applying weight normalization")
        del module._parameters[name]
        module.register_parameter(name + LENGTH, Parameter(norm_except_dim(weight, 2, fn.dim).data))
        module.register_parameter(name + DIRECTION, Parameter(weight.data))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module: Module) -> None:
        """``module.<name>`` a parameter again, holding the current weight."""
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + LENGTH]
        del module._parameters[self.name + DIRECTION]
        setattr(module, self.name, Parameter(weight.data))

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module: ModuleT, name: str = "weight", dim: Optional[int] = 0) -> ModuleT:
    """Recompute ``module.<name>`` from a length ``<name>_g`` and a direction ``<name>_v`` before every forward."""
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module: ModuleT, name: str = "weight") -> ModuleT:
    """Undo :func:`weight_norm`: ``module.<name>`` a parameter holding the current weight."""
    key = find_hook(module._forward_pre_hooks, WeightNorm, name)
    if key is None:
        raise ValueError(f"weight_norm of '{name}' not found in {module}")
    module._forward_pre_hooks[key].remove(module)
    del module._forward_pre_hooks[key]
    return module


__all__ = ["WeightNorm", "remove_weight_norm", "weight_norm"]

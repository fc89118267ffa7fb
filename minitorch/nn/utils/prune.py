r"""Pruning, with PyTorch's names, attributes and ``state_dict`` keys.

Pruning ``module.weight`` moves the parameter to ``weight_orig``, keeps a 0/1 buffer
``weight_mask`` and registers the method as a forward pre-hook that recomputes
``module.weight = weight_orig * weight_mask`` before every forward, so gradients reach
``weight_orig`` only where the mask is 1. Pruning the same tensor again gathers the methods in
a :class:`PruningContainer`, each new mask computed on the weights the earlier ones kept.
:func:`remove` makes the pruning permanent: ``weight`` becomes a parameter again, holding the
pruned values. ``amount`` is a count (int) or a fraction (float, rounded as
:math:`\mathrm{round}(\text{amount} \cdot n)`).
"""

from __future__ import annotations

import numbers
from abc import ABC, abstractmethod
from typing import Any, Iterable, Optional, Union

from ...creation import cat, ones_like, rand_like, zeros_like
from ...tensor import Tensor
from ..modules.module import Module

Amount = Union[int, float]


def _validate_amount(amount: Amount) -> None:
    if not isinstance(amount, numbers.Real):
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    if (isinstance(amount, numbers.Integral) and amount < 0) or (
            not isinstance(amount, numbers.Integral) and (float(amount) > 1.0 or float(amount) < 0.0)):
        raise ValueError(f"amount={amount} should either be a float in the range [0, 1] or a non-negative integer")


def _count_to_prune(amount: Amount, size: int) -> int:
    """How many of ``size`` units ``amount`` prunes (a ValueError when more than there are)."""
    count = int(amount) if isinstance(amount, numbers.Integral) else round(float(amount) * size)
    if isinstance(amount, numbers.Integral) and amount > size:
        raise ValueError(f"amount={amount} should be smaller than the number of parameters to prune={size}")
    return count


def _channel_dim(t: Tensor, dim: int) -> int:
    if not -t.dim() <= dim < t.dim():
        raise IndexError(f"Invalid index {dim} for tensor of size {list(t.shape)}")
    return dim % t.dim()


class BasePruningMethod(ABC):
    """A way to choose a mask; ``apply`` attaches it to a module's tensor (see the module docstring)."""

    PRUNING_TYPE: str = "unstructured"
    _tensor_name: Optional[str] = None

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self._tensor_name, self.apply_mask(module))

    @abstractmethod
    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        """The new mask of ``t``: ``default_mask`` (what earlier pruning kept) with more zeros."""

    def apply_mask(self, module: Module) -> Tensor:
        """``<name>_orig * <name>_mask``: the pruned tensor."""
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned")
        mask = getattr(module, self._tensor_name + "_mask")
        orig = getattr(module, self._tensor_name + "_orig")
        return mask.to(dtype=orig.dtype) * orig

    @classmethod
    def apply(cls, module: Module, name: str, *args: Any, importance_scores: Optional[Tensor] = None,
              **kwargs: Any) -> "BasePruningMethod":
        """Prune ``module.<name>`` with a new ``cls(*args, **kwargs)``, composing with earlier pruning."""
        method = cls._composed_with_earlier(module, name, *args, **kwargs)
        orig = getattr(module, name)
        if importance_scores is not None and importance_scores.shape != orig.shape:
            raise AssertionError(f"importance_scores should have the same shape as parameter {name} of {module}, "
                                 f"got {importance_scores.shape} vs {orig.shape}")
        scores = importance_scores if importance_scores is not None else orig
        first = not isinstance(method, PruningContainer)
        if first:
            module.register_parameter(name + "_orig", orig)
            del module._parameters[name]
            default_mask = ones_like(orig)
        else:
            default_mask = getattr(module, name + "_mask").detach().clone()
        try:
            mask = method.compute_mask(scores.detach(), default_mask=default_mask)
            module.register_buffer(name + "_mask", mask)
            setattr(module, name, method.apply_mask(module))
            module.register_forward_pre_hook(method)
        except Exception:
            if first:  # leave the module as it was
                module.register_parameter(name, module._parameters.pop(name + "_orig"))
            raise
        return method

    @classmethod
    def _composed_with_earlier(cls, module: Module, name: str, *args: Any, **kwargs: Any) -> "BasePruningMethod":
        earlier = [(key, hook) for key, hook in module._forward_pre_hooks.items()
                   if isinstance(hook, BasePruningMethod) and hook._tensor_name == name]
        if len(earlier) > 1:
            raise AssertionError(f"Avoid adding multiple pruning hooks to the same tensor {name} of module {module}. "
                                 "Use a PruningContainer.")
        for key, _ in earlier:
            del module._forward_pre_hooks[key]
        method = cls(*args, **kwargs)
        method._tensor_name = name
        if not earlier:
            return method
        old = earlier[0][1]
        container = old if isinstance(old, PruningContainer) else PruningContainer(old)
        container.add_pruning_method(method)
        return container

    def prune(self, t: Tensor, default_mask: Optional[Tensor] = None, importance_scores: Optional[Tensor] = None) -> Tensor:
        """``t`` with this method's mask applied (no module involved)."""
        scores = importance_scores if importance_scores is not None else t
        mask = self.compute_mask(scores, default_mask=default_mask if default_mask is not None else ones_like(t))
        return t * mask

    def remove(self, module: Module) -> None:
        """Make the pruning permanent: ``<name>`` a parameter again, holding the pruned values."""
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned before pruning can be removed")
        weight = self.apply_mask(module)
        if hasattr(module, self._tensor_name):
            delattr(module, self._tensor_name)
        orig = module._parameters.pop(self._tensor_name + "_orig")
        orig.data = weight.detach()
        del module._buffers[self._tensor_name + "_mask"]
        setattr(module, self._tensor_name, orig)


class PruningContainer(BasePruningMethod):
    """The pruning methods applied, in order, to one tensor; the last one's mask is computed on
    the units the earlier ones kept."""

    def __init__(self, *methods: BasePruningMethod) -> None:
        self._pruning_methods: tuple[BasePruningMethod, ...] = ()
        if len(methods) == 1:
            self._tensor_name = methods[0]._tensor_name
        for method in methods:
            self.add_pruning_method(method)

    def add_pruning_method(self, method: BasePruningMethod) -> None:
        if not isinstance(method, BasePruningMethod) and method is not None:
            raise TypeError(f"{type(method)} is not a BasePruningMethod subclass")
        if method is not None and self._tensor_name != method._tensor_name:
            raise ValueError(f"Can only add pruning methods acting on the parameter named '{self._tensor_name}' to "
                             f"PruningContainer {self}. Found '{method._tensor_name}'")
        self._pruning_methods += (method,)

    def __len__(self) -> int:
        return len(self._pruning_methods)

    def __iter__(self) -> Any:
        return iter(self._pruning_methods)

    def __getitem__(self, index: int) -> BasePruningMethod:
        return self._pruning_methods[index]

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        """The last method's mask, computed on the part the earlier masks kept."""
        method = self._pruning_methods[-1]
        mask = default_mask.to(t.dtype).clone()
        if method.PRUNING_TYPE == "unstructured":
            kept = mask == 1
            mask[kept] = method.compute_mask(t[kept], default_mask=mask[kept]).to(mask.dtype)
            return mask
        if method.PRUNING_TYPE == "structured":
            if not hasattr(method, "dim"):
                raise AttributeError('Pruning methods of PRUNING_TYPE "structured" need to have the attribute `dim` defined.')
            dim = _channel_dim(t, method.dim)
            others = [d for d in range(t.dim()) if d != dim]
            channels = (mask.sum(dim=others) != 0).nonzero().reshape(-1) if others else (mask != 0).nonzero().reshape(-1)
            part = method.compute_mask(t.index_select(dim, channels), default_mask=mask.index_select(dim, channels))
            mask.index_copy_(dim, channels, part.to(mask.dtype))
            return mask
        if method.PRUNING_TYPE == "global":
            return method.compute_mask(t, default_mask=mask)
        raise ValueError(f"Unrecognized PRUNING_TYPE {method.PRUNING_TYPE}")


class Identity(BasePruningMethod):
    """Prunes nothing: the mask is all ones (a module that looks pruned)."""

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        return default_mask

    @classmethod
    def apply(cls, module: Module, name: str) -> "BasePruningMethod":  # type: ignore[override]
        return super().apply(module, name)


class _Unstructured(BasePruningMethod):
    """Zero the ``amount`` units of lowest score (``_scores``), among all entries."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount: Amount) -> None:
        _validate_amount(amount)
        self.amount = amount

    def _scores(self, t: Tensor) -> Tensor:
        raise NotImplementedError

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        """``default_mask`` with 0 at the ``amount`` entries of ``t`` of lowest score (``amount``
        a count, or a fraction of ``t.numel()`` rounded as :func:`_count_to_prune` rounds it)."""
        # BEGIN SOLUTION 11.1
        count = _count_to_prune(self.amount, t.numel())
        mask = default_mask.clone()
        if count:
            lowest = self._scores(t).reshape(-1).topk(count, largest=False).indices
            mask.view(-1)[lowest] = 0
        return mask
        # END SOLUTION


class RandomUnstructured(_Unstructured):
    """Prune ``amount`` entries chosen at random."""

    def _scores(self, t: Tensor) -> Tensor:
        return rand_like(t.float() if not t.dtype.is_floating_point else t)

    @classmethod
    def apply(cls, module: Module, name: str, amount: Amount) -> "BasePruningMethod":  # type: ignore[override]
        return super().apply(module, name, amount=amount)


class L1Unstructured(_Unstructured):
    """Prune the ``amount`` entries of smallest absolute value."""

    def _scores(self, t: Tensor) -> Tensor:
        return t.abs()

    @classmethod
    def apply(cls, module: Module, name: str, amount: Amount,  # type: ignore[override]
              importance_scores: Optional[Tensor] = None) -> "BasePruningMethod":
        return super().apply(module, name, amount=amount, importance_scores=importance_scores)


class _Structured(BasePruningMethod):
    """Zero whole channels along ``dim``: the ``amount`` channels of lowest score."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount: Amount, dim: int = -1) -> None:
        _validate_amount(amount)
        self.amount = amount
        self.dim = dim

    def _channel_scores(self, t: Tensor, dim: int) -> Tensor:
        raise NotImplementedError

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        dim = _channel_dim(t, self.dim)
        channels = t.shape[dim]
        count = _count_to_prune(self.amount, channels)
        if count == 0:
            return default_mask
        keep = self._channel_scores(t, dim).topk(channels - count, largest=True).indices
        return zeros_like(default_mask).index_fill(dim, keep, 1) * default_mask


class RandomStructured(_Structured):
    """Prune ``amount`` whole channels along ``dim``, chosen at random."""

    def _channel_scores(self, t: Tensor, dim: int) -> Tensor:
        from ...creation import rand

        return rand(t.shape[dim])

    @classmethod
    def apply(cls, module: Module, name: str, amount: Amount, dim: int = -1) -> "BasePruningMethod":  # type: ignore[override]
        return super().apply(module, name, amount=amount, dim=dim)


class LnStructured(_Structured):
    r"""Prune the ``amount`` channels along ``dim`` of smallest :math:`L_n` norm."""

    def __init__(self, amount: Amount, n: Any, dim: int = -1) -> None:
        super().__init__(amount, dim)
        self.n = n

    def _channel_scores(self, t: Tensor, dim: int) -> Tensor:
        others = [d for d in range(t.dim()) if d != dim]
        flat = t.movedim(dim, 0).reshape(t.shape[dim], -1) if others else t.reshape(-1, 1)
        return flat.norm(p=self.n, dim=1)

    @classmethod
    def apply(cls, module: Module, name: str, amount: Amount, n: Any, dim: int,  # type: ignore[override]
              importance_scores: Optional[Tensor] = None) -> "BasePruningMethod":
        return super().apply(module, name, amount=amount, n=n, dim=dim, importance_scores=importance_scores)


class CustomFromMask(BasePruningMethod):
    """Prune where a given mask is 0."""

    PRUNING_TYPE = "global"

    def __init__(self, mask: Tensor) -> None:
        self.mask = mask

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        if default_mask.shape != self.mask.shape:
            raise AssertionError(f"the mask has shape {list(self.mask.shape)}, the tensor {list(default_mask.shape)}")
        return default_mask * self.mask.to(dtype=default_mask.dtype)

    @classmethod
    def apply(cls, module: Module, name: str, mask: Tensor) -> "BasePruningMethod":  # type: ignore[override]
        return super().apply(module, name, mask=mask)


# ---- the functions ----


def identity(module: Module, name: str) -> Module:
    Identity.apply(module, name)
    return module


def random_unstructured(module: Module, name: str, amount: Amount) -> Module:
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(module: Module, name: str, amount: Amount, importance_scores: Optional[Tensor] = None) -> Module:
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module: Module, name: str, amount: Amount, dim: int) -> Module:
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(module: Module, name: str, amount: Amount, n: Any, dim: int,
                  importance_scores: Optional[Tensor] = None) -> Module:
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def custom_from_mask(module: Module, name: str, mask: Tensor) -> Module:
    CustomFromMask.apply(module, name, mask)
    return module


def global_unstructured(parameters: Iterable[tuple[Module, str]], pruning_method: type,
                        importance_scores: Optional[dict] = None, **kwargs: Any) -> None:
    """Prune the ``(module, name)`` tensors together: one mask over all of them, chosen by
    ``pruning_method`` (an unstructured method), then each pruned with its share."""
    if not isinstance(parameters, Iterable):
        raise TypeError("global_unstructured(): parameters is not an Iterable")
    if importance_scores is not None and not isinstance(importance_scores, dict):
        raise TypeError("global_unstructured(): importance_scores must be of type dict")
    parameters = list(parameters)
    scores = importance_scores or {}
    flat_scores = cat([scores.get((m, n), getattr(m, n)).detach().reshape(-1) for m, n in parameters])
    flat_masks = cat([getattr(m, n + "_mask", ones_like(getattr(m, n))).reshape(-1) for m, n in parameters])
    container = PruningContainer()
    container._tensor_name = "temp"
    method = pruning_method(**kwargs)
    method._tensor_name = "temp"
    if method.PRUNING_TYPE != "unstructured":
        raise TypeError(f'Only "unstructured" PRUNING_TYPE supported for the `pruning_method`. Found method '
                        f"{pruning_method} of type {method.PRUNING_TYPE}")
    container.add_pruning_method(method)
    final = container.compute_mask(flat_scores, flat_masks)
    start = 0
    for module, name in parameters:
        size = getattr(module, name).numel()
        custom_from_mask(module, name, final[start:start + size].view(getattr(module, name).shape))
        start += size


def remove(module: Module, name: str) -> Module:
    """Make the pruning of ``module.<name>`` permanent and take its hook away."""
    for key, hook in list(module._forward_pre_hooks.items()):
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(f"Parameter '{name}' of module {module} has to be pruned before pruning can be removed")


def is_pruned(module: Module) -> bool:
    """Whether ``module`` or any module inside it has a pruning hook."""
    return any(isinstance(hook, BasePruningMethod)
               for sub in module.modules() for hook in sub._forward_pre_hooks.values())


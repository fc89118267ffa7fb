r"""Parametrizations, with PyTorch's names, attributes and ``state_dict`` keys.

``register_parametrization(module, "weight", P())`` keeps the tensor's value in
``module.parametrizations.weight.original`` and makes ``module.weight`` a property that returns
``P()(original)``, computed each time it is read: a constraint (symmetric, orthogonal, unit
norm) held by construction while the optimizer updates ``original``. A parametrization with a
``right_inverse`` is used to set ``original`` from a value (at registration, and on
``module.weight = value``); one whose ``right_inverse`` returns several tensors stores them as
``original0``, ``original1``... As in PyTorch the module's class becomes
``Parametrized<Class>`` (a subclass made for it, holding the property), and
``remove_parametrizations`` undoes all of it. Inside ``with cached():`` each parametrized
tensor is computed once.
"""

from __future__ import annotations

import contextlib
from typing import Any, Iterator, Optional, Sequence

from ...autograd.grad_mode import no_grad
from ...tensor import Tensor
from ..modules.container import ModuleDict, ModuleList
from ..modules.module import Module
from ..parameter import Parameter

_cache_enabled = 0
_cache: dict[tuple[int, str], Tensor] = {}


@contextlib.contextmanager
def cached() -> Iterator[None]:
    """Compute each parametrized tensor once inside the block (e.g. for a recurrent layer's steps)."""
    global _cache_enabled
    _cache_enabled += 1
    try:
        yield
    finally:
        _cache_enabled -= 1
        if not _cache_enabled:
            _cache.clear()


def _register_parameter_or_buffer(module: Module, name: str, value: Tensor) -> None:
    if isinstance(value, Parameter):
        module.register_parameter(name, value)
    else:
        module.register_buffer(name, value)


def _set_in_place(destination: Tensor, source: Tensor) -> None:
    """Give ``destination`` the values (and shape) of ``source``, keeping the object."""
    with no_grad():
        if destination.shape == source.shape:
            destination.copy_(source)
        else:
            destination.data = source.detach().clone()


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, applied in order to ``original`` (``original0``, ...)."""

    def __init__(self, modules: Sequence[Module], original: Tensor, unsafe: bool = False) -> None:
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        new: Any = original
        with no_grad():
            for module in reversed(list(self)):
                if hasattr(module, "right_inverse"):
                    try:
                        new = module.right_inverse(new)
                    except NotImplementedError:
                        pass
        if not isinstance(new, (Tensor, list, tuple)):
            raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                             f"Got {type(new).__name__}")
        self.is_tensor = isinstance(new, Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)
        if self.is_tensor:
            if original.dtype != new.dtype:
                raise ValueError("When `right_inverse` outputs one tensor, it may not change the dtype.\n"
                                 f"original.dtype: {original.dtype}\nright_inverse(original).dtype: {new.dtype}")
            _set_in_place(original, new)
            _register_parameter_or_buffer(self, "original", original)
        else:
            for i, value in enumerate(new):
                if not isinstance(value, Tensor):
                    raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                                     f"Got element {i} of the sequence with type {type(value).__name__}.")
                if isinstance(original, Parameter):
                    value = Parameter(value.detach(), original.requires_grad)
                _register_parameter_or_buffer(self, f"original{i}", value)
        if not unsafe:
            result = self()
            if not isinstance(result, Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got {type(result).__name__}.")
            if result.dtype != original.dtype:
                raise ValueError("Registering a parametrization may not change the dtype of the tensor, unless `unsafe` "
                                 f"flag is enabled.\nunparametrized dtype: {original.dtype}\nparametrized dtype: {result.dtype}")
            if result.shape != original.shape:
                raise ValueError("Registering a parametrization may not change the shape of the tensor, unless `unsafe` "
                                 f"flag is enabled.\nunparametrized shape: {original.shape}\nparametrized shape: {result.shape}")

    def right_inverse(self, value: Tensor) -> None:
        """Set ``original`` (or ``original0``...) so that the parametrized tensor is ``value``."""
        with no_grad():
            for module in reversed(list(self)):
                if not hasattr(module, "right_inverse"):
                    raise RuntimeError(f"parametrization {type(module).__name__} does not implement right_inverse.")
                value = module.right_inverse(value)
        if self.is_tensor:
            if not isinstance(value, Tensor):
                raise ValueError(f"`right_inverse` should return a tensor. Got {type(value).__name__}")
            if value.dtype != self.original.dtype:
                raise ValueError(f"The tensor returned by `right_inverse` has dtype {value.dtype} while `original` has "
                                 f"dtype {self.original.dtype}")
            _set_in_place(self.original, value)
            return
        if len(value) != self.ntensors:
            raise ValueError(f"'right_inverse' must return a sequence of tensors of length {self.ntensors}. "
                             f"Got a sequence of length {len(value)}.")
        for i, tensor in enumerate(value):
            _set_in_place(getattr(self, f"original{i}"), tensor)

    def forward(self) -> Tensor:
        modules = list(self)
        if self.is_tensor:
            x = modules[0](self.original)
        else:
            x = modules[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        for module in modules[1:]:
            x = module(x)
        return x


def _inject_new_class(module: Module) -> None:
    """Make ``module`` an instance of ``Parametrized<Class>``, a subclass of its own for the properties."""
    original_class = module.__class__

    def getstate(self: Module) -> Any:
        raise RuntimeError("Serialization of parametrized modules is only supported through state_dict().")

    module.__class__ = type(f"Parametrized{original_class.__name__}", (original_class,), {"__getstate__": getstate})


def _inject_property(module: Module, tensor_name: str) -> None:
    if hasattr(module, tensor_name):
        raise AssertionError(f"Module already has an attribute named '{tensor_name}'")

    def get_parametrized(self: Module) -> Tensor:
        parametrization = self.parametrizations[tensor_name]
        if not _cache_enabled:
            return parametrization()
        key = (id(self), tensor_name)
        if key not in _cache:
            _cache[key] = parametrization()
        return _cache[key]

    def set_original(self: Module, value: Tensor) -> None:
        self.parametrizations[tensor_name].right_inverse(value)

    setattr(module.__class__, tensor_name, property(get_parametrized, set_original))


def _check_same(what: str, tensor_name: str, expected: Tensor, got: Any, action: str) -> None:
    if not isinstance(got, Tensor):
        raise ValueError(f"{what} must return a tensor. Got {type(got).__name__}.")
    for attribute in ("dtype", "shape"):
        if getattr(got, attribute) != getattr(expected, attribute):
            raise ValueError(f"{action} may not change the {attribute} of the tensor, unless the `unsafe` flag is "
                             f"enabled.\nmodule.{tensor_name}.{attribute}: {getattr(expected, attribute)}\n"
                             f"{what}.{attribute}: {getattr(got, attribute)}")


def register_parametrization(module: Module, tensor_name: str, parametrization: Module, *, unsafe: bool = False) -> Module:
    """Make ``module.<tensor_name>`` the output of ``parametrization`` on a stored original."""
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            current = getattr(module, tensor_name)
            _check_same(f"parametrization(module.{tensor_name})", tensor_name, current, parametrization(current),
                        "Registering a parametrization")
        module.parametrizations[tensor_name].append(parametrization)
        module.parametrizations[tensor_name].unsafe |= unsafe
    elif tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        parametrizations = ParametrizationList([parametrization], original, unsafe=unsafe)
        delattr(module, tensor_name)
        if not is_parametrized(module):
            _inject_new_class(module)
            module.parametrizations = ModuleDict()
        _inject_property(module, tensor_name)
        module.parametrizations[tensor_name] = parametrizations
    else:
        raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a parametrized element with name "
                         f"'{tensor_name}'")
    return module


def is_parametrized(module: Module, tensor_name: Optional[str] = None) -> bool:
    """Whether ``module`` has parametrizations (on ``tensor_name``, when given)."""
    parametrizations = module.__dict__.get("_modules", {}).get("parametrizations")
    if not isinstance(parametrizations, ModuleDict):
        return False
    return len(parametrizations) > 0 if tensor_name is None else tensor_name in parametrizations


def remove_parametrizations(module: Module, tensor_name: str, leave_parametrized: bool = True) -> Module:
    """Undo :func:`register_parametrization`: ``module.<tensor_name>`` a plain parameter (or buffer)
    again, holding the parametrized value (``leave_parametrized``) or the original."""
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    parametrizations = module.parametrizations[tensor_name]
    if parametrizations.is_tensor:
        original = parametrizations.original
        if leave_parametrized:
            with no_grad():
                value = getattr(module, tensor_name)
            _set_in_place(original, value)
    else:
        if not leave_parametrized:
            raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a tensor that is parametrized in "
                             "terms of a sequence of tensors.")
        # computed with grad mode as it is: whether the value requires grad decides between a new
        # parameter and a plain tensor (a buffer), as in PyTorch (so under no_grad, a buffer)
        value = getattr(module, tensor_name)
        original = Parameter(value.detach()) if value.requires_grad else value
    delattr(module.__class__, tensor_name)
    del module.parametrizations[tensor_name]
    _register_parameter_or_buffer(module, tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = module.__class__.__bases__[0]
    return module


def type_before_parametrizations(module: Module) -> type:
    """The module's class before :func:`register_parametrization` replaced it."""
    return module.__class__.__bases__[0] if is_parametrized(module) else type(module)

r"""``Module``: the base class of every layer and model.

A module's whole state is a handful of ordered dicts, filled by attribute assignment:

* ``_parameters`` — name → :class:`~minitorch.nn.Parameter` (or None, a reserved name),
* ``_buffers`` — name → tensor (or None); names in ``_non_persistent_buffers_set`` stay out
  of ``state_dict``,
* ``_modules`` — name → child module (or None),
* the hook dicts, keyed by the id of the :class:`~minitorch.utils.hooks.RemovableHandle`
  that removes the hook.

Everything else is derived from them by one recursive walk (:meth:`Module.named_modules`):
``parameters()``, ``state_dict()``, ``train()``, ``to()``, ``repr()``.

Calling a module runs, in order: the global forward pre hooks, its own forward pre hooks,
``forward``, the global forward hooks, its own forward hooks; with backward hooks
registered, its inputs and outputs are routed through identity nodes
(:mod:`minitorch.nn.modules._backward_hooks`). ``module.forward(x)`` skips all hooks.
"""

from __future__ import annotations

import functools
import warnings
from collections import OrderedDict, namedtuple
from typing import Any, Callable, Iterator, Mapping, Optional, Union

from ... import dtypes
from ...autograd import no_grad
from ...device import device as Device
from ...memory_formats import CHANNELS_LAST_RANKS, check_memory_format
from ...tensor import Tensor
from ...utils.hooks import RemovableHandle
from ...ops.shared_memory import share_tensors
from ..parameter import Buffer, Parameter, is_lazy
from ._backward_hooks import BackwardHook

__all__ = [
    "Module",
    "register_module_forward_hook",
    "register_module_forward_pre_hook",
    "register_module_full_backward_hook",
    "register_module_full_backward_pre_hook",
]

#: the key under which ``get_extra_state()`` is stored in a state dict
EXTRA_STATE_KEY_SUFFIX = "_extra_state"
#: spaces that indent a child's repr inside its parent's
REPR_INDENT = 2

# ---- global hooks: they fire for every module, before the module's own hooks ----

_global_forward_pre_hooks: "OrderedDict[int, Callable]" = OrderedDict()
_global_forward_hooks: "OrderedDict[int, Callable]" = OrderedDict()
_global_forward_hooks_with_kwargs: "OrderedDict[int, bool]" = OrderedDict()
_global_forward_hooks_always_called: "OrderedDict[int, bool]" = OrderedDict()
_global_backward_pre_hooks: "OrderedDict[int, Callable]" = OrderedDict()
_global_backward_hooks: "OrderedDict[int, Callable]" = OrderedDict()


def register_module_forward_pre_hook(hook: Callable) -> RemovableHandle:
    """``hook(module, args)`` before every module's forward; may return new args."""
    handle = RemovableHandle(_global_forward_pre_hooks)
    _global_forward_pre_hooks[handle.id] = hook
    return handle


def register_module_forward_hook(hook: Callable, *, with_kwargs: bool = False, always_call: bool = False) -> RemovableHandle:
    """``hook(module, args, output)`` after every module's forward; may return a new output."""
    handle = RemovableHandle(
        _global_forward_hooks, extra_dict=[_global_forward_hooks_with_kwargs, _global_forward_hooks_always_called]
    )
    _global_forward_hooks[handle.id] = hook
    if with_kwargs:
        _global_forward_hooks_with_kwargs[handle.id] = True
    if always_call:
        _global_forward_hooks_always_called[handle.id] = True
    return handle


def register_module_full_backward_pre_hook(hook: Callable) -> RemovableHandle:
    """``hook(module, grad_output)`` for every module, before its own backward pre hooks."""
    handle = RemovableHandle(_global_backward_pre_hooks)
    _global_backward_pre_hooks[handle.id] = hook
    return handle


def register_module_full_backward_hook(hook: Callable) -> RemovableHandle:
    """``hook(module, grad_input, grad_output)`` for every module, before its own backward hooks."""
    handle = RemovableHandle(_global_backward_hooks)
    _global_backward_hooks[handle.id] = hook
    return handle


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What ``load_state_dict`` returns: the keys it missed and the keys it did not expect."""

    __slots__ = ()

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _typename(value: Any) -> str:
    """The type name PyTorch's messages use: ``minitorch.FloatTensor``, ``int``, ``pkg.mod.Cls``."""
    if isinstance(value, Tensor):
        return f"minitorch.{value.type_name()}"
    cls = type(value)
    module = cls.__module__
    return cls.__qualname__ if module in (None, "builtins") else f"{module}.{cls.__qualname__}"


def _addindent(text: str, spaces: int) -> str:
    """Indent every line of ``text`` but the first by ``spaces``."""
    first, *rest = text.split("\n")
    if not rest:
        return text
    return "\n".join([first] + [" " * spaces + line for line in rest])


def _remove_from(name: str, *containers: Any) -> None:
    for container in containers:
        if name in container:
            if isinstance(container, dict):
                del container[name]
            else:
                container.discard(name)


class _WithModule:
    """Binds the module as the first argument of a load_state_dict pre hook."""

    def __init__(self, hook: Callable, module: "Module") -> None:
        self.hook = hook
        self.module = module
        functools.update_wrapper(self, hook)

    def __call__(self, *args: Any) -> Any:
        return self.hook(self.module, *args)


class Module:
    """Base class of all neural-network modules; subclasses define ``forward``.

    Example::

        class MyLinear(nn.Module):
            def __init__(self, in_features, out_features):
                super().__init__()
                self.weight = nn.Parameter(torch.randn(in_features, out_features))
                self.bias = nn.Parameter(torch.randn(out_features))

            def forward(self, input):
                return (input @ self.weight) + self.bias
    """

    #: the version stored in ``state_dict()._metadata``; bump when the saved format changes
    _version: int = 1

    training: bool
    _parameters: "OrderedDict[str, Optional[Parameter]]"
    _buffers: "OrderedDict[str, Optional[Tensor]]"
    _modules: "OrderedDict[str, Optional[Module]]"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() got an unexpected keyword argument '{next(iter(kwargs))}'")
        if args:
            raise TypeError(f"{type(self).__name__}.__init__() takes 1 positional argument but {len(args) + 1} were given")
        # object.__setattr__: our own __setattr__ needs these dicts to exist already
        setattr_ = super().__setattr__
        setattr_("training", True)
        setattr_("_parameters", OrderedDict())
        setattr_("_buffers", OrderedDict())
        setattr_("_non_persistent_buffers_set", set())
        setattr_("_modules", OrderedDict())
        setattr_("_forward_pre_hooks", OrderedDict())
        setattr_("_forward_pre_hooks_with_kwargs", OrderedDict())
        setattr_("_forward_hooks", OrderedDict())
        setattr_("_forward_hooks_with_kwargs", OrderedDict())
        setattr_("_forward_hooks_always_called", OrderedDict())
        setattr_("_backward_pre_hooks", OrderedDict())
        setattr_("_backward_hooks", OrderedDict())
        setattr_("_state_dict_pre_hooks", OrderedDict())
        setattr_("_state_dict_hooks", OrderedDict())
        setattr_("_load_state_dict_pre_hooks", OrderedDict())
        setattr_("_load_state_dict_post_hooks", OrderedDict())

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """The computation of this module; every subclass overrides it."""
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')

    # ---- registration ----

    def register_parameter(self, name: str, param: Optional[Parameter]) -> None:
        """Add a parameter under ``name``; ``None`` reserves the name (e.g. a missing bias)."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        self._check_name(name, "parameter", self._parameters)
        # BEGIN SOLUTION 4.1
        if param is None:
            self._parameters[name] = None
        elif not isinstance(param, Parameter):
            raise TypeError(
                f"cannot assign '{_typename(param)}' object to parameter '{name}' (minitorch.nn.Parameter or None required)"
            )
        elif param.grad_fn is not None:
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be created explicitly. "
                f"To express '{name}' as a function of another Tensor, compute the value in the forward() method."
            )
        else:
            self._parameters[name] = param
        # END SOLUTION

    def register_buffer(self, name: str, tensor: Optional[Tensor], persistent: bool = True) -> None:
        """Add a tensor that is state but not learned (e.g. running statistics).

        A persistent buffer is part of ``state_dict()``; a non-persistent one is not.
        """
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        self._check_name(name, "buffer", self._buffers)
        # BEGIN SOLUTION 4.1
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{_typename(tensor)}' object to buffer '{name}' (minitorch Tensor or None required)")
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)
        # END SOLUTION

    def add_module(self, name: str, module: Optional["Module"]) -> None:
        """Add a child module under ``name`` (``None`` reserves the name)."""
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {_typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        self._modules[name] = module

    register_module = add_module

    def _check_name(self, name: Any, kind: str, registry: Mapping[str, Any]) -> None:
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {_typename(name)}")
        if "." in name:
            raise KeyError(f'{kind} name can\'t contain "."')
        if name == "":
            raise KeyError(f'{kind} name can\'t be empty string ""')
        if hasattr(self, name) and name not in registry:
            raise KeyError(f"attribute '{name}' already exists")

    def __setattr__(self, name: str, value: Any) -> None:
        """Assigning a Parameter, Module or Buffer registers it; other values are plain attributes."""
        params = self.__dict__.get("_parameters")
        modules = self.__dict__.get("_modules")
        buffers = self.__dict__.get("_buffers")
        # BEGIN SOLUTION 4.1
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            _remove_from(name, self.__dict__, buffers, modules, self._non_persistent_buffers_set)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{_typename(value)}' as parameter '{name}' (minitorch.nn.Parameter or None expected)"
                )
            self.register_parameter(name, value)
        elif isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            _remove_from(name, self.__dict__, params, buffers, self._non_persistent_buffers_set)
            modules[name] = value
        elif modules is not None and name in modules:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as child module '{name}' (minitorch.nn.Module or None expected)")
            modules[name] = value
        elif isinstance(value, Buffer) or (buffers is not None and name in buffers):
            if buffers is None:
                raise AttributeError("cannot assign buffer before Module.__init__() call")
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(
                    f"cannot assign '{_typename(value)}' as buffer '{name}' (minitorch.nn.Buffer, minitorch.Tensor or None expected)"
                )
            if isinstance(value, Buffer):
                persistent = value.persistent
                _remove_from(name, self.__dict__, params, modules)
            else:
                persistent = name not in self._non_persistent_buffers_set
            self.register_buffer(name, value, persistent)
        else:
            super().__setattr__(name, value)
        # END SOLUTION

    def __getattr__(self, name: str) -> Any:
        """Registered parameters, buffers and children read as attributes; anything else is an error."""
        # only called when normal lookup failed; self.__dict__ may lack the dicts (before __init__)
        state = self.__dict__
        for registry in ("_parameters", "_buffers", "_modules"):
            if registry in state and name in state[registry]:
                return state[registry][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            super().__delattr__(name)

    def __dir__(self) -> list[str]:
        keys = [*dir(type(self)), *self.__dict__, *self._parameters, *self._modules, *self._buffers]
        # names like "0" (Sequential's children) are not valid attribute names
        return sorted(key for key in set(keys) if not key[0].isdigit())

    # ---- traversal: one walk, many views ----

    def named_modules(self, memo: Optional[set[int]] = None, prefix: str = "",
                      remove_duplicate: bool = True) -> Iterator[tuple[str, "Module"]]:
        """This module and all below it, depth first in registration order, as ``(dotted name, module)``.

        A module reachable by several paths is yielded once unless ``remove_duplicate=False``.
        """
        # BEGIN SOLUTION 4.2
        if memo is None:
            memo = set()
        if id(self) in memo:
            return
        if remove_duplicate:
            memo.add(id(self))
        yield prefix, self
        for name, child in self._modules.items():
            if child is None:
                continue
            child_prefix = prefix + ("." if prefix else "") + name
            yield from child.named_modules(memo, child_prefix, remove_duplicate)
        # END SOLUTION

    def modules(self) -> Iterator["Module"]:
        for _, module in self.named_modules():
            yield module

    def named_children(self) -> Iterator[tuple[str, "Module"]]:
        """The direct children as ``(name, module)``, each module once."""
        seen: set[int] = set()
        for name, child in self._modules.items():
            if child is not None and id(child) not in seen:
                seen.add(id(child))
                yield name, child

    def children(self) -> Iterator["Module"]:
        for _, child in self.named_children():
            yield child

    def _named_members(self, members_of: Callable[["Module"], Any], prefix: str, recurse: bool,
                       remove_duplicate: bool) -> Iterator[tuple[str, Any]]:
        """``(dotted name, value)`` for the members (parameters or buffers) of every module visited."""
        # BEGIN SOLUTION 4.2
        seen: set[int] = set()
        walk = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse else [(prefix, self)]
        for module_prefix, module in walk:
            for name, value in members_of(module):
                if value is None or id(value) in seen:
                    continue
                if remove_duplicate:
                    seen.add(id(value))
                yield module_prefix + ("." if module_prefix else "") + name, value
        # END SOLUTION

    def named_parameters(self, prefix: str = "", recurse: bool = True,
                         remove_duplicate: bool = True) -> Iterator[tuple[str, Parameter]]:
        """``(dotted name, parameter)`` pairs; a parameter shared by two modules is yielded once."""
        return self._named_members(lambda m: m._parameters.items(), prefix, recurse, remove_duplicate)

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_buffers(self, prefix: str = "", recurse: bool = True,
                      remove_duplicate: bool = True) -> Iterator[tuple[str, Tensor]]:
        return self._named_members(lambda m: m._buffers.items(), prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        for _, buffer in self.named_buffers(recurse=recurse):
            yield buffer

    def get_submodule(self, target: str) -> "Module":
        """The module at dotted path ``target`` (``""`` is this module)."""
        if target == "":
            return self
        module: Any = self
        for item in target.split("."):
            if not hasattr(module, item):
                raise AttributeError(f"{module._get_name()} has no attribute `{item}`")
            module = getattr(module, item)
            if not isinstance(module, Module):
                raise AttributeError(f"`{item}` is not an nn.Module")
        return module

    def set_submodule(self, target: str, module: "Module", strict: bool = False) -> None:
        """Put ``module`` at dotted path ``target`` (``"encoder.1"``); the modules on the way must
        exist, and with ``strict`` so must the one replaced."""
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        parent_path, _, name = target.rpartition(".")
        parent = self.get_submodule(parent_path)
        if not isinstance(module, Module):
            raise ValueError(f"`module` is not an nn.Module, found {type(module)}")
        if hasattr(parent, name):
            if not isinstance(getattr(parent, name), Module):
                raise AttributeError(f"`{name}` is not an nn.Module")
        elif strict:
            raise AttributeError(f"{parent._get_name()} has no attribute `{name}`")
        setattr(parent, name, module)

    def _owner_of(self, target: str) -> tuple["Module", str]:
        """The submodule holding the attribute at dotted path ``target``, and the attribute's name."""
        module_path, _, name = target.rpartition(".")
        module = self.get_submodule(module_path)
        if not hasattr(module, name):
            raise AttributeError(f"{module._get_name()} has no attribute `{name}`")
        return module, name

    def get_parameter(self, target: str) -> Parameter:
        """The parameter at dotted path ``target``, e.g. ``"net.0.weight"``."""
        module, name = self._owner_of(target)
        param = getattr(module, name)
        if not isinstance(param, Parameter):
            raise AttributeError(f"`{name}` is not an nn.Parameter")
        return param

    def get_buffer(self, target: str) -> Tensor:
        """The buffer at dotted path ``target``."""
        module, name = self._owner_of(target)
        if name not in module._buffers:
            raise AttributeError(f"`{name}` is not a buffer")
        return getattr(module, name)

    # ---- modes and bulk changes ----

    def train(self, mode: bool = True) -> "Module":
        """Set training mode here and in every submodule; returns ``self``."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        # BEGIN SOLUTION 4.3
        self.training = mode
        for child in self.children():
            child.train(mode)
        return self
        # END SOLUTION

    def eval(self) -> "Module":
        """Evaluation mode: ``train(False)``."""
        return self.train(False)

    def apply(self, fn: Callable[["Module"], None]) -> "Module":
        """Call ``fn`` on every submodule (children first) and then on ``self``; returns ``self``."""
        # BEGIN SOLUTION 4.3
        for child in self.children():
            child.apply(fn)
        fn(self)
        return self
        # END SOLUTION

    def requires_grad_(self, requires_grad: bool = True) -> "Module":
        """Set ``requires_grad`` of every parameter (freeze with ``False``); returns ``self``."""
        for param in self.parameters():
            param.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the gradients of all parameters: to None, or to zeros in place."""
        for param in self.parameters():
            if param.grad is None:
                continue
            if set_to_none:
                param.grad = None
            else:
                if param.grad.grad_fn is not None:
                    param.grad.detach_()
                else:
                    param.grad.requires_grad_(False)
                param.grad.zero_()

    def _apply(self, fn: Callable[[Tensor], Tensor]) -> "Module":
        """Replace every parameter's and buffer's values by ``fn`` of them, recursively.

        Parameters keep their identity (their ``.data`` is swapped), so an optimizer built
        before ``to()`` still holds the right objects. Gradients are converted alike.
        """
        # BEGIN SOLUTION 4.3
        for child in self.children():
            child._apply(fn)
        for param in self._parameters.values():
            if param is None:
                continue
            with no_grad():
                param.data = fn(param)
                if param.grad is not None:
                    param.grad.data = fn(param.grad)
        for name, buffer in self._buffers.items():
            if buffer is not None:
                self._buffers[name] = fn(buffer)
        return self
        # END SOLUTION

    def share_memory(self) -> "Module":
        """Move every parameter, parameter gradient and buffer into shared memory, in place
        (``Tensor.share_memory_``, as PyTorch's ``_apply`` of it); returns ``self``."""
        parameters = list(self.parameters())
        tensors = [*parameters, *(param.grad for param in parameters if param.grad is not None), *self.buffers()]
        for tensor in tensors:
            if is_lazy(tensor):
                tensor.share_memory_()  # PyTorch's error: nothing to share yet
        share_tensors(tensors)
        return self

    def to(self, *args: Any, **kwargs: Any) -> "Module":
        """``to(device)``, ``to(dtype)``, ``to(device, dtype)`` or ``to(tensor)``, in place; returns ``self``.

        Only floating-point parameters and buffers change dtype; ``memory_format=`` lays out
        the 4-D and 5-D ones in that format (``channels_last`` for a model's convolution weights).
        """
        layout = kwargs.pop("memory_format", None)
        if layout is not None:
            check_memory_format(layout, "to")
        target_device, target_dtype = _parse_to(args, kwargs)
        if target_dtype is not None and not target_dtype.is_floating_point:
            raise TypeError(f"nn.Module.to only accepts floating point or complex dtypes, but got desired dtype={target_dtype}")

        def convert(t: Tensor) -> Tensor:
            dtype = target_dtype if t.is_floating_point() else None
            if layout is not None and t.dim() in CHANNELS_LAST_RANKS:
                return t.to(device=target_device, dtype=dtype, memory_format=layout)
            return t.to(device=target_device, dtype=dtype)

        return self._apply(convert)

    def to_empty(self, *, device: Any, recurse: bool = True) -> "Module":
        """Parameters and buffers replaced by uninitialised tensors of their shapes on ``device``
        (nothing copied: for a model about to load a state dict); returns ``self``."""
        from ...creation import empty_like

        def fresh(t: Tensor) -> Tensor:
            return empty_like(t, device=device)

        if recurse:
            return self._apply(fresh)
        with no_grad():  # this module's own tensors only
            for param in self._parameters.values():
                if param is not None:
                    param.data = fresh(param)
        for name, buffer in self._buffers.items():
            if buffer is not None:
                self._buffers[name] = fresh(buffer)
        return self

    def cpu(self) -> "Module":
        return self._apply(lambda t: t.cpu())

    def cuda(self, device: Optional[Union[int, Device]] = None) -> "Module":
        return self._apply(lambda t: t.cuda(device) if isinstance(device, int) or device is None else t.to(device))

    def float(self) -> "Module":
        return self._apply(lambda t: t.float() if t.is_floating_point() else t)

    def double(self) -> "Module":
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)

    def half(self) -> "Module":
        return self._apply(lambda t: t.half() if t.is_floating_point() else t)

    def bfloat16(self) -> "Module":
        return self._apply(lambda t: t.bfloat16() if t.is_floating_point() else t)

    def type(self, dst_type: Any) -> "Module":
        """Cast all parameters and buffers to ``dst_type``."""
        target = dtypes.as_dtype(dst_type)
        return self._apply(lambda t: t.to(target))

    # ---- state dict ----

    def _save_to_state_dict(self, destination: "OrderedDict[str, Any]", prefix: str, keep_vars: bool) -> None:
        """Put this module's own state (not its children's) into ``destination``."""
        # BEGIN SOLUTION 4.4
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buffer in self._buffers.items():
            if buffer is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buffer if keep_vars else buffer.detach()
        if type(self).get_extra_state is not Module.get_extra_state:
            destination[prefix + EXTRA_STATE_KEY_SUFFIX] = self.get_extra_state()
        # END SOLUTION

    def state_dict(self, *, destination: Optional["OrderedDict[str, Any]"] = None, prefix: str = "",
                   keep_vars: bool = False) -> "OrderedDict[str, Any]":
        """Every parameter and persistent buffer by dotted name, in PyTorch's order.

        Order: own parameters, own persistent buffers, own extra state, then each child's
        state dict in registration order. Values are detached (``keep_vars=False``) but share
        storage with the module.
        """
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()  # type: ignore[attr-defined]
        local_metadata = {"version": self._version}
        metadata = getattr(destination, "_metadata", None)
        if metadata is not None:
            metadata[prefix[:-1]] = local_metadata
        if self._state_dict_pre_hooks:
            self._run_state_dict_pre_hooks(prefix, keep_vars)
        # BEGIN SOLUTION 4.4
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, child in self._modules.items():
            if child is not None:
                child.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        # END SOLUTION
        if self._state_dict_hooks:
            destination = self._run_state_dict_post_hooks(destination, prefix, local_metadata)
        return destination

    def _run_state_dict_pre_hooks(self, prefix: str, keep_vars: bool) -> None:
        """Call each ``hook(module, prefix, keep_vars)`` before this module's state is collected."""
        # BEGIN SOLUTION 7.3
        for hook in list(self._state_dict_pre_hooks.values()):
            hook(self, prefix, keep_vars)
        # END SOLUTION

    def _run_state_dict_post_hooks(self, destination: "OrderedDict[str, Any]", prefix: str,
                                   local_metadata: dict) -> "OrderedDict[str, Any]":
        """Call each post hook; a hook from the private API may return a replacement state dict."""
        # BEGIN SOLUTION 7.3
        for hook in list(self._state_dict_hooks.values()):
            result = hook(self, destination, prefix, local_metadata)
            if getattr(hook, "_from_public_api", False):
                if result is not None:
                    raise RuntimeError("state_dict post-hook must return None")
            elif result is not None:
                destination = result
        return destination
        # END SOLUTION

    def _load_from_state_dict(self, state_dict: Mapping[str, Any], prefix: str, local_metadata: dict, strict: bool,
                              missing_keys: list[str], unexpected_keys: list[str], error_msgs: list[str]) -> None:
        """Copy this module's own entries from ``state_dict``; record missing, unexpected and bad keys."""
        if self._load_state_dict_pre_hooks:
            self._run_load_state_dict_pre_hooks(state_dict, prefix, local_metadata, strict, missing_keys,
                                                unexpected_keys, error_msgs)
        assign = local_metadata.get("assign_to_params_buffers", False)
        persistent_buffers = {k: v for k, v in self._buffers.items() if k not in self._non_persistent_buffers_set}
        local_state = {k: v for k, v in [*self._parameters.items(), *persistent_buffers.items()] if v is not None}
        # BEGIN SOLUTION 4.4
        for name, current in local_state.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            value = state_dict[key]
            if not isinstance(value, Tensor):
                error_msgs.append(
                    f'While copying the parameter named "{key}", expected minitorch.Tensor or Tensor-like object '
                    f"from checkpoint but received {type(value)}"
                )
                continue
            if not is_lazy(current) and value.shape != current.shape:  # a placeholder has no shape yet
                error_msgs.append(
                    f"size mismatch for {key}: copying a param with shape {value.shape} from checkpoint, "
                    f"the shape in current model is {current.shape}."
                )
                continue
            try:
                with no_grad():
                    if assign:
                        self._assign_loaded(name, current, value)
                    else:
                        current.copy_(value)
            except Exception as error:  # noqa: BLE001 - reported with all the other problems
                error_msgs.append(
                    f'While copying the parameter named "{key}", whose dimensions in the model are {current.size()} '
                    f"and whose dimensions in the checkpoint are {value.size()}, an exception occurred : {error.args}."
                )
        extra_key = prefix + EXTRA_STATE_KEY_SUFFIX
        if type(self).set_extra_state is not Module.set_extra_state:
            if extra_key in state_dict:
                self.set_extra_state(state_dict[extra_key])
            elif strict:
                missing_keys.append(extra_key)
        elif strict and extra_key in state_dict:
            unexpected_keys.append(extra_key)
        if strict:
            for key in state_dict:
                if not key.startswith(prefix) or key == extra_key:
                    continue
                head, dot, _ = key[len(prefix):].partition(".")
                if (dot and head not in self._modules) or (not dot and head not in local_state):
                    unexpected_keys.append(key)
        # END SOLUTION

    def _run_load_state_dict_pre_hooks(self, state_dict: Mapping[str, Any], prefix: str, local_metadata: dict,
                                       strict: bool, missing_keys: list[str], unexpected_keys: list[str],
                                       error_msgs: list[str]) -> None:
        """Call each load pre hook before this module reads its entries (it may edit ``state_dict``)."""
        # BEGIN SOLUTION 7.3
        for hook in list(self._load_state_dict_pre_hooks.values()):
            hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)
        # END SOLUTION

    def _run_load_state_dict_post_hooks(self, incompatible: _IncompatibleKeys) -> None:
        """Call each ``hook(module, incompatible_keys)``; clearing its lists silences strict errors."""
        # BEGIN SOLUTION 7.3
        for hook in list(self._load_state_dict_post_hooks.values()):
            if hook(self, incompatible) is not None:
                raise AssertionError(
                    "Hooks registered with ``register_load_state_dict_post_hook`` are not expected to return new "
                    "values, if incompatible_keys need to be modified, it should be done inplace."
                )
        # END SOLUTION

    def _assign_loaded(self, name: str, current: Tensor, value: Tensor) -> None:
        """``load_state_dict(assign=True)``: keep the loaded tensor itself instead of copying into ours."""
        if isinstance(current, Parameter):
            if not isinstance(value, Parameter):
                value = Parameter(value, requires_grad=current.requires_grad)
            else:
                value.requires_grad_(current.requires_grad)
            self._parameters[name] = value
        else:
            self._buffers[name] = value

    def load_state_dict(self, state_dict: Mapping[str, Any], strict: bool = True,
                        assign: bool = False) -> _IncompatibleKeys:
        """Copy parameters and buffers from ``state_dict`` into this module and its children.

        Returns ``(missing_keys, unexpected_keys)``. With ``strict`` (the default), any missing
        or unexpected key raises a RuntimeError listing all of them; size mismatches always do.
        """
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing_keys: list[str] = []
        unexpected_keys: list[str] = []
        error_msgs: list[str] = []
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)

        def load(module: Module, local_state: "OrderedDict[str, Any]", prefix: str = "") -> None:
            local_metadata = {} if metadata is None else dict(metadata.get(prefix[:-1], {}))
            if assign:
                local_metadata["assign_to_params_buffers"] = True
            module._load_from_state_dict(local_state, prefix, local_metadata, True, missing_keys, unexpected_keys, error_msgs)
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    load(child, OrderedDict((k, v) for k, v in local_state.items() if k.startswith(child_prefix)), child_prefix)
            if module._load_state_dict_post_hooks:
                module._run_load_state_dict_post_hooks(_IncompatibleKeys(missing_keys, unexpected_keys))

        load(self, state_dict)
        if strict:
            if unexpected_keys:
                error_msgs.insert(0, "Unexpected key(s) in state_dict: {}. ".format(", ".join(f'"{k}"' for k in unexpected_keys)))
            if missing_keys:
                error_msgs.insert(0, "Missing key(s) in state_dict: {}. ".format(", ".join(f'"{k}"' for k in missing_keys)))
        if error_msgs:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(self._get_name(), "\n\t".join(error_msgs)))
        return _IncompatibleKeys(missing_keys, unexpected_keys)

    def get_extra_state(self) -> Any:
        """Extra (non-tensor) state to save; override together with :meth:`set_extra_state`."""
        raise RuntimeError(
            "Reached a code path in Module.get_extra_state() that should never be called: "
            "override get_extra_state() to store extra state in the state dict."
        )

    def set_extra_state(self, state: Any) -> None:
        """Restore what :meth:`get_extra_state` returned; override both together."""
        raise RuntimeError(
            "Reached a code path in Module.set_extra_state() that should never be called: "
            "override set_extra_state() to load extra state from the state dict."
        )

    # ---- state dict hooks ----

    def register_state_dict_pre_hook(self, hook: Callable) -> RemovableHandle:
        """``hook(module, prefix, keep_vars)`` before ``state_dict()`` collects this module's state."""
        handle = RemovableHandle(self._state_dict_pre_hooks)
        self._state_dict_pre_hooks[handle.id] = hook
        return handle

    def register_state_dict_post_hook(self, hook: Callable) -> RemovableHandle:
        """``hook(module, state_dict, prefix, local_metadata)`` after; edits ``state_dict`` in place, returns None."""
        hook._from_public_api = True  # type: ignore[attr-defined]
        return self._register_state_dict_hook(hook)

    def _register_state_dict_hook(self, hook: Callable) -> RemovableHandle:
        """Like :meth:`register_state_dict_post_hook`, but a returned dict replaces the state dict."""
        handle = RemovableHandle(self._state_dict_hooks)
        self._state_dict_hooks[handle.id] = hook
        return handle

    def register_load_state_dict_pre_hook(self, hook: Callable) -> RemovableHandle:
        """``hook(module, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)``
        before this module loads its entries; may edit ``state_dict`` in place."""
        return self._register_load_state_dict_pre_hook(hook, with_module=True)

    def _register_load_state_dict_pre_hook(self, hook: Callable, with_module: bool = False) -> RemovableHandle:
        handle = RemovableHandle(self._load_state_dict_pre_hooks)
        self._load_state_dict_pre_hooks[handle.id] = _WithModule(hook, self) if with_module else hook
        return handle

    def register_load_state_dict_post_hook(self, hook: Callable) -> RemovableHandle:
        """``hook(module, incompatible_keys)`` after loading; clearing its lists silences strict errors."""
        handle = RemovableHandle(self._load_state_dict_post_hooks)
        self._load_state_dict_post_hooks[handle.id] = hook
        return handle

    # ---- forward and backward hooks ----

    def register_forward_pre_hook(self, hook: Callable, *, prepend: bool = False,
                                  with_kwargs: bool = False) -> RemovableHandle:
        """``hook(module, args)`` (or ``hook(module, args, kwargs)``) before ``forward``.

        A returned value replaces the positional args (a single value is wrapped in a
        tuple); with ``with_kwargs`` it must be ``(args, kwargs)``.
        """
        handle = RemovableHandle(self._forward_pre_hooks, extra_dict=self._forward_pre_hooks_with_kwargs)
        self._forward_pre_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[handle.id] = True
        if prepend:
            self._forward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_forward_hook(self, hook: Callable, *, prepend: bool = False, with_kwargs: bool = False,
                              always_call: bool = False) -> RemovableHandle:
        """``hook(module, args, output)`` (or ``hook(module, args, kwargs, output)``) after ``forward``.

        A returned value replaces the output. ``always_call`` runs the hook even when
        ``forward`` raises.
        """
        handle = RemovableHandle(
            self._forward_hooks, extra_dict=[self._forward_hooks_with_kwargs, self._forward_hooks_always_called]
        )
        self._forward_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_hooks_with_kwargs[handle.id] = True
        if always_call:
            self._forward_hooks_always_called[handle.id] = True
        if prepend:
            self._forward_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_full_backward_pre_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """``hook(module, grad_output)`` when the gradients w.r.t. the outputs are known; may return new ones."""
        handle = RemovableHandle(self._backward_pre_hooks)
        self._backward_pre_hooks[handle.id] = hook
        if prepend:
            self._backward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_full_backward_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """``hook(module, grad_input, grad_output)`` once the gradients w.r.t. the inputs are computed.

        Both are tuples: None for arguments that are not tensors, zeros for input tensors that
        need no gradient (all None when no input needs one), as in PyTorch; a returned tuple
        replaces ``grad_input``.
        """
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        if prepend:
            self._backward_hooks.move_to_end(handle.id, last=False)
        return handle

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Run ``forward`` with all the hooks (see the module docstring for the order)."""
        if not (self._forward_pre_hooks or self._forward_hooks or self._backward_pre_hooks or self._backward_hooks
                or _global_forward_pre_hooks or _global_forward_hooks or _global_backward_pre_hooks
                or _global_backward_hooks):
            return self.forward(*args, **kwargs)
        return self._call_with_hooks(args, kwargs)

    def _call_with_hooks(self, args: tuple, kwargs: dict) -> Any:
        result: Any = None
        called_always: set[int] = set()
        try:
            # BEGIN SOLUTION 7.1
            for hook_id, hook in (*_global_forward_pre_hooks.items(), *self._forward_pre_hooks.items()):
                if hook_id in self._forward_pre_hooks_with_kwargs:
                    replaced = hook(self, args, kwargs)
                    if replaced is not None:
                        if not (isinstance(replaced, tuple) and len(replaced) == 2):
                            raise RuntimeError(
                                f"forward pre-hook must return None or a tuple of (new_args, new_kwargs), but got {replaced}."
                            )
                        args, kwargs = replaced
                else:
                    replaced = hook(self, args)
                    if replaced is not None:
                        args = replaced if isinstance(replaced, tuple) else (replaced,)
            backward_hooks = [*_global_backward_hooks.values(), *self._backward_hooks.values()]
            backward_pre_hooks = [*_global_backward_pre_hooks.values(), *self._backward_pre_hooks.values()]
            bw_hook = BackwardHook(self, backward_hooks, backward_pre_hooks) if backward_hooks or backward_pre_hooks else None
            if bw_hook is not None:
                args = bw_hook.setup_input_hook(args)
            result = self.forward(*args, **kwargs)
            for hook_id, hook in (*_global_forward_hooks.items(), *self._forward_hooks.items()):
                if hook_id in self._forward_hooks_always_called or hook_id in _global_forward_hooks_always_called:
                    called_always.add(hook_id)
                if hook_id in self._forward_hooks_with_kwargs or hook_id in _global_forward_hooks_with_kwargs:
                    replaced = hook(self, args, kwargs, result)
                else:
                    replaced = hook(self, args, result)
                if replaced is not None:
                    result = replaced
            if bw_hook is not None:
                if not isinstance(result, (Tensor, tuple)):
                    warnings.warn(
                        "For backward hooks to be called, module output should be a Tensor or a tuple of Tensors "
                        f"but received {type(result)}",
                        stacklevel=2,
                    )
                result = bw_hook.setup_output_hook(result)
            return result
            # END SOLUTION
        except Exception:
            self._run_always_called_hooks(args, kwargs, result, called_always)
            raise

    def _run_always_called_hooks(self, args: tuple, kwargs: dict, result: Any, called: set[int]) -> None:
        """``forward`` (or a hook) raised: still run the ``always_call`` forward hooks not yet run."""
        for hook_id, hook in (*_global_forward_hooks.items(), *self._forward_hooks.items()):
            if hook_id in called:
                continue
            if hook_id not in _global_forward_hooks_always_called and hook_id not in self._forward_hooks_always_called:
                continue
            try:
                if hook_id in self._forward_hooks_with_kwargs or hook_id in _global_forward_hooks_with_kwargs:
                    hook(self, args, kwargs, result)
                else:
                    hook(self, args, result)
            except Exception as error:  # noqa: BLE001 - the original error is the one to raise
                warnings.warn(
                    "forward hook with ``always_call=True`` raised an exception that was silenced as another "
                    f"error was raised in forward: {error}",
                    stacklevel=2,
                )

    # ---- printing ----

    def _get_name(self) -> str:
        return type(self).__name__

    def extra_repr(self) -> str:
        """The text inside this module's parentheses in ``repr``; layers override it."""
        return ""

    def _repr_children(self) -> list[tuple[str, "Module"]]:
        """The children ``repr`` lists (all of them; a module holding internal state in a
        child, as a quantized Linear its packed weight, leaves that one out)."""
        return list(self._modules.items())

    def __repr__(self) -> str:
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({name}): {_addindent(repr(child), REPR_INDENT)}" for name, child in self._repr_children()]
        lines = extra_lines + child_lines
        body = ""
        if len(extra_lines) == 1 and not child_lines:
            body = extra_lines[0]
        elif lines:
            body = "\n  " + "\n  ".join(lines) + "\n"
        return f"{self._get_name()}({body})"


def _parse_to(args: tuple, kwargs: dict) -> tuple[Optional[Device], Optional[dtypes.dtype]]:
    """The device and dtype named by ``Module.to``'s arguments (None: unchanged)."""
    from ...device import as_device

    target_device: Optional[Device] = None
    target_dtype: Optional[dtypes.dtype] = None
    kwargs = dict(kwargs)
    kwargs.pop("non_blocking", None)
    values = [*args]
    if "device" in kwargs:
        value = kwargs.pop("device")
        target_device = None if value is None else as_device(value)
    if "dtype" in kwargs:
        value = kwargs.pop("dtype")
        target_dtype = None if value is None else dtypes.as_dtype(value)
    if "tensor" in kwargs:
        values.append(kwargs.pop("tensor"))
    if kwargs:
        raise TypeError(f"to() received an invalid combination of arguments: unexpected {sorted(kwargs)}")
    for value in values:
        if isinstance(value, Tensor):
            target_device, target_dtype = value.device, value.dtype
        elif isinstance(value, (str, Device)):
            target_device = as_device(value)
        elif isinstance(value, int) and not isinstance(value, bool):
            target_device = as_device(f"cuda:{value}")
        else:
            target_dtype = dtypes.as_dtype(value)
    return target_device, target_dtype

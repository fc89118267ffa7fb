"""``Parameter``: a tensor a Module learns; ``Buffer``: a tensor a Module keeps but does not learn.

Assigning a ``Parameter`` as a Module attribute registers it, so it shows up in
``parameters()`` and ``state_dict()``. A ``Parameter`` shares the storage of the tensor it is
made from: ``p = Parameter(t)`` then ``t.fill_(0)`` changes ``p`` too.

Lazy modules hold :class:`UninitializedParameter` and :class:`UninitializedBuffer` placeholders:
a dtype and a device but no shape until :meth:`~UninitializedTensorMixin.materialize`.
"""

from __future__ import annotations

import inspect
import sys
from typing import Any, Callable, Optional

from .. import dtypes
from ..creation import empty
from ..tensor import Tensor


class Parameter(Tensor):
    """A leaf tensor that requires grad by default and registers itself on a Module."""

    def __init__(self, data: Optional[Tensor] = None, requires_grad: bool = True) -> None:
        if data is None:
            data = empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter(): argument 'data' must be Tensor, not {type(data).__name__}")
        # BEGIN SOLUTION 4.1
        self._init_fields(data._data, data.device, False)
        # the same storage and version counter as ``data``: an in-place change shows in both
        self._version_counter = data._version_counter
        self.requires_grad = requires_grad
        # END SOLUTION

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    def __deepcopy__(self, memo: dict) -> "Parameter":
        if id(self) in memo:
            return memo[id(self)]
        copied = Parameter(self.detach().clone(), self.requires_grad)
        if self.grad is not None:
            copied.grad = self.grad.detach().clone()
        memo[id(self)] = copied
        return copied


class _BufferMeta(type):
    """``isinstance(t, Buffer)`` is true for tensors made by ``Buffer(...)``."""

    def __instancecheck__(cls, instance: Any) -> bool:
        if cls is Buffer:
            return isinstance(instance, Tensor) and getattr(instance, "_is_buffer", False)
        return super().__instancecheck__(instance)


class Buffer(metaclass=_BufferMeta):
    """Marks a tensor as a buffer: ``module.name = Buffer(t, persistent=False)`` registers it.

    Like PyTorch, ``Buffer(t)`` returns a plain :class:`~minitorch.Tensor` (sharing ``t``'s
    storage) that carries the mark; the Module stores that tensor.
    """

    def __new__(cls, data: Optional[Tensor] = None, *, persistent: bool = True) -> Any:  # type: ignore[misc]
        if data is None:
            data = empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Buffer(): argument 'data' must be Tensor, not {type(data).__name__}")
        marked = data.detach()
        marked._is_buffer = True
        marked.persistent = persistent
        return marked


# ---- placeholders of lazy modules: a parameter or buffer whose shape is not known yet ----

#: what may be asked of a placeholder before it has a shape, as in PyTorch: its size (``[0]``),
#: dtype and device, conversions to another dtype or device, and a copy from another placeholder
_ALLOWED_BEFORE_MATERIALIZE = frozenset({
    "size", "copy_", "is_floating_point", "half", "float", "double", "int", "long", "cuda", "cpu", "to",
})
#: operators refused on a placeholder (Python calls them on the type, past ``__getattribute__``)
_REFUSED_OPERATORS = (
    "__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__", "__rtruediv__",
    "__floordiv__", "__rfloordiv__", "__pow__", "__rpow__", "__mod__", "__rmod__", "__matmul__", "__rmatmul__",
    "__neg__", "__pos__", "__abs__", "__invert__", "__and__", "__or__", "__xor__", "__lt__", "__le__", "__gt__",
    "__ge__", "__eq__", "__ne__", "__iadd__", "__isub__", "__imul__", "__itruediv__", "__getitem__",
    "__setitem__", "__len__", "__iter__", "__bool__", "__float__", "__int__", "__index__", "__array__",
    "__format__",
)


def _uninitialized_error(cls: type, used_in: str) -> ValueError:
    return ValueError(
        f"Attempted to use an uninitialized parameter in {used_in}. This error happens when you are using a "
        f"`LazyModule` or explicitly manipulating `minitorch.nn.parameter.{cls.__name__}` objects. When using "
        "LazyModules Call `forward` with a dummy batch to initialize the parameters before calling minitorch functions"
    )


class UninitializedTensorMixin:
    """A tensor that has a dtype and a device but no shape yet; :meth:`materialize` gives it one.

    Until then it holds no values: reading them (an op, ``.shape``, indexing) is an error. Its
    storage is reachable only through :meth:`_placeholder`, so no op can read it by mistake.
    """

    #: the class an instance becomes once materialised
    cls_to_become: type

    def __getattribute__(self, name: str) -> Any:
        if name == "_data":
            caller = sys._getframe(1).f_code
            raise _uninitialized_error(type(self), getattr(caller, "co_qualname", caller.co_name))
        if not name.startswith("_") and name not in _ALLOWED_BEFORE_MATERIALIZE:
            owner = next((klass for klass in type(self).__mro__ if name in vars(klass)), None)
            if (owner is not None and not issubclass(owner, UninitializedTensorMixin)
                    and inspect.isfunction(vars(owner)[name])):
                raise _uninitialized_error(type(self), f"{owner.__name__}.{name}")
        return super().__getattribute__(name)

    def _placeholder(self) -> Tensor:
        """A plain tensor on this one's (empty) storage, for the few things allowed before materialising."""
        return Tensor._make(object.__getattribute__(self, "_data"), self._device)

    def _like(self, plain: Tensor) -> "UninitializedTensorMixin":
        """A placeholder of this class holding ``plain``'s (empty) storage, dtype and device."""
        made = type(self).__new__(type(self))
        made._init_fields(plain._data, plain.device, self._requires_grad)
        made.__dict__.update({k: v for k, v in self.__dict__.items() if k in ("persistent", "_is_buffer")})
        return made

    def materialize(self, shape: Any, device: Any = None, dtype: Any = None) -> None:
        """Give this placeholder the storage of an uninitialised tensor of ``shape`` (on its own device and
        dtype unless others are given), and turn it into :attr:`cls_to_become`."""
        current = self._placeholder()
        made = empty(shape, device=current.device if device is None else device,
                     dtype=current.dtype if dtype is None else dtype)
        self._data = made._data
        self._device = made.device
        self.__class__ = self.cls_to_become

    @property
    def shape(self) -> Any:
        raise RuntimeError(
            "Can't access the shape of an uninitialized parameter or buffer. This error usually happens in "
            "`load_state_dict` when trying to load an uninitialized parameter into an initialized one. Call "
            "`forward` to initialize the parameters before accessing their attributes."
        )

    @property
    def dtype(self) -> Any:
        return self._placeholder().dtype

    @property
    def data(self) -> Tensor:
        """The empty storage as a plain tensor; assigning (another placeholder too) swaps it."""
        return self._placeholder()

    @data.setter
    def data(self, value: Tensor) -> None:
        plain = value._placeholder() if is_lazy(value) else value
        Tensor.data.fset(self, plain)  # type: ignore[attr-defined]

    def size(self, dim: Optional[int] = None) -> Any:
        return self._placeholder().size(dim)

    def is_floating_point(self) -> bool:
        return self.dtype.is_floating_point

    def copy_(self, src: Tensor, non_blocking: bool = False) -> "UninitializedTensorMixin":
        """Copy another placeholder (or an empty tensor) into this one: what loading a lazy module's
        state dict into another does."""
        self._check_inplace_allowed()
        source = src._placeholder() if is_lazy(src) else src
        self._placeholder().copy_(source, non_blocking)
        return self

    def to(self, *args: Any, **kwargs: Any) -> "UninitializedTensorMixin":
        """A placeholder of another dtype or device: ``Module.to`` converts lazy modules too."""
        return self._like(self._placeholder().to(*args, **kwargs))

    def cpu(self) -> "UninitializedTensorMixin":
        return self.to("cpu")

    def cuda(self, device_index: Optional[int] = None) -> "UninitializedTensorMixin":
        return self._like(self._placeholder().cuda(device_index))

    def half(self) -> "UninitializedTensorMixin":
        return self.to(dtypes.float16)

    def float(self) -> "UninitializedTensorMixin":
        return self.to(dtypes.float32)

    def double(self) -> "UninitializedTensorMixin":
        return self.to(dtypes.float64)

    def int(self) -> "UninitializedTensorMixin":
        return self.to(dtypes.int32)

    def long(self) -> "UninitializedTensorMixin":
        return self.to(dtypes.int64)

    def share_memory_(self) -> None:
        raise RuntimeError(
            "Can't share memory on an uninitialized parameter or buffer. Call `forward` to initialize the "
            "parameters before calling `module.share_memory()`."
        )

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"

    __str__ = __repr__

    def __reduce_ex__(self, protocol: Any) -> tuple:
        return type(self), (self._requires_grad,)

    def __deepcopy__(self, memo: dict) -> "UninitializedTensorMixin":
        if id(self) not in memo:
            memo[id(self)] = self._like(self._placeholder().clone())
        return memo[id(self)]


def _refuse(operator: str) -> Callable[..., Any]:
    def refused(self: Any, *args: Any, **kwargs: Any) -> Any:
        raise _uninitialized_error(type(self), f"Tensor.{operator}")

    refused.__name__ = operator
    return refused


for _operator in _REFUSED_OPERATORS:
    if hasattr(Tensor, _operator):
        setattr(UninitializedTensorMixin, _operator, _refuse(_operator))


def is_lazy(param: Any) -> bool:
    """Whether ``param`` is a placeholder (:class:`UninitializedParameter` or :class:`UninitializedBuffer`)."""
    return isinstance(param, UninitializedTensorMixin)


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A :class:`Parameter` whose shape a lazy module infers on its first call (then it becomes a
    ``Parameter``); ``device`` and ``dtype`` are those it will have."""

    cls_to_become = Parameter

    def __init__(self, requires_grad: bool = True, device: Any = None, dtype: Any = None) -> None:
        super().__init__(empty(0, device=device, dtype=dtype), requires_grad)


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer whose shape a lazy module infers on its first call (then it becomes a plain tensor)."""

    cls_to_become = Tensor

    def __init__(self, requires_grad: bool = False, device: Any = None, dtype: Any = None,
                 persistent: bool = True) -> None:
        made = empty(0, device=device, dtype=dtype)
        self._init_fields(made._data, made.device, False)
        self.requires_grad = requires_grad
        self.persistent = persistent
        self._is_buffer = True

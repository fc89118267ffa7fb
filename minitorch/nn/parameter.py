"""``Parameter``: a tensor a Module learns; ``Buffer``: a tensor a Module keeps but does not learn.

Assigning a ``Parameter`` as a Module attribute registers it, so it shows up in
``parameters()`` and ``state_dict()``. A ``Parameter`` shares the storage of the tensor it is
made from: ``p = Parameter(t)`` then ``t.fill_(0)`` changes ``p`` too.
"""

from __future__ import annotations

from typing import Any, Optional

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

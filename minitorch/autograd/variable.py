"""``Variable``, PyTorch's name from before tensors had autograd (merged into Tensor in 0.4).

Old tutorials still write ``Variable(x, requires_grad=True)``. As in PyTorch today, it returns a
tensor sharing ``x``'s storage, detached from any graph, with ``requires_grad`` as asked; and
every tensor is an instance of ``Variable``.
"""

from __future__ import annotations

from typing import Any

from ..dispatch import tensor_class


class _VariableMeta(type):
    def __instancecheck__(cls, instance: Any) -> bool:
        return isinstance(instance, tensor_class())


class Variable(metaclass=_VariableMeta):
    """``Variable(data, requires_grad=False)``: a detached alias of ``data`` (``volatile`` is ignored, as in PyTorch)."""

    def __new__(cls, data: Any, requires_grad: bool = False, volatile: bool = False) -> Any:  # noqa: D102
        if not isinstance(data, tensor_class()):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        return data.detach().requires_grad_(requires_grad)

"""``ShapeProp``: run a graph and record each node's output shape and dtype in ``node.meta``."""

from __future__ import annotations

from typing import Any, NamedTuple

from ...tensor import Tensor
from ..interpreter import Interpreter
from ..node import Node


class TensorMetadata(NamedTuple):
    """What ``ShapeProp`` stores under ``node.meta['tensor_meta']`` (a subset of PyTorch's fields)."""

    shape: Any
    dtype: Any
    requires_grad: bool
    stride: tuple


class ShapeProp(Interpreter):
    """``ShapeProp(gm).propagate(*args)`` fills ``node.meta['tensor_meta']`` for tensor results."""

    def run_node(self, n: Node) -> Any:
        result = super().run_node(n)
        if isinstance(result, Tensor):
            n.meta["tensor_meta"] = TensorMetadata(result.shape, result.dtype, result.requires_grad, tuple(result.stride()))
        n.meta["type"] = type(result)
        return result

    def propagate(self, *args: Any) -> Any:
        return self.run(*args)

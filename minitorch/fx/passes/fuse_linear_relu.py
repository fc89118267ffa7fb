r"""Fuse every ``Linear`` followed by a ReLU into one ``LinearReLU`` module (course step 10, task 10.2).

A graph pass in three moves: *match* a pattern of nodes, *rewrite* the graph around it,
*clean up* (lint, drop submodules nothing calls, regenerate the code). The pattern is a
``call_module`` of an ``nn.Linear`` whose only user is a ReLU, either an ``nn.ReLU`` module
or ``F.relu``; the rewrite puts ``LinearReLU(linear, relu)`` where the Linear was, so one
node computes :math:`\max(0,\, x W^\top + b)`, and routes the ReLU's users to it.

It follows PyTorch's ``torch.ao.quantization.quantize_fx.fuse_fx`` for this pattern: the
fused module has the Linear's name and holds ``(0): Linear`` and ``(1): ReLU``
(``torch.ao.nn.intrinsic.LinearReLU``), so its ``state_dict`` keys become ``fc.0.weight``;
a Linear whose output is also read elsewhere is left alone.
"""

from __future__ import annotations

import copy
from typing import Optional

from ...nn import functional as F
from ...nn.modules.activation import ReLU
from ...nn.modules.container import Sequential
from ...nn.modules.linear import Linear
from ...nn.modules.module import Module
from ..graph_module import GraphModule, _fetch, _install, _remove
from ..node import Node
from ..tracer import symbolic_trace


class LinearReLU(Sequential):
    """``Linear`` then ``ReLU`` as one module (PyTorch: ``torch.ao.nn.intrinsic.LinearReLU``)."""

    def __init__(self, linear: Linear, relu: ReLU) -> None:
        if type(linear) is not Linear or type(relu) is not ReLU:
            raise AssertionError(f"Incorrect types for input modules{type(linear)}{type(relu)}")
        super().__init__(linear, relu)


def is_relu(gm: GraphModule, node: Node) -> bool:
    """Whether ``node`` applies a ReLU: an ``nn.ReLU`` submodule or ``F.relu``."""
    if node.op == "call_module":
        return type(_fetch(gm, node.target)) is ReLU
    return node.op == "call_function" and node.target is F.relu


def linear_before(gm: GraphModule, node: Node) -> Optional[Node]:
    """The ``call_module`` node of an ``nn.Linear`` that only ``node``, a ReLU, reads; else None."""
    # BEGIN SOLUTION 10.2
    if not is_relu(gm, node) or not node.args or not isinstance(node.args[0], Node):
        return None
    producer = node.args[0]
    if producer.op != "call_module" or type(_fetch(gm, producer.target)) is not Linear:
        return None
    return producer if len(producer.users) == 1 else None
    # END SOLUTION


def fuse_linear_relu(model: Module) -> GraphModule:
    """A traced copy of ``model`` in which every Linear -> ReLU pair is one :class:`LinearReLU`.

    ``model`` itself is left unchanged; the result computes the same outputs.
    """
    gm = copy.deepcopy(model)
    gm = gm if isinstance(gm, GraphModule) else symbolic_trace(gm)
    fused_relus: list[str] = []  # targets of ReLU modules folded in (removed below once unused)
    # BEGIN SOLUTION 10.2
    for node in list(gm.graph.nodes):
        linear = linear_before(gm, node)
        if linear is None:
            continue
        relu = _fetch(gm, node.target) if node.op == "call_module" else ReLU()
        if node.op == "call_module":
            fused_relus.append(node.target)
        _install(gm, linear.target, LinearReLU(_fetch(gm, linear.target), relu))
        node.replace_all_uses_with(linear)
        gm.graph.erase_node(node)
    # END SOLUTION
    still_called = {node.target for node in gm.graph.nodes if node.op == "call_module"}
    for target in dict.fromkeys(fused_relus):
        if target not in still_called:
            _remove(gm, target)
    gm.graph.lint()
    gm.recompile()
    return gm

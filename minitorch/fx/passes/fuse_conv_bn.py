"""Fold every eval-mode ``BatchNorm2d`` into the ``Conv2d`` that feeds it, in a traced graph
(the weights by :func:`minitorch.nn.utils.fusion.fuse_conv_bn_eval`)."""

from __future__ import annotations

import copy

from ...nn.modules.conv import Conv2d
from ...nn.modules.module import Module
from ...nn.modules.normalization import BatchNorm2d
from ...nn.utils.fusion import fuse_conv_bn_eval
from ..graph_module import GraphModule, _fetch, _install, _remove
from ..tracer import symbolic_trace


def fuse(model: Module) -> GraphModule:
    """Trace ``model`` (in eval mode) and replace every Conv2d -> BatchNorm2d pair by one Conv2d."""
    model = copy.deepcopy(model).eval()
    gm = model if isinstance(model, GraphModule) else symbolic_trace(model)
    for node in gm.graph.nodes:
        if node.op != "call_module" or not isinstance(_fetch(gm, node.target), BatchNorm2d):
            continue
        producer = node.args[0]
        if producer.op != "call_module" or not isinstance(_fetch(gm, producer.target), Conv2d):
            continue
        if len(producer.users) > 1:  # the conv output is read elsewhere too
            continue
        _install(gm, producer.target, fuse_conv_bn_eval(_fetch(gm, producer.target), _fetch(gm, node.target)))
        node.replace_all_uses_with(producer)
        gm.graph.erase_node(node)
        _remove(gm, node.target)
    gm.graph.lint()
    gm.recompile()
    return gm

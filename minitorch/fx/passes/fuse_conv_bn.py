r"""Fold an eval-mode ``BatchNorm2d`` into the ``Conv2d`` that feeds it.

In eval mode BatchNorm is affine: with :math:`s = \gamma / \sqrt{\sigma^2 + \epsilon}`,
:math:`\mathrm{bn}(\mathrm{conv}(x)) = \mathrm{conv}'(x)` where
:math:`W' = W \cdot s` (per output channel) and :math:`b' = (b - \mu)\, s + \beta`.
"""

from __future__ import annotations

import copy

from ...autograd.grad_mode import no_grad
from ...nn.modules.conv import Conv2d
from ...nn.modules.module import Module
from ...nn.modules.normalization import BatchNorm2d
from ...nn.parameter import Parameter
from ...creation import zeros
from ..graph_module import GraphModule, _fetch, _install, _remove
from ..tracer import symbolic_trace


def fuse_conv_bn_eval(conv: Conv2d, bn: BatchNorm2d) -> Conv2d:
    """A copy of ``conv`` whose weight and bias absorb eval-mode ``bn``."""
    if conv.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    fused = copy.deepcopy(conv)
    with no_grad():
        scale = bn.weight / (bn.running_var + bn.eps).sqrt()
        bias = conv.bias if conv.bias is not None else zeros(conv.out_channels, dtype=conv.weight.dtype)
        fused.weight = Parameter(conv.weight * scale.view(-1, 1, 1, 1))
        fused.bias = Parameter((bias - bn.running_mean) * scale + bn.bias)
    return fused


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

"""``minitorch.fx``: trace a module into a graph, edit the graph, run it (PyTorch's ``torch.fx``)."""

from .graph import Graph
from .graph_module import GraphModule
from .interpreter import Interpreter, Transformer
from .node import Node, map_arg
from .proxy import Proxy, TraceError
from .tracer import Tracer, symbolic_trace

__all__ = ["Graph", "GraphModule", "Interpreter", "Node", "Proxy", "TraceError", "Tracer", "Transformer",
           "map_arg", "symbolic_trace"]

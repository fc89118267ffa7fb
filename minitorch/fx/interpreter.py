"""``Interpreter`` runs a ``GraphModule`` node by node; ``Transformer`` rebuilds one.

Override the per-op methods (``call_function``, ``call_module`` ...) to observe or change
what each node does, e.g. to time it or record its output shape.
"""

from __future__ import annotations

from typing import Any, Iterator

from ..nn.modules.module import Module
from .graph import Graph
from .graph_module import GraphModule, _fetch
from .node import Node, map_arg
from .proxy import Proxy
from .tracer import Tracer


class Interpreter:
    """Evaluates ``module.graph`` on concrete arguments."""

    def __init__(self, module: Module, garbage_collect_values: bool = True, graph: Any = None) -> None:
        self.module = module
        self.graph = graph if graph is not None else module.graph
        self.env: dict[Node, Any] = {}
        self.garbage_collect_values = garbage_collect_values
        self._args_iter: Iterator[Any] = iter(())

    def run(self, *args: Any, initial_env: Any = None, enable_io_processing: bool = True) -> Any:
        """Run every node; returns what the ``output`` node returns."""
        self.env = dict(initial_env or {})
        self._args_iter = iter(args)
        last_use: dict[Node, Node] = {}
        for node in self.graph.nodes:
            for used in node.all_input_nodes:
                last_use[used] = node
        for node in self.graph.nodes:
            if node in self.env:
                continue
            self.env[node] = self.run_node(node)
            if self.garbage_collect_values:
                for used in node.all_input_nodes:
                    if last_use.get(used) is node:
                        del self.env[used]
            if node.op == "output":
                return self.env[node]
        return None

    def run_node(self, n: Node) -> Any:
        """Fetch the node's argument values and call the method named by its ``op``."""
        args, kwargs = self.fetch_args_kwargs_from_env(n)
        return getattr(self, n.op)(n.target, args, kwargs)

    def placeholder(self, target: str, args: tuple, kwargs: dict) -> Any:
        try:
            return next(self._args_iter)
        except StopIteration:
            if args:
                return args[0]
            raise RuntimeError(f"Expected positional argument for parameter {target}, but one was not passed in!") from None

    def get_attr(self, target: str, args: tuple, kwargs: dict) -> Any:
        return self.fetch_attr(target)

    def call_function(self, target: Any, args: tuple, kwargs: dict) -> Any:
        return target(*args, **kwargs)

    def call_method(self, target: str, args: tuple, kwargs: dict) -> Any:
        self_obj, *rest = args
        return getattr(self_obj, target)(*rest, **kwargs)

    def call_module(self, target: str, args: tuple, kwargs: dict) -> Any:
        return self.fetch_attr(target)(*args, **kwargs)

    def output(self, target: str, args: tuple, kwargs: dict) -> Any:
        return args[0]

    def fetch_attr(self, target: str) -> Any:
        return _fetch(self.module, target)

    def fetch_args_kwargs_from_env(self, n: Node) -> tuple[tuple, dict]:
        return self.map_nodes_to_values(n.args, n), self.map_nodes_to_values(n.kwargs, n)

    def map_nodes_to_values(self, args: Any, n: Node) -> Any:
        def load(node: Node) -> Any:
            if node not in self.env:
                raise RuntimeError(f"Node {n} referenced nonexistent value {node}! Run Graph.lint() to diagnose such issues")
            return self.env[node]
        return map_arg(args, load)


class Transformer(Interpreter):
    """Runs the graph on proxies to build a new ``GraphModule``; override methods to rewrite nodes."""

    def __init__(self, module: GraphModule) -> None:
        super().__init__(module, garbage_collect_values=False)
        self.new_graph = Graph()
        self.tracer = Tracer()
        self.tracer.graph = self.new_graph
        self.tracer.root = module

    def placeholder(self, target: str, args: tuple, kwargs: dict) -> Proxy:
        return self.tracer.create_proxy("placeholder", target, args, kwargs)

    def get_attr(self, target: str, args: tuple, kwargs: dict) -> Proxy:
        return self.tracer.create_proxy("get_attr", target, args, kwargs)

    def call_function(self, target: Any, args: tuple, kwargs: dict) -> Proxy:
        return self.tracer.create_proxy("call_function", target, args, kwargs)

    def call_method(self, target: str, args: tuple, kwargs: dict) -> Proxy:
        return self.tracer.create_proxy("call_method", target, args, kwargs)

    def call_module(self, target: str, args: tuple, kwargs: dict) -> Proxy:
        return self.tracer.create_proxy("call_module", target, args, kwargs)

    def transform(self) -> GraphModule:
        """The rewritten module."""
        placeholders = [self.placeholder(n.target, n.args, n.kwargs) for n in self.graph.nodes if n.op == "placeholder"]
        self.env = {}
        remaining = [n for n in self.graph.nodes if n.op == "placeholder"]
        for node, proxy in zip(remaining, placeholders):
            self.env[node] = proxy
        result = super().run(initial_env=self.env)
        self.new_graph.output(self.tracer.create_arg(result))
        return GraphModule(self.module, self.new_graph)

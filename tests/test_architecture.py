"""The layer rules of minitorch's import graph, read from the source with ``ast``.

Data flows down and imports point down (``docs`` and DESIGN: backends below dispatch
below tensors below nn). These tests keep it so: no import runs back up a layer, the only
import cycles are the two knots where an object and its Functions know each other, and
dispatch and the backends never import the Tensor.

An edge ``a -> b`` is one ``import`` in module ``a`` of minitorch module ``b``, at module
level or inside a function; imports under ``if TYPE_CHECKING:`` only serve type hints and
are left out. Modules are named by their path under ``minitorch/`` (``ops/elementwise``,
``backends/cpu``; a package is its ``__init__``).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "minitorch"

#: the layers, lowest first (a module is in the first layer one of whose prefixes it starts with)
LAYERS: tuple[tuple[str, ...], ...] = (
    ("dtypes", "size", "device", "operators", "shapes", "keywords", "return_types", "type_info", "autocast_state", "deterministic", "rounding", "tensor_data", "shared_memory", "memory_formats", "scalar", "scalar_functions", "autodiff", "mersenne", "draws", "count_draws", "c_math", "cephes_float32",
     "utils/hooks"),
    ("backends/",),
    ("dispatch", "conv_dispatch", "pool_dispatch", "optim_dispatch", "loss_dispatch", "rnn_dispatch", "index_checks"),
    ("autograd/", "tensor", "ops/", "out_argument", "linalg", "generator", "random", "cuda", "accelerator", "creation", "toplevel", "tensor_repr",
     "legacy_types", "quantized/", "toplevel_extra"),
    ("nn/", "optim/", "serialization/", "utils/", "distributions/", "amp/", "profiler/", "fx/",
     "distributed/", "multiprocessing/", "compiler", "ao/", "func/", "functional_aliases", "special", "testing"),
    ("course/", "cli", "train", "train_ranks", "datasets", "demo", "milestones/", "warmup", "__main__", "__init__"),
)


@dataclass(frozen=True)
class Import:
    source: str
    target: str
    line: int
    local: bool  # inside a function body


def module_name(path: Path) -> str:
    name = path.relative_to(PACKAGE).with_suffix("").as_posix()
    return name[: -len("/__init__")] if name.endswith("/__init__") else name


def _modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def _resolve(source: str, is_package: bool, level: int, module: str | None, known: dict[str, Path]) -> list[str]:
    """The minitorch module(s) an import names (``from . import a, b`` names two)."""
    parts = source.split("/") if source != "__init__" else []
    base = parts if is_package else parts[:-1]
    if level:
        base = base[: len(base) - (level - 1)] if level > 1 else base
    else:
        if not module or not module.startswith("minitorch"):
            return []
        base = []
        module = module[len("minitorch") :].lstrip(".") or None
    target = "/".join(base + (module.split(".") if module else []))
    return [target or "__init__"]


class _Visitor(ast.NodeVisitor):
    def __init__(self, source: str, is_package: bool, known: dict[str, Path]) -> None:
        self.source, self.is_package, self.known = source, is_package, known
        self.imports: list[Import] = []
        self._depth = 0

    def visit_If(self, node: ast.If) -> None:
        test = node.test
        if (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
            isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
        ):
            for child in node.orelse:
                self.visit(child)
            return
        self.generic_visit(node)

    def _function(self, node: ast.AST) -> None:
        self._depth += 1
        self.generic_visit(node)
        self._depth -= 1

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _function  # noqa: N815

    def _add(self, target: str, line: int) -> None:
        if target in self.known and target != self.source:
            self.imports.append(Import(self.source, target, line, self._depth > 0))

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if alias.name.startswith("minitorch"):
                for target in _resolve(self.source, self.is_package, 0, alias.name, self.known):
                    self._add(target, node.lineno)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        (base,) = _resolve(self.source, self.is_package, node.level, node.module, self.known) or [None]
        if base is None:
            return
        for alias in node.names:  # ``from . import views`` imports a submodule
            sub = f"{base}/{alias.name}" if base != "__init__" else alias.name
            self._add(sub if sub in self.known else base, node.lineno)


def imports() -> list[Import]:
    """Every import of a minitorch module by a minitorch module."""
    known = _modules()
    found: list[Import] = []
    for name, path in known.items():
        visitor = _Visitor(name, path.name == "__init__.py", known)
        visitor.visit(ast.parse(path.read_text(), str(path)))
        found.extend(visitor.imports)
    return found


def layer_of(module: str) -> int:
    for rank, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            if module == prefix.rstrip("/") or (prefix.endswith("/") and module.startswith(prefix)) or module == prefix:
                return rank
    raise KeyError(f"module {module!r} is in no layer of LAYERS")


def upward(edges: list[Import]) -> list[Import]:
    """Imports of a module of a higher layer than the importer's."""
    return [edge for edge in edges if layer_of(edge.target) > layer_of(edge.source)]


def cycles(edges: list[Import]) -> list[set[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    graph: dict[str, set[str]] = {}
    for edge in edges:
        graph.setdefault(edge.source, set()).add(edge.target)
        graph.setdefault(edge.target, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph[node]:
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(component)

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


#: the most modules a knot (cycle) may span: the Tensor and its Functions, Scalar and its Functions
MAX_KNOT_FILES = 4
#: the most imports that may run back up a layer
MAX_UPWARD_IMPORTS = 4
#: every cycle must contain one of these (the object at the centre of the knot)
KNOT_CENTRES = ("tensor", "scalar")


@pytest.fixture(scope="module")
def graph() -> list[Import]:
    return imports()


def test_the_graph_is_read(graph: list[Import]) -> None:
    """The parser finds the imports everyone knows of (so the rules below are not vacuous)."""
    edges = {(edge.source, edge.target) for edge in graph}
    assert ("tensor", "dispatch") in edges
    assert ("dispatch", "backends") in edges
    assert ("backends/cpu", "backends/cpu_kernels") in edges
    assert ("ops/elementwise", "autograd/function") in edges
    assert ("ops/views", "tensor") not in edges  # only under TYPE_CHECKING: a type hint, not an import


def test_no_cycle_beyond_the_knots(graph: list[Import]) -> None:
    found = cycles(graph)
    print(f"import cycles: {[sorted(c) for c in found]}")
    for component in found:
        assert len(component) <= MAX_KNOT_FILES, f"an import cycle of {len(component)} modules: {sorted(component)}"
        assert any(centre in component for centre in KNOT_CENTRES), f"an import cycle outside the knots: {sorted(component)}"
    assert len(found) <= len(KNOT_CENTRES)


def test_few_imports_run_back_up(graph: list[Import]) -> None:
    up = upward(graph)
    print(f"imports that run back up: {len(up)}")
    assert len(up) <= MAX_UPWARD_IMPORTS, "\n".join(f"{e.source}:{e.line} imports {e.target}" for e in up)


def test_dispatch_and_backends_never_import_the_tensor(graph: list[Import]) -> None:
    offenders = [
        f"{edge.source}:{edge.line}"
        for edge in graph
        if (edge.source == "dispatch" or edge.source.startswith("backends")) and edge.target in ("tensor", "creation")
    ]
    assert not offenders


def test_every_module_has_a_layer(graph: list[Import]) -> None:
    for module in {edge.source for edge in graph} | {edge.target for edge in graph}:
        layer_of(module)


def test_cycles_and_upward_imports_are_detected() -> None:
    """The checks see a cycle and an upward import when there is one (made-up edges)."""
    made_up = [Import("dispatch", "tensor", 1, True), Import("tensor", "dispatch", 2, False)]
    assert cycles(made_up) == [{"dispatch", "tensor"}]
    assert upward(made_up) == [made_up[0]]

"""Count which PyTorch names public tutorials and course code use.

Run over a folder of sources laid out as ``<owner>+<repo>/<path>`` (Python files, Jupyter
notebooks, and the Markdown chapters of a book whose code blocks carry a ``%%tab pytorch``
line), with a manifest (``owner/repo<TAB>commit<TAB>path`` per line) that names them::

    python compat/census.py SOURCES MANIFEST --out docs/compat/census.md

Every attribute chain rooted at an imported ``torch`` name (``torch.sin``, ``nn.Linear``,
``F.relu``, ``optim.SGD``, ``DataLoader``, ...) is resolved to its full name; chains are cut
at the first object that is not a module, looked up in the installed PyTorch. Tensor methods
cannot be told apart from other methods without running the code, so a method counts as a
Tensor method when PyTorch's ``Tensor`` has that name and the receiver is not a module that
the file imported (``np``, ``plt``, ``torch``...); names with common non-tensor meanings are
marked. The output is names and counts only.
"""

from __future__ import annotations

import argparse
import ast
import collections
import json
import re
import sys
import types
from dataclasses import dataclass, field
from pathlib import Path

import torch

#: Tensor method names that also mean something common outside tensors (str, list, set, pandas,
#: the (values, indices) pairs of max/topk, autograd graph nodes)
AMBIGUOUS_METHODS = frozenset({
    "split", "sort", "values", "indices", "add", "copy_", "apply_", "name", "index", "resize", "real",
})
AMBIGUOUS_MARK = " (also other objects')"
#: methods of modules, optimizers, schedulers and loaders that tutorials call
OBJECT_METHOD_NAMES = frozenset(
    set(dir(torch.nn.Module)) | set(dir(torch.optim.Optimizer)) | set(dir(torch.optim.lr_scheduler.LRScheduler))
) - set(dir(torch.Tensor))
TENSOR_NAMES = frozenset(name for name in dir(torch.Tensor) if not name.startswith("__"))
TAB_LINE = re.compile(r"^\s*(%%tab|#@tab)\s+(?P<tabs>.*)$")
MD_BLOCK = re.compile(r"^```\{\.python \.input[^}]*\}\n(?P<body>.*?)^```", re.S | re.M)
TOP_ROWS = 400


@dataclass
class Counts:
    """Occurrences of each key, and the files and repositories it occurs in."""

    uses: collections.Counter = field(default_factory=collections.Counter)
    files: dict = field(default_factory=lambda: collections.defaultdict(set))
    repos: dict = field(default_factory=lambda: collections.defaultdict(set))

    def add(self, key: str, file_id: str, repo: str) -> None:
        self.uses[key] += 1
        self.files[key].add(file_id)
        self.repos[key].add(repo)

    def rows(self) -> list[tuple[str, int, int, int]]:
        """(key, files, repositories, uses), most widely used first."""
        rows = [(k, len(self.files[k]), len(self.repos[k]), n) for k, n in self.uses.items()]
        return sorted(rows, key=lambda r: (-r[1], -r[3], r[0]))


def canonical(chain: list[str]) -> str:
    """Cut a dotted chain after the first object of PyTorch that is not a module."""
    obj: object = torch
    for depth, part in enumerate(chain[1:], start=1):
        obj = getattr(obj, part, None)
        if not isinstance(obj, types.ModuleType):
            return ".".join(chain[: depth + 1])
    return ".".join(chain)


def is_module(chain: list[str]) -> bool:
    """Whether a dotted chain names a module of PyTorch (``torch.nn``), not an object in one."""
    obj: object = torch
    for part in chain[1:]:
        obj = getattr(obj, part, None)
    return isinstance(obj, types.ModuleType)


def code_cells(path: Path) -> list[str]:
    """The Python code of a source file, one string per notebook cell or book block."""
    text = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix == ".ipynb":
        try:
            cells = json.loads(text).get("cells", [])
        except json.JSONDecodeError:
            return []
        sources = ["".join(c["source"]) if isinstance(c["source"], list) else c["source"] for c in cells if c.get("cell_type") == "code"]
    elif path.suffix == ".md":
        sources = []
        for match in MD_BLOCK.finditer(text):
            body = match.group("body")
            first = next((line for line in body.splitlines() if line.strip()), "")
            tab = TAB_LINE.match(first)
            if tab and "pytorch" in tab.group("tabs"):
                sources.append(body)
    else:
        sources = [text]
    # notebook magics and shell escapes are not Python
    return ["\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in s.splitlines()) for s in sources]


class Census(ast.NodeVisitor):
    """Walk one file's cells in order, sharing its imports between cells."""

    def __init__(self, counts: dict[str, Counts], file_id: str, repo: str) -> None:
        self.counts, self.file_id, self.repo = counts, file_id, repo
        self.torch_alias: dict[str, list[str]] = {}
        self.foreign_alias: set[str] = set()
        self.no_grad_depth = 0

    def count(self, table: str, key: str) -> None:
        self.counts[table].add(key, self.file_id, self.repo)

    # imports -----------------------------------------------------------------
    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            root = alias.name.split(".")[0]
            if root == "torch":
                self.torch_alias[alias.asname or "torch"] = alias.name.split(".") if alias.asname else ["torch"]
            else:
                self.foreign_alias.add(alias.asname or root)
                self.count("other imports", root)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = node.module or ""
        if module.split(".")[0] != "torch":
            self.foreign_alias.update(a.asname or a.name for a in node.names)
            if module and not node.level:
                self.count("other imports", module.split(".")[0])
            return
        for alias in node.names:
            chain = module.split(".") + [alias.name]
            self.torch_alias[alias.asname or alias.name] = chain
            self.record_name(chain)

    # names -------------------------------------------------------------------
    def resolve(self, node: ast.expr) -> list[str] | None:
        """The full torch chain of ``a.b.c`` when ``a`` is a torch import, else None."""
        parts: list[str] = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if isinstance(node, ast.Name) and node.id in self.torch_alias:
            return self.torch_alias[node.id] + parts[::-1]
        return None

    def record_name(self, chain: list[str]) -> str:
        name = canonical(chain)
        if not is_module(name.split(".")):
            self.count(table_of(name), name)
        return name

    def receiver_is_foreign(self, node: ast.expr) -> bool:
        while isinstance(node, (ast.Attribute, ast.Call, ast.Subscript)):
            node = node.func if isinstance(node, ast.Call) else node.value
        if isinstance(node, ast.Constant):
            return True
        return isinstance(node, ast.Name) and (node.id in self.foreign_alias or node.id in self.torch_alias)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        chain = self.resolve(node)
        if chain is not None:
            # count the longest chain only: do not descend into its prefixes
            if isinstance(node.ctx, ast.Load):
                self.record_name(chain)
            return
        if not self.receiver_is_foreign(node.value):
            if node.attr in TENSOR_NAMES:
                mark = AMBIGUOUS_MARK if node.attr in AMBIGUOUS_METHODS else ""
                self.count("Tensor methods and attributes", node.attr + mark)
            elif node.attr in OBJECT_METHOD_NAMES:
                self.count("Module / optimizer / scheduler methods", node.attr)
        if node.attr in {"next_functions", "save_for_backward", "saved_tensors", "needs_input_grad", "mark_dirty"}:
            self.count("idioms", f".{node.attr}")
        if isinstance(node.ctx, ast.Store) and node.attr in {"requires_grad", "grad", "data"}:
            self.count("idioms", f"assignment to .{node.attr}")
        self.generic_visit(node)

    def visit_arg(self, node: ast.arg) -> None:
        # a parameter named like an import (``data``) shadows it from here on
        self.torch_alias.pop(node.arg, None)

    def visit_If(self, node: ast.If) -> None:
        # a multi-framework book picks a framework with ``if tab.selected('pytorch'):``
        test = node.test
        if isinstance(test, ast.Call) and isinstance(test.func, ast.Attribute) and test.func.attr == "selected":
            frameworks = {a.value for a in test.args if isinstance(a, ast.Constant)}
            for child in node.body if "pytorch" in frameworks else node.orelse:
                self.visit(child)
            return
        self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Store):
            self.torch_alias.pop(node.id, None)
        if node.id in self.torch_alias and isinstance(node.ctx, ast.Load):
            chain = self.torch_alias[node.id]
            if len(chain) > 1:
                self.record_name(chain)

    def visit_Call(self, node: ast.Call) -> None:
        chain = self.resolve(node.func) if isinstance(node.func, (ast.Attribute, ast.Name)) else None
        keywords = [k.arg for k in node.keywords if k.arg]
        if chain is not None:
            name = canonical(chain)
            for keyword in keywords:
                self.count("keywords", f"{name}({keyword}=)")
            if name == "torch.save" and node.args:
                self.count("idioms", "torch.save(" + saved_kind(node.args[0]) + ")")
        elif isinstance(node.func, ast.Attribute) and node.func.attr in TENSOR_NAMES:
            if not self.receiver_is_foreign(node.func.value):
                for keyword in keywords:
                    self.count("keywords", f"Tensor.{node.func.attr}({keyword}=)")
        self.generic_visit(node)

    # idioms ------------------------------------------------------------------
    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        for base in node.bases:
            chain = self.resolve(base)
            if chain is not None:
                self.count("idioms", f"class X({canonical(chain)})")
        self.generic_visit(node)

    def visit_With(self, node: ast.With) -> None:
        guards = [self.resolve(i.context_expr.func) for i in node.items if isinstance(i.context_expr, ast.Call)]
        names = {canonical(c) for c in guards if c}
        for name in names:
            self.count("idioms", f"with {name}()")
        inside = bool(names & {"torch.no_grad", "torch.inference_mode"})
        self.no_grad_depth += inside
        self.generic_visit(node)
        self.no_grad_depth -= inside

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        for decorator in node.decorator_list:
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            chain = self.resolve(target)
            if chain is not None:
                self.count("idioms", f"@{canonical(chain)}")
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        op = type(node.op).__name__
        mentions_grad = any(isinstance(n, ast.Attribute) and n.attr == "grad" for n in ast.walk(node.value))
        if mentions_grad:
            self.count("idioms", f"augmented assignment ({op}) with .grad on the right (p -= lr * p.grad)")
        if self.no_grad_depth:
            self.count("idioms", f"augmented assignment ({op}) inside no_grad")
        if isinstance(node.target, ast.Subscript):
            self.count("idioms", "augmented assignment to a subscript (x[i] += v)")
        self.generic_visit(node)

    def visit_Subscript(self, node: ast.Subscript) -> None:
        index = node.slice
        parts = index.elts if isinstance(index, ast.Tuple) else [index]
        if any(isinstance(p, ast.Compare) for p in parts):
            self.count("idioms", "boolean mask index (x[x > 0])" + (" assigned" if isinstance(node.ctx, ast.Store) else ""))
        if isinstance(node.ctx, ast.Store):
            self.count("idioms", "assignment to a subscript (x[i] = v)")
        if any(isinstance(p, ast.Constant) and p.value is None for p in parts):
            self.count("idioms", "None in an index (x[:, None])")
        if any(isinstance(p, ast.Constant) and p.value is Ellipsis for p in parts):
            self.count("idioms", "Ellipsis in an index (x[..., 0])")
        self.generic_visit(node)

    def visit_BinOp(self, node: ast.BinOp) -> None:
        if isinstance(node.op, ast.MatMult):
            self.count("idioms", "@ operator")
        self.generic_visit(node)


def saved_kind(arg: ast.expr) -> str:
    """What ``torch.save`` is given: a state_dict() call, a dict literal, or another object."""
    if isinstance(arg, ast.Call) and isinstance(arg.func, ast.Attribute) and arg.func.attr == "state_dict":
        return "x.state_dict(), ...)"
    if isinstance(arg, ast.Dict):
        return "{...} checkpoint dict, ...)"
    return "an object such as a whole model, ...)"


def table_of(name: str) -> str:
    """The census table a canonical torch name belongs to."""
    prefixes = [
        ("torch.nn.functional.", "torch.nn.functional"),
        ("torch.nn.init.", "torch.nn (layers, init, utils)"),
        ("torch.nn.", "torch.nn (layers, init, utils)"),
        ("torch.optim.", "torch.optim"),
        ("torch.utils.data.", "torch.utils.data"),
    ]
    for prefix, table in prefixes:
        if name.startswith(prefix):
            return table
    return "torch (top level)" if name.count(".") == 1 else "other torch submodules"


def census(sources: Path, manifest: list[tuple[str, str, str]]) -> tuple[dict[str, Counts], dict[str, int]]:
    counts: dict[str, Counts] = collections.defaultdict(Counts)
    stats = collections.Counter()
    for repo, _commit, rel in manifest:
        path = sources / repo.replace("/", "+") / rel
        if not path.exists():
            continue
        visitor = Census(counts, f"{repo}/{rel}", repo)
        cells = code_cells(path)
        parsed = 0
        for cell in cells:
            try:
                tree = ast.parse(cell)
            except SyntaxError:
                stats["cells that do not parse (skipped)"] += 1
                continue
            parsed += 1
            visitor.visit(tree)
        stats["files read"] += 1
        stats["code cells or files parsed"] += parsed
        stats["files that import torch"] += bool(visitor.torch_alias)
    return counts, stats


def markdown(counts: dict[str, Counts], stats: dict[str, int], manifest: list[tuple[str, str, str]]) -> str:
    order = [
        "torch (top level)", "Tensor methods and attributes", "torch.nn (layers, init, utils)", "torch.nn.functional",
        "torch.optim", "torch.utils.data", "other torch submodules", "Module / optimizer / scheduler methods",
        "keywords", "idioms", "other imports",
    ]
    out = [
        "# Census: the PyTorch names that tutorials and course code use",
        "",
        "Generated by `python compat/census.py` (do not edit by hand). Counts of names, not code:",
        "*files* is the number of source files that use a name, *repos* the number of repositories,",
        "*uses* the number of occurrences. Rows are ordered by files, then uses.",
        "",
        "How names are found: every attribute chain rooted at an imported torch name is resolved to",
        "its full name (`nn.Linear` is `torch.nn.Linear`, `from torch.utils.data import DataLoader`",
        "makes `DataLoader` count as `torch.utils.data.DataLoader`). Tensor methods are a heuristic:",
        "a method or attribute counts when `torch.Tensor` has that name and the receiver is not a module",
        "the file imported, so `.to`, `.float`, `.cuda` also count calls on modules, and names marked",
        "*(also other objects')* include methods of strings, lists, sets, pandas objects, the",
        "`(values, indices)` pairs of `max`/`topk`, or autograd graph nodes.",
        "",
        "| statistic | value |",
        "|---|---|",
    ]
    out += [f"| {k} | {v} |" for k, v in sorted(stats.items())]
    for table in order:
        rows = counts[table].rows() if table in counts else []
        out += ["", f"## {table}", "", f"{len(rows)} distinct names.", "", "| name | files | repos | uses |", "|---|---|---|---|"]
        out += [f"| `{k}` | {f} | {r} | {n} |" for k, f, r, n in rows[:TOP_ROWS]]
        if len(rows) > TOP_ROWS:
            out.append(f"| ... {len(rows) - TOP_ROWS} more, each in fewer files | | | |")
    out += ["", "## Sources", "", "Read at these commits; each file is named by repository and path.", ""]
    by_repo: dict[tuple[str, str], list[str]] = collections.defaultdict(list)
    for repo, commit, rel in manifest:
        by_repo[(repo, commit)].append(rel)
    for (repo, commit), paths in sorted(by_repo.items()):
        out += [f"### {repo} (commit {commit[:12]}, {len(paths)} files)", ""]
        out += [f"- `{p}`" for p in sorted(paths)]
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sources", type=Path, help="folder of <owner>+<repo>/<path> source files")
    parser.add_argument("manifest", type=Path, help="owner/repo<TAB>commit<TAB>path per line")
    parser.add_argument("--out", type=Path, help="Markdown file to write (default: print)")
    args = parser.parse_args(argv)
    manifest = [tuple(line.split("\t")) for line in args.manifest.read_text().splitlines() if line.strip()]
    counts, stats = census(args.sources, manifest)
    text = markdown(counts, stats, manifest)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Write the API coverage page: every name of the census, looked up in this checkout's minitorch.

``python -m compat.coverage [--out docs/compat/coverage.md]`` (from the repository root;
``make docs`` runs it). It reads the census (``docs/compat/census.md``: the torch names that
public tutorials and course code use, with counts) and marks each name

* **supported** when minitorch has it and accepts every keyword the census saw passed to it,
* **partial** when minitorch has it but not some of those keywords (they are listed),
* **missing** when minitorch has no such name.

The page is made from the code at build time, so it is never out of date; it only needs
minitorch (not torch).
"""

from __future__ import annotations

import argparse
import collections
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from compat.lookup import MISSING, accepts, resolve

ROOT = Path(__file__).resolve().parents[1]
CENSUS = ROOT / "docs" / "compat" / "census.md"
DEFAULT_OUT = ROOT / "docs" / "compat" / "coverage.md"
#: the census tables of names this page covers, and how a row's name becomes a torch name
API_TABLES = {
    "torch (top level)": "",
    "Tensor methods and attributes": "Tensor.",
    "torch.nn (layers, init, utils)": "",
    "torch.nn.functional": "",
    "torch.optim": "",
    "torch.utils.data": "",
    "other torch submodules": "",
}
KEYWORDS_TABLE = "keywords"
ROW = re.compile(r"^\| `(?P<name>[^`]+)`(?P<note>[^|]*)\| (?P<files>\d+) \| (?P<repos>\d+) \| (?P<uses>\d+) \|$")
STATUSES = ("supported", "partial", "missing")


@dataclass
class Row:
    name: str
    files: int
    uses: int
    status: str = "missing"
    missing_keywords: list[str] = field(default_factory=list)


def read_census(path: Path = CENSUS) -> dict[str, list[tuple[str, int, int]]]:
    """Each table of the census as rows of (name, files, uses)."""
    tables: dict[str, list[tuple[str, int, int]]] = collections.defaultdict(list)
    table: Optional[str] = None
    for line in path.read_text().splitlines():
        if line.startswith("## "):
            table = line[3:].strip()
            continue
        match = ROW.match(line)
        if match and table is not None:
            tables[table].append((match["name"], int(match["files"]), int(match["uses"])))
    return tables


def _lookup(name: str) -> object:
    if name.startswith("Tensor."):
        import minitorch

        attribute = name.split(".", 1)[1]
        instance = minitorch.zeros(1, requires_grad=True)  # grad, grad_fn... are instance attributes
        found = getattr(minitorch.Tensor, attribute, MISSING)
        if found is MISSING and hasattr(instance, attribute):
            return getattr(instance, attribute)
        return found
    return resolve(name)


def classify(tables: dict[str, list[tuple[str, int, int]]]) -> dict[str, list[Row]]:
    """The census's API names with their status in minitorch."""
    keywords: dict[str, list[str]] = collections.defaultdict(list)
    for key, _, _ in tables.get(KEYWORDS_TABLE, []):
        callee, keyword = key[:-2].split("(")
        keywords[callee].append(keyword)
    result: dict[str, list[Row]] = {}
    for table, prefix in API_TABLES.items():
        rows = []
        for name, files, uses in tables.get(table, []):
            full = prefix + name.split(" ")[0]
            row = Row(full, files, uses)
            found = _lookup(full)
            if found is not MISSING:
                row.missing_keywords = [k for k in keywords.get(full, []) if accepts(found, k) is False]
                row.status = "partial" if row.missing_keywords else "supported"
            rows.append(row)
        result[table] = rows
    return result


def render(classified: dict[str, list[Row]]) -> str:
    lines = [
        "# API coverage",
        "",
        "Generated from the code by `python -m compat.coverage` when the docs are built. Every name the",
        "[census](census.md) found in public PyTorch tutorials and course code, looked up in minitorch:",
        "**supported** (present, and takes every keyword the census saw passed to it), **partial**",
        "(present, some keywords missing: listed) or **missing**. *files* counts the source files that",
        "use the name; the share of uses covered weights each name by them.",
        "",
        "| table | supported | partial | missing | uses covered |",
        "|---|---|---|---|---|",
    ]
    for table, rows in classified.items():
        counts = collections.Counter(row.status for row in rows)
        total = sum(row.files for row in rows) or 1
        covered = sum(row.files for row in rows if row.status == "supported")
        lines.append(f"| {table} | {counts['supported']} | {counts['partial']} | {counts['missing']} | "
                     f"{100 * covered / total:.0f}% |")
    for table, rows in classified.items():
        lines += ["", f"## {table}", "", "| name | files | status |", "|---|---|---|"]
        for row in rows:
            status = row.status
            if row.missing_keywords:
                status += ": no " + ", ".join(f"`{k}=`" for k in row.missing_keywords)
            lines.append(f"| `{row.name}` | {row.files} | {status} |")
    return "\n".join(lines) + "\n"


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="where to write the page")
    args = parser.parse_args(argv)
    classified = classify(read_census())
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(render(classified))
    summary = collections.Counter(row.status for rows in classified.values() for row in rows)
    print(f"wrote {args.out}: " + ", ".join(f"{summary[s]} {s}" for s in STATUSES))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

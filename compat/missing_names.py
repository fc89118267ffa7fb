"""List the torch names, Tensor methods and keywords the corpus uses that minitorch lacks.

``python -m compat.missing_names [SCRIPT ...]`` (from the repository root) reads the corpus scripts with the census's
name resolution (``census.py``) and looks each name up in this checkout's minitorch: a
``torch.a.b`` name must resolve to ``minitorch.a.b``, a Tensor method must exist on
``minitorch.Tensor``, and a keyword must be accepted by the signature of what it is passed
to. This is a static check: it finds what is missing, not what computes wrong numbers
(``run.py`` finds those).
"""

from __future__ import annotations

import argparse
import ast
import collections
from pathlib import Path
from typing import Any, Optional

from compat import census
from compat.lookup import MISSING, accepts, resolve
from compat.run import corpus_scripts

def missing_in(script: Path) -> list[str]:
    """What one script uses that minitorch does not have."""
    import minitorch

    instance = minitorch.zeros(1, requires_grad=True)  # grad, grad_fn... are instance attributes
    counts: dict[str, census.Counts] = collections.defaultdict(census.Counts)
    visitor = census.Census(counts, script.name, "corpus")
    visitor.visit(ast.parse(script.read_text()))
    problems = []
    for table, table_counts in counts.items():
        for key in table_counts.uses:
            if table == "Tensor methods and attributes":
                attr = key.split(" ")[0]
                if not hasattr(minitorch.Tensor, attr) and not hasattr(instance, attr):
                    maybe = " (maybe not a tensor)" if key.endswith(census.AMBIGUOUS_MARK) else ""
                    problems.append(f"Tensor.{attr}{maybe}")
            elif table == "keywords":
                callee, keyword = key[:-2].split("(")
                if callee.startswith("Tensor."):
                    obj = getattr(minitorch.Tensor, callee.split(".", 1)[1], MISSING)
                else:
                    obj = resolve(callee)
                if obj is not MISSING and accepts(obj, keyword) is False:
                    problems.append(f"{callee}({keyword}=)")
            elif table.startswith("torch") or table == "other torch submodules":
                if resolve(key) is MISSING:
                    problems.append(key)
    return sorted(set(problems))


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scripts", nargs="*", type=Path, help="scripts to check (default: the corpus)")
    args = parser.parse_args(argv)
    by_name: dict[str, list[str]] = collections.defaultdict(list)
    for script in args.scripts or corpus_scripts():
        for name in missing_in(script):
            by_name[name].append(script.stem)
    for name, scripts in sorted(by_name.items(), key=lambda item: (-len(item[1]), item[0])):
        print(f"{name}  ({len(scripts)}): {', '.join(sorted(scripts))}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

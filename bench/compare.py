"""Two benchmark runs side by side: each table row's median before and after, and the speed-up.

    python bench/compare.py BEFORE.json AFTER.json

Rows are matched by name (rows only one run has are listed with n/a). The speed-up is the
before time over the after time: above 1 the second run is faster. Only compare runs
taken on the same machine.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Optional

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import format_number, format_time, safe_ratio  # noqa: E402

WIDTHS = (52, 11, 11, 9, 24)


def rows(run: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Table rows by name, in the run's order."""
    return {row["name"]: row for case in run["cases"] for row in case["rows"]}


def compare(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    old, new = rows(before), rows(after)
    names = list(new) + [name for name in old if name not in new]
    lines = [f"{'case':<{WIDTHS[0]}}{'before':>{WIDTHS[1]}}{'after':>{WIDTHS[2]}}{'speed-up':>{WIDTHS[3]}}"
             f"  target after", "-" * sum(WIDTHS)]
    for name in names:
        first: Optional[float] = old.get(name, {}).get("median_s")
        second: Optional[float] = new.get(name, {}).get("median_s")
        target = new.get(name, {}).get("target")
        status = f"{target}: {new[name]['target_status'] or 'n/a'}" if target else ""
        lines.append(f"{name:<{WIDTHS[0]}}{format_time(first):>{WIDTHS[1]}}{format_time(second):>{WIDTHS[2]}}"
                     f"{format_number(safe_ratio(first, second), 'x'):>{WIDTHS[3]}}  {status}".rstrip())
    return lines


def main(argv: Optional[list[str]] = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    args = parser.parse_args(argv)
    before, after = (json.loads(path.read_text()) for path in (args.before, args.after))
    for label, run in (("before", before), ("after", after)):
        versions = run.get("versions", {})
        load = run.get("settings", {}).get("load_average_at_start")
        print(f"{label}: {run.get('created')}, minitorch {versions.get('minitorch')}, "
              f"load average at start {format_number(load)}")
    print("\n".join(compare(before, after)))


if __name__ == "__main__":
    main()

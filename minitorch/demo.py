"""``make demo``: train a small MLP on the generated 2-D "split" set and plot what it learned.

The same as ``minitorch train`` with its defaults (see :mod:`minitorch.train`), except that
the PNG goes to ``out/demo.png``. Extra options pass through::

    python -m minitorch.demo --dataset xor --epochs 80
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional, Sequence

from minitorch.train import TrainResult
from minitorch.train import main as train_main

DEMO_OUT = Path("out/demo.png")


def main(argv: Optional[Sequence[str]] = None) -> TrainResult:
    """Run the training command with the demo's output path (unless ``--out`` is given)."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not any(arg == "--out" or arg.startswith("--out=") for arg in args):
        args = ["--out", str(DEMO_OUT), *args]
    return train_main(args)


if __name__ == "__main__":
    main()

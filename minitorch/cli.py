"""The ``minitorch`` command: one subcommand per tool (``minitorch train ...``).

Each subcommand lives in its own module, which provides ``add_arguments(parser)`` and
``run(args)``; :data:`COMMANDS` lists them, and a module is only imported when its
subcommand runs (or its options are shown), so ``minitorch --help`` stays fast.
To add a subcommand, add a line to :data:`COMMANDS`.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import Any, Optional, Sequence

#: subcommand -> (module that implements it, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "train": ("minitorch.train", "train an MLP on a 2-D teaching set or the digits and plot the curves"),
    "course": ("minitorch.course.cli", "the course: status of your tasks, student releases, grading, the task table"),
    "milestone": ("minitorch.milestones.cli", "run a milestone (perceptron, XOR, digits MLP, LeNet-5, attention) on your code"),
    "warmup": ("minitorch.warmup", "compile the kernels common models use into Numba's cache, so later runs start at once"),
}


def build_parser(argv: Sequence[str]) -> argparse.ArgumentParser:
    """The top-level parser; only the subcommand named in ``argv`` gets its options loaded."""
    parser = argparse.ArgumentParser(prog="minitorch", description="minitorch command-line tools")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    chosen = next((arg for arg in argv if not arg.startswith("-")), None)
    for name, (module_name, help_text) in COMMANDS.items():
        sub = subparsers.add_parser(name, help=help_text, description=help_text)
        if name == chosen:
            module = importlib.import_module(module_name)
            module.add_arguments(sub)
            sub.set_defaults(_module=module, _parser=sub)
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    """The console script: run the subcommand named in ``argv`` (default: the process arguments); its exit
    status when it returns one (``course``), else 0."""
    result = dispatch(argv)
    return result if isinstance(result, int) else 0


def dispatch(argv: Optional[Sequence[str]] = None) -> Any:
    """Parse ``argv`` and run the subcommand; returns what it returns (``None`` without a subcommand)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return None
    module = args._module
    resolve = getattr(module, "resolve", None)
    if resolve is not None:
        args = resolve(args._parser, args)
    return module.run(args)


if __name__ == "__main__":
    sys.exit(main())

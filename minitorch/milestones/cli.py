"""``minitorch milestone N`` (and ``--list``): run a milestone on whatever ``minitorch`` is importable.

Before training, the course steps the milestone needs are smoke-checked (:mod:`.checks`);
if one is not done the command says in one sentence which task to do first and exits with
status 1, instead of showing a traceback from a stub.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Union

from minitorch import backends

from .checks import CPU_BACKEND, KERNELS_STEP, SIMPLE_BACKEND, Missing, check_step, first_missing, missing_from_error
from .common import DEFAULT_OUT_DIR, DEFAULT_SEED, Options, Outcome
from .registry import MILESTONES, Milestone

#: exit status when a needed task is not done yet
NOT_READY = 1


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``minitorch milestone``."""
    parser.add_argument("number", nargs="?", type=int, choices=sorted(MILESTONES), help="which milestone to run")
    parser.add_argument("--list", action="store_true", help="list the milestones and the steps each one needs")
    parser.add_argument("--quick", action="store_true", help="train briefly (a smoke run: figures are rougher)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT_DIR, help="folder for the picture (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help="seeds the data, the weights and the sampling")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")


def resolve(parser: argparse.ArgumentParser, args: argparse.Namespace) -> argparse.Namespace:
    """A milestone number is needed unless ``--list`` is given."""
    if args.number is None and not args.list:
        parser.error(f"give a milestone number ({', '.join(map(str, sorted(MILESTONES)))}) or --list")
    return args


def listing() -> str:
    """One line per milestone: number, title, year, the steps it needs and the command."""
    lines = []
    for milestone in MILESTONES.values():
        optional = f" (step {KERNELS_STEP} makes it faster)" if milestone.kernels_optional else ""
        lines.append(f"{milestone.number}. {milestone.title} ({milestone.year}): needs {milestone.steps_text}{optional}; "
                     f"minitorch milestone {milestone.number}")
    return "\n".join(lines)


def run_milestone(milestone: Milestone, options: Options) -> Union[Outcome, Missing]:
    """Check the steps ``milestone`` needs, then run it; a :class:`Missing` instead when a task is not done.

    A milestone that allows it runs on the pure-Python backend when step 3's kernels fail
    their check. A stub met while training (one the smoke checks did not reach) is reported
    the same way."""
    missing = first_missing(milestone.steps)
    if missing is not None:
        return missing
    backend = options.backend
    if milestone.kernels_optional and check_step(KERNELS_STEP) is not None:
        print(f"step {KERNELS_STEP}'s kernels are not done yet: running on the pure-Python backend (slower)")
        backend = SIMPLE_BACKEND
    try:
        with backends.use(backend):
            return milestone.run(options)
    except NotImplementedError as error:
        return missing_from_error(max(milestone.steps), error)


def describe(milestone: Milestone) -> str:
    """The heading and the short history printed before a milestone runs."""
    heading = f"Milestone {milestone.number}: {milestone.title} ({milestone.year})"
    return "\n".join([heading, "=" * len(heading), *milestone.history, ""])


def run(args: argparse.Namespace) -> int:
    """List the milestones, or run one: 0 when it ran, 1 when a needed task is not done yet."""
    if args.list:
        print(listing())
        return 0
    milestone = MILESTONES[args.number]
    print(describe(milestone))
    print(f"checking {milestone.steps_text} (the first run also compiles the Numba kernels: a minute or two)", flush=True)
    options = Options(out_dir=args.out, seed=args.seed, quick=args.quick, progress=not args.no_progress,
                      backend=CPU_BACKEND)
    result = run_milestone(milestone, options)
    if isinstance(result, Missing):
        print(result.sentence(f"milestone {milestone.number} ({milestone.title})"))
        return NOT_READY
    print(f"saved {result.picture} ({result.seconds:.1f} s)")
    return 0

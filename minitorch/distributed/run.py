"""``python -m minitorch.distributed.run --nproc-per-node N script.py [args]``: torchrun's role, on MPI.

It starts ``N`` processes of ``script.py`` with MPI's ``mpiexec`` (the one installed next to
this Python by the ``mpich`` package, else the first on ``PATH``). Each process runs the script
through :mod:`.rank_main`, which sets torchrun's environment (``RANK``, ``LOCAL_RANK``,
``WORLD_SIZE``) and, when the script raises or exits with an error, prints that rank's
traceback and aborts the whole job at once, so no other rank waits forever in a collective.
The exit status is the job's.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Optional, Sequence

MPIEXEC = "mpiexec"
#: set to choose the mpiexec explicitly
MPIEXEC_VARIABLE = "MINITORCH_MPIEXEC"


def find_mpiexec(explicit: Optional[str] = None) -> str:
    """The ``mpiexec`` to use: ``explicit``, ``$MINITORCH_MPIEXEC``, the one beside this Python, or on ``PATH``."""
    chosen = explicit or os.environ.get(MPIEXEC_VARIABLE)
    if chosen:
        if not (Path(chosen).is_file() and os.access(chosen, os.X_OK)):
            raise FileNotFoundError(f"mpiexec {chosen!r} is not an executable file")
        return chosen
    # beside the interpreter (a venv's bin/, not the resolved base Python), then the scripts folder
    for folder in (Path(sys.executable).parent, Path(sysconfig.get_path("scripts"))):
        candidate = folder / MPIEXEC
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    on_path = shutil.which(MPIEXEC)
    if on_path:
        return on_path
    raise FileNotFoundError(
        f"no {MPIEXEC} found beside {sys.executable} nor on PATH: install MPI for this Python "
        "(pip install 'minitorch[distributed]' brings mpi4py and mpich, whose wheel has mpiexec), or name one with "
        f"--mpiexec or ${MPIEXEC_VARIABLE}")


def command(nproc: int, script: str, script_args: Sequence[str], module: bool = False,
            mpiexec: Optional[str] = None) -> list[str]:
    """The ``mpiexec`` command line that runs ``script`` on ``nproc`` ranks."""
    entry = [sys.executable, "-m", "minitorch.distributed.rank_main"] + (["-m"] if module else [])
    return [find_mpiexec(mpiexec), "-n", str(nproc)] + entry + [script, *script_args]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m minitorch.distributed.run",
                                     description="Run a training script on several processes, over MPI.")
    parser.add_argument("--nproc-per-node", "--nproc_per_node", dest="nproc", type=int, default=1,
                        help="how many processes (ranks) to start (default: %(default)s)")
    parser.add_argument("--nnodes", type=int, default=1, help="only 1: one machine (use your MPI's own launcher "
                        "for several)")
    parser.add_argument("-m", "--module", action="store_true", help="run the script as a module (python -m)")
    parser.add_argument("--mpiexec", help=f"the mpiexec to use (default: ${MPIEXEC_VARIABLE}, the one beside this "
                        "Python, or on PATH)")
    parser.add_argument("script", help="the training script (or module with -m)")
    parser.add_argument("script_args", nargs=argparse.REMAINDER, help="the script's own arguments")
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Start the job and wait for it; its exit status (non-zero when a rank failed)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.nproc < 1:
        parser.error(f"--nproc-per-node must be at least 1, got {args.nproc}")
    if args.nnodes != 1:
        parser.error(f"--nnodes {args.nnodes}: this launcher starts processes on one machine only")
    try:
        line = command(args.nproc, args.script, args.script_args, args.module, args.mpiexec)
    except FileNotFoundError as error:
        parser.error(str(error))
    return subprocess.run(line, check=False).returncode


if __name__ == "__main__":
    sys.exit(main())

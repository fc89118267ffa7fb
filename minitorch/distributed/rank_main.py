"""What each rank runs under :mod:`.run`: the user's script, and the whole job's end if it fails.

MPI ends a job when one of its processes dies, but not when one exits normally: a rank whose
script raised would exit while the others wait in their next collective for ever. So an
uncaught exception, or ``sys.exit`` with an error, prints this rank's traceback and calls
``MPI_Abort``, which ends every rank within moments with that status.
"""

from __future__ import annotations

import os
import runpy
import sys
import traceback
from typing import Optional, Sequence

#: the environment torchrun gives each process, read here from MPICH's launcher (Hydra's PMI variables)
TORCHRUN_VARIABLES = {"RANK": "PMI_RANK", "LOCAL_RANK": "PMI_RANK", "WORLD_SIZE": "PMI_SIZE",
                      "LOCAL_WORLD_SIZE": "PMI_SIZE"}
ERROR_STATUS = 1


def set_torchrun_environment() -> None:
    for name, source in TORCHRUN_VARIABLES.items():
        if source in os.environ:
            os.environ.setdefault(name, os.environ[source])


def exit_status(error: SystemExit) -> int:
    """The status ``sys.exit(code)`` asks for (a message counts as 1, as Python's own exit does)."""
    if error.code is None:
        return 0
    return error.code if isinstance(error.code, int) else ERROR_STATUS


def abort(status: int) -> None:
    """End every rank of the job now, with ``status``."""
    sys.stdout.flush()
    sys.stderr.flush()
    from mpi4py import MPI

    MPI.COMM_WORLD.Abort(status)


def main(argv: Optional[Sequence[str]] = None) -> None:
    args = list(sys.argv[1:] if argv is None else argv)
    as_module = bool(args) and args[0] == "-m"
    if as_module:
        args = args[1:]
    if not args:
        raise SystemExit("usage: python -m minitorch.distributed.rank_main [-m] script [args]")
    set_torchrun_environment()
    rank = os.environ.get("RANK", "?")
    sys.argv = list(args)
    try:
        if as_module:
            runpy.run_module(args[0], run_name="__main__", alter_sys=True)
        else:
            sys.path.insert(0, os.path.dirname(os.path.abspath(args[0])))
            runpy.run_path(args[0], run_name="__main__")
    except SystemExit as error:
        status = exit_status(error)
        if status:
            print(f"[rank {rank}] exited with status {status}{f': {error.code}' if not isinstance(error.code, int) else ''}"
                  "; ending the job", file=sys.stderr)
            abort(status)
    except BaseException:  # noqa: BLE001 - any failure of the script must end the whole job
        print(f"[rank {rank}] failed; ending the job:\n{traceback.format_exc()}", file=sys.stderr, end="")
        abort(ERROR_STATUS)


if __name__ == "__main__":
    main()

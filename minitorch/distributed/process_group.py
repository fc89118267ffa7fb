"""The default process group: every process the MPI launcher started, and this one's place in it.

MPI is the only backend. ``mpi4py`` is imported on the first :func:`init_process_group`
(importing ``mpi4py.MPI`` initializes MPI), so ``import minitorch`` works without it, and
:func:`is_available` only asks whether it is installed.
"""

from __future__ import annotations

import importlib.util
import warnings
from datetime import timedelta
from typing import Any, Optional

from .debug import CollectiveChecker, enabled_checker

MPI_BACKEND = "mpi"
#: PyTorch's other backends: named in the error that refuses them
OTHER_BACKENDS = ("gloo", "nccl", "ucc", "xccl", "fake")
NOT_INITIALIZED = "Default process group has not been initialized, please make sure to call init_process_group."
NO_MPI = ("Distributed package doesn't have MPI built in: minitorch's MPI backend needs mpi4py and an MPI library "
          "(pip install 'minitorch[distributed]' installs mpi4py and mpich)")


class ProcessGroup:
    """The processes that take part in a collective: here always all of them (``MPI.COMM_WORLD``)."""

    def __init__(self, comm: Any, backend: str, checker: Optional[CollectiveChecker] = None) -> None:
        self.comm = comm
        self.backend = backend
        self.checker = checker  # TORCH_DISTRIBUTED_DEBUG=DETAIL: compares each collective across ranks

    def check_collective(self, kind: str, tensor: Any = None, root: Optional[int] = None,
                         reduction: Optional[int] = None) -> None:
        """With ``TORCH_DISTRIBUTED_DEBUG=DETAIL``: raise if another rank runs a different collective now."""
        if self.checker is not None:
            self.checker.check(self.comm, kind, tensor, root, reduction)

    def rank(self) -> int:
        return int(self.comm.Get_rank())

    def size(self) -> int:
        return int(self.comm.Get_size())

    def name(self) -> str:
        return self.backend.upper()

    def __repr__(self) -> str:
        return f"ProcessGroup(backend={self.backend!r}, rank={self.rank()}, size={self.size()})"


class GroupMember:
    """``group.WORLD``: the default group once :func:`init_process_group` has run, else ``None``."""

    WORLD: Optional[ProcessGroup] = None


#: PyTorch's spelling, ``dist.GroupMember.WORLD``
group = GroupMember


def is_available() -> bool:
    """True when the distributed package can run: ``mpi4py`` is installed (it is not imported here)."""
    return importlib.util.find_spec("mpi4py") is not None


def is_mpi_available() -> bool:
    """True when the MPI backend can run (the same question as :func:`is_available`)."""
    return is_available()


def is_gloo_available() -> bool:
    return False


def is_nccl_available() -> bool:
    return False


def is_initialized() -> bool:
    """True between :func:`init_process_group` and :func:`destroy_process_group`."""
    return GroupMember.WORLD is not None


def _parse_backend(backend: Optional[str]) -> str:
    name = MPI_BACKEND if backend is None else str(backend).lower()
    if name == MPI_BACKEND:
        return name
    if name in OTHER_BACKENDS:
        raise ValueError(
            f"minitorch.distributed has only the 'mpi' backend, not {backend!r} (PyTorch's {name} is a C++ library "
            "minitorch does not have): call init_process_group('mpi') and start the processes with "
            "python -m minitorch.distributed.run --nproc-per-node N script.py")
    raise ValueError(f"Invalid backend: '{backend}'")


def init_process_group(backend: Optional[str] = None, init_method: Optional[str] = None,
                       timeout: Optional[timedelta] = None, world_size: int = -1, rank: int = -1, store: Any = None,
                       group_name: str = "", pg_options: Any = None, device_id: Any = None) -> None:
    """Join the default group of all the processes MPI started; rank and size come from MPI.

    ``world_size`` and ``rank`` are ignored with a warning, as PyTorch's MPI backend does:
    the launcher assigns them. ``init_method``, ``store``, ``timeout`` and ``pg_options`` have
    nothing to do with MPI and are ignored.
    """
    if GroupMember.WORLD is not None:
        raise ValueError("trying to initialize the default process group twice!")
    name = _parse_backend(backend)
    if store is not None and init_method is not None:
        raise AssertionError("Cannot specify both init_method and store.")
    if not is_available():
        raise RuntimeError(NO_MPI)
    if world_size != -1 or rank != -1:
        warnings.warn(f"For MPI backend, world_size ({world_size}) and rank ({rank}) are ignored since they are "
                      "assigned by the MPI runtime.", stacklevel=2)
    from mpi4py import MPI

    GroupMember.WORLD = ProcessGroup(MPI.COMM_WORLD, name, enabled_checker())


def destroy_process_group(group: Optional[ProcessGroup] = None) -> None:
    """Leave the default group. MPI itself stays initialized (it cannot start twice in one
    process), so a later :func:`init_process_group` joins again."""
    if GroupMember.WORLD is None:
        raise AssertionError("Process group cannot be None")
    if group is not None and group is not GroupMember.WORLD:
        raise ValueError("Invalid process group specified")
    GroupMember.WORLD = None


def default_group(requested: Optional[ProcessGroup] = None) -> ProcessGroup:
    """The group a call works on: the default one (the only one there is), with PyTorch's error before init."""
    world = GroupMember.WORLD
    if world is None:
        raise ValueError(NOT_INITIALIZED)
    if requested is not None and requested is not world:
        raise ValueError("Invalid process group specified")
    return world


def get_rank(group: Optional[ProcessGroup] = None) -> int:
    """This process's rank, from 0 to ``get_world_size() - 1``."""
    return default_group(group).rank()


def get_world_size(group: Optional[ProcessGroup] = None) -> int:
    """How many processes the group has."""
    return default_group(group).size()


def get_backend(group: Optional[ProcessGroup] = None) -> str:
    """``'mpi'``."""
    return default_group(group).backend


def mpi() -> Any:
    """The ``mpi4py.MPI`` module (already imported once a group exists)."""
    from mpi4py import MPI

    return MPI


def peer_rank(group: ProcessGroup, rank: Optional[int], group_rank: Optional[int], role: str,
              default: Optional[int] = None) -> int:
    """The rank a call names as ``src``/``dst`` (or ``group_src``/``group_dst``: the same in the one
    group there is), checked against the group's size."""
    if rank is not None and group_rank is not None:
        raise ValueError("Can't specify both group_rank and global_rank")
    chosen = rank if rank is not None else group_rank if group_rank is not None else default
    if chosen is None:
        raise ValueError("Must specify global_rank or group_rank")
    size = group.size()
    if not isinstance(chosen, int) or isinstance(chosen, bool) or not 0 <= chosen < size:
        raise ValueError(f"Invalid {role} rank {chosen!r}: the group has ranks 0 to {size - 1}")
    return chosen

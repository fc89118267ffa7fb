"""``minitorch.distributed``, as ``torch.distributed`` with its MPI backend.

Start the processes with ``python -m minitorch.distributed.run --nproc-per-node N script.py``
(which runs MPI's ``mpiexec``); in the script, ``init_process_group()`` joins them. ``mpi4py``
is imported only then, so minitorch imports without it (``is_available()`` says whether it
is installed).
"""

from __future__ import annotations

from .collectives import (all_gather, all_gather_into_tensor, all_reduce, barrier, broadcast, gather, reduce,
                          reduce_scatter, reduce_scatter_tensor, scatter)
from .point_to_point import irecv, isend, recv, send
from .process_group import (GroupMember, ProcessGroup, destroy_process_group, get_backend, get_rank, get_world_size,
                            group, init_process_group, is_available, is_gloo_available, is_initialized,
                            is_mpi_available, is_nccl_available)
from .reduce_op import ReduceOp
from .work import Work

__all__ = [
    "GroupMember", "ProcessGroup", "ReduceOp", "Work", "all_gather", "all_gather_into_tensor", "all_reduce", "barrier",
    "broadcast", "destroy_process_group", "gather", "get_backend", "get_rank", "get_world_size", "group",
    "init_process_group", "irecv", "is_available", "is_gloo_available", "is_initialized", "is_mpi_available",
    "is_nccl_available", "isend", "recv", "reduce", "reduce_scatter", "reduce_scatter_tensor", "scatter", "send",
]

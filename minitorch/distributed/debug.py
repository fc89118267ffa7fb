"""``TORCH_DISTRIBUTED_DEBUG=DETAIL``: check that every rank runs the same collective.

MPI does not check that the ranks' collectives match: one rank reducing 3 values while the
other reduces 4, or broadcasting while the other reduces, may give garbage or hang. With the
variable set to ``DETAIL`` when :func:`~minitorch.distributed.init_process_group` runs, each
collective first gathers every rank's *fingerprint* (sequence number, kind, shape, dtype,
root, reduction) and raises PyTorch's "Detected mismatch between collectives on ranks" on
every rank when they differ. It costs one small all-gather per collective.
"""

from __future__ import annotations

import os
from typing import Any, Optional, Sequence

import numpy as np

from .. import dtypes
from ..tensor import Tensor

VARIABLE = "TORCH_DISTRIBUTED_DEBUG"
DETAIL = "DETAIL"
#: kinds of collective, by number (what the fingerprint carries)
KINDS = ("ALLREDUCE", "REDUCE", "BROADCAST", "ALLGATHER", "GATHER", "SCATTER", "REDUCE_SCATTER", "BARRIER")
MAX_DIMS = 8
NO_VALUE = -1
HEADER = 6  # sequence, kind, dtype, root, reduction, dims; then MAX_DIMS sizes


class CollectiveChecker:
    """Counts this rank's collectives and compares each one's fingerprint with every rank's."""

    def __init__(self) -> None:
        self.sequence = 0

    def check(self, comm: Any, kind: str, tensor: Optional[Tensor], root: Optional[int] = None,
              reduction: Optional[int] = None) -> None:
        mine = fingerprint(self.sequence, kind, tensor, root, reduction)
        self.sequence += 1
        everyone = np.zeros((comm.Get_size(), mine.size), dtype=np.int64)
        comm.Allgather(mine, everyone)
        rank = comm.Get_rank()
        for other, theirs in enumerate(everyone):
            if not np.array_equal(theirs, mine):
                raise RuntimeError(f"Detected mismatch between collectives on ranks. Rank {rank} is running collective: "
                                   f"{describe(mine)}, but Rank {other} is running collective: {describe(theirs)}.")


def enabled_checker() -> Optional[CollectiveChecker]:
    """A checker when the environment asks for ``DETAIL``, else None."""
    return CollectiveChecker() if os.environ.get(VARIABLE, "").upper() == DETAIL else None


def fingerprint(sequence: int, kind: str, tensor: Optional[Tensor], root: Optional[int],
                reduction: Optional[int]) -> np.ndarray:
    shape: Sequence[int] = tuple(tensor.shape) if tensor is not None else ()
    if len(shape) > MAX_DIMS:
        shape = (int(np.prod(shape)),)
    dtype = dtypes.ALL_DTYPES.index(tensor.dtype) if tensor is not None else NO_VALUE
    values = [sequence, KINDS.index(kind), dtype, NO_VALUE if root is None else root,
              NO_VALUE if reduction is None else reduction, len(shape) if tensor is not None else NO_VALUE]
    return np.array(values + list(shape) + [0] * (MAX_DIMS - len(shape)), dtype=np.int64)


def describe(values: np.ndarray) -> str:
    """PyTorch's way of printing a fingerprint."""
    sequence, kind, dtype, root, reduction, dims = (int(value) for value in values[:HEADER])
    text = f"CollectiveFingerPrint(SequenceNumber={sequence}, OpType={KINDS[kind]}"
    if dims != NO_VALUE:
        shape = ", ".join(str(int(size)) for size in values[HEADER:HEADER + dims])
        text += f", TensorShape=[{shape}], TensorDtypes={dtypes.ALL_DTYPES[dtype]}"
    if root != NO_VALUE:
        text += f", Root={root}"
    if reduction != NO_VALUE:
        from .reduce_op import RedOpType

        text += f", ReduceOp={RedOpType(reduction).name}"
    return text + ")"

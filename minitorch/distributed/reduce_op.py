"""``ReduceOp``: how a collective combines the ranks' values, element by element."""

from __future__ import annotations

import enum
from typing import Union


class RedOpType(enum.IntEnum):
    """The operations, numbered as PyTorch numbers them (``int(ReduceOp.MAX) == 4``)."""

    SUM = 0
    AVG = 1
    PRODUCT = 2
    MIN = 3
    MAX = 4
    BAND = 5
    BOR = 6
    BXOR = 7


class ReduceOp:
    """PyTorch's ``ReduceOp``: ``ReduceOp.SUM`` ... are :class:`RedOpType` members, and
    ``ReduceOp(ReduceOp.SUM)`` wraps one (collectives take either)."""

    RedOpType = RedOpType
    SUM = RedOpType.SUM
    AVG = RedOpType.AVG
    PRODUCT = RedOpType.PRODUCT
    MIN = RedOpType.MIN
    MAX = RedOpType.MAX
    BAND = RedOpType.BAND
    BOR = RedOpType.BOR
    BXOR = RedOpType.BXOR

    def __init__(self, op: RedOpType) -> None:
        self.op = as_red_op_type(op)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, ReduceOp):
            return self.op == other.op
        return isinstance(other, RedOpType) and self.op == other

    def __hash__(self) -> int:
        return hash(self.op)

    def __repr__(self) -> str:
        return f"ReduceOp({self.op!r})"


def as_red_op_type(op: Union[ReduceOp, RedOpType]) -> RedOpType:
    """The :class:`RedOpType` of ``op`` (a member or a :class:`ReduceOp`); anything else is refused."""
    if isinstance(op, ReduceOp):
        return op.op
    if isinstance(op, RedOpType):
        return op
    raise TypeError(f"op must be a torch.distributed.ReduceOp (e.g. ReduceOp.SUM), got {op!r}")

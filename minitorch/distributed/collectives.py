"""Collectives over the default group: every rank calls them, in the same order.

Each one starts MPI's non-blocking form (``Iallreduce``, ``Ibcast`` ...) on the tensors'
host buffers (:mod:`.tensor_buffer`) and returns a :class:`~.work.Work` with ``async_op=True``,
else waits for it. Tensors are changed in place, outside autograd, as PyTorch's are.
"""

from __future__ import annotations

from typing import Any, Optional, Union

import numpy as np

from .. import dtypes
from ..tensor import Tensor
from .process_group import ProcessGroup, default_group, peer_rank, mpi
from .reduce_op import RedOpType, ReduceOp, as_red_op_type
from .tensor_buffer import (HostBuffer, check_same_dtype, check_same_numel, check_single_tensor, check_tensor_list,
                            gathered, spread)
from .work import Work, issue

OpLike = Union[ReduceOp, RedOpType]
BITWISE = (RedOpType.BAND, RedOpType.BOR, RedOpType.BXOR)


def mpi_op(op: OpLike, dtype: dtypes.dtype) -> tuple[Any, bool]:
    """MPI's operation for ``op`` on ``dtype``, and whether the sum must then be divided (``AVG``).

    MPI has no average: ``AVG`` is a sum divided by the world size (integers truncate toward
    zero). On ``bool`` tensors the arithmetic operations are logical, as in PyTorch.
    """
    MPI = mpi()  # noqa: N806 - the module's own name
    kind = as_red_op_type(op)
    if kind in BITWISE and dtype.is_floating_point:
        raise ValueError(f"ReduceOp.{kind.name} needs an integer or bool tensor, got {dtype}")
    if dtype == dtypes.bool_:
        if kind == RedOpType.AVG:
            raise ValueError(f"ReduceOp.AVG needs a number tensor, got {dtype}")
        logical = {RedOpType.SUM: MPI.LOR, RedOpType.MAX: MPI.LOR, RedOpType.BOR: MPI.LOR, RedOpType.PRODUCT: MPI.LAND,
                   RedOpType.MIN: MPI.LAND, RedOpType.BAND: MPI.LAND, RedOpType.BXOR: MPI.LXOR}
        return logical[kind], False
    ops = {RedOpType.SUM: MPI.SUM, RedOpType.AVG: MPI.SUM, RedOpType.PRODUCT: MPI.PROD, RedOpType.MIN: MPI.MIN,
           RedOpType.MAX: MPI.MAX, RedOpType.BAND: MPI.BAND, RedOpType.BOR: MPI.BOR, RedOpType.BXOR: MPI.BXOR}
    return ops[kind], kind == RedOpType.AVG


def _average(array: np.ndarray, world_size: int) -> None:
    np.divide(array, world_size, out=array, casting="unsafe")


def all_reduce(tensor: Tensor, op: OpLike = ReduceOp.SUM, group: Optional[ProcessGroup] = None,
               async_op: bool = False) -> Optional[Work]:
    r"""Every rank's ``tensor`` becomes the reduction over all ranks: $t \leftarrow \bigoplus_r t_r$."""
    check_single_tensor(tensor, "tensor")
    pg = default_group(group)
    reduction, average = mpi_op(op, tensor.dtype)
    pg.check_collective("ALLREDUCE", tensor, reduction=as_red_op_type(op))
    buffer = HostBuffer(tensor)
    request = pg.comm.Iallreduce(mpi().IN_PLACE, buffer.array, op=reduction)

    def finish() -> None:
        if average:
            _average(buffer.array, pg.size())
        buffer.commit()

    return issue(Work([request], finish, [tensor], [buffer]), async_op)


def reduce(tensor: Tensor, dst: Optional[int] = None, op: OpLike = ReduceOp.SUM, group: Optional[ProcessGroup] = None,
           async_op: bool = False, group_dst: Optional[int] = None) -> Optional[Work]:
    """Rank ``dst``'s ``tensor`` becomes the reduction over all ranks; the others' stay as they were."""
    check_single_tensor(tensor, "tensor")
    pg = default_group(group)
    root = peer_rank(pg, dst, group_dst, "destination")
    reduction, average = mpi_op(op, tensor.dtype)
    pg.check_collective("REDUCE", tensor, root, as_red_op_type(op))
    buffer = HostBuffer(tensor)
    is_root = pg.rank() == root
    if is_root:
        request = pg.comm.Ireduce(mpi().IN_PLACE, buffer.array, op=reduction, root=root)
    else:
        request = pg.comm.Ireduce(buffer.array, None, op=reduction, root=root)

    def finish() -> None:
        if is_root:
            if average:
                _average(buffer.array, pg.size())
            buffer.commit()

    return issue(Work([request], finish, [tensor], [buffer]), async_op)


def broadcast(tensor: Tensor, src: Optional[int] = None, group: Optional[ProcessGroup] = None, async_op: bool = False,
              group_src: Optional[int] = None) -> Optional[Work]:
    """Every rank's ``tensor`` becomes rank ``src``'s."""
    check_single_tensor(tensor, "tensor")
    pg = default_group(group)
    root = peer_rank(pg, src, group_src, "source")
    pg.check_collective("BROADCAST", tensor, root)
    buffer = HostBuffer(tensor)
    request = pg.comm.Ibcast(buffer.array, root=root)
    return issue(Work([request], buffer.commit, [tensor], [buffer]), async_op)


def all_gather(tensor_list: list[Tensor], tensor: Tensor, group: Optional[ProcessGroup] = None,
               async_op: bool = False) -> Optional[Work]:
    """``tensor_list[r]`` becomes rank ``r``'s ``tensor``, on every rank (same sizes on all ranks)."""
    check_tensor_list(tensor_list, "tensor_list")
    check_single_tensor(tensor, "tensor")
    pg = default_group(group)
    check_same_dtype([tensor] + tensor_list)
    check_same_numel(tensor_list, tensor, "tensor_list", pg.size())
    pg.check_collective("ALLGATHER", tensor)
    send = HostBuffer(tensor).array
    received = np.empty(tensor.numel() * pg.size(), dtype=send.dtype)
    request = pg.comm.Iallgather(send, received)
    return issue(Work([request], lambda: spread(received, tensor_list), tensor_list, [send, received]), async_op)


def all_gather_into_tensor(output_tensor: Tensor, input_tensor: Tensor, group: Optional[ProcessGroup] = None,
                           async_op: bool = False) -> Optional[Work]:
    """``output_tensor`` (``world_size`` times ``input_tensor``'s elements) gets every rank's input, in rank order."""
    check_single_tensor(output_tensor, "output_tensor")
    check_single_tensor(input_tensor, "input_tensor")
    pg = default_group(group)
    check_same_dtype([output_tensor, input_tensor])
    if output_tensor.numel() != input_tensor.numel() * pg.size():
        raise ValueError(f"output tensor must have world_size ({pg.size()}) times the input's {input_tensor.numel()} "
                         f"elements, got {output_tensor.numel()}")
    pg.check_collective("ALLGATHER", input_tensor)
    send, output = HostBuffer(input_tensor), HostBuffer(output_tensor)
    request = pg.comm.Iallgather(send.array, output.array)
    return issue(Work([request], output.commit, [output_tensor], [send, output]), async_op)


def _check_list_for_root(is_root: bool, items: Optional[list[Tensor]], name: str, role: str) -> list[Tensor]:
    """PyTorch's rule: the list is given on the root rank and only there."""
    given = check_tensor_list(items, name) if items else []
    if is_root and not given:
        raise ValueError(f"Argument ``{name}`` must be specified on {role} rank.")
    if not is_root and given:
        raise ValueError(f"Argument ``{name}`` must NOT be specified on non-{role} ranks.")
    return given


def gather(tensor: Tensor, gather_list: Optional[list[Tensor]] = None, dst: Optional[int] = None,
           group: Optional[ProcessGroup] = None, async_op: bool = False,
           group_dst: Optional[int] = None) -> Optional[Work]:
    """On rank ``dst``, ``gather_list[r]`` becomes rank ``r``'s ``tensor`` (``gather_list`` only there)."""
    check_single_tensor(tensor, "tensor")
    pg = default_group(group)
    root = peer_rank(pg, dst, group_dst, "destination", default=0)
    is_root = pg.rank() == root
    outputs = _check_list_for_root(is_root, gather_list, "gather_list", "destination")
    check_same_dtype([tensor] + outputs)
    pg.check_collective("GATHER", tensor, root)
    send = HostBuffer(tensor).array
    received = None
    if is_root:
        check_same_numel(outputs, tensor, "gather_list", pg.size())
        received = np.empty(tensor.numel() * pg.size(), dtype=send.dtype)
    request = pg.comm.Igather(send, received, root=root)

    def finish() -> None:
        if received is not None:
            spread(received, outputs)

    return issue(Work([request], finish, outputs, [send, received]), async_op)


def scatter(tensor: Tensor, scatter_list: Optional[list[Tensor]] = None, src: Optional[int] = None,
            group: Optional[ProcessGroup] = None, async_op: bool = False,
            group_src: Optional[int] = None) -> Optional[Work]:
    """Rank ``r``'s ``tensor`` becomes rank ``src``'s ``scatter_list[r]`` (``scatter_list`` only on ``src``)."""
    check_single_tensor(tensor, "tensor")
    pg = default_group(group)
    root = peer_rank(pg, src, group_src, "source", default=0)
    is_root = pg.rank() == root
    inputs = _check_list_for_root(is_root, scatter_list, "scatter_list", "source")
    check_same_dtype([tensor] + inputs)
    pg.check_collective("SCATTER", tensor, root)
    send = None
    if is_root:
        check_same_numel(inputs, tensor, "scatter_list", pg.size())
        send = gathered(inputs)
    buffer = HostBuffer(tensor)
    request = pg.comm.Iscatter(send, buffer.array, root=root)
    return issue(Work([request], buffer.commit, [tensor], [send, buffer]), async_op)


def reduce_scatter(output: Tensor, input_list: list[Tensor], op: OpLike = ReduceOp.SUM,
                   group: Optional[ProcessGroup] = None, async_op: bool = False) -> Optional[Work]:
    """Rank ``r``'s ``output`` becomes the reduction over all ranks of their ``input_list[r]``."""
    check_single_tensor(output, "output")
    check_tensor_list(input_list, "input_list")
    pg = default_group(group)
    check_same_dtype([output] + input_list)
    check_same_numel(input_list, output, "input_list", pg.size())
    return _reduce_scatter(pg, output, gathered(input_list), op, async_op)


def reduce_scatter_tensor(output: Tensor, input: Tensor, op: OpLike = ReduceOp.SUM,  # noqa: A002 - PyTorch's name
                          group: Optional[ProcessGroup] = None, async_op: bool = False) -> Optional[Work]:
    """``reduce_scatter`` with the inputs as one tensor of ``world_size`` times ``output``'s elements."""
    check_single_tensor(output, "output")
    check_single_tensor(input, "input")
    pg = default_group(group)
    check_same_dtype([output, input])
    if input.numel() != output.numel() * pg.size():
        raise ValueError(f"input tensor must have world_size ({pg.size()}) times the output's {output.numel()} "
                         f"elements, got {input.numel()}")
    return _reduce_scatter(pg, output, HostBuffer(input).array, op, async_op)


def _reduce_scatter(pg: ProcessGroup, output: Tensor, send: np.ndarray, op: OpLike, async_op: bool) -> Optional[Work]:
    reduction, average = mpi_op(op, output.dtype)
    pg.check_collective("REDUCE_SCATTER", output, reduction=as_red_op_type(op))
    buffer = HostBuffer(output)
    request = pg.comm.Ireduce_scatter_block(send, buffer.array, op=reduction)

    def finish() -> None:
        if average:
            _average(buffer.array, pg.size())
        buffer.commit()

    return issue(Work([request], finish, [output], [send, buffer]), async_op)


def barrier(group: Optional[ProcessGroup] = None, async_op: bool = False,
            device_ids: Optional[list[int]] = None) -> Optional[Work]:
    """Return once every rank has called ``barrier``."""
    pg = default_group(group)
    pg.check_collective("BARRIER")
    return issue(Work([pg.comm.Ibarrier()]), async_op)

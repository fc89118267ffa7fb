"""``send``/``recv`` and their non-blocking forms ``isend``/``irecv``: one rank to one other.

A message is matched by sender and ``tag``; a ``recv`` into a tensor smaller than the
message fails with MPI's truncation error instead of writing past its end.
"""

from __future__ import annotations

from typing import Optional

from ..tensor import Tensor
from .process_group import ProcessGroup, default_group, peer_rank, mpi
from .tensor_buffer import HostBuffer, check_single_tensor
from .work import Work



def _peer(pg: ProcessGroup, rank: Optional[int], group_peer: Optional[int], role: str) -> int:
    peer = peer_rank(pg, rank, group_peer, role.lower())
    if peer == pg.rank():
        raise ValueError(f"Invalid {role.lower()} rank: {role.lower()} rank should not be the same as the rank of "
                         "the current process.")
    return peer


def _tag(tag: int) -> int:
    if not isinstance(tag, int) or tag < 0:
        raise ValueError(f"tag must be a non-negative int, got {tag!r}")
    return tag


def isend(tensor: Tensor, dst: Optional[int] = None, group: Optional[ProcessGroup] = None, tag: int = 0,
          group_dst: Optional[int] = None) -> Work:
    """Start sending ``tensor`` to rank ``dst``; don't change ``tensor`` until the handle's ``wait()``."""
    check_single_tensor(tensor, "tensor")
    pg = default_group(group)
    peer = _peer(pg, dst, group_dst, "Destination")
    buffer = HostBuffer(tensor)
    return Work([pg.comm.Isend(buffer.array, dest=peer, tag=_tag(tag))], keep=[buffer])


def irecv(tensor: Tensor, src: Optional[int] = None, group: Optional[ProcessGroup] = None, tag: int = 0,
          group_src: Optional[int] = None) -> Work:
    """Start receiving into ``tensor`` from rank ``src`` (any rank when None: the handle's ``source_rank()``)."""
    check_single_tensor(tensor, "tensor")
    pg = default_group(group)
    peer = mpi().ANY_SOURCE if src is None and group_src is None else _peer(pg, src, group_src, "Source")
    buffer = HostBuffer(tensor)
    request = pg.comm.Irecv(buffer.array, source=peer, tag=_tag(tag))
    return Work([request], buffer.commit, [tensor], [buffer])


def send(tensor: Tensor, dst: Optional[int] = None, group: Optional[ProcessGroup] = None, tag: int = 0,
         group_dst: Optional[int] = None) -> None:
    """Send ``tensor`` to rank ``dst``; returns once ``tensor`` may be changed again."""
    isend(tensor, dst, group, tag, group_dst).wait()


def recv(tensor: Tensor, src: Optional[int] = None, group: Optional[ProcessGroup] = None, tag: int = 0,
         group_src: Optional[int] = None) -> int:
    """Receive into ``tensor`` from rank ``src`` (any rank when None); returns the sender's rank."""
    work = irecv(tensor, src, group, tag, group_src)
    work.wait()
    return work.source_rank()

"""Shared memory for tensor storages: segments that several processes map at once.

``Tensor.share_memory_()`` copies a storage's elements into a *segment* and points every
``TensorData`` over the old storage (the tensor and all its views) at the copy, so views stay
views. ``minitorch.multiprocessing`` hands a segment to another process as its file descriptor.

Lifetime. A segment is an anonymous in-memory file (``memfd_create`` on Linux; elsewhere a
temporary file removed from its directory the moment it is made), mapped ``MAP_SHARED``. It has
no name, so it cannot outlive the processes that use it and nothing is left behind to clean
up: the kernel frees its memory when the last process that maps it or holds its descriptor lets
go, however that process ends (a crash included), and no process can free it while another
still maps it. Each process keeps the segment's descriptor (to hand it on) and its mapping for
as long as any array over the segment lives; both are closed when the last one is collected.

Handing it on. A ``fork``ed child inherits the mapping and the descriptor. ``spawn``,
``forkserver`` and queues pickle a shared tensor as the descriptor (multiprocessing's
``DupFd``: through the spawn pipe, or the sender's resource sharer over a Unix socket), never
as a name another user could guess; the sender must live until the receiver has unpickled it,
as with PyTorch's ``file_descriptor`` strategy.

Trust and limits. Every process a segment reaches can write all of it: share only with
processes you trust, and expect values to change under a reader (Hogwild relies on it). Each
segment holds one descriptor per process (two before Python 3.13, whose ``mmap`` keeps a
duplicate), so many shared storages can reach the open-file limit (``ulimit -n``), as in PyTorch.
"""

from __future__ import annotations

import functools
import gc
import mmap
import os
import sys
import tempfile
import weakref
from typing import Iterable, Optional

import numpy as np

from .tensor_data import TensorData

#: the name a segment shows in ``/proc/<pid>/fd`` (Linux)
SEGMENT_NAME = "minitorch-shared-storage"
#: ``mmap`` keeps no duplicate of the descriptor from this Python on (``trackfd=False``)
UNTRACKED_FD_VERSION = (3, 13)


class _Segment:
    """One mapped segment of this process: its mapping (held weakly: the arrays over it keep it
    alive), descriptor, size and first address."""

    __slots__ = ("mapping", "fd", "nbytes", "address", "key")

    def __init__(self, mapping: mmap.mmap, fd: int, nbytes: int) -> None:
        self.mapping, self.fd, self.nbytes = weakref.ref(mapping), fd, nbytes
        probe = np.frombuffer(mapping, np.uint8)
        self.address = int(probe.__array_interface__["data"][0])
        del probe  # the export ends here, so the mapping can be unmapped once unused
        self.key = segment_key(fd)


#: this process's segments, by ``id`` of their mapping (an entry goes when its mapping is collected)
_SEGMENTS: dict[int, _Segment] = {}
#: segments mapped from a received descriptor, by :func:`segment_key`: one mapping per segment
_ATTACHED: "weakref.WeakValueDictionary[tuple[int, int], mmap.mmap]" = weakref.WeakValueDictionary()


def segment_key(fd: int) -> tuple[int, int]:
    """``(device, inode)`` of a descriptor's file: the same for every descriptor of one segment."""
    status = os.fstat(fd)
    return status.st_dev, status.st_ino


def _anonymous_file(nbytes: int) -> int:
    """A descriptor of a new file of ``nbytes`` bytes that lives in memory and has no name."""
    if hasattr(os, "memfd_create"):
        fd = os.memfd_create(SEGMENT_NAME, os.MFD_CLOEXEC)
    else:
        fd, path = tempfile.mkstemp(prefix=SEGMENT_NAME)
        os.unlink(path)
    os.ftruncate(fd, nbytes)
    return fd


def _map(fd: int, nbytes: int) -> mmap.mmap:
    """``fd``'s first ``nbytes`` bytes (at least one: an empty file cannot be mapped) mapped shared."""
    length = max(nbytes, 1)
    if sys.version_info >= UNTRACKED_FD_VERSION:
        return mmap.mmap(fd, length, mmap.MAP_SHARED, trackfd=False)
    return mmap.mmap(fd, length, mmap.MAP_SHARED)


def _register(mapping: mmap.mmap, fd: int, nbytes: int) -> _Segment:
    segment = _Segment(mapping, fd, nbytes)
    _SEGMENTS[id(mapping)] = segment
    weakref.finalize(mapping, _release, id(mapping), fd)
    return segment


def _release(key: int, fd: int) -> None:
    _SEGMENTS.pop(key, None)
    try:
        os.close(fd)
    except OSError:  # already closed (interpreter shutdown closes in any order)
        pass


def new_segment(nbytes: int) -> mmap.mmap:
    """A new segment of ``nbytes`` bytes, mapped in this process (zero-filled)."""
    fd = _anonymous_file(max(nbytes, 1))
    mapping = _map(fd, nbytes)
    _register(mapping, fd, nbytes)
    return mapping


def attach(fd: int, nbytes: int) -> mmap.mmap:
    """The segment whose descriptor ``fd`` was received (this process takes ``fd`` over): the
    mapping this process already has of it, or a new one."""
    key = segment_key(fd)
    mapping = _ATTACHED.get(key)
    if mapping is not None and id(mapping) in _SEGMENTS:
        os.close(fd)
        return mapping
    mapping = _map(fd, nbytes)
    _register(mapping, fd, nbytes)
    _ATTACHED[key] = mapping
    return mapping


def segment_of(storage: object) -> Optional[_Segment]:
    """The segment ``storage`` (a NumPy array) lies in, found through its chain of bases; None if none."""
    owner = storage
    while isinstance(owner, np.ndarray):
        owner = owner.base
    if isinstance(owner, memoryview):
        owner = owner.obj
    segment = _SEGMENTS.get(id(owner)) if isinstance(owner, mmap.mmap) else None
    return segment if segment is not None and segment.mapping() is owner else None


def mapped_segment(mapping: mmap.mmap) -> _Segment:
    """The segment of a mapping :func:`new_segment` or :func:`attach` made."""
    return _SEGMENTS[id(mapping)]


def is_shared(storage: object) -> bool:
    """Whether ``storage`` lies in a shared segment."""
    return segment_of(storage) is not None


def byte_offset(storage: np.ndarray, segment: _Segment) -> int:
    """Where ``storage``'s first element lies in ``segment``, in bytes."""
    return int(storage.__array_interface__["data"][0]) - segment.address


def storage_in(mapping: mmap.mmap, dtype: np.dtype, count: int, offset: int = 0) -> np.ndarray:
    """A 1-D storage of ``count`` elements of ``dtype`` at byte ``offset`` of a segment's mapping."""
    return np.frombuffer(mapping, dtype, count, offset)


def _shared_copy(storage: np.ndarray) -> np.ndarray:
    """``storage``'s elements copied into a new segment of their size (element order kept)."""
    copy = storage_in(new_segment(storage.size * storage.itemsize), storage.dtype, storage.size)
    copy[...] = storage
    return copy


def _references_beyond(members: list[TensorData]) -> int:
    """References to the storage of ``members`` (views of one storage) other than theirs and this
    call's own (the local name and ``getrefcount``'s argument): compared with :func:`_calibrated`."""
    storage = members[0].storage
    return sys.getrefcount(storage) - len(members) - 2


@functools.lru_cache(maxsize=None)
def _calibrated() -> int:
    """What :func:`_references_beyond` says of a storage only its one ``TensorData`` holds (0 where
    ``getrefcount`` counts as CPython 3.11 does; measured, so that an interpreter counting otherwise
    only loses the shortcut). Measured at the first share, not at import: a ``TensorData`` runs
    the course's strides code, which a student release has not written yet."""
    return _references_beyond([TensorData(np.zeros(1), (1,))])


def share_storages(datas: Iterable[TensorData]) -> None:
    """Move the storage of each of ``datas`` that is not shared yet into a segment of its own, in place.

    Every ``TensorData`` over an old storage (the views of a tensor, the tensors autograd saved)
    is pointed at the copy. A storage knows no list of its views: where something besides the
    given ``datas`` holds a storage, the holders are found as the objects that refer to it (one
    pass over the collector's objects for all such storages at once; a storage only the given
    ``datas`` hold, a fresh batch or a parameter, needs none).
    """
    groups: dict[int, list[TensorData]] = {}
    for data in datas:
        groups.setdefault(id(data.storage), []).append(data)
    moved: dict[int, np.ndarray] = {}
    olds: list[np.ndarray] = []
    for members in groups.values():
        if is_shared(members[0].storage):
            continue
        held_elsewhere = _references_beyond(members) > _calibrated()
        copy = _shared_copy(members[0].storage)
        if held_elsewhere:
            moved[id(members[0].storage)] = copy
            olds.append(members[0].storage)
        else:
            for data in members:
                data.storage = copy
    if not olds:
        return
    for holder in gc.get_referrers(*olds):
        if isinstance(holder, TensorData) and id(holder.storage) in moved:
            holder.storage = moved[id(holder.storage)]

"""The gradient reducer behind ``DistributedDataParallel``: buckets, hooks, overlapped all-reduce.

Gradients are averaged over the ranks in *buckets*: flat host buffers that each hold the
gradients of several parameters, so that a model of many small tensors costs a few large
messages instead of many small ones (each message pays MPI's latency once).

* **Assignment** (once, at construction): parameters in *reverse* registration order, the order
  backward usually produces their gradients, fill buckets of one dtype and device; a bucket
  closes once it holds ``bucket_cap`` bytes (the first one ``first_bucket_cap``: the first
  gradients then start travelling sooner).
* **Hooks** (each backward): every parameter has a post-accumulate-grad hook. When it fires,
  the parameter's ``.grad / world_size`` is copied into its slot, and every bucket whose slots
  are all filled starts its non-blocking ``all_reduce`` -- in bucket order, so that every rank
  starts the same collectives in the same order -- while backward goes on computing the
  gradients of the layers below. Each hook also asks the started all-reduces whether they
  are done, which is when MPICH moves them along.
* **Finalize**: the hook that fills the last bucket waits for all of them and copies the
  averages back into ``.grad``, so the gradients are averaged before ``backward()`` returns
  and the optimizer step after it needs nothing more.

With ``find_unused_parameters`` the forward's output graph is searched for the parameters it
does not reach; their slots are filled at the first hook (with their ``.grad`` or zeros). A
parameter no rank used keeps its ``.grad``, as in PyTorch.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Optional, Sequence

import numpy as np

from ... import distributed as dist
from ...creation import from_numpy
from ...tensor import Tensor

MIB = 1024 * 1024
#: PyTorch's defaults: 25 MiB buckets, and 1 MiB for the first one when the cap is not given
DEFAULT_BUCKET_CAP_MB = 25
DEFAULT_FIRST_BUCKET_BYTES = 1 * MIB

UNFINISHED_REDUCTION = (
    "Expected to have finished reduction in the prior iteration before starting a new one. This error indicates "
    "that your module has parameters that were not used in producing loss. You can enable unused parameter "
    "detection by passing the keyword argument `find_unused_parameters=True` to "
    "`torch.nn.parallel.DistributedDataParallel`, and by making sure all `forward` function outputs participate in "
    "calculating loss. Parameter indices which did not receive grad for rank {rank}: {indices}")
MARKED_TWICE = (
    "Expected to mark a variable ready only once. This error is caused by one of the following reasons: 1) Use of a "
    "module parameter outside the `forward` function (the parameter's gradient arrived twice in one backward), "
    "2) Reused parameters in multiple reentrant backward passes or a second backward through the same graph. "
    "Parameter at index {index} has been marked as ready twice.")


@dataclass
class Bucket:
    """The parameters (by index) whose gradients travel together, and their flat buffer."""

    indices: list[int]
    offsets: list[int]
    array: np.ndarray  # the flat buffer ...
    buffer: Tensor  # ... and a CPU tensor sharing its memory, what ``all_reduce`` is given
    pending: int = 0  # slots not yet filled in this backward
    work: Optional[dist.Work] = None


def assign_buckets(params: Sequence[Tensor], bucket_cap: int, first_bucket_cap: int) -> list[list[int]]:
    """Parameter indices per bucket: reverse order, one dtype and device per bucket, closed at the cap."""
    open_buckets: dict[tuple[Any, Any], list[int]] = {}
    sizes: dict[tuple[Any, Any], int] = {}
    closed_count: dict[tuple[Any, Any], int] = {}
    done: list[list[int]] = []
    for index in reversed(range(len(params))):
        param = params[index]
        kind = (param.dtype, param.device)
        bucket = open_buckets.setdefault(kind, [])
        bucket.append(index)
        sizes[kind] = sizes.get(kind, 0) + param.numel() * param.element_size()
        cap = first_bucket_cap if closed_count.get(kind, 0) == 0 else bucket_cap
        if sizes[kind] >= cap:
            done.append(open_buckets.pop(kind))
            sizes[kind] = 0
            closed_count[kind] = closed_count.get(kind, 0) + 1
    done.extend(open_buckets.values())
    order = {index: position for position, index in enumerate(reversed(range(len(params))))}
    return sorted(done, key=lambda bucket: order[bucket[0]])


def parameters_reached(outputs: Any) -> set[int]:
    """``id`` of every leaf tensor whose gradient node the autograd graph of ``outputs`` reaches."""
    from ...autograd.engine import leaves_reached

    roots = [tensor.grad_fn for tensor in _tensors_in(outputs) if tensor.grad_fn is not None]
    return {id(leaf) for leaf in leaves_reached(roots)}


def _tensors_in(value: Any) -> list[Tensor]:
    """The tensors in a forward's output: nested tuples, lists and dicts of them."""
    if isinstance(value, Tensor):
        return [value]
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, (list, tuple)):
        return [tensor for item in value for tensor in _tensors_in(item)]
    return []


@dataclass
class CommTimer:
    """Seconds this rank spent inside the reducer's MPI calls (starting, polling, waiting)."""

    seconds: float = 0.0
    started: float = field(default=0.0, repr=False)

    def __enter__(self) -> None:
        self.started = time.perf_counter()

    def __exit__(self, *exc: object) -> None:
        self.seconds += time.perf_counter() - self.started


class Reducer:
    """Averages the gradients of ``params`` over the ranks of ``group`` during backward."""

    def __init__(self, params: Sequence[Tensor], group: dist.ProcessGroup, bucket_cap: int,
                 first_bucket_cap: int) -> None:
        self.params = list(params)
        self.group = group
        self.world_size = group.size()
        self.buckets: list[Bucket] = []
        self.slot: dict[int, tuple[Bucket, int]] = {}
        for indices in assign_buckets(self.params, bucket_cap, first_bucket_cap):
            offsets = list(np.cumsum([0] + [self.params[i].numel() for i in indices[:-1]]))
            total = sum(self.params[i].numel() for i in indices)
            storage = np.zeros(total, dtype=self.params[indices[0]]._data.storage.dtype)
            bucket = Bucket(indices, [int(offset) for offset in offsets], storage, from_numpy(storage))
            self.buckets.append(bucket)
            for index, offset in zip(indices, bucket.offsets):
                self.slot[index] = (bucket, offset)
        self.armed = False  # this backward averages (a forward outside no_sync, with grad mode on)
        self.require_finalize = False
        self.ready = [False] * len(self.params)
        self.unused: list[int] = []
        self.unused_marked = False
        self.used = np.zeros(len(self.params), dtype=np.int32)
        self.next_bucket = 0
        self.comm = CommTimer()
        self.handles = [param.register_post_accumulate_grad_hook(self._hook(index))
                        for index, param in enumerate(self.params)]

    # ---- each iteration ----

    def check_prior_reduction(self) -> None:
        """At a forward: the previous averaging backward must have reduced every bucket."""
        if self.require_finalize:
            missing = [index for index, ready in enumerate(self.ready) if not ready]
            raise RuntimeError(UNFINISHED_REDUCTION.format(rank=self.group.rank(), indices=" ".join(map(str, missing))))

    def prepare_for_backward(self, outputs: Any, find_unused: bool) -> None:
        """Arm the hooks for the backward of ``outputs``; with ``find_unused``, note the parameters it misses."""
        self.armed = True
        self.ready = [False] * len(self.params)
        self.used[:] = 0
        self.next_bucket = 0
        for bucket in self.buckets:
            bucket.pending, bucket.work = len(bucket.indices), None
        self.unused = []
        if find_unused:
            reached = parameters_reached(outputs)
            self.unused = [index for index, param in enumerate(self.params) if id(param) not in reached]
        self.unused_marked = False

    def disarm(self) -> None:
        """The next backward only accumulates locally (``no_sync``, or a forward without grad)."""
        self.armed = False

    def _hook(self, index: int) -> Any:
        def hook(param: Tensor) -> None:
            if self.armed:
                self.mark_ready(index, used=True)
        return hook

    def mark_ready(self, index: int, used: bool) -> None:
        """Parameter ``index``'s gradient is final for this backward: fill its slot, start what is full."""
        if self.ready[index]:
            raise RuntimeError(MARKED_TWICE.format(index=index))
        self.require_finalize = True
        if not self.unused_marked:
            self.unused_marked = True
            for unused in self.unused:
                if unused != index:
                    self.mark_ready(unused, used=False)
        self.ready[index] = True
        self.used[index] = int(used)
        bucket, offset = self.slot[index]
        grad = self.params[index].grad
        piece = bucket.array[offset:offset + self.params[index].numel()]
        if grad is None:
            piece[:] = 0
        else:
            np.divide(grad.detach()._host_numpy().reshape(-1), self.world_size, out=piece)
        bucket.pending -= 1
        self._start_ready_buckets()

    def _start_ready_buckets(self) -> None:
        with self.comm:
            for bucket in self.buckets[:self.next_bucket]:
                if bucket.work is not None:
                    bucket.work.is_completed()  # polling is what moves a non-blocking MPI operation along
            while self.next_bucket < len(self.buckets) and self.buckets[self.next_bucket].pending == 0:
                bucket = self.buckets[self.next_bucket]
                bucket.work = dist.all_reduce(bucket.buffer, group=self.group, async_op=True)
                self.next_bucket += 1
        if self.next_bucket == len(self.buckets):
            self.finalize()

    def finalize(self) -> None:
        """Wait for every bucket and write the averaged gradients into ``.grad``."""
        with self.comm:
            global_used = None
            if self.unused:  # how many ranks used each parameter: one no rank used keeps its .grad
                global_used = self.used.copy()
                dist.all_reduce(from_numpy(global_used), group=self.group)
            for bucket in self.buckets:
                assert bucket.work is not None
                bucket.work.wait()
        for bucket in self.buckets:
            for index, offset in zip(bucket.indices, bucket.offsets):
                if global_used is not None and not global_used[index]:
                    continue
                param = self.params[index]
                averaged = bucket.array[offset:offset + param.numel()].reshape(tuple(param.shape))
                _write_grad(param, averaged)
        self.armed = False
        self.require_finalize = False


def _write_grad(param: Tensor, values: np.ndarray) -> None:
    """``param.grad = values``: in place when ``.grad`` exists (its identity and memory stay), else a new tensor."""
    if param.grad is None:
        param.grad = from_numpy(values.copy()).to(param.device)
        return
    grad = param.grad
    if not grad.is_cuda and grad.is_contiguous():
        grad._host_numpy()[...] = values
    else:
        grad._write(from_numpy(values))
    grad._bump_version()

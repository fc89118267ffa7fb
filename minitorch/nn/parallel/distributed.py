"""``nn.parallel.DistributedDataParallel``: one model replica per process, gradients averaged.

Each rank runs the wrapped module on its own part of every batch. At construction the
parameters and buffers of rank 0 are broadcast, so every replica starts equal; during each
backward the :class:`~.reducer.Reducer` averages the gradients over the ranks (in buckets,
overlapped with backward), so every replica takes the same optimizer step and they stay
equal. The gradients are averaged by the time ``loss.backward()`` returns.
"""

from __future__ import annotations

import contextlib
import warnings
from typing import Any, Iterator, Optional, Sequence

import numpy as np

from ... import distributed as dist
from ...autograd import is_grad_enabled
from ...distributed.process_group import default_group
from ...creation import from_numpy
from ...tensor import Tensor
from ..modules.module import Module
from .reducer import DEFAULT_BUCKET_CAP_MB, DEFAULT_FIRST_BUCKET_BYTES, MIB, Reducer


class DistributedDataParallel(Module):
    """``DistributedDataParallel(module, ..., bucket_cap_mb=None, find_unused_parameters=False, ...)``.

    Needs :func:`minitorch.distributed.init_process_group` first. The state dict is the
    module's with a ``module.`` prefix, as PyTorch's. ``device_ids`` and ``output_device``
    are only accepted for a CPU module when empty, as in PyTorch; ``gradient_as_bucket_view``
    and ``static_graph`` are accepted and change nothing (the gradients are the same).
    """

    def __init__(self, module: Module, device_ids: Optional[Sequence[Any]] = None, output_device: Any = None,
                 dim: int = 0, broadcast_buffers: Optional[bool] = None, init_sync: bool = True,
                 process_group: Optional[dist.ProcessGroup] = None, bucket_cap_mb: Optional[float] = None,
                 find_unused_parameters: bool = False, check_reduction: bool = False,
                 gradient_as_bucket_view: bool = False, static_graph: bool = False,
                 forward_sync_buffers: Optional[bool] = None) -> None:
        super().__init__()
        self.process_group = default_group(process_group)
        params = list(module.parameters())
        trained = [param for param in params if param.requires_grad]
        if not trained:
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't have any parameter that "
                               "requires a gradient.")
        if device_ids is not None and len(device_ids) > 1:
            raise ValueError("device_ids can only be None or contain a single element.")
        device_types = {param.device.type for param in params}
        if len(device_types) != 1:
            raise ValueError("DistributedDataParallel's input module must be on the same type of devices, but input "
                             f"module parameters locate in {device_types}.")
        if device_ids or output_device is not None:
            raise ValueError("DistributedDataParallel device_ids and output_device arguments only work with "
                             "single-device/multiple-device GPU modules or CPU modules, but got device_ids "
                             f"{device_ids}, output_device {output_device}, and module parameters "
                             f"{ {param.device for param in params} }.")
        if check_reduction:
            warnings.warn("The `check_reduction` argument in `DistributedDataParallel` module is deprecated. Please "
                          "avoid using it.", FutureWarning, stacklevel=2)
        self.module = module
        self.device_ids = None
        self.output_device = None
        self.dim = dim
        self.device = params[0].device
        self.find_unused_parameters = find_unused_parameters
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.static_graph = static_graph
        self.require_backward_grad_sync = True
        self.require_forward_param_sync = True
        sync_buffers_at_init = True if broadcast_buffers is None else broadcast_buffers
        self.forward_sync_buffers = forward_sync_buffers if forward_sync_buffers is not None else sync_buffers_at_init
        bucket_cap = int((DEFAULT_BUCKET_CAP_MB if bucket_cap_mb is None else bucket_cap_mb) * MIB)
        self.bucket_bytes_cap = bucket_cap
        first_bucket_cap = DEFAULT_FIRST_BUCKET_BYTES if bucket_cap_mb is None else bucket_cap
        if init_sync:
            _verify_param_shapes_across_processes(self.process_group, params)
            self._broadcast_from_rank0(params + (list(module.buffers()) if sync_buffers_at_init else []))
        self.reducer = Reducer(trained, self.process_group, bucket_cap, first_bucket_cap)

    def _broadcast_from_rank0(self, tensors: Sequence[Tensor]) -> None:
        works = [dist.broadcast(tensor, src=0, group=self.process_group, async_op=True) for tensor in tensors]
        for work in works:
            assert work is not None
            work.wait()

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        """Run the module; with grad mode on and outside :meth:`no_sync`, arm the next backward to average."""
        self.reducer.check_prior_reduction()
        buffers = list(self.module.buffers())
        if self.forward_sync_buffers and self.require_forward_param_sync and buffers:
            self._broadcast_from_rank0(buffers)  # rank 0's running statistics are the ones every rank uses
        output = self.module(*inputs, **kwargs)
        if is_grad_enabled() and self.require_backward_grad_sync:
            self.reducer.prepare_for_backward(output, self.find_unused_parameters)
        else:
            self.reducer.disarm()
        return output

    @contextlib.contextmanager
    def no_sync(self) -> Iterator[None]:
        """Backward passes of forwards run inside only accumulate ``.grad`` locally; the first
        forward-backward after the block averages the sum."""
        previous = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = previous

    def communication_seconds(self) -> float:
        """Seconds this rank has spent in the gradient all-reduces so far (minitorch's; for benchmarks)."""
        return self.reducer.comm.seconds


def _verify_param_shapes_across_processes(group: dist.ProcessGroup, params: Sequence[Tensor]) -> None:
    """Every rank must wrap the same model: the same number of parameters with the same shapes as rank 0's."""
    rank, size = group.rank(), group.size()
    counts = from_numpy(np.zeros(size, dtype=np.int64))
    dist.all_gather_into_tensor(counts, from_numpy(np.array([len(params)], dtype=np.int64)), group=group)
    for other, count in enumerate(counts.tolist()):
        if count != len(params):
            raise RuntimeError(f"DDP expects same model across all ranks, but Rank {rank} has {len(params)} params, "
                               f"while rank {other} has inconsistent {count} params.")
    encoded = [value for param in params for value in (param.dim(), *param.shape)]
    length = from_numpy(np.array([len(encoded)], dtype=np.int64))
    dist.broadcast(length, src=0, group=group)
    reference = from_numpy(np.array(encoded if rank == 0 else [0] * int(length.item()), dtype=np.int64))
    dist.broadcast(reference, src=0, group=group)
    values = reference.tolist()
    position = 0
    for index, param in enumerate(params):
        dims = values[position] if position < len(values) else -1
        shape = values[position + 1:position + 1 + dims] if dims >= 0 else None
        if shape != list(param.shape):
            raise RuntimeError(f"params[{index}] in this process with sizes {list(param.shape)} appears not to match "
                               "sizes of the same param in process 0.")
        position += 1 + dims

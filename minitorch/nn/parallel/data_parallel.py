"""``nn.DataParallel``, as PyTorch has it on a machine without GPUs: the wrapped module runs as
is, and the wrapper adds the ``module.`` prefix to the ``state_dict`` keys.

PyTorch splits each batch over several GPUs in threads; minitorch computes on one device, so
code written for ``DataParallel`` runs unchanged and saves the same checkpoints. Training over
several processes is ``DistributedDataParallel``'s job (issue 20).
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

from ..modules.module import Module


class DataParallel(Module):
    """``DataParallel(module, device_ids=None, output_device=None, dim=0)``: calls ``module``."""

    def __init__(self, module: Module, device_ids: Optional[Sequence[Any]] = None, output_device: Any = None,
                 dim: int = 0) -> None:
        super().__init__()
        self.module = module
        self.device_ids: list[Any] = []  # no GPU to spread over, as PyTorch on a CPU-only machine

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        return self.module(*inputs, **kwargs)

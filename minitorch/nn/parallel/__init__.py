"""Parallel wrappers of modules (``nn.parallel``)."""

from .data_parallel import DataParallel

__all__ = ["DataParallel"]

# ---- DistributedDataParallel: one replica per MPI rank, gradients averaged in backward (issue 20) ----
from .distributed import DistributedDataParallel  # noqa: E402

__all__ += ["DistributedDataParallel"]

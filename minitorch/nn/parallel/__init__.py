"""Parallel wrappers of modules (``nn.parallel``)."""

from .data_parallel import DataParallel

__all__ = ["DataParallel"]

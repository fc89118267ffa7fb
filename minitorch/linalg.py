"""``minitorch.linalg``: the norms of PyTorch's ``torch.linalg``."""

from .ops.reductions_extra import matrix_norm, vector_norm

__all__ = ["matrix_norm", "vector_norm"]

"""``minitorch.linalg``: the norms of PyTorch's ``torch.linalg``."""

from .ops.products import linalg_cross as cross
from .ops.reductions_extra import matrix_norm, vector_norm

__all__ = ["cross", "matrix_norm", "vector_norm"]

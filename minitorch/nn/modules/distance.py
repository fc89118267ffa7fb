"""Layers comparing two batches of vectors: cosine similarity and the p-norm distance."""

from __future__ import annotations

from ...tensor import Tensor
from .. import functional as F
from .module import Module

__all__ = ["CosineSimilarity", "PairwiseDistance"]

#: the defaults of PyTorch's two layers
DEFAULT_COSINE_EPS = 1e-8
DEFAULT_DISTANCE_EPS = 1e-6


class CosineSimilarity(Module):
    r""":math:`\frac{x_1 \cdot x_2}{\max(\|x_1\|_2, \epsilon)\,\max(\|x_2\|_2, \epsilon)}` along ``dim``."""

    def __init__(self, dim: int = 1, eps: float = DEFAULT_COSINE_EPS) -> None:
        super().__init__()
        self.dim = dim
        self.eps = eps

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return F.cosine_similarity(x1, x2, self.dim, self.eps)


class PairwiseDistance(Module):
    r""":math:`\|x_1 - x_2 + \epsilon\|_p` along the last dimension."""

    def __init__(self, p: float = 2.0, eps: float = DEFAULT_DISTANCE_EPS, keepdim: bool = False) -> None:
        super().__init__()
        self.norm = p
        self.eps = eps
        self.keepdim = keepdim

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return F.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)

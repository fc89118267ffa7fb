r"""Normalising vectors and comparing them: :func:`normalize`, and the cosine similarity and
pairwise distance that the loss functions also use."""

from __future__ import annotations

from typing import Optional

from ...ops.products import cosine_similarity, pdist
from ...out_argument import write_out
from ...tensor import Tensor
from .loss_extra import pairwise_distance

__all__ = ["cosine_similarity", "normalize", "pairwise_distance", "pdist"]


def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12,  # noqa: A002
              out: Optional[Tensor] = None) -> Tensor:
    r""":math:`v / \max(\|v\|_p, \epsilon)` for each vector :math:`v` along ``dim``."""
    result = input / input.norm(p, dim, keepdim=True).clamp_min(eps)
    return write_out(result, out, "div")  # PyTorch's is ``torch.div(input, norm, out=out)``

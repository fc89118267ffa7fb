"""Host draws for the distributions whose sampler minitorch has no op for, outside the graph, on
the stream of minitorch's generator of a tensor's device: gamma as PyTorch's kernel draws it
(:func:`minitorch.draws.gamma`, so a seed gives PyTorch's numbers), Poisson and binomial by NumPy's
samplers (numbers of their own)."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .. import dtypes, draws
from ..creation import tensor as make_tensor
from ..generator import default_generator_of
from ..tensor import Tensor


def numpy_generator_of(like: Tensor) -> np.random.Generator:
    """The NumPy generator behind minitorch's default generator of ``like``'s device."""
    return default_generator_of(like.device.type).numpy_generator()


def host_array(value: Tensor, shape: Sequence[int]) -> np.ndarray:
    """``value`` broadcast to ``shape``, as a NumPy array on the host (outside the graph)."""
    return np.broadcast_to(value.detach().to("cpu").numpy(), tuple(shape))


def standard_gamma_host(concentration: Tensor, shape: Sequence[int], narrow: bool = False) -> np.ndarray:
    """Float64 draws of :math:`\\mathrm{Gamma}(\\alpha, 1)` of ``shape`` (``concentration`` broadcast to it),
    on the host: as PyTorch's Dirichlet kernel draws them (in double), or its float32 gamma kernel
    (``narrow``)."""
    stream = default_generator_of(concentration.device.type).stream()
    return draws.gamma(stream, host_array(concentration, shape), narrow)


def standard_gamma(concentration: Tensor, shape: Sequence[int]) -> Tensor:
    """Draws of :math:`\\mathrm{Gamma}(\\alpha, 1)` of ``shape`` as a tensor of ``concentration``'s dtype and device."""
    drawn = standard_gamma_host(concentration, shape, narrow=concentration.dtype is dtypes.float32)
    return make_tensor(np.asarray(drawn), dtype=concentration.dtype, device=concentration.device)


def as_draws(drawn: Any, like: Tensor) -> Tensor:
    """NumPy draws as a tensor of ``like``'s dtype and device."""
    return make_tensor(np.asarray(drawn, dtype=np.float64), dtype=like.dtype, device=like.device)


__all__ = ["as_draws", "host_array", "numpy_generator_of", "standard_gamma", "standard_gamma_host"]

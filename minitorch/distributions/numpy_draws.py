"""Host gamma draws for the gamma family (``Gamma``, ``Beta``, ``Dirichlet``, ``StudentT``), outside
the graph, on the stream of minitorch's generator of a tensor's device, as PyTorch's kernel draws
them (:func:`minitorch.draws.gamma`), so a seed gives PyTorch's numbers. (Every other family samples
with minitorch's ops: ``poisson``, ``binomial``, ``multinomial``, the tensor fills.)"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from .. import dtypes, draws
from ..creation import tensor as make_tensor
from ..generator import default_generator_of
from ..tensor import Tensor


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


__all__ = ["host_array", "standard_gamma", "standard_gamma_host"]

"""``y = x W^T + b`` with int8 arithmetic, the way PyTorch's dynamic quantized ``Linear`` does it.

The weight :math:`W` was quantized once (qint8, :math:`W \\approx s_W (W_q - z_W)`, one scale
per tensor or per output feature). Each call quantizes the activations :math:`x` of the
batch with a range measured on that batch (quint8, :math:`x \\approx s_x (x_q - z_x)`), sums
the products of the integers in int32 and scales back to float:

.. math::
    y_{ij} = s_x s_{W,j}\\Bigl(\\sum_k x_{q,ik} W_{q,jk} - z_x \\sum_k W_{q,jk}
             - z_{W,j} \\sum_k x_{q,ik} + K z_x z_{W,j}\\Bigr) + b_j

The sums over :math:`k` of the weight's integers are computed once per weight. Only the
first sum costs :math:`O(MNK)`: that is :func:`~minitorch.backends.cpu_int8.int8_matmul`.
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from .. import dtypes
from ..backends.cpu_int8 import int8_matmul, quantize_u8
from ..creation import from_numpy
from ..tensor import Tensor
from .qparams import choose_qparams
from .qtensor import QUANTIZED_RANGES, QuantizedTensor


class PackedWeight:
    """A qint8 weight ready for :func:`linear_dynamic`: its integers, scales and zero points as
    float32/int32 rows, and the sum of each row's integers."""

    def __init__(self, weight: QuantizedTensor) -> None:
        if weight.dtype is not dtypes.qint8 or weight.dim() != 2:
            raise RuntimeError(f"a dynamic quantized Linear needs a 2-D qint8 weight, got {weight.dtype} of shape "
                               f"{tuple(weight.shape)}")
        if weight.qscheme().per_channel and weight.q_per_channel_axis() != 0:
            raise RuntimeError("a per-channel quantized Linear weight has one scale per output feature (axis 0), "
                               f"got axis {weight.q_per_channel_axis()}")
        self.weight = weight
        self.integers = np.ascontiguousarray(weight._integers)
        rows = weight.shape[0]
        self.scales = np.broadcast_to(weight._scales.astype(np.float32), (rows,)).copy()
        self.zero_points = np.broadcast_to(weight._zero_points.astype(np.int32), (rows,)).copy()
        self.row_sums = self.integers.astype(np.int32).sum(axis=1, dtype=np.int32)


def linear_dynamic(input: Tensor, packed: PackedWeight, bias: Optional[Tensor], reduce_range: bool = True) -> Tensor:
    """``input @ W.T + bias`` with the activations quantized to quint8 per call (no autograd)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"a dynamic quantized Linear expects a Tensor, got {type(input).__name__}")
    if input.dtype is not dtypes.float32:
        raise RuntimeError(f"a dynamic quantized Linear computes on float32 input, got {input.dtype}")
    if input.device.type != "cpu":
        raise RuntimeError(f"dynamic quantized Linear runs on the CPU, got input on {input.device}")
    features = packed.integers.shape[1]
    if input.dim() == 0 or input.shape[-1] != features:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied: input of shape {tuple(input.shape)}, "
                           f"weight of shape {tuple(packed.weight.shape)} (in_features={features})")
    values = input.detach().numpy().reshape(-1, features)
    low = float(values.min()) if values.size else 0.0
    high = float(values.max()) if values.size else 0.0
    qmin, qmax = QUANTIZED_RANGES[dtypes.quint8]
    scale, zero_point = choose_qparams(low, high, qmin, qmax, reduce_range)
    activations = quantize_u8(values, scale, zero_point)
    sums = int8_matmul(activations, packed.integers)
    sums -= np.int32(zero_point) * packed.row_sums
    if packed.zero_points.any():
        sums -= packed.zero_points * activations.astype(np.int32).sum(axis=1, dtype=np.int32)[:, None]
        sums += np.int32(features * zero_point) * packed.zero_points
    out = sums.astype(np.float32) * (np.float32(scale) * packed.scales)
    if bias is not None:
        out += bias.detach().numpy().astype(np.float32)
    return from_numpy(out.reshape(*input.shape[:-1], packed.integers.shape[0]))

"""Normalisation layers: LayerNorm, GroupNorm, and BatchNorm1d/2d with running statistics."""

from __future__ import annotations

import warnings
from typing import Any, Optional, Sequence, Union

from ... import creation, dtypes
from ...autograd import no_grad
from ...tensor import Tensor
from .. import functional as F
from .. import init
from ._weights import register_weight_and_bias
from .module import Module

__all__ = ["BatchNorm1d", "BatchNorm2d", "GroupNorm", "InstanceNorm1d", "InstanceNorm2d", "LayerNorm", "LocalResponseNorm",
           "RMSNorm"]

DEFAULT_EPS = 1e-5
DEFAULT_MOMENTUM = 0.1


def _register_scale_and_shift(module: Module, shape: tuple[int, ...], affine: bool, bias: bool, device: Any,
                              dtype: Any) -> None:
    """The learnable elementwise scale (``weight``, ones) and shift (``bias``, zeros) of
    ``shape``; ``None`` without ``affine``, and ``bias`` ``None`` without ``bias``."""
    register_weight_and_bias(
        module,
        creation.ones(shape, device=device, dtype=dtype) if affine else None,
        creation.zeros(shape, device=device, dtype=dtype) if affine and bias else None,
    )


class LayerNorm(Module):
    """Normalise over the trailing ``normalized_shape``; elementwise scale and shift (ones, zeros)."""

    def __init__(self, normalized_shape: Union[int, Sequence[int]], eps: float = DEFAULT_EPS, elementwise_affine: bool = True,
                 bias: bool = True, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        self.normalized_shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        _register_scale_and_shift(self, self.normalized_shape, elementwise_affine, bias, device, dtype)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        if self.weight is not None:
            init.ones_(self.weight)
        if self.bias is not None:
            init.zeros_(self.bias)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002 - PyTorch's argument name
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}, "
                f"bias={self.bias is not None}")


class RMSNorm(Module):
    """Divide by the root mean square over the trailing ``normalized_shape``; elementwise scale
    (ones). ``eps=None`` takes the machine epsilon of the input's dtype, as PyTorch's."""

    def __init__(self, normalized_shape: Union[int, Sequence[int]], eps: Optional[float] = None,
                 elementwise_affine: bool = True, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        self.normalized_shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        _register_scale_and_shift(self, self.normalized_shape, elementwise_affine, False, device, dtype)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        if self.weight is not None:
            init.ones_(self.weight)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.rms_norm(input, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self) -> str:
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"


class GroupNorm(Module):
    """Normalise groups of channels of each sample; per-channel scale and shift."""

    def __init__(self, num_groups: int, num_channels: int, eps: float = DEFAULT_EPS, affine: bool = True,
                 device: Any = None, dtype: Any = None, *, bias: bool = True) -> None:
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError("num_channels must be divisible by num_groups")
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        _register_scale_and_shift(self, (num_channels,), affine, bias, device, dtype)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, bias={self.bias is not None}"


class _NormBase(Module):
    """What batch and instance norm share: per-channel scale and shift, running-statistics buffers."""

    def __init__(self, num_features: int, eps: float = DEFAULT_EPS, momentum: Optional[float] = DEFAULT_MOMENTUM,
                 affine: bool = True, track_running_stats: bool = True, device: Any = None, dtype: Any = None,
                 *, bias: bool = True) -> None:
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        _register_scale_and_shift(self, (num_features,), affine, bias, device, dtype)
        if track_running_stats:
            self.register_buffer("running_mean", creation.zeros(num_features, device=device, dtype=dtype))
            self.register_buffer("running_var", creation.ones(num_features, device=device, dtype=dtype))
            self.register_buffer("num_batches_tracked", creation.tensor(0, dtype=dtypes.int64, device=device))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self) -> None:
        if self.track_running_stats:
            with no_grad():
                self.running_mean.zero_()
                self.running_var.fill_(1)
                self.num_batches_tracked.zero_()

    def reset_parameters(self) -> None:
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def _check_input_dim(self, input: Tensor) -> None:  # noqa: A002
        raise NotImplementedError

    def extra_repr(self) -> str:
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
                f"bias={self.bias is not None}, track_running_stats={self.track_running_stats}")


class _BatchNorm(_NormBase):
    r"""Batch normalisation of channel dimension 1, with running statistics as buffers.

    In training each batch is normalised by its own mean and (biased) variance, and the
    buffers move towards them: :math:`r \leftarrow (1 - m)\,r + m\,s` with the unbiased
    variance for ``running_var``; ``momentum=None`` makes :math:`m = 1/t` after :math:`t`
    batches, a plain average. In evaluation the buffers normalise.
    """

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        self._check_input_dim(input)
        # BEGIN SOLUTION 5.6
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            with no_grad():
                self.num_batches_tracked.add_(1)
            factor = 1.0 / int(self.num_batches_tracked.item()) if self.momentum is None else self.momentum
        use_batch_stats = self.training or (self.running_mean is None and self.running_var is None)
        keep = not self.training or self.track_running_stats
        return F.batch_norm(
            input, self.running_mean if keep else None, self.running_var if keep else None,
            self.weight, self.bias, use_batch_stats, factor, self.eps,
        )
        # END SOLUTION


class BatchNorm1d(_BatchNorm):
    """Batch norm of ``(N, C)`` or ``(N, C, L)`` input."""

    def _check_input_dim(self, input: Tensor) -> None:  # noqa: A002
        if input.dim() not in (2, 3):
            raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")


class BatchNorm2d(_BatchNorm):
    """Batch norm of ``(N, C, H, W)`` input."""

    def _check_input_dim(self, input: Tensor) -> None:  # noqa: A002
        if input.dim() != 4:
            raise ValueError(f"expected 4D input (got {input.dim()}D input)")


class BatchNorm3d(_BatchNorm):
    """Batch norm of ``(N, C, D, H, W)`` input."""

    def _check_input_dim(self, input: Tensor) -> None:  # noqa: A002
        if input.dim() != 5:
            raise ValueError(f"expected 5D input (got {input.dim()}D input)")


class _InstanceNorm(_NormBase):
    r"""Instance normalisation: each channel of each sample normalised over its own positions.

    Unlike batch norm, by default there is no affine map and no running statistics; with
    ``track_running_stats`` the buffers follow the batch average of the per-sample statistics
    and normalise in evaluation mode. An unbatched input (one dimension fewer) is one sample.
    """

    #: the rank of an unbatched input
    UNBATCHED_DIM = 2

    def __init__(self, num_features: int, eps: float = DEFAULT_EPS, momentum: Optional[float] = DEFAULT_MOMENTUM,
                 affine: bool = False, track_running_stats: bool = False, device: Any = None, dtype: Any = None,
                 *, bias: bool = True) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        self._check_input_dim(input)
        feature_dim = input.dim() - self.UNBATCHED_DIM
        size = input.shape[feature_dim]
        if size != self.num_features:
            if self.affine:
                raise ValueError(f"expected input's size at dim={feature_dim} to match num_features "
                                 f"({self.num_features}), but got: {size}.")
            warnings.warn(f"input's size at dim={feature_dim} does not match num_features. You can silence this "
                          "warning by not passing in num_features, which is not used because affine=False",
                          stacklevel=2)
        batched = input if input.dim() > self.UNBATCHED_DIM else input.unsqueeze(0)
        out = F.instance_norm(
            batched, self.running_mean, self.running_var, self.weight, self.bias,
            self.training or not self.track_running_stats, 0.0 if self.momentum is None else self.momentum, self.eps,
        )
        return out if input.dim() > self.UNBATCHED_DIM else out.squeeze(0)


class InstanceNorm1d(_InstanceNorm):
    """Instance norm of ``(N, C, L)`` or unbatched ``(C, L)`` input."""

    def _check_input_dim(self, input: Tensor) -> None:  # noqa: A002
        if input.dim() not in (2, 3):
            raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")


class InstanceNorm2d(_InstanceNorm):
    """Instance norm of ``(N, C, H, W)`` or unbatched ``(C, H, W)`` input."""

    UNBATCHED_DIM = 3

    def _check_input_dim(self, input: Tensor) -> None:  # noqa: A002
        if input.dim() not in (3, 4):
            raise ValueError(f"expected 3D or 4D input (got {input.dim()}D input)")


class LocalResponseNorm(Module):
    """Normalise each value over the mean square of ``size`` neighbouring channels (:func:`.F.local_response_norm`)."""

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0) -> None:
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"

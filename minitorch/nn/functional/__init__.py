"""``minitorch.nn.functional``: the stateless layer operations (``import minitorch.nn.functional as F``).

One file per topic: activations, the linear map, convolution, pooling, normalisation,
dropout, lookups (embedding, one-hot), padding, losses and attention.
"""

from __future__ import annotations

from ...ops.indexing import gather, index_select, scatter_add
from .activation import gelu, leaky_relu, leaky_relu_, log_softmax, relu, relu_, sigmoid, silu, softmax, softplus, tanh
from .attention import multi_head_attention, scaled_dot_product_attention
from .conv import conv1d, conv2d
from .dropout import dropout, dropout1d, dropout2d, dropout3d
from .linear import bilinear, linear
from .loss import (
    binary_cross_entropy, binary_cross_entropy_with_logits, cross_entropy, huber_loss, l1_loss, mse_loss, nll_loss,
    smooth_l1_loss,
)
from . import loss_extra
from .loss_extra import (  # noqa: F401 - the further losses (issue 19)
    cosine_embedding_loss, gaussian_nll_loss, hinge_embedding_loss, kl_div, margin_ranking_loss, multi_margin_loss,
    pairwise_distance, poisson_nll_loss, soft_margin_loss, triplet_margin_loss, triplet_margin_with_distance_loss,
)
from .normalization import batch_norm, group_norm, layer_norm
from .padding import pad
from .pooling import adaptive_avg_pool1d, adaptive_avg_pool2d, avg_pool1d, avg_pool2d, max_pool1d, max_pool2d
from .sparse import embedding, one_hot
from .embedding_bag import embedding_bag

__all__ = [
    "adaptive_avg_pool1d", "adaptive_avg_pool2d", "avg_pool1d", "avg_pool2d", "batch_norm", "bilinear",
    "binary_cross_entropy", "binary_cross_entropy_with_logits", "conv1d", "conv2d", "cross_entropy", "dropout",
    "dropout1d", "dropout2d", "dropout3d", "embedding", "gather", "gelu", "group_norm", "huber_loss", "index_select", "l1_loss",
    "layer_norm", "leaky_relu", "leaky_relu_", "linear", "log_softmax", "max_pool1d", "max_pool2d", "mse_loss",
    "multi_head_attention", "nll_loss", "one_hot", "pad", "relu", "relu_", "scaled_dot_product_attention",
    "scatter_add", "sigmoid", "silu", "smooth_l1_loss", "softmax", "softplus", "tanh",
]
__all__ += loss_extra.__all__
__all__ += ["embedding_bag"]

# ---- transposed convolution, upsampling, adaptive max pooling (issue 19) ----
from .adaptive_max_pooling import adaptive_max_pool1d, adaptive_max_pool2d  # noqa: E402
from .conv_transpose import conv_transpose1d, conv_transpose2d  # noqa: E402
from .upsampling import interpolate, pixel_shuffle, pixel_unshuffle, upsample  # noqa: E402

__all__ += [
    "adaptive_max_pool1d", "adaptive_max_pool2d", "conv_transpose1d", "conv_transpose2d", "interpolate", "pixel_shuffle",
    "pixel_unshuffle", "upsample",
]

# ---- further activations, normalize, alpha dropout, instance norm (issues 17/19) ----
from . import activation_extra  # noqa: E402
from .activation_extra import (  # noqa: E402
    celu, celu_, elu, elu_, glu, hardshrink, hardsigmoid, hardswish, hardtanh, hardtanh_, logsigmoid, mish, prelu,
    relu6, selu, selu_, softmin, softshrink, softsign, tanhshrink, threshold, threshold_,
)
from .distance import cosine_similarity, normalize, pdist  # noqa: E402
from .dropout import alpha_dropout  # noqa: E402
from .normalization import instance_norm  # noqa: E402

__all__ += [
    "alpha_dropout", "celu", "celu_", "cosine_similarity", "elu", "pdist", "elu_", "glu", "hardshrink", "hardsigmoid",
    "hardswish", "hardtanh", "hardtanh_", "instance_norm", "logsigmoid", "mish", "normalize", "prelu", "relu6", "selu",
    "selu_", "softmin", "softshrink", "softsign", "tanhshrink", "threshold", "threshold_",
]

# ---- CTC loss (issue 19) ----
from .ctc import ctc_loss  # noqa: E402
__all__ += ["ctc_loss"]

# ---- randomized leaky ReLU (issue 17) ----
from .activation_extra import rrelu, rrelu_  # noqa: E402
__all__ += ["rrelu", "rrelu_"]

# ---- volumes: the 3-D convolutions and pooling ----
from .conv import conv3d  # noqa: E402
from .conv_transpose import conv_transpose3d  # noqa: E402
from .pooling import avg_pool3d, max_pool3d  # noqa: E402
__all__ += ["avg_pool3d", "conv3d", "conv_transpose3d", "max_pool3d"]

# ---- im2col, RMS normalisation ----
from .im2col import fold, unfold  # noqa: E402
from .normalization import rms_norm  # noqa: E402
__all__ += ["fold", "rms_norm", "unfold"]
from .gumbel import gumbel_softmax  # noqa: E402
__all__ += ["gumbel_softmax"]
from .grid_sample import affine_grid, grid_sample  # noqa: E402
__all__ += ["affine_grid", "grid_sample"]

# ---- channel shuffle and feature alpha dropout (also torch.channel_shuffle, torch.feature_alpha_dropout) ----
from .dropout import feature_alpha_dropout  # noqa: E402
from .upsampling import channel_shuffle  # noqa: E402

__all__ += ["channel_shuffle", "feature_alpha_dropout"]

# ---- AlexNet's local response normalisation ----
from .normalization import local_response_norm  # noqa: E402

__all__ += ["local_response_norm"]

# ---- a convolution's gradients as functions (torch.nn.grad, reachable as F.grad as in PyTorch) ----
from .. import grad  # noqa: E402

# ---- max unpooling (SegNet-style decoders) and the multi-label losses ----
from .loss_multilabel import multilabel_margin_loss, multilabel_soft_margin_loss  # noqa: E402
from .unpooling import max_unpool1d, max_unpool2d, max_unpool3d  # noqa: E402

__all__ += ["max_unpool1d", "max_unpool2d", "max_unpool3d", "multilabel_margin_loss", "multilabel_soft_margin_loss"]

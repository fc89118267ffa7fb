"""Module classes: the base ``Module``, containers and layers."""

from __future__ import annotations

from .container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .linear import Identity, Linear
from .module import Module

__all__ = ["Identity", "Linear", "Module", "ModuleDict", "ModuleList", "ParameterDict", "ParameterList", "Sequential"]

# ---- step 5: layers ----
from .activation import GELU, LeakyReLU, LogSoftmax, ReLU, SiLU, Sigmoid, Softmax, Softplus, Tanh  # noqa: E402
from .attention import MultiheadAttention  # noqa: E402
from .conv import Conv1d, Conv2d  # noqa: E402
from .dropout import Dropout, Dropout1d, Dropout2d, Dropout3d  # noqa: E402
from .flatten import Flatten, Unflatten  # noqa: E402
from .loss import (  # noqa: E402
    BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, HuberLoss, L1Loss, MSELoss, NLLLoss, SmoothL1Loss,
)
from .normalization import BatchNorm1d, BatchNorm2d, GroupNorm, LayerNorm  # noqa: E402
from .pooling import (  # noqa: E402
    AdaptiveAvgPool1d, AdaptiveAvgPool2d, AvgPool1d, AvgPool2d, MaxPool1d, MaxPool2d,
)
from .sparse import Embedding  # noqa: E402

# ---- recurrent layers (issue 19) ----
from .rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell, RNNCellBase  # noqa: E402

LAYERS = [
    "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AvgPool1d", "AvgPool2d", "BCELoss", "BCEWithLogitsLoss", "BatchNorm1d",
    "BatchNorm2d", "Conv1d", "Conv2d", "CrossEntropyLoss", "Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "Embedding", "Flatten",
    "GELU", "GroupNorm", "HuberLoss", "L1Loss", "LayerNorm", "LeakyReLU", "LogSoftmax", "MSELoss", "MaxPool1d",
    "MaxPool2d", "MultiheadAttention", "NLLLoss", "ReLU", "SiLU", "Sigmoid", "SmoothL1Loss", "Softmax", "Softplus",
    "Tanh", "Unflatten",
]
__all__ += LAYERS
RECURRENT = ["GRU", "GRUCell", "LSTM", "LSTMCell", "RNN", "RNNBase", "RNNCell", "RNNCellBase"]
__all__ += RECURRENT

# ---- transformer layers (issue 19) ----
from .transformer import Transformer, TransformerDecoder, TransformerDecoderLayer, TransformerEncoder, TransformerEncoderLayer  # noqa: E402,E501,I001
__all__ += ["Transformer", "TransformerDecoder", "TransformerDecoderLayer", "TransformerEncoder", "TransformerEncoderLayer"]
# ---- more losses (issue 19) ----
from .loss_extra import (  # noqa: E402
    CosineEmbeddingLoss, GaussianNLLLoss, HingeEmbeddingLoss, KLDivLoss, MarginRankingLoss, MultiMarginLoss,
    PoissonNLLLoss, SoftMarginLoss, TripletMarginLoss, TripletMarginWithDistanceLoss,
)
from .loss_extra import CTCLoss  # noqa: E402
from .sparse import EmbeddingBag  # noqa: E402
MORE_LOSSES = [
    "CosineEmbeddingLoss", "GaussianNLLLoss", "HingeEmbeddingLoss", "KLDivLoss", "MarginRankingLoss", "MultiMarginLoss",
    "PoissonNLLLoss", "SoftMarginLoss", "TripletMarginLoss", "TripletMarginWithDistanceLoss",
]
__all__ += MORE_LOSSES + ["EmbeddingBag", "CTCLoss"]

# ---- transposed convolution, upsampling, adaptive max pooling (issue 19) ----
from .conv import ConvTranspose1d, ConvTranspose2d  # noqa: E402
from .pooling import AdaptiveMaxPool1d, AdaptiveMaxPool2d  # noqa: E402
from .pixelshuffle import PixelShuffle, PixelUnshuffle  # noqa: E402
from .upsampling import Upsample, UpsamplingBilinear2d, UpsamplingNearest2d  # noqa: E402

RESAMPLING = [
    "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "ConvTranspose1d", "ConvTranspose2d", "PixelShuffle", "PixelUnshuffle",
    "Upsample", "UpsamplingBilinear2d", "UpsamplingNearest2d",
]
__all__ += RESAMPLING

# ---- lazy modules (issue 17) ----
from .lazy import LazyBatchNorm1d, LazyBatchNorm2d, LazyConv1d, LazyConv2d, LazyLinear  # noqa: E402

__all__ += ["LazyBatchNorm1d", "LazyBatchNorm2d", "LazyConv1d", "LazyConv2d", "LazyLinear"]

# ---- further activations, distances, padding, instance norm, Bilinear, AlphaDropout (issues 17/19) ----
from .activation_extra import (  # noqa: E402
    CELU, ELU, GLU, SELU, Hardshrink, Hardsigmoid, Hardswish, Hardtanh, LogSigmoid, Mish, PReLU, ReLU6, Softmax2d,
    Softmin, Softshrink, Softsign, Tanhshrink, Threshold,
)
from .distance import CosineSimilarity, PairwiseDistance  # noqa: E402
from .dropout import AlphaDropout  # noqa: E402
from .linear import Bilinear  # noqa: E402
from .normalization import InstanceNorm1d, InstanceNorm2d  # noqa: E402
from .padding import (  # noqa: E402
    CircularPad1d, CircularPad2d, ConstantPad1d, ConstantPad2d, ReflectionPad1d, ReflectionPad2d, ReplicationPad1d,
    ReplicationPad2d, ZeroPad1d, ZeroPad2d,
)
from . import activation_extra, padding  # noqa: E402

__all__ += activation_extra.__all__ + padding.__all__ + [
    "AlphaDropout", "Bilinear", "CosineSimilarity", "InstanceNorm1d", "InstanceNorm2d", "PairwiseDistance",
]

# ---- randomized leaky ReLU (issue 17) ----
from .activation_extra import RReLU  # noqa: E402
__all__ += ["RReLU"]

# ---- volumes: the 3-D convolutions, pooling and batch norm ----
from .conv import Conv3d, ConvTranspose3d  # noqa: E402
from .normalization import BatchNorm3d  # noqa: E402
from .pooling import AvgPool3d, MaxPool3d  # noqa: E402
__all__ += ["AvgPool3d", "BatchNorm3d", "Conv3d", "ConvTranspose3d", "MaxPool3d"]

# ---- im2col layers, RMS normalisation ----
from .fold import Fold, Unfold  # noqa: E402
from .normalization import RMSNorm  # noqa: E402
__all__ += ["Fold", "RMSNorm", "Unfold"]

# ---- AlexNet's local response normalisation, ShuffleNet's channel shuffle ----
from .normalization import LocalResponseNorm  # noqa: E402
from .pixelshuffle import ChannelShuffle  # noqa: E402
__all__ += ["ChannelShuffle", "LocalResponseNorm"]

# ---- max unpooling (SegNet-style decoders) and the multi-label losses ----
from .loss_multilabel import MultiLabelMarginLoss, MultiLabelSoftMarginLoss  # noqa: E402
from .unpooling import MaxUnpool1d, MaxUnpool2d, MaxUnpool3d  # noqa: E402
__all__ += ["MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d", "MultiLabelMarginLoss", "MultiLabelSoftMarginLoss"]

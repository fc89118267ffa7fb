"""Neural-network building blocks: ``Parameter``, ``Module``, containers, layers and ``init``.

Helpers for later steps append their imports below (``functional``, layers, ``utils``).
"""

from __future__ import annotations

from . import init
from .modules import (
    Identity, Linear, Module, ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential,
)
from .parameter import Buffer, Parameter

# ---- step 5: nn.functional and the layers ----
from . import functional  # noqa: E402
from .modules import (  # noqa: E402
    GELU, AdaptiveAvgPool1d, AdaptiveAvgPool2d, AvgPool1d, AvgPool2d, BatchNorm1d, BatchNorm2d, BCELoss,
    BCEWithLogitsLoss, Conv1d, Conv2d, CrossEntropyLoss, Dropout, Dropout1d, Dropout2d, Dropout3d, Embedding, Flatten, GroupNorm,
    HuberLoss, L1Loss, LayerNorm, LeakyReLU, LogSoftmax, MaxPool1d, MaxPool2d, MSELoss, MultiheadAttention, NLLLoss,
    ReLU, SiLU, Sigmoid, SmoothL1Loss, Softmax, Softplus, Tanh, Unflatten,
)

# ---- step 6: gradient clipping, parameter vectors, skip_init ----
from . import utils  # noqa: E402

# ---- recurrent layers (issue 19) ----
from .modules import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell, RNNCellBase  # noqa: E402
from .modules import Transformer, TransformerDecoder, TransformerDecoderLayer, TransformerEncoder, TransformerEncoderLayer  # noqa: E402,E501

# ---- more losses and EmbeddingBag (issue 19) ----
from .modules import (  # noqa: E402
    CosineEmbeddingLoss, EmbeddingBag, GaussianNLLLoss, HingeEmbeddingLoss, KLDivLoss, MarginRankingLoss,
    MultiMarginLoss, PoissonNLLLoss, SoftMarginLoss, TripletMarginLoss, TripletMarginWithDistanceLoss,
)
from .modules import CTCLoss  # noqa: E402

# ---- transposed convolution, upsampling, adaptive max pooling (issue 19) ----
from .modules import (  # noqa: E402
    AdaptiveMaxPool1d, AdaptiveMaxPool2d, ConvTranspose1d, ConvTranspose2d, PixelShuffle, PixelUnshuffle, Upsample,
    UpsamplingBilinear2d, UpsamplingNearest2d,
)

# ---- DataParallel: the module on one device, PyTorch's checkpoint keys ----
from . import parallel  # noqa: E402
from .parallel import DataParallel  # noqa: E402

# ---- lazy modules and their placeholders (issue 17) ----
from .modules import LazyBatchNorm1d, LazyBatchNorm2d, LazyConv1d, LazyConv2d, LazyLinear  # noqa: E402
from .parameter import UninitializedBuffer, UninitializedParameter  # noqa: E402

# ---- further activations, distances, padding, instance norm, Bilinear, AlphaDropout (issues 17/19) ----
from .modules import (  # noqa: E402
    CELU, ELU, GLU, SELU, AlphaDropout, Bilinear, CircularPad1d, CircularPad2d, ConstantPad1d, ConstantPad2d,
    CosineSimilarity, Hardshrink, Hardsigmoid, Hardswish, Hardtanh, InstanceNorm1d, InstanceNorm2d, LogSigmoid, Mish,
    PairwiseDistance, PReLU, ReflectionPad1d, ReflectionPad2d, ReLU6, ReplicationPad1d, ReplicationPad2d, Softmax2d,
    Softmin, Softshrink, Softsign, Tanhshrink, Threshold, ZeroPad1d, ZeroPad2d,
)

# ---- randomized leaky ReLU (issue 17) ----
from .modules import RReLU  # noqa: E402,F401
from .modules import AvgPool3d, BatchNorm3d, Conv3d, ConvTranspose3d, MaxPool3d  # noqa: E402,F401 - volumes
from .modules import Fold, RMSNorm, Unfold  # noqa: E402,F401 - im2col layers, RMS normalisation
from .modules import ChannelShuffle, LocalResponseNorm  # noqa: E402,F401 - AlexNet's and ShuffleNet's layers

# ---- a convolution's gradients as functions (torch.nn.grad) ----
from . import grad  # noqa: E402,F401
from .modules import MaxUnpool1d, MaxUnpool2d, MaxUnpool3d  # noqa: E402,F401 - SegNet-style decoders
from .modules import MultiLabelMarginLoss, MultiLabelSoftMarginLoss  # noqa: E402,F401 - multi-label losses

"""minitorch: a teaching deep-learning framework with PyTorch's names and semantics.

``import minitorch as torch`` runs code written for the covered subset of PyTorch.
"""

from __future__ import annotations

import math
import sys as _sys

from . import accelerator, autograd, backends, cuda, random, return_types
from .autograd import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled
from .autograd.anomaly_mode import is_anomaly_check_nan_enabled, is_anomaly_enabled, set_anomaly_enabled
from .creation import (
    arange, as_tensor, cat, concat, empty, empty_like, eye, from_numpy, full, full_like, is_tensor, linspace,
    numel, ones, ones_like, rand, rand_like, randint, randn, randn_like, randperm, stack, tensor, zeros, zeros_like,
)
from .device import device, get_default_device, set_default_device
from .generator import Generator
from .memory_formats import channels_last, channels_last_3d, contiguous_format, memory_format, preserve_format
from .dtypes import (
    bool_ as bool, bfloat16, dtype, float16, float32, float64, get_default_dtype, int8, int16, int32, int64, set_default_dtype,
    uint8,
)
from .ops.elementwise import (
    abs, acos, acosh, arccos, arccosh, arcsin, arcsinh, arctan, arctan2, arctanh, asin, asinh, atan, atan2,
    atanh, ceil, cos, cosh, erf, erfc, erfinv, exp, exp2, expm1, fix, floor, fmod, frac, hypot, log, log1p,
    log2, log10, relu, remainder, round, sigmoid, sin, sinh, sqrt, tan, tanh, trunc,
)
from .toplevel import (
    addmm, all, allclose, any, argmax, argmin, bmm, clone, dot, equal, flatten, isclose, matmul, max, maximum, mv,
    mean, min, minimum, mm, mul, multiply, permute, pow, reshape, squeeze, std, sum, transpose, unsqueeze, var,
)
from .toplevel import add, dist, div, divide, floor_divide, is_floating_point, ravel, rsub, sub, subtract, true_divide
from .toplevel import get_float32_matmul_precision, set_float32_matmul_precision
from .backends.cpu_threads import get_num_threads, set_num_threads
from .toplevel import bitwise_and, bitwise_left_shift, bitwise_not, bitwise_or, bitwise_right_shift, bitwise_xor
from .legacy_types import (
    BFloat16Tensor, BoolTensor, ByteTensor, CharTensor, DoubleTensor, FloatTensor, HalfTensor, IntTensor, LongTensor, ShortTensor,
)
from .random import get_rng_state, initial_seed, manual_seed, seed, set_rng_state
from .serialization import SerializationError, load, load_safetensors, save, save_safetensors
from .size import Size
from .type_info import finfo, iinfo
from .tensor_repr import set_printoptions
from .tensor import Tensor
from .ops.indexing import gather, index_add, index_select, scatter_add
from .ops.shape_ops import (
    argwhere, chunk, flip, ger, masked_fill, masked_select, movedim, moveaxis, nonzero, outer, repeat_interleave,
    roll, split, take_along_dim, tile, tril, triu, unbind, unique,
)
from .ops.shape_ops import where_or_nonzero as where
from .ops.diagonal import diag, diag_embed, diagonal, narrow, trace
from .ops.strided import as_strided, broadcast_shapes, broadcast_tensors
from .ops.order_stats import cummax, cummin, kthvalue, msort, nanmedian, nanquantile, quantile
from .ops.predicates import can_cast, is_complex, is_nonzero, is_same_size, is_signed, promote_types, result_type
from .ops.einsum import einsum
from .ops.products import baddbmm, cdist, cosine_similarity, cross, kron, meshgrid, pdist, tensordot
from .ops.scatter import index_copy, index_fill, scatter, scatter_reduce
from .ops.elementwise_extra import (
    addcdiv, addcmul, amax, amin, broadcast_to, clamp, clamp_, clamp_max, clamp_max_, clamp_min, clamp_min_, clip, clip_,
    eq, ge, greater, greater_equal, gt, isfinite, isinf, isnan, isneginf, isposinf, le, lerp, less, less_equal,
    logaddexp, logical_and, logical_not, logical_or, logical_xor, lt, nan_to_num, nan_to_num_, ne, neg, negative,
    not_equal, prod, reciprocal, rsqrt, sgn, sign, square, t,
)
from .ops import advanced_indexing  # noqa: F401 - registers t[index tensor] and t[mask] with Tensor
from .autograd import functional as _autograd_functional  # noqa: F401 - makes minitorch.autograd.functional an attribute, as torch.autograd.functional
from .autograd import graph as _autograd_graph  # noqa: F401 - minitorch.autograd.graph, as torch.autograd.graph
from .autograd import forward_ad as _autograd_forward_ad  # noqa: F401 - minitorch.autograd.forward_ad, as torch.autograd.forward_ad
from .autograd import gradcheck as _autograd_gradcheck  # the module; the name goes to the function below
from .ops.sampling import bernoulli, logspace, multinomial, normal
from .ops.count_sampling import binomial, poisson
from .ops.counting import bincount, histc
from .ops import legacy_methods  # noqa: F401 - attaches Tensor.select, dist, ravel, new, resize_
from .ops.reductions_extra import (
    argsort, count_nonzero, cumprod, cumsum, logsumexp, median, norm, sort, std_mean, topk, var_mean,
)
from . import linalg
from . import testing  # minitorch.testing.assert_close, as torch.testing
from . import optim  # noqa: E402 - after Tensor: optimizers are built on it

half = float16
float = float32  # noqa: A001 - PyTorch's public names
double = float64
long = int64
int = int32  # noqa: A001
short = int16

# PyTorch's module-level constants (``torch.pi`` and friends), the floats of the math module
pi = math.pi
e = math.e
inf = math.inf
nan = math.nan

from . import nn  # noqa: E402 - after the tensor API it builds on
from . import distributions  # noqa: E402 - built on nn.functional
from .nn.functional.activation import log_softmax, softmax  # noqa: E402 - torch.softmax is F.softmax

from . import profiler  # noqa: E402,F401 - minitorch.profiler, as torch.profiler

from . import fx  # noqa: E402,F401 - minitorch.fx, as torch.fx (graph tracing over nn)
from . import func  # noqa: E402 - minitorch.func, as torch.func (grad, vmap, functional_call)
from .func import vmap  # noqa: E402 - torch.vmap is torch.func.vmap
from .compiler import compile  # noqa: E402,A001 - torch.compile, with the eager backend
# ---- distributed: collectives over MPI, as torch.distributed (issue 20) ----
from . import distributed  # noqa: E402,F401 - mpi4py is imported only by init_process_group
from .ops import shared_memory as _shared_memory  # noqa: E402,F401 - attaches Tensor.share_memory_, is_shared
from . import multiprocessing  # noqa: E402,F401 - torch.multiprocessing: tensors sent as shared memory
from . import amp  # noqa: E402 - autocast and GradScaler, built on nn's losses
from .amp import autocast  # noqa: E402
from .amp import cuda_amp as _cuda_amp  # noqa: E402
from .autocast_state import get_autocast_dtype, is_autocast_enabled, set_autocast_dtype, set_autocast_enabled  # noqa: E402

cuda.amp = _cuda_amp  # ``minitorch.cuda.amp.GradScaler``: cuda.py sits below amp and never imports it
# ``minitorch.autograd.gradcheck`` is the function, as PyTorch's (the module stays importable by name): bound
# here because autograd/__init__ sits below gradcheck, which uses forward AD, and never imports it
autograd.gradcheck = _autograd_gradcheck.gradcheck
autograd.gradgradcheck = _autograd_gradcheck.gradgradcheck
from .ops import numpy_like as _numpy_like  # noqa: E402 - also attaches Tensor.diff, logit, ...

globals().update(_numpy_like.EXPORTS)  # hstack, diff, cov, range, ...
from .ops.finite_differences import gradient  # noqa: E402 - finite differences, built on diff and cat
from .ops import inplace_views  # noqa: E402,F401 - attaches Tensor.unsqueeze_, t_, swapdims ...
# ---- special functions: the gamma family, Bessel I0, and minitorch.special (as torch.special) ----
from .ops.elementwise_special import digamma, i0, lgamma, mvlgamma, polygamma  # noqa: E402 - also attaches Tensor.lgamma ...
from . import special  # noqa: E402 - built on nn.functional's softmax
from .ops.inplace_math import functions as _inplace_functions  # noqa: E402 - also attaches Tensor.sin_ ...

globals().update(_inplace_functions)  # minitorch.relu_(x), minitorch.sin_(x), ... as PyTorch
from .ops.decompositions import functions as _decomposition_functions  # noqa: E402 - also attaches Tensor.det ...

globals().update(_decomposition_functions)  # minitorch.inverse, det, logdet, matrix_exp, svd, qr ...
from .ops.inplace_views import swapaxes, swapdims  # noqa: E402

# ---- more top-level names real scripts use: reproducibility flags, F's ops at top level, tensor helpers ----
from .deterministic import (  # noqa: E402
    are_deterministic_algorithms_enabled, get_deterministic_debug_mode, is_deterministic_algorithms_warn_only_enabled,
    set_deterministic_debug_mode, use_deterministic_algorithms,
)
from .functional_aliases import EXPORTS as _functional_aliases  # noqa: E402
from .ops.bits_and_powers import FUNCTIONS as _bits_and_powers  # noqa: E402 - also attaches Tensor.signbit ...
from .ops.cholesky_solvers import FUNCTIONS as _cholesky_solvers  # noqa: E402 - also attaches Tensor.cholesky_solve ...
from .ops.linalg_lu import FUNCTIONS as _linalg_lu  # noqa: E402 - also attaches Tensor.lu, lu_solve
from .ops.linalg_solvers import FUNCTIONS as _linalg_solvers  # noqa: E402 - also attaches Tensor.triangular_solve
from .ops.matrix_norms import FUNCTIONS as _matrix_norms  # noqa: E402 - torch.norm with the nuclear norm
from .ops.cumulative import FUNCTIONS as _cumulative  # noqa: E402 - also attaches Tensor.logcumsumexp
from .ops.scatter_views import FUNCTIONS as _scatter_views  # noqa: E402 - also attaches Tensor.index_put_ ...
from .ops.sequence_ops import FUNCTIONS as _sequence_ops  # noqa: E402 - also attaches Tensor.mode, renorm ...
from .ops.windows_signal import FUNCTIONS as _windows_signal  # noqa: E402
from .toplevel_extra import FUNCTIONS as _toplevel_extra  # noqa: E402
from .ops.index_reduce import index_reduce  # noqa: E402 - also attaches Tensor.index_reduce, index_reduce_
from .ops.histogram import histogram  # noqa: E402 - also attaches Tensor.histogram
from .ops.put import put  # noqa: E402 - also attaches Tensor.put, put_
from .ops.lowrank import pca_lowrank, svd_lowrank  # noqa: E402 - randomised low-rank SVD and PCA

for _extra in (_functional_aliases, _bits_and_powers, _cholesky_solvers, _cumulative, _scatter_views, _sequence_ops,
               _windows_signal, _toplevel_extra, _linalg_lu, _linalg_solvers, _matrix_norms):
    globals().update(_extra)

# PyTorch's ``out=`` keyword, for the functions written without it (one implementation: out_argument)
from . import out_argument as _out_argument  # noqa: E402

_out_argument.give_out_arguments(globals(), _out_argument.TOPLEVEL_FUNCTIONS, _out_argument.TOPLEVEL_FACTORIES)
_out_argument.give_out_arguments(vars(linalg), _out_argument.LINALG_FUNCTIONS, prefix="linalg_")

# PyTorch's argument parser takes NumPy's names (axis=, keepdims=, x=) in every op it binds
from .keywords import give_numpy_names as _give_numpy_names  # noqa: E402

_give_numpy_names(globals())



# ---- quantization (issue 22): quantized tensors and quantize_dynamic, as torch and torch.ao ----
from .dtypes import qint8, qint32, quint8  # noqa: E402
from .quantized import (  # noqa: E402
    dequantize, per_channel_affine, per_channel_affine_float_qparams, per_channel_symmetric, per_tensor_affine,
    per_tensor_symmetric, qscheme, quantize_per_channel, quantize_per_tensor,
)
from . import ao  # noqa: E402 - built on nn
from .ao import quantization  # noqa: E402 - torch.quantization, the older name of torch.ao.quantization

# ``from minitorch.quantization import quantize_dynamic`` imports it as a module: the same one
_sys.modules[f"{__name__}.quantization"] = quantization
__version__ = "0.1.0"

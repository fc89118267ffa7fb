"""``nn.utils``: gradient clipping, parameter vectors, ``skip_init``, the weight and spectral norm hooks and
``rnn`` (padded and packed sequences)."""

from __future__ import annotations

from .clip_grad import clip_grad_norm, clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_, get_total_norm
from .convert_parameters import parameters_to_vector, vector_to_parameters
from .init import skip_init
from .spectral_norm import remove_spectral_norm, spectral_norm
from .weight_norm import remove_weight_norm, weight_norm
from . import rnn  # noqa: E402 - nn.utils.rnn, as in PyTorch
from . import prune  # noqa: E402 - nn.utils.prune, as in PyTorch
from . import parametrize, parametrizations  # noqa: E402 - as in PyTorch
from . import stateless  # noqa: E402 - as in PyTorch
from . import fusion  # noqa: E402 - as in PyTorch

__all__ = [
    "clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_", "fusion", "get_total_norm",
    "parameters_to_vector",
    "parametrizations", "parametrize", "prune", "remove_spectral_norm", "remove_weight_norm", "rnn", "skip_init", "spectral_norm",
    "stateless", "vector_to_parameters", "weight_norm",
]

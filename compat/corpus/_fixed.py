"""Deterministic numbers for the corpus scripts.

Random generators differ between libraries, so the scripts start their weights and build their
data from sampled sine waves computed with Python's math module: every library then starts from
the very same numbers, and what the scripts print can be compared.
"""

import math

import torch


def wave(*shape, freq=0.7, phase=0.0, scale=1.0):
    """A tensor of the given shape holding scale * sin(freq * i + phase) for i = 0, 1, ..."""
    count = math.prod(shape)
    return torch.tensor([scale * math.sin(freq * i + phase) for i in range(count)]).reshape(shape)


def init_fixed(module, scale=0.3, freq=0.7):
    """Overwrite every parameter of a module with a wave (a different phase for each)."""
    with torch.no_grad():
        for k, p in enumerate(module.parameters()):
            p.copy_(wave(*p.shape, freq=freq, phase=float(k), scale=scale))
    return module

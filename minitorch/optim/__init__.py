"""Optimizers (``SGD``, ``Adam``, ``AdamW``, ``Adamax``, ``RMSprop``, ``Adagrad``) and ``lr_scheduler``.

Each optimizer updates its parameters in place, with tensor operations under ``no_grad``,
so it runs on any backend and device and keeps working on the same ``Parameter`` objects
after ``module.to(...)``. Update rules and option names follow PyTorch's.
"""

from __future__ import annotations

from . import lr_scheduler
from .adagrad import Adagrad
from .adam import Adam
from .adamax import Adamax
from .adamw import AdamW
from .optimizer import Optimizer
from .rmsprop import RMSprop
from .sgd import SGD

__all__ = ["SGD", "Adagrad", "Adam", "AdamW", "Adamax", "Optimizer", "RMSprop", "lr_scheduler"]

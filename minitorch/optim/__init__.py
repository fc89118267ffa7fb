"""Optimizers (``SGD``, ``Adam``, ``AdamW``, ``RMSprop``, ``Adagrad``, ``Adadelta``, ``Adamax``,
``NAdam``, ``RAdam``, ``ASGD``, ``Rprop``), ``lr_scheduler`` and ``swa_utils`` (weight averaging).

Each optimizer updates its parameters in place, with tensor operations under ``no_grad``,
so it runs on any backend and device and keeps working on the same ``Parameter`` objects
after ``module.to(...)``. Update rules and option names follow PyTorch's.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from . import lr_scheduler
from .adadelta import Adadelta
from .adagrad import Adagrad
from .adam import Adam
from .adamax import Adamax
from .adamw import AdamW
from .asgd import ASGD
from .lbfgs import LBFGS
from .nadam import NAdam
from .optimizer import Optimizer
from .radam import RAdam
from .rmsprop import RMSprop
from .rprop import Rprop
from .sgd import SGD

__all__ = [
    "ASGD", "LBFGS", "SGD", "Adadelta", "Adagrad", "Adam", "AdamW", "Adamax", "NAdam", "Optimizer", "RAdam", "RMSprop",
    "Rprop", "lr_scheduler", "swa_utils",
]


def __getattr__(name: str) -> ModuleType:
    """``swa_utils`` loads on first use: it builds on ``nn``, which minitorch imports after ``optim``."""
    if name == "swa_utils":
        return importlib.import_module(f"{__name__}.swa_utils")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

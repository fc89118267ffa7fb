"""QConfig: how to observe a module's activations and weight, as ``torch.ao.quantization.QConfig``.

Each field is an observer *factory* (``MinMaxObserver.with_args(...)``), called once for every
module the configuration applies to.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from .observer import (
    default_dynamic_quant_observer, default_per_channel_weight_observer, default_weight_observer,
)


class QConfig(NamedTuple):
    """The observer factories for a module's activation and weight."""

    activation: Any
    weight: Any


#: dynamic int8: activations quint8 chosen per batch, weight qint8 symmetric with one scale
default_dynamic_qconfig = QConfig(activation=default_dynamic_quant_observer, weight=default_weight_observer)
#: dynamic int8 with one weight scale per output feature
per_channel_dynamic_qconfig = QConfig(activation=default_dynamic_quant_observer,
                                      weight=default_per_channel_weight_observer)

"""``minitorch.utils.benchmark``, as ``torch.utils.benchmark``: time statements and compare the results.

``Timer`` runs a statement with the standard library's ``timeit`` (with warm-up, a fixed thread
count and replicates), ``Measurement`` holds the times and their statistics, ``Compare`` prints
many measurements as tables. Not here: C++ statements (``Timer(language="cpp")``), Callgrind
instruction counts (``Timer.collect_callgrind``) and the input fuzzers; they raise
``NotImplementedError``.
"""

from __future__ import annotations

from .colors import Colorize
from .compare import Compare
from .measurement import Measurement
from .table import ordered_unique
from .task_spec import TaskSpec
from .threads import set_torch_threads
from .timer import Language, Timer, timer
from .units import select_unit, trim_sigfig, unit_to_english
from .unsupported import FuzzedParameter, FuzzedSparseTensor, FuzzedTensor, Fuzzer, ParameterAlias

__all__ = [
    "Colorize", "Compare", "FuzzedParameter", "FuzzedSparseTensor", "FuzzedTensor", "Fuzzer", "Language", "Measurement",
    "ParameterAlias", "TaskSpec", "Timer", "ordered_unique", "select_unit", "set_torch_threads", "timer",
    "trim_sigfig", "unit_to_english",
]

r"""Reductions of a whole tensor to one value: the CPU backend's kernel for ``x.sum()`` on a large ``x``.

The students' reduce kernel (:func:`.cpu_kernels.reduce_kernel`) gives each output cell to a task of
its own. A reduction of everything to one value has a single cell, so one thread reads the whole
tensor while the others wait. This kernel cuts the run into :data:`PARTS` parts, reduces each in a
task of its own into a partial (float64 for floats, int64 for integers, as every reduction here
accumulates), and combines the partials in order:

.. math:: s = \bigoplus_{p < P}\ \bigoplus_{i \in \mathrm{part}\ p} a_i

The number of parts is fixed, not the number of threads, so a machine with more cores gets the
same result. (Every reduction here may sum in SIMD lanes, so results already depend on the order
the compiler picks; within one machine they do not change from call to call.)
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from . import kernel_cache
from . import opcodes
from .cpu_kernels import REDUCE_OPTIONS, prange_only, reduce_run, reduce_step

# cached under a digest of this file's source (see :mod:`.kernel_cache`)
kernel_cache.register(__file__)

#: parts of the run, one task each: enough for 16 threads, each part still long (a run is only
#: split from :data:`.cpu_kernels.PARALLEL_MIN_WORK` elements on, so a part has 4096 or more)
PARTS = 16


@njit(parallel=prange_only(), **REDUCE_OPTIONS)
def reduce_long_run(op: int, out: np.ndarray, a: np.ndarray, length: int, start) -> None:  # type: ignore[no-untyped-def]
    """``out[0] = op`` over ``a[:length]`` (``length >= 1``; a run shorter than ``PARTS * step``
    leaves its last parts empty), ``start`` as in :func:`.cpu_kernels.reduce_kernel`
    (``max``/``min`` start from each part's first element)."""
    step = (length + PARTS - 1) // PARTS
    partial = np.full(PARTS, start)
    for p in prange(PARTS):
        first = min(p * step, length)
        stop = min(first + step, length)
        acc = start
        if (op == opcodes.MAX or op == opcodes.MIN) and stop > first:
            acc = a[first]
            first += 1
        partial[p] = reduce_run(op, acc, a[first:stop])
    total = partial[0]
    for p in range(1, PARTS):
        if p * step < length:  # a part past the end (a short run) holds only ``start``
            total = reduce_step(op, total, partial[p])
    out[0] = total

"""Raw fused optimizer updates: check the operands, run the backend's :class:`~.backends.base.OptimizerKernels`.

The dispatch layer of the optimizers' fused path (:func:`minitorch.optim.adam.adam_update`), as
:mod:`.dispatch` is for the other ops. An update runs under ``no_grad`` and records no graph;
each tensor it writes counts a new version, as after an in-place op.

The kernels index without bounds checks, so every operand is checked here, whoever calls.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional, Sequence, cast

import numpy as np

from . import dtypes
from .backends.base import AdamStep, OptimizerKernels, SgdStep, offers
from .dispatch import backend_of
from .tensor_data import TensorData, contiguous_strides

if TYPE_CHECKING:
    from .tensor import Tensor

#: the dtypes the fused kernels compute in
FUSED_DTYPES = (dtypes.float32, dtypes.float64)


def fused_update_fits(param: "Tensor", grad: "Tensor", buffers: Sequence["Tensor"]) -> bool:
    """Whether a fused kernel can update ``param`` from ``grad`` and its state ``buffers``: its
    backend offers them, and all are row-major contiguous, of one shape, one float dtype and one
    device, with memory of their own (no operand overlaps another).

    Asked for every parameter at every step, so it is written to be quick: strides compared with
    the row-major ones, and host memory compared only between views of one allocation (device
    memory by the address ranges the CUDA array interface gives)."""
    data = param._data
    dtype, shape, device = data.dtype, data.shape, param._device
    if dtype not in FUSED_DTYPES or not offers(backend_of(param), OptimizerKernels):
        return False
    strides = contiguous_strides(shape)
    operands = (param, grad, *buffers)
    for t in operands:
        other = t._data
        if (other.dtype is not dtype or other.shape != shape or other.strides != strides
                or (t._device is not device and t._device != device)):
            return False
    if not isinstance(data.storage, np.ndarray):  # a device's memory
        return not _spans_overlap([_device_span(t._data) for t in operands])
    owners = [_owner(t._data.storage) for t in operands]
    if len(set(map(id, owners))) == len(owners):
        return True
    return not _overlapping(operands)


def _owner(array: np.ndarray) -> object:
    """The object that owns ``array``'s memory (views of one allocation have the same)."""
    while isinstance(array.base, np.ndarray):
        array = array.base
    return array if array.base is None else array.base


def _device_span(td: TensorData) -> tuple[int, int]:
    """The device addresses ``[start, stop)`` of a contiguous view's elements, from the CUDA array
    interface (the simulator's arrays wrap NumPy arrays and give NumPy's interface)."""
    storage = td.storage
    interface = getattr(storage, "__cuda_array_interface__", None) or storage.__array_interface__
    itemsize = storage.dtype.itemsize
    start = interface["data"][0] + td.offset * itemsize
    return start, start + td.size * itemsize


def _spans_overlap(spans: Sequence[tuple[int, int]]) -> bool:
    """Whether any two of the address ranges ``[start, stop)`` share an address."""
    ordered = sorted(span for span in spans if span[0] < span[1])
    return any(later[0] < earlier[1] for earlier, later in zip(ordered, ordered[1:]))


def _overlapping(operands: Sequence["Tensor"]) -> bool:
    """Whether any two of ``operands`` may share memory (NumPy's bounds test, conservative)."""
    views = [t._data.buffer[: t._data.size] for t in operands]
    return any(np.may_share_memory(views[i], views[j]) for i in range(len(views)) for j in range(i))


def _kernels(op: str, algorithm: str, param: "Tensor", grad: "Tensor", buffers: Sequence["Tensor"]) -> OptimizerKernels:
    """``param``'s backend, once :func:`fused_update_fits` says its kernel takes the operands;
    ValueError naming them otherwise."""
    if not fused_update_fits(param, grad, buffers):
        backend = backend_of(param)
        described = ", ".join(f"{list(t.shape)} {t.dtype} {t.device}{'' if t.is_contiguous() else ' strided'}"
                              for t in (param, grad, *buffers))
        raise ValueError(f"{op}: the {backend.name} backend's fused {algorithm} takes contiguous float32 or float64 "
                         f"operands of one shape, dtype and device that do not overlap; got {described}")
    return cast(OptimizerKernels, backend_of(param))


def adam_step_op(param: "Tensor", grad: "Tensor", exp_avg: "Tensor", exp_avg_sq: "Tensor",
                 max_exp_avg_sq: Optional["Tensor"], step: AdamStep) -> None:
    """One Adam step of ``param`` and its moments in place by the backend's kernel; ValueError
    for operands it cannot take (see :func:`fused_update_fits`)."""
    buffers = (exp_avg, exp_avg_sq) if max_exp_avg_sq is None else (exp_avg, exp_avg_sq, max_exp_avg_sq)
    kernels = _kernels("adam_step", "Adam", param, grad, buffers)
    kernels.adam_step(param._data, grad._data, exp_avg._data, exp_avg_sq._data,
                      None if max_exp_avg_sq is None else max_exp_avg_sq._data, step)
    for written in (param, *buffers):
        written._bump_version()


def sgd_step_op(param: "Tensor", grad: "Tensor", momentum_buffer: Optional["Tensor"], step: SgdStep) -> None:
    """One SGD step of ``param`` (and of its ``momentum_buffer``, if any) in place by the backend's
    kernel; ValueError for operands it cannot take (see :func:`fused_update_fits`)."""
    buffers = () if momentum_buffer is None else (momentum_buffer,)
    kernels = _kernels("sgd_step", "SGD", param, grad, buffers)
    kernels.sgd_step(param._data, grad._data, None if momentum_buffer is None else momentum_buffer._data, step)
    for written in (param, *buffers):
        written._bump_version()

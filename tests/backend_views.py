"""Operands for the backend tests: views in every layout a kernel must handle, on any backend.

A kernel meets contiguous views, permuted ones (stored transposed), sliced ones (every other
element from index 1 on: an offset and gaps) and broadcast ones (stride 0); ``out`` may be a
sliced view whose gaps must stay untouched. :func:`host_view` builds those layouts on the
host; a :class:`Kit` puts them on its backend's device (the same storage, shape, strides
and offset) and reads results back without running any kernel of the backend under test.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from minitorch.backends.base import Backend
from minitorch.tensor_data import TensorData, expand_strides, strides_from_shape

F16, F32, F64 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)
I32, I64, U8, BOOL = np.dtype(np.int32), np.dtype(np.int64), np.dtype(np.uint8), np.dtype(np.bool_)
FLOATS = (F32, F64, F16)
SIGNED = (I32, I64)
INTS = (I32, I64, U8)
ALL = FLOATS + INTS + (BOOL,)
#: relative/absolute tolerance per dtype (libm functions differ in the last bits)
TOLERANCE = {F16: (2e-3, 1e-3), F32: (1e-5, 1e-6), F64: (1e-12, 1e-12)}
#: a float32 matmul adds k rounded products in a different order than NumPy's BLAS
MATMUL_TOLERANCE = {F16: (2e-2, 2e-2), F32: (1e-4, 1e-4), F64: (1e-10, 1e-10)}

#: layouts a view may have (``sliced`` reads every other element from index 1 on: offset != 0)
LAYOUTS = ("contiguous", "permuted", "sliced")
#: what fills a fresh ``out`` and the gaps of a sliced view: any write to a gap is a bug
SENTINEL = 7


def host_view(values: np.ndarray, layout: str = "contiguous") -> TensorData:
    """A host TensorData holding ``values`` in the named layout (a storage of its own)."""
    if layout == "contiguous":
        return TensorData(values.reshape(-1).copy(), values.shape)
    if layout == "permuted":  # stored transposed, viewed back through permute
        order = tuple(reversed(range(values.ndim)))
        stored = values.transpose(order).copy(order="C")
        return TensorData(stored.reshape(-1), stored.shape).permute(*order)
    if layout == "sliced":  # every other element of a larger array, starting at index 1
        big = np.full(tuple(2 * n + 1 for n in values.shape), SENTINEL, dtype=values.dtype)
        big[tuple(slice(1, None, 2) for _ in values.shape)] = values
        big_strides = strides_from_shape(big.shape)
        return TensorData(big.reshape(-1), values.shape, [2 * s for s in big_strides], sum(big_strides))
    raise ValueError(layout)


def sample(rng: np.random.Generator, shape: tuple[int, ...], dtype: np.dtype, specials: bool = True) -> np.ndarray:
    """Random values of ``dtype``; floats include 0, ±1, ±inf and NaN now and then."""
    if dtype == BOOL:
        return np.asarray(rng.random(shape) < 0.5)
    if dtype == U8:
        return np.asarray(rng.integers(0, 7, shape), dtype)
    if dtype.kind == "i":
        return np.asarray(rng.integers(-20, 21, shape), dtype)
    values = np.asarray(rng.standard_normal(shape) * 2)
    if specials:
        pick = rng.random(shape) < 0.15
        values[pick] = rng.choice([0.0, 1.0, -1.0, 0.5, -2.5, np.inf, -np.inf, np.nan], size=int(pick.sum()))
    return values.astype(dtype)


def assert_close(actual: np.ndarray, expected: np.ndarray, tolerance: dict = TOLERANCE) -> None:
    """Same shape and dtype; floats within ``tolerance`` (NaN where NaN), the rest exactly equal."""
    assert actual.shape == expected.shape and actual.dtype == expected.dtype
    if actual.dtype.kind == "f":
        rtol, atol = tolerance[actual.dtype]
        np.testing.assert_allclose(actual.astype(F64), expected.astype(F64), rtol=rtol, atol=atol, equal_nan=True)
    else:
        np.testing.assert_array_equal(actual, expected)


def log_softmax_oracle(x: np.ndarray) -> np.ndarray:
    """Row-wise ``x - m - log(sum(exp(x - m)))`` in float64, ``m`` each row's max, rounded to ``x``'s dtype."""
    wide = x.astype(np.float64)
    shifted = wide - wide.max(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))).astype(x.dtype)


def storage_positions(td: TensorData) -> np.ndarray:
    """The storage position of every index of ``td`` (an independent walk of its strides)."""
    positions = np.full(td.shape, td.offset, np.int64)
    for d, (size, stride) in enumerate(zip(td.shape, td.strides)):
        positions += (np.arange(size) * stride).reshape([-1 if e == d else 1 for e in range(td.dims)])
    return positions


@dataclass
class Kit:
    """One backend with what a test needs around it: put values on its device, read them back.

    ``upload`` turns a host array into the backend's storage and ``download`` a storage
    into a host array; ``matmuls`` are the paths the backend's matmul may take, each
    checked on its own (the cpu backend has the course's Numba kernel besides its default).
    """

    name: str
    backend: Backend
    upload: Callable[[np.ndarray], Any]
    download: Callable[[Any], np.ndarray]
    matmuls: tuple[Callable[[TensorData, TensorData, TensorData], None], ...] = field(default=())

    def __post_init__(self) -> None:
        if not self.matmuls:
            self.matmuls = (self.backend.matmul,)

    def device(self, host: TensorData) -> TensorData:
        """``host`` on this backend's device: its whole storage, with shape, strides and offset kept."""
        return TensorData(self.upload(host.storage), host.shape, host.strides, host.offset)

    def view(self, values: np.ndarray, layout: str = "contiguous") -> TensorData:
        """``values`` on the device in the named layout."""
        return self.device(host_view(values, layout))

    def expanded(self, small: np.ndarray, shape: tuple[int, ...]) -> TensorData:
        """``small`` broadcast to ``shape`` with stride-0 dimensions, sharing one small storage."""
        td = self.view(small)
        return TensorData(td.storage, shape, expand_strides(td.shape, td.strides, shape))

    def out(self, shape: tuple[int, ...], dtype: np.dtype, layout: str = "contiguous") -> TensorData:
        """A fresh ``out`` filled with :data:`SENTINEL`, so an element the kernel skips shows."""
        return self.view(np.full(shape, SENTINEL, dtype=dtype), layout)

    def storage(self, td: TensorData) -> np.ndarray:
        """A host copy of ``td``'s whole storage."""
        return np.array(self.download(td.storage))

    def values(self, td: TensorData) -> np.ndarray:
        """The values of the view ``td``, as a contiguous host array (read on the host, no kernel)."""
        return TensorData(self.storage(td), td.shape, td.strides, td.offset).numpy_view().copy()

    def assert_gaps_untouched(self, out: TensorData) -> None:
        """Every storage element outside the view ``out`` still holds :data:`SENTINEL`."""
        storage = self.storage(out)
        TensorData(storage, out.shape, out.strides, out.offset).numpy_view()[...] = SENTINEL
        assert (storage == np.asarray(SENTINEL).astype(storage.dtype)).all(), "a kernel wrote outside its out view"


def host_kit(name: str, backend: Backend, **extra: Any) -> Kit:
    """A kit for a backend whose storage is a NumPy array."""
    return Kit(name, backend, upload=np.copy, download=np.asarray, **extra)


def cuda_kit(backend: Any) -> Kit:
    """A kit for the cuda backend: its own host-to-device upload, Numba's device-to-host copy."""
    return Kit("cuda", backend, upload=backend.upload, download=lambda storage: storage.copy_to_host())

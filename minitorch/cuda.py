"""``minitorch.cuda``: the GPU, as ``torch.cuda`` presents it.

What counts as available: :func:`is_available` is True when Numba can run CUDA kernels,
either on an NVIDIA GPU with its driver or on Numba's CUDA *simulator*, which the user picks
by setting ``NUMBA_ENABLE_CUDASIM=1`` before Numba is imported. The simulator shows one
device, ``cuda:0``, and runs the very same kernels on the CPU (one Python thread per GPU
thread: correct and very slow), so code guarded by ``if minitorch.cuda.is_available():``
runs unchanged there; :func:`is_simulator` tells the two apart. With neither, it is False and
every attempt to put a tensor on ``'cuda'`` raises a RuntimeError that says why.

Numba's CUDA support is imported only when one of these functions (or a cuda tensor)
needs it: ``import minitorch`` and the cpu path never load it.

Random numbers: cuda tensors have their own :class:`~minitorch.generator.Generator`
(``default_generators[0]``, a Mersenne Twister stream as the cpu one; PyTorch's cuda
generator is another algorithm, so these numbers are minitorch's own), seeded with the same seed by
:func:`minitorch.manual_seed` and alone by :func:`manual_seed`.
Its numbers are drawn on the host and copied to the device, so a seed gives the same
values on a GPU, on the simulator and on the cpu, while drawing on one device leaves the
other's sequence where it was (as in PyTorch). Its state round-trips through
:func:`get_rng_state`/:func:`set_rng_state` as a uint8 tensor.
"""

from __future__ import annotations

from typing import Any, Sequence

from .generator import Generator, default_generator_of
from .tensor import Tensor

#: the environment variable that makes Numba run CUDA kernels on its simulator
SIMULATOR_VARIABLE = "NUMBA_ENABLE_CUDASIM"

# ---- the device ----


def is_available() -> bool:
    """Whether tensors can be put on ``'cuda'``: a GPU Numba can drive, or the simulator."""
    try:
        from numba import cuda
    except ImportError:  # pragma: no cover - Numba is a dependency
        return False
    try:
        return bool(cuda.is_available())
    except Exception:  # a broken driver or toolkit means "not available", as in PyTorch
        return False


def is_simulator() -> bool:
    """Whether ``'cuda'`` runs on Numba's CPU simulator rather than a GPU."""
    from numba import config

    return bool(config.ENABLE_CUDASIM)


def _backend() -> Any:
    from .backends import backend_for

    return backend_for("cuda")  # raises with the reason when no GPU can be used


def device_count() -> int:
    """Number of usable GPUs (the simulator counts as one, no GPU as zero)."""
    return _backend().device_count() if is_available() else 0


def current_device() -> int:
    """Index of the GPU new cuda tensors go to (always 0: one GPU per process)."""
    _backend()
    return 0


def set_device(device: Any) -> None:
    """Select the GPU new cuda tensors go to: minitorch uses one GPU per process, so only 0."""
    index = device if isinstance(device, int) else getattr(device, "index", None)
    if index is None and isinstance(device, str):
        index = int(device.split(":")[1]) if ":" in device else 0
    if index is None or index < 0:
        return  # PyTorch: a negative index is a no-op
    _backend()
    if index != 0:
        raise RuntimeError(f"invalid device ordinal {index}: minitorch runs on one GPU per process (device 0)")


def is_bf16_supported(including_emulation: bool = True) -> bool:
    """Whether a GPU is there: the cuda backend computes bfloat16 in float32 (through float16's path), on any GPU."""
    return is_available()


def get_device_name(device: Any = None) -> str:
    """The GPU's name, e.g. ``'NVIDIA H100 80GB HBM3'``; ``'SIMULATOR'`` on the simulator."""
    _backend()
    if is_simulator():
        return "SIMULATOR"
    from numba import cuda

    name = cuda.get_current_device().name
    return name.decode() if isinstance(name, bytes) else str(name)


def synchronize(device: Any = None) -> None:
    """Wait until every kernel launched so far has finished (kernels run asynchronously)."""
    _backend().synchronize()


# ---- memory: the caching allocator of the cuda backend (minitorch/backends/cuda_memory.py) ----


def _memory_manager() -> Any:
    """The caching allocator of the GPU once a cuda tensor was made, else None (and on the simulator)."""
    from .backends import _loaded

    if is_simulator() or "cuda" not in _loaded:
        return None
    from .backends.cuda_memory import current_manager

    return current_manager()


def empty_cache() -> None:
    """Give the GPU memory that freed tensors left for reuse back to the driver (other processes
    can then use it); tensors that are alive keep theirs. Nothing to do before the first cuda tensor."""
    manager = _memory_manager()
    if manager is not None:
        manager.empty_cache()


def memory_allocated(device: Any = None) -> int:
    """Bytes of GPU memory held by tensors now, in whole blocks (0 on the simulator)."""
    manager = _memory_manager()
    return 0 if manager is None else manager.allocated_bytes


def memory_reserved(device: Any = None) -> int:
    """Bytes of GPU memory the caching allocator holds: the tensors' and the free blocks kept for reuse."""
    manager = _memory_manager()
    return 0 if manager is None else manager.allocated_bytes + manager.cached_bytes


# ---- random numbers ----

#: the generator of each GPU (there is one); random cuda tensors draw from it on the host
default_generators: tuple[Generator, ...] = (default_generator_of("cuda"),)


def manual_seed(seed: int) -> None:
    """Seed the cuda generator (of the one device)."""
    default_generators[0].manual_seed(seed)


def manual_seed_all(seed: int) -> None:
    """Seed the generator of every GPU (there is one)."""
    for generator in default_generators:
        generator.manual_seed(seed)


def seed() -> None:
    """Seed the cuda generator from a non-deterministic source."""
    default_generators[0].seed()


def seed_all() -> None:
    seed()


def initial_seed() -> int:
    """The seed the cuda generator was last given."""
    return default_generators[0].initial_seed()


def get_rng_state(device: Any = "cuda") -> Tensor:
    """The cuda generator's state, a uint8 tensor on the cpu (as PyTorch's)."""
    return default_generators[0].get_state()


def set_rng_state(new_state: Tensor, device: Any = "cuda") -> None:
    """Restore a state returned by :func:`get_rng_state`."""
    default_generators[0].set_state(new_state, caller="set_rng_state")


def get_rng_state_all() -> list[Tensor]:
    """One state per GPU (an empty list without one, as PyTorch)."""
    return [get_rng_state(index) for index in range(device_count())]


def set_rng_state_all(new_states: Sequence[Tensor]) -> None:
    """Restore the states from :func:`get_rng_state_all`, one per GPU."""
    for state in new_states:
        set_rng_state(state)

"""Kernel launches for the cuda backend with less Python per launch than Numba's own.

``kernel[blocks, threads](*args)`` costs a few microseconds of GPU time and, before that, tens
of microseconds of Python: Numba types every argument, then turns each into the launch's
parameters by walking its type. For the elementwise kernel's 13 arguments, on a 2-core x86
server, Numba's Python typing of them takes 37 us and the walk another 37 us; a plan's
parameters take 5 us and its lookup 2 us. For an 8 x 8 ``a + b`` that is most of the op.

:func:`launch` does the same launch with a *plan* made once per kernel and argument layout:
the first call goes through Numba (which compiles and launches), and the plan records the
compiled kernel and, for each argument, how Numba turns it into parameters. Later calls with
arguments of the same layout (the same dtypes, the same tuple lengths) skip the typing and
follow the plan. The parameters are Numba's exactly (``tests/cuda_launch_cases.py`` compares
them) and go to the same call of the driver, on the default stream.

A kernel the plan does not cover (host arrays to copy, a debug build, a launch-sensitive
kernel, an argument type the plan has no rule for) always takes Numba's path. Should the very
first launch by a plan fail (a Numba or driver version whose internals differ), the plans are
switched off with a warning and that launch, which ran nothing, goes through Numba. Off on the
simulator, which launches kernels as Python; ``use_fast_launch = False`` switches it off (and
``MINITORCH_NO_CUDA_FAST_LAUNCH=1`` in the environment, for a before-and-after).
"""

from __future__ import annotations

import ctypes
import os
import warnings
from typing import Any, Callable, Optional, Union

import numba

#: launches take the plans of this module (on a real GPU); False (or the environment variable
#: ``MINITORCH_NO_CUDA_FAST_LAUNCH=1``): every launch through Numba
use_fast_launch = os.environ.get("MINITORCH_NO_CUDA_FAST_LAUNCH") != "1"

Dimensions = Union[int, tuple[int, ...]]
#: one argument into the launch's parameter list
Converter = Callable[[Any, list], None]


def _dimensions(value: Dimensions) -> tuple[int, int, int]:
    """A grid or block size as the driver takes it: three ints."""
    if isinstance(value, int):
        return (value, 1, 1)
    return (*value, *(1,) * (3 - len(value)))  # type: ignore[return-value]


def _layout_key(args: tuple) -> tuple:
    """What fixes the compiled kernel and the plan: each argument's Python type, and the dtype and
    strides of a device array or the length of a tuple. (Python ints are the backend's sizes,
    offsets and op codes, which Numba types as int64: all below 2**63.)"""
    key: list = []
    for value in args:
        kind = type(value)
        if kind is tuple:
            key.append((tuple, len(value)))
        elif getattr(kind, "__cuda_ndarray__", False):  # a class attribute of Numba's device arrays
            key.append((kind, value.dtype, value.strides))
        else:
            key.append(kind)
    return tuple(key)


def _array_parameters(value: Any, parameters: list) -> None:
    """A device array's parameters, as Numba passes them: no meminfo, no parent, the element count,
    the item size, the data pointer, the shape, the strides in bytes."""
    pointer = value.device_ctypes_pointer.value or 0
    parameters += (0, 0, value.size, value.dtype.itemsize, pointer, *value.shape, *value.strides)


def _scalar(ctype: Any) -> Converter:
    def convert(value: Any, parameters: list) -> None:
        parameters.append(ctype(value))

    return convert


def _as_is(value: Any, parameters: list) -> None:
    parameters.append(value)


def _tuple_of(converters: list[Converter]) -> Converter:
    def convert(value: tuple, parameters: list) -> None:
        for element_converter, element in zip(converters, value):
            element_converter(element, parameters)

    return convert


def converter_for(numba_type: Any) -> Optional[Converter]:
    """How an argument of ``numba_type`` becomes parameters, or None where the plan has no rule
    (a Numba type this backend never passes: its launches go through Numba)."""
    types = numba.core.types
    if isinstance(numba_type, types.Array):
        return _array_parameters if numba_type.layout == "C" and numba_type.ndim == 1 else None
    if isinstance(numba_type, types.Boolean):
        return _as_is
    if isinstance(numba_type, types.Integer):
        return _scalar(getattr(ctypes, f"c_{numba_type}"))
    if numba_type == types.float32:
        return _scalar(ctypes.c_float)
    if numba_type == types.float64:
        return _scalar(ctypes.c_double)
    if isinstance(numba_type, types.UniTuple):
        element = converter_for(numba_type.dtype)
        return None if element is None else _tuple_of([element] * numba_type.count)
    return None


class Plan:
    """A compiled kernel and one converter per argument."""

    def __init__(self, kernel: Any, converters: list[Converter]) -> None:
        self.kernel = kernel
        self.converters = converters

    def parameters(self, args: tuple) -> list:
        """The launch's parameters for ``args``, in Numba's order and types."""
        parameters: list = []
        for convert, value in zip(self.converters, args):
            convert(value, parameters)
        return parameters


def make_plan(dispatcher: Any, args: tuple) -> Optional[Plan]:
    """The plan for launching ``dispatcher`` with arguments laid out as ``args``, once Numba has
    compiled it for them; None where Numba's own launch must be kept."""
    if getattr(dispatcher, "_launch_config_sensitive", False) or dispatcher.extensions:
        return None
    signature = tuple(dispatcher.typeof_pyval(value) for value in args)
    kernel = dispatcher.overloads.get(signature)
    if kernel is None or kernel.debug or kernel.cooperative or getattr(kernel, "launch_config_sensitive", False):
        return None
    converters = [converter_for(numba_type) for numba_type in kernel.argument_types]
    if any(convert is None for convert in converters) or len(converters) != len(args):
        return None
    arrays = [value for value, numba_type in zip(args, kernel.argument_types) if isinstance(numba_type, numba.core.types.Array)]
    if not all(getattr(type(value), "__cuda_ndarray__", False) for value in arrays):
        return None  # a host array (Numba copies it over and back), or another library's device array
    return Plan(kernel, converters)  # type: ignore[arg-type]


#: plans by (dispatcher, argument layout); None: that launch keeps Numba's path
_plans: dict[tuple, Optional[Plan]] = {}
#: launch configurations by (grid, block)
_configs: dict[tuple, Any] = {}
_default_stream: list = []


def _config(grid: tuple[int, int, int], block: tuple[int, int, int]) -> Any:
    config = _configs.get((grid, block))
    if config is None:
        from cuda.core import LaunchConfig
        from numba.cuda._compat import CUDA_CORE_GE_1_0

        cooperative = {"is_cooperative": False} if CUDA_CORE_GE_1_0 else {"cooperative_launch": False}
        config = _configs[(grid, block)] = LaunchConfig(grid=grid, block=block, shmem_size=0, **cooperative)
    return config


def _stream() -> Any:
    """The default stream, as Numba hands it to the driver for ``stream=0``."""
    if not _default_stream:
        from numba.cuda.cudadrv import driver

        _default_stream.append(driver._to_core_stream(0))
    return _default_stream[0]


def _driver_launch() -> Callable[..., None]:
    """The launch call Numba's kernels make (looked up where Numba looks it up)."""
    from numba.cuda import dispatcher

    return dispatcher.launch  # type: ignore[no-any-return]


#: whether a launch by a plan has succeeded in this process
_launched_by_a_plan = False


def _set_launched_by_a_plan() -> None:
    global _launched_by_a_plan
    _launched_by_a_plan = True


def _switch_off(error: Exception) -> None:
    """The first launch by a plan failed (a Numba or driver version the plans do not know): every
    launch goes through Numba from now on, and the user is told once."""
    global use_fast_launch
    use_fast_launch = False
    warnings.warn(
        f"minitorch: cuda launches go through Numba from now on; the first launch by a plan failed with "
        f"{type(error).__name__}: {error}", RuntimeWarning, stacklevel=3,
    )


#: Numba's warning about grids of few blocks (its message starts with a terminal's bold code)
LOW_OCCUPANCY_WARNING = r".*Grid size \d+ will likely result in GPU under-utilization"


def _numba_launch(dispatcher: Any, blocks: Dimensions, threads: Dimensions, args: tuple) -> None:
    """``dispatcher[blocks, threads](*args)`` through Numba, without its warning that a grid of fewer
    than 128 blocks leaves the GPU idle: the backend sizes its grids to its tensors, and a small
    tensor's op is launched on a small grid on purpose (PyTorch's are, and it does not warn)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", LOW_OCCUPANCY_WARNING)
        dispatcher[blocks, threads](*args)


def launch(dispatcher: Any, blocks: Dimensions, threads: Dimensions, *args: Any) -> None:
    """``dispatcher[blocks, threads](*args)`` on the default stream, by its plan after the first time."""
    if not use_fast_launch or numba.config.ENABLE_CUDASIM:
        _numba_launch(dispatcher, blocks, threads, args)
        return
    key = (dispatcher, _layout_key(args))
    plan = _plans.get(key)
    if plan is None:
        _numba_launch(dispatcher, blocks, threads, args)  # Numba types, compiles if needed, and launches
        if key not in _plans:
            _plans[key] = make_plan(dispatcher, args)
        return
    try:
        parameters = plan.parameters(args)
        cufunc = plan.kernel._codelibrary.get_cufunc()
        _driver_launch()(_stream(), _config(_dimensions(blocks), _dimensions(threads)), cufunc.kernel, *parameters)
    except Exception as error:
        if _launched_by_a_plan:
            raise  # plans have worked in this process: this is the launch's own error
        _switch_off(error)
        _numba_launch(dispatcher, blocks, threads, args)  # the failed launch ran nothing: Numba launches it
        return
    if not _launched_by_a_plan:
        _set_launched_by_a_plan()


def forget_plans() -> None:
    """Drop every plan (the next launch of each kernel goes through Numba again)."""
    global _launched_by_a_plan
    _plans.clear()
    _configs.clear()
    _default_stream.clear()
    _launched_by_a_plan = False

"""Cases of the cuda backend's launch plans (``backends/cuda_launch.py``), run by
``test_cuda_launch.py`` in a child pytest with Numba's simulator off: the plans replace Numba's
own launch, which the simulator does not have. No GPU: device arrays are Numba's own class over
fake device pointers, and the driver's launch call is replaced by a recorder.

The oracle is Numba itself: for the same arguments, a plan must produce the very parameters
Numba's ``_Kernel._prepare_args`` produces, and hand the driver what ``_Kernel.launch`` hands it.
"""

from __future__ import annotations

import ctypes
from types import SimpleNamespace
from typing import Any, Iterator

import numpy as np
import pytest
from numba.cuda import dispatcher as numba_dispatcher
from numba.cuda.cudadrv import devicearray, driver

from minitorch.backends import cuda_kernels, cuda_launch, cuda_optim
from minitorch.backends.cuda_matmul_blocked import blocked_matmul_kernel


class FakeContext:
    """Stands in for the CUDA context a device pointer belongs to."""


def device_array(size: int, dtype: Any, address: int = 1 << 20) -> Any:
    """Numba's device array class over a made-up device address (nothing is allocated)."""
    dtype = np.dtype(dtype)
    pointer = driver.MemoryPointer(FakeContext(), ctypes.c_void_p(address), size * dtype.itemsize)
    return devicearray.DeviceNDArray((size,), (dtype.itemsize,), dtype, gpu_data=pointer)


def zip_arguments(dtype: Any = np.float32, dims: int = 2) -> tuple:
    out, a, b = (device_array(24, dtype, address) for address in (1 << 20, 1 << 21, 1 << 22))
    shape, strides = (2, 3, 4)[:dims], (12, 4, 1)[3 - dims :]
    return (7, 24, False, out, 0, shape, strides, a, 3, strides, b, 0, (0,) * dims)


#: kernels with arguments as the backend passes them: elementwise (two layouts), a
#: reduction, both matmuls (batched: 3-d shapes), a gather, Adam (numbers of the
#: parameter's dtype, flags) and SGD with momentum
CASES = {
    "zip float32 2-d": (cuda_kernels.zip_kernel, zip_arguments()),
    "zip int64 3-d": (cuda_kernels.zip_kernel, zip_arguments(np.int64, 3)),
    "map uint8": (cuda_kernels.map_kernel, (3, 24, True, device_array(24, np.uint8), 0, (24,), (1,), device_array(24, np.uint8), 0, (1,))),
    "blocked matmul": (
        blocked_matmul_kernel(64, 64, 8, 4, 4, __import__("numba").float64),
        (2, device_array(40, np.float64), 0, (2, 4, 5), (20, 5, 1), device_array(24, np.float64), 0, (12, 3, 1),
         device_array(30, np.float64), 0, (15, 5, 1), 3),
    ),
    "adam float32": (
        cuda_optim.adam_kernel,
        (10, *[device_array(10, np.float32, (1 << 20) * i) for i in range(1, 6)], *[np.float32(0.5)] * 8, 1, True, False),
    ),
    "sgd momentum float64": (
        cuda_optim.sgd_momentum_kernel,
        (10, *[device_array(10, np.float64, (1 << 20) * i) for i in range(1, 4)], *[np.float64(0.25)] * 4,
         True, False, True, False, True),
    ),
}


def comparable(parameters: list) -> list:
    """Parameters as (type, value) pairs: ctypes scalars do not compare by value themselves."""
    return [(type(p), p.value if isinstance(p, ctypes._SimpleCData) else p) for p in parameters]


def numba_parameters(argument_types: tuple, args: tuple) -> list:
    """What Numba's ``_Kernel._prepare_args`` makes of ``args``."""
    kernel = SimpleNamespace(extensions=[])
    kernel._prepare_args = numba_dispatcher._Kernel._prepare_args.__get__(kernel)
    parameters: list = []
    for numba_type, value in zip(argument_types, args):
        kernel._prepare_args(numba_type, value, 0, [], parameters)
    return parameters


def signature(dispatcher: Any, args: tuple) -> tuple:
    return tuple(dispatcher.typeof_pyval(value) for value in args)


@pytest.mark.parametrize("name", list(CASES))
def test_a_plans_parameters_are_numbas(name: str) -> None:
    dispatcher, args = CASES[name]
    types = signature(dispatcher, args)
    plan = cuda_launch.Plan(None, [cuda_launch.converter_for(t) for t in types])
    ours = plan.parameters(args)
    assert comparable(ours) == comparable(numba_parameters(types, args))
    assert len(ours) > len(args)


class FakeKernel:
    """A compiled overload as far as a plan and ``_Kernel.launch`` look at it."""

    def __init__(self, argument_types: tuple, **flags: Any) -> None:
        self.argument_types = argument_types
        self.debug = flags.get("debug", False)
        self.cooperative = flags.get("cooperative", False)
        self.launch_config_sensitive = flags.get("launch_config_sensitive", False)
        self.extensions: list = []
        self._codelibrary = SimpleNamespace(get_cufunc=lambda: SimpleNamespace(kernel="the cufunc's kernel"))
        self._prepare_args = numba_dispatcher._Kernel._prepare_args.__get__(self)


class FakeDispatcher:
    """A kernel before launch: Numba's typing, a dict of overloads, and ``[grid, block]``."""

    def __init__(self, real: Any, **flags: Any) -> None:
        self.real, self.flags = real, flags
        self.overloads: dict = {}
        self.extensions = None
        self.numba_launches: list = []

    def typeof_pyval(self, value: Any) -> Any:
        return self.real.typeof_pyval(value)

    def __getitem__(self, config: tuple) -> Any:
        def numba_launch(*args: Any) -> None:  # what Numba does on its path: compile (here: record) and launch
            types = signature(self.real, args)
            self.overloads.setdefault(types, FakeKernel(types, **self.flags))
            self.numba_launches.append((config, args))

        return numba_launch


@pytest.fixture
def driver_calls(monkeypatch: pytest.MonkeyPatch) -> Iterator[list]:
    """The driver's launch calls, recorded instead of made; a fresh set of plans."""
    calls: list = []
    monkeypatch.setattr(numba_dispatcher, "launch", lambda *call: calls.append(call))
    monkeypatch.setattr(driver, "_to_core_stream", lambda stream: "the default stream")
    monkeypatch.setattr(cuda_launch, "use_fast_launch", True)
    cuda_launch.forget_plans()
    yield calls
    cuda_launch.forget_plans()


def test_the_first_launch_goes_through_numba_and_the_next_by_the_plan(driver_calls: list) -> None:
    dispatcher, args = CASES["zip float32 2-d"]
    fake = FakeDispatcher(dispatcher)
    cuda_launch.launch(fake, 3, 256, *args)
    assert fake.numba_launches == [((3, 256), args)] and driver_calls == []
    cuda_launch.launch(fake, 3, 256, *args)
    cuda_launch.launch(fake, (2, 5), (16, 16), *args)
    assert len(fake.numba_launches) == 1 and len(driver_calls) == 2
    stream, config, kernel, *parameters = driver_calls[0]
    assert (stream, kernel) == ("the default stream", "the cufunc's kernel")
    assert (config.grid, config.block, config.shmem_size) == ((3, 1, 1), (256, 1, 1), 0)
    assert (driver_calls[1][1].grid, driver_calls[1][1].block) == ((2, 5, 1), (16, 16, 1))
    assert comparable(parameters) == comparable(numba_parameters(signature(dispatcher, args), args))


def test_the_plans_launch_is_numbas_launch(driver_calls: list) -> None:
    """For the same kernel and arguments, the driver gets what Numba's ``_Kernel.launch`` gives it."""
    dispatcher, args = CASES["adam float32"]
    fake = FakeDispatcher(dispatcher)
    cuda_launch.launch(fake, 4, 128, *args)  # Numba's path: makes the plan
    cuda_launch.launch(fake, 4, 128, *args)
    (kernel,) = fake.overloads.values()
    numba_dispatcher._Kernel.launch(kernel, args, (4, 1, 1), (128, 1, 1), "the default stream", 0)
    ours, numbas = driver_calls
    assert ours[0] == numbas[0] and ours[2] == numbas[2]
    assert repr(ours[1]) == repr(numbas[1])
    assert comparable(list(ours[3:])) == comparable(list(numbas[3:]))


def test_another_layout_gets_a_plan_of_its_own(driver_calls: list) -> None:
    fake = FakeDispatcher(cuda_kernels.zip_kernel)
    first, other = zip_arguments(np.float32, 2), zip_arguments(np.float64, 3)
    for args in (first, other, first, other):
        cuda_launch.launch(fake, 1, 8, *args)
    assert len(fake.overloads) == 2 and len(fake.numba_launches) == 2 and len(driver_calls) == 2
    assert comparable(list(driver_calls[1][3:])) == comparable(numba_parameters(signature(fake.real, other), other))
    layouts = (first, other, (True,), (1,), ((1, 2),), ((1, 2, 3),), (device_array(4, np.float32),), (device_array(4, np.int32),))
    keys = {cuda_launch._layout_key(args) for args in layouts}
    assert len(keys) == len(layouts)  # dtypes (of one item size too), tuple lengths, bool against int


@pytest.mark.parametrize("flag", ["debug", "cooperative", "launch_config_sensitive"])
def test_kernels_the_plans_do_not_cover_always_go_through_numba(driver_calls: list, flag: str) -> None:
    dispatcher, args = CASES["map uint8"]
    fake = FakeDispatcher(dispatcher, **{flag: True})
    for _ in range(3):
        cuda_launch.launch(fake, 1, 8, *args)
    assert len(fake.numba_launches) == 3 and driver_calls == []


def test_an_argument_without_a_rule_keeps_numbas_path(driver_calls: list) -> None:
    fake = FakeDispatcher(cuda_kernels.map_kernel)
    args = list(CASES["map uint8"][1])
    args[3] = np.zeros(24, np.uint8)  # a host array: Numba copies it over and back
    for _ in range(2):
        cuda_launch.launch(fake, 1, 8, *args)
    assert len(fake.numba_launches) == 2 and driver_calls == []
    assert cuda_launch.converter_for(fake.typeof_pyval(np.float16(1))) is None


def test_switched_off_every_launch_goes_through_numba(driver_calls: list, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cuda_launch, "use_fast_launch", False)
    dispatcher, args = CASES["sgd momentum float64"]
    fake = FakeDispatcher(dispatcher)
    for _ in range(3):
        cuda_launch.launch(fake, 2, 8, *args)
    assert len(fake.numba_launches) == 3 and driver_calls == []


@pytest.mark.parametrize("value", [np.int8(-3), np.int32(7), np.uint64(2**63 + 5), np.float32(0.1), np.float64(0.1), True, 12],
                         ids=lambda v: type(v).__name__)
def test_a_scalars_parameter_is_numbas(value: Any) -> None:
    numba_type = numba_dispatcher.CUDADispatcher.typeof_pyval(cuda_kernels.zip_kernel, value)
    ours: list = []
    cuda_launch.converter_for(numba_type)(value, ours)
    assert comparable(ours) == comparable(numba_parameters((numba_type,), (value,)))


def test_a_first_plan_launch_that_fails_switches_the_plans_off(driver_calls: list, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*call: Any) -> None:
        raise TypeError("an unknown launch signature")

    monkeypatch.setattr(numba_dispatcher, "launch", broken)
    dispatcher, args = CASES["zip float32 2-d"]
    fake = FakeDispatcher(dispatcher)
    cuda_launch.launch(fake, 3, 256, *args)  # Numba's path: makes the plan
    with pytest.warns(RuntimeWarning, match="go through Numba from now on.*TypeError: an unknown launch signature"):
        cuda_launch.launch(fake, 3, 256, *args)  # the plan fails: Numba launches it instead
    assert len(fake.numba_launches) == 2 and cuda_launch.use_fast_launch is False
    cuda_launch.launch(fake, 3, 256, *args)
    assert len(fake.numba_launches) == 3


def test_after_a_plan_has_launched_a_launch_error_is_raised(driver_calls: list, monkeypatch: pytest.MonkeyPatch) -> None:
    dispatcher, args = CASES["zip float32 2-d"]
    fake = FakeDispatcher(dispatcher)
    cuda_launch.launch(fake, 3, 256, *args)
    cuda_launch.launch(fake, 3, 256, *args)  # by the plan: plans work here
    assert len(driver_calls) == 1

    def failing(*call: Any) -> None:
        raise RuntimeError("CUDA_ERROR_ILLEGAL_ADDRESS")

    monkeypatch.setattr(numba_dispatcher, "launch", failing)
    with pytest.raises(RuntimeError, match="ILLEGAL_ADDRESS"):
        cuda_launch.launch(fake, 3, 256, *args)
    assert cuda_launch.use_fast_launch is True and len(fake.numba_launches) == 1


def test_numbas_low_occupancy_warning_is_not_passed_on_and_other_warnings_are(
    driver_calls: list, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A small tensor's op runs on a small grid on purpose: Numba's real launch configuration warns
    about grids of fewer than 128 blocks (by default), and the backend's launches do not pass it on."""
    import warnings

    from numba.cuda.core import config

    monkeypatch.setattr(config, "CUDA_LOW_OCCUPANCY_WARNINGS", 1)
    monkeypatch.setattr(config, "DISABLE_PERFORMANCE_WARNINGS", 0)
    calls: list = []

    def call(self: Any, args: tuple, launch_config: Any) -> None:  # Numba's own dispatch, after configuring
        calls.append(args)
        warnings.warn("another warning", UserWarning)

    monkeypatch.setattr(numba_dispatcher.CUDADispatcher, "call", call)
    dispatcher, args = CASES["map uint8"]
    messages: list = []
    # the backend first: Numba does not repeat a warning it has given once in a process
    for launch_it in (lambda: cuda_launch.launch(dispatcher, 1, 8, *args), lambda: dispatcher[3, 8](*args)):
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            launch_it()
        messages.append([(w.category.__name__, str(w.message)) for w in seen])
    by_backend, by_numba = messages
    assert by_backend == [("UserWarning", "another warning")] and len(calls) == 2
    assert by_numba == [("NumbaPerformanceWarning", by_numba[0][1]), ("UserWarning", "another warning")]
    assert "Grid size 3 will likely result in GPU under-utilization" in by_numba[0][1]

"""Autograd and backends under several Python threads.

Grad mode and a ``backends.use`` block belong to the thread that sets them (as grad mode
does in PyTorch); a new thread starts with grad enabled and the process-wide default
backend. Oracles: the same trainings run one after another in one thread, PyTorch's grad
mode in new threads, hand-derived gradients, NumPy, and a child process on Numba's
``workqueue`` threading layer (which aborts the process if two threads launch parallel
kernels at once). Interleavings are forced with events and barriers, never left to timing.
"""

from __future__ import annotations

import inspect
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable, Iterator

import numpy as np
import pytest

import minitorch
from minitorch import backends, nn
from minitorch.autograd import function as autograd_function
from minitorch.backends.cpu import CpuBackend
from minitorch.backends.cpu_threads import SerialisedCpuBackend
from minitorch.tensor_data import TensorData
from numba_cache_copy import kernel_cache_copy

#: seconds a thread waits for another before the test fails (never reached when it passes;
#: long, because a thread may compile kernels first when the Numba cache is cold)
WAIT = 300.0
#: seconds between the interpreter's thread switches during the training test (default
#: 5 ms): short, so the threads' ops interleave finely
SWITCH_INTERVAL = 1e-5
#: seconds the first gradient copy waits for a second thread to arrive (see the shared-leaf test)
COPY_WAIT = 0.3
#: seconds a thread that wants the rng state gets to reach the generator's lock
READER_HEAD_START = 0.1
THREADS = 4
STEPS = 5
BATCH, FEATURES, HIDDEN, OUTPUTS = 8, 3, 5, 2
REPO_ROOT = Path(__file__).resolve().parents[1]


def run_in_threads(*targets: Callable[[], Any]) -> list[Any]:
    """Run each target in a thread of its own; their results in order, or the first error raised."""
    results: list[Any] = [None] * len(targets)
    errors: list[BaseException] = []

    def runner(slot: int, target: Callable[[], Any]) -> None:
        try:
            results[slot] = target()
        except BaseException as error:  # re-raised in the test's thread below
            errors.append(error)

    threads = [threading.Thread(target=runner, args=(slot, target)) for slot, target in enumerate(targets)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(WAIT)
    assert not any(thread.is_alive() for thread in threads), "a thread did not finish"
    if errors:
        raise errors[0]
    return results


@pytest.fixture
def fine_thread_switching() -> Iterator[None]:
    previous = sys.getswitchinterval()
    sys.setswitchinterval(SWITCH_INTERVAL)
    try:
        yield
    finally:
        sys.setswitchinterval(previous)


@pytest.fixture
def cpu_default() -> Iterator[None]:
    """The process-wide default cpu backend set to 'cpu' for the test, restored afterwards."""
    previous = backends.get_cpu_backend_name()
    backends.set_cpu_backend("cpu")
    try:
        yield
    finally:
        backends.set_cpu_backend(previous)


def train_mlp(seed: int, start: threading.Barrier | None = None) -> tuple[list[np.ndarray], list[float]]:
    """A float64 MLP trained from a seeded start for ``STEPS`` SGD steps; its parameters and losses.

    Each step also evaluates the model under ``no_grad``, so recording threads and
    non-recording blocks interleave.
    """
    rng = np.random.default_rng(seed)
    x = minitorch.tensor(rng.standard_normal((BATCH, FEATURES)))
    y = minitorch.tensor(rng.standard_normal((BATCH, OUTPUTS)))
    model = nn.Sequential(nn.Linear(FEATURES, HIDDEN), nn.Tanh(), nn.Linear(HIDDEN, OUTPUTS)).double()
    # the initial values come from the seed, not the shared global generator
    model.load_state_dict({name: minitorch.tensor(rng.standard_normal(tuple(value.shape)))
                           for name, value in model.state_dict().items()})
    optimizer = minitorch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    if start is not None:
        start.wait(WAIT)
    losses = []
    for _ in range(STEPS):
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        with minitorch.no_grad():
            evaluated = nn.functional.mse_loss(model(x), y)
        assert not evaluated.requires_grad
        losses.append(evaluated.item())
    return [p.detach().numpy().copy() for p in model.parameters()], losses


def test_threads_train_their_own_models_as_if_run_one_after_another(backend: str, fine_thread_switching: None) -> None:
    seeds = list(range(THREADS))
    serial = [train_mlp(seed) for seed in seeds]
    start = threading.Barrier(THREADS)

    def in_thread(seed: int) -> Callable[[], Any]:
        def target() -> Any:
            with backends.use(backend):  # a new thread starts on the default backend
                return train_mlp(seed, start)

        return target

    threaded = run_in_threads(*[in_thread(seed) for seed in seeds])
    for (serial_params, serial_losses), (thread_params, thread_losses) in zip(serial, threaded):
        assert serial_losses[-1] < serial_losses[0]  # the training did train
        assert thread_losses == serial_losses
        for expected, got in zip(serial_params, thread_params):
            np.testing.assert_array_equal(got, expected)


GRAD_OFF_BLOCKS = {
    "no_grad": minitorch.no_grad,
    "inference_mode": minitorch.inference_mode,
    "set_grad_enabled(False)": lambda: minitorch.set_grad_enabled(False),
}


@pytest.mark.parametrize("block", GRAD_OFF_BLOCKS.values(), ids=GRAD_OFF_BLOCKS.keys())
def test_grad_off_in_one_thread_leaves_another_recording(block: Callable[[], Any]) -> None:
    x = minitorch.tensor([1.0, 2.0], requires_grad=True)
    inside, other_done = threading.Event(), threading.Event()

    def grad_off() -> tuple[bool, bool]:
        with block():
            inside.set()
            assert other_done.wait(WAIT)
            return minitorch.is_grad_enabled(), (x * 2).requires_grad

    def recording() -> tuple[bool, bool]:
        assert inside.wait(WAIT)
        seen = minitorch.is_grad_enabled(), (x * 2).requires_grad
        other_done.set()
        return seen

    assert run_in_threads(grad_off, recording) == [(False, False), (True, True)]
    assert minitorch.is_grad_enabled()


def test_plain_set_grad_enabled_changes_only_its_thread() -> None:
    switched, checked = threading.Event(), threading.Event()

    def switcher() -> bool:
        minitorch.set_grad_enabled(False)  # left off: the thread ends with it off
        switched.set()
        assert checked.wait(WAIT)
        return minitorch.is_grad_enabled()

    def other() -> bool:
        assert switched.wait(WAIT)
        seen = minitorch.is_grad_enabled()
        checked.set()
        return seen

    assert run_in_threads(switcher, other) == [False, True]
    assert minitorch.is_grad_enabled()


def test_backward_in_one_thread_leaves_another_recording() -> None:
    """``backward()`` turns grad mode off while it runs (as PyTorch does), for its own thread only."""
    in_backward, other_done = threading.Event(), threading.Event()

    def backpropagating() -> tuple[bool, list[float]]:
        x = minitorch.tensor([1.0, 2.0], requires_grad=True)
        hidden = x * 3
        mode_in_backward = []

        def pause(grad: minitorch.Tensor) -> None:
            mode_in_backward.append(minitorch.is_grad_enabled())
            in_backward.set()
            assert other_done.wait(WAIT)

        hidden.register_hook(pause)
        (hidden * hidden).sum().backward()
        return mode_in_backward[0], x.grad.tolist()

    def other() -> tuple[bool, bool, list[float]]:
        assert in_backward.wait(WAIT)
        try:
            w = minitorch.tensor([1.0, -1.0], requires_grad=True)
            loss = (w * w * w).sum()
            recorded = minitorch.is_grad_enabled(), loss.requires_grad
            loss.backward()
            return (*recorded, w.grad.tolist())
        finally:
            other_done.set()

    (mode_in_backward, x_grad), (other_mode, other_records, w_grad) = run_in_threads(backpropagating, other)
    assert (mode_in_backward, other_mode, other_records) == (False, True, True)
    assert x_grad == [18.0, 36.0]  # d/dx sum (3x)^2 = 18x
    assert w_grad == [3.0, 3.0]  # d/dw sum w^3 = 3w^2


def test_every_thread_starts_with_grad_enabled_as_in_pytorch(torch_ref: Any) -> None:
    def new_thread_modes(lib: Any) -> list[bool]:
        """Grad mode in a thread started inside each grad-off block of ``lib`` (minitorch or torch)."""
        seen = []
        for make_block in (lib.no_grad, lib.inference_mode, lambda: lib.set_grad_enabled(False)):
            with make_block():
                seen += run_in_threads(lib.is_grad_enabled)
        return seen

    assert new_thread_modes(torch_ref) == [True, True, True]
    assert new_thread_modes(minitorch) == [True, True, True]


def test_new_thread_records_even_if_started_inside_no_grad() -> None:
    x = minitorch.tensor([1.0, 2.0], requires_grad=True)

    def train_step() -> list[float]:
        (x * x).sum().backward()
        return x.grad.tolist()

    with minitorch.no_grad():
        assert run_in_threads(train_step) == [[2.0, 4.0]]


def test_one_grad_mode_object_entered_by_two_threads_at_once() -> None:
    """A context object keeps the mode to restore per thread, so threads may share one."""
    shared = minitorch.no_grad()
    first_inside, second_inside, first_left = threading.Event(), threading.Event(), threading.Event()

    def first() -> bool:
        with shared:  # entered with grad on
            first_inside.set()
            assert second_inside.wait(WAIT)
        first_left.set()
        return minitorch.is_grad_enabled()

    def second() -> bool:
        minitorch.set_grad_enabled(False)
        assert first_inside.wait(WAIT)
        with shared:  # entered with grad off, after the first thread
            second_inside.set()
            assert first_left.wait(WAIT)
        return minitorch.is_grad_enabled()

    assert run_in_threads(first, second) == [True, False]


def test_use_block_switches_only_its_own_thread(cpu_default: None) -> None:
    inside, checked = threading.Event(), threading.Event()

    def chooser() -> tuple[str, str]:
        with backends.use("simple"):
            inside.set()
            assert checked.wait(WAIT)
            return backends.get_cpu_backend_name(), backends.backend_for("cpu").name

    def other() -> tuple[str, str]:
        assert inside.wait(WAIT)
        seen = backends.get_cpu_backend_name(), backends.backend_for("cpu").name
        checked.set()
        return seen

    assert run_in_threads(chooser, other) == [("simple", "simple"), ("cpu", "cpu")]


def test_new_thread_starts_from_the_process_default_backend(cpu_default: None) -> None:
    def choice() -> str:
        return backends.backend_for("cpu").name

    with backends.use("simple"):
        assert run_in_threads(choice) == ["cpu"]  # not the spawning thread's block
    backends.set_cpu_backend("simple")
    with backends.use("cpu"):
        assert choice() == "cpu"  # a thread's own block wins over the default
        assert run_in_threads(choice) == ["simple"]
    assert choice() == "simple"


def test_threads_sharing_a_leaf_add_up_their_gradients(monkeypatch: pytest.MonkeyPatch) -> None:
    """Hogwild-style: two threads' backward passes reach one leaf with no ``.grad`` yet.

    The first to arrive waits (inside the copy that makes the new ``.grad``) for the other
    to arrive too; without the accumulation lock both would see no ``.grad`` and one
    gradient would be lost. With it the second arrives only after the first is stored, and
    the wait times out.
    """
    warm_up = minitorch.tensor([0.0, 0.0], requires_grad=True)
    (warm_up * minitorch.tensor([1.0, 1.0])).sum().backward()  # kernels compiled before the timed wait
    both_copying = threading.Barrier(2)
    real_map_op = autograd_function.map_op

    def slow_copy(op: str, *args: Any, **kwargs: Any) -> Any:
        try:
            both_copying.wait(COPY_WAIT)
        except threading.BrokenBarrierError:
            pass
        return real_map_op(op, *args, **kwargs)

    monkeypatch.setattr(autograd_function, "map_op", slow_copy)
    w = minitorch.tensor([1.0, 2.0], requires_grad=True)
    start = threading.Barrier(2)

    def backward_with(x: list[float]) -> Callable[[], None]:
        def target() -> None:
            start.wait(WAIT)
            (w * minitorch.tensor(x)).sum().backward()

        return target

    run_in_threads(backward_with([3.0, 4.0]), backward_with([10.0, 20.0]))
    assert w.grad.tolist() == [13.0, 24.0]


def test_rng_state_is_never_read_halfway_through_a_draw() -> None:
    """``get_rng_state`` waits for a draw in progress (here: the generator's lock held around one)."""
    bit_generator = minitorch.random.default_generator.numpy_generator().bit_generator
    reader_started = threading.Event()
    read: list[list[int]] = []

    def reader() -> None:
        reader_started.set()
        read.append(minitorch.get_rng_state().tolist())

    thread = threading.Thread(target=reader)
    with bit_generator.lock:  # a draw in progress
        thread.start()
        assert reader_started.wait(WAIT)
        time.sleep(READER_HEAD_START)
        bit_generator.random_raw()
    thread.join(WAIT)
    assert read == [minitorch.get_rng_state().tolist()]  # the state after the draw


def test_serialised_backend_locks_every_primitive() -> None:
    """Each primitive of the cpu backend is wrapped: all but ``empty`` and ``conv2d_pays``, which run no kernel."""
    primitives = {name for name, _ in inspect.getmembers(CpuBackend, inspect.isfunction) if not name.startswith("_")}
    wrapped = {name for name in primitives if name in vars(SerialisedCpuBackend)}
    assert primitives - wrapped == {"empty", "conv2d_pays"}
    assert {"map", "zip", "matmul", "conv2d", "max_pool2d", "adam_step"} <= wrapped


def test_serialised_primitive_holds_the_lock_while_it_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    """A wrapped primitive runs its kernel inside the lock: another thread cannot take it meanwhile."""
    from minitorch.backends import cpu

    taken_elsewhere = []

    def kernel(a: TensorData, b: TensorData, out: TensorData) -> None:
        other = threading.Thread(target=lambda: taken_elsewhere.append(
            SerialisedCpuBackend._launch_lock.acquire(blocking=False)))
        other.start()
        other.join()
        out.storage[:] = 1.0

    for path in ("small_matmul", "outer_matmul", "numba_matmul"):  # whichever the product goes to
        monkeypatch.setattr(cpu, path, kernel)
    a, b, out = (TensorData(np.zeros(4), (2, 2)) for _ in range(3))
    SerialisedCpuBackend().matmul(a, b, out)
    assert taken_elsewhere == [False] and (out.storage == 1.0).all()
    assert SerialisedCpuBackend._launch_lock.acquire(blocking=False)  # released afterwards
    SerialisedCpuBackend._launch_lock.release()


WORKQUEUE_CHILD = """
import threading

import numba
import numpy as np

import minitorch
from minitorch.backends import backend_for
from minitorch.backends.cpu_kernels import PARALLEL_MIN_WORK

side = 2 * int(PARALLEL_MIN_WORK ** 0.5)  # enough elements that every kernel below runs in parallel
rng = np.random.default_rng(0)
a_np, b_np = rng.standard_normal((side, side)), rng.standard_normal((side, side))
a, b = minitorch.tensor(a_np), minitorch.tensor(b_np)
expected = [a_np * b_np + a_np, np.exp(a_np), a_np.sum(0), a_np @ b_np]
start = threading.Barrier(4)
errors = []

def work():
    start.wait()
    for _ in range(10):
        got = [(a * b + a).numpy(), a.exp().numpy(), a.sum(0).numpy(), (a @ b).numpy()]
        if not all(np.allclose(g, e) for g, e in zip(got, expected)):
            errors.append("wrong values")

threads = [threading.Thread(target=work) for _ in range(4)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print(numba.threading_layer(), type(backend_for("cpu")).__name__, errors or "ok")
"""
#: seconds for the child; a few with a warm kernel cache, a minute or more when it compiles
WORKQUEUE_TIMEOUT = 600


def test_threads_on_numbas_workqueue_layer_take_turns(tmp_path: Path) -> None:
    """Four threads running parallel kernels at once on ``workqueue`` (no OpenMP or TBB) must not abort."""
    env = {
        **os.environ,
        "NUMBA_THREADING_LAYER": "workqueue",
        "NUMBA_CACHE_DIR": str(kernel_cache_copy(tmp_path)),
        "PYTHONPATH": os.pathsep.join([str(REPO_ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]),
    }
    child = subprocess.run([sys.executable, "-c", WORKQUEUE_CHILD], env=env, capture_output=True, text=True,
                           timeout=WORKQUEUE_TIMEOUT)
    assert child.returncode == 0, child.stderr[-3000:]
    assert child.stdout.split() == ["workqueue", "SerialisedCpuBackend", "ok"]

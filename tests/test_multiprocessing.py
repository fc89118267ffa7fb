"""Shared-memory tensors and ``minitorch.multiprocessing``, checked against PyTorch.

In-process checks compare ``share_memory_``/``is_shared``/``Module.share_memory`` and the
sharing strategies with PyTorch's answers to the same calls. Child processes (``fork`` where
cheap, ``spawn`` once: each spawned child imports minitorch) check what one process cannot:
writes in a child seen by the parent, tensors through a queue, and ``spawn``'s index and
failure reports. Every wait on a child has a deadline, so a broken child fails a test instead
of hanging it.
"""

from __future__ import annotations

import importlib
import io
import multiprocessing
import pickle
import time
from multiprocessing.reduction import ForkingPickler
from typing import Any, Callable

import numpy as np
import pytest

import minitorch
import minitorch.multiprocessing as mp
import multiprocessing_children as children
from torch_oracle import import_torch

#: seconds any one scenario's children may take (a spawned child imports minitorch: seconds)
CHILD_SECONDS = 120.0
#: the module (its function ``spawn`` has the same name in the package)
spawn_module = importlib.import_module("minitorch.multiprocessing.spawn")
FORK = pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="needs the fork start method")


def _join(context: mp.ProcessContext, seconds: float = CHILD_SECONDS) -> None:
    """``context.join()`` until every child has ended, failing (children killed) after ``seconds``."""
    deadline = time.monotonic() + seconds
    while not context.join(timeout=max(deadline - time.monotonic(), 0.0)):
        if time.monotonic() >= deadline:
            for process in context.processes:
                process.kill()
            pytest.fail(f"children {context.pids()} still ran after {seconds} s")


def _run_process(target: Callable[..., Any], args: tuple[Any, ...], method: str = "fork") -> int:
    process = multiprocessing.get_context(method).Process(target=target, args=args)
    process.start()
    process.join(CHILD_SECONDS)
    if process.is_alive():
        process.kill()
        pytest.fail(f"child {process.pid} still ran after {CHILD_SECONDS} s")
    return process.exitcode


# ---- share_memory_ and is_shared in one process ----


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int64", "int32", "bool"])
def test_share_memory_keeps_values_dtype_shape_and_strides(dtype: str) -> None:
    torch = import_torch()
    values = np.arange(24).reshape(2, 3, 4) % 5
    for library in (minitorch, torch):
        x = library.tensor(values, dtype=getattr(library, dtype)).permute(2, 0, 1)
        before = (x.shape, x.stride(), x.storage_offset(), x.dtype, x.tolist())
        assert not x.is_shared()
        assert x.share_memory_() is x
        assert x.is_shared()
        assert (x.shape, x.stride(), x.storage_offset(), x.dtype, x.tolist()) == before


def test_views_made_before_follow_the_storage_and_a_second_call_changes_nothing() -> None:
    torch = import_torch()
    seen = []
    for library in (minitorch, torch):
        x = library.arange(6.0).reshape(2, 3)
        view = x[:, 1:]
        x.share_memory_()
        view[0, 0] = 50.0
        seen.append((view.is_shared(), x.tolist(), x.clone().is_shared(), x.t().is_shared()))
    assert seen[0] == seen[1]
    x = minitorch.ones(3).share_memory_()
    storage = x._data.storage
    assert x.share_memory_() is x and x._data.storage is storage


def test_a_tensor_from_numpy_leaves_the_array_behind_as_pytorch() -> None:
    torch = import_torch()
    seen = []
    for library in (minitorch, torch):
        array = np.arange(4.0)
        t = library.from_numpy(array).share_memory_()
        t[0] = 9.0
        seen.append((array[0], t[0].item(), t.is_shared()))
    assert seen[0] == seen[1] == (0.0, 9.0, True)


def test_empty_zero_dim_and_non_leaf_tensors_share_as_pytorch() -> None:
    torch = import_torch()
    seen = []
    for library in (minitorch, torch):
        w = library.ones(3, requires_grad=True)
        made = [library.empty(0), library.tensor(3.0), w * 2]
        seen.append([(t.share_memory_().is_shared(), t.tolist(), t.requires_grad) for t in made])
    assert seen[0] == seen[1]


def test_a_meta_tensor_cannot_be_shared_as_pytorch() -> None:
    torch = import_torch()
    messages = []
    for library in (minitorch, torch):
        with pytest.raises(RuntimeError) as caught:
            library.empty(2, device="meta").share_memory_()
        messages.append(str(caught.value))
    assert messages[0] == messages[1]


def test_module_share_memory_moves_parameters_their_grads_and_buffers() -> None:
    torch = import_torch()
    seen = []
    for library in (minitorch, torch):
        library.manual_seed(0)
        model = library.nn.Sequential(library.nn.Linear(3, 2), library.nn.BatchNorm1d(2))
        model[0].weight.grad = library.zeros(2, 3)
        weight = model[0].weight
        assert model.share_memory() is model
        tensors = [*model.parameters(), *model.buffers(), model[0].weight.grad]
        seen.append(([t.is_shared() for t in tensors], model[0].weight is weight, type(weight).__name__,
                     weight.requires_grad, model[0].bias.grad is None))
    assert seen[0] == seen[1]
    assert all(seen[0][0])


def test_a_lazy_module_cannot_be_shared_before_its_first_call() -> None:
    with pytest.raises(RuntimeError, match="uninitialized parameter"):
        minitorch.nn.LazyLinear(2).share_memory()


def test_save_and_pickle_of_a_shared_tensor_write_the_values() -> None:
    x = minitorch.arange(6.0).reshape(2, 3).share_memory_()
    buffer = io.BytesIO()
    minitorch.save({"x": x}, buffer)
    buffer.seek(0)
    loaded = minitorch.load(buffer)["x"]
    pickled = pickle.loads(pickle.dumps(x))
    x.fill_(-1.0)
    for copy in (loaded, pickled):
        assert not copy.is_shared()
        assert copy.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]


# ---- the reductions: what a queue or a spawned child's arguments carry ----


def test_multiprocessing_pickling_moves_the_sender_into_shared_memory_and_aliases() -> None:
    torch = import_torch()
    import torch.multiprocessing  # noqa: F401 - registers PyTorch's reductions

    seen = []
    for library in (minitorch, torch):
        source = library.arange(5.0)
        received = pickle.loads(ForkingPickler.dumps(source[1:]))
        received[0] = 100.0
        parameter = pickle.loads(ForkingPickler.dumps(library.nn.Parameter(library.ones(2))))
        seen.append((source.is_shared(), source.tolist(), tuple(received.shape), received.stride(),
                     type(parameter).__name__, parameter.requires_grad, parameter.is_shared()))
    assert seen[0] == seen[1]


def test_a_non_leaf_that_requires_grad_is_refused_as_pytorch() -> None:
    torch = import_torch()
    import torch.multiprocessing  # noqa: F401

    messages = []
    for library in (minitorch, torch):
        with pytest.raises(RuntimeError) as caught:
            ForkingPickler.dumps(library.ones(2, requires_grad=True) * 2)
        messages.append(str(caught.value))
    assert messages[0] == messages[1]


def test_sharing_strategies_and_reexported_names_as_pytorch() -> None:
    torch = import_torch()
    import torch.multiprocessing as torch_mp

    assert mp.get_all_sharing_strategies() == torch_mp.get_all_sharing_strategies()
    assert mp.get_sharing_strategy() == torch_mp.get_sharing_strategy()
    with pytest.raises(AssertionError, match="invalid sharing strategy 'bogus'"):
        mp.set_sharing_strategy("bogus")
    for name in ("Process", "Queue", "SimpleQueue", "Pool", "get_context", "set_start_method", "get_start_method",
                 "cpu_count", "Manager", "Pipe", "Event", "Barrier", "spawn", "start_processes", "ProcessContext",
                 "ProcessRaisedException", "ProcessExitedException"):
        assert hasattr(mp, name) and hasattr(torch_mp, name), name
    assert mp.Process is multiprocessing.Process and mp.cpu_count() == multiprocessing.cpu_count()
    assert minitorch.multiprocessing is mp


# ---- child processes ----


@FORK
def test_a_forked_child_writes_into_a_shared_tensor_the_parent_sees() -> None:
    shared = minitorch.zeros(2, 3).share_memory_()
    private = minitorch.zeros(2, 3)
    assert _run_process(children.fill_row_as_process, (shared, 1)) == 0
    assert _run_process(children.fill_row_as_process, (private, 1)) == 0
    assert shared.tolist() == [[0.0] * 3, [2.0] * 3]
    assert private.tolist() == [[0.0] * 3, [0.0] * 3]


@FORK
def test_a_queue_carries_tensors_both_ways_as_shared_memory() -> None:
    context = multiprocessing.get_context("fork")
    inbox, outbox = context.Queue(), context.Queue()
    process = context.Process(target=children.answer_through_queues, args=(inbox, outbox))
    process.start()
    try:
        sent = minitorch.zeros(4)  # not shared yet: the queue moves it
        inbox.put(sent[1:])
        child_saw_shared, from_child = outbox.get(timeout=CHILD_SECONDS)
        inbox.put("received")
    finally:
        process.join(CHILD_SECONDS)
        if process.is_alive():
            process.kill()
    assert process.exitcode == 0
    assert child_saw_shared and sent.is_shared()
    assert sent.tolist() == [0.0, 1.0, 1.0, 1.0]
    assert from_child.is_shared() and from_child.tolist() == [0.0, 10.0, 20.0]


def test_spawn_passes_each_child_its_index_and_shares_the_tensor() -> None:
    shared = minitorch.zeros(2, 2).share_memory_()
    context = mp.spawn(children.fill_row, args=(shared,), nprocs=2, join=False)
    assert len(context.pids()) == 2
    _join(context)
    assert shared.tolist() == [[1.0, 1.0], [2.0, 2.0]]


def test_spawn_with_another_start_method_warns_and_spawns(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    monkeypatch.setattr(spawn_module, "start_processes", lambda *args, **kwargs: calls.append(kwargs["start_method"]))
    with pytest.warns(FutureWarning, match="only supports start_method=spawn"):
        mp.spawn(children.fill_row, nprocs=1, start_method="fork")
    assert calls == ["spawn"]


@FORK
def test_a_child_exception_comes_back_with_its_traceback() -> None:
    context = mp.start_processes(children.raise_value_error, args=("bad batch",), nprocs=2, join=False,
                                 start_method="fork")
    with pytest.raises(mp.ProcessRaisedException) as caught:
        _join(context)
    message = str(caught.value)
    assert "terminated with the following error" in message
    assert "ValueError: bad batch in rank" in message and "Traceback" in message
    assert caught.value.error_index in (0, 1) and caught.value.error_pid in context.pids()
    assert all(not process.is_alive() for process in context.processes)


@FORK
def test_a_child_killed_by_a_signal_is_reported_by_name() -> None:
    with pytest.raises(mp.ProcessExitedException, match="process 0 terminated with signal SIGKILL") as caught:
        mp.start_processes(children.kill_self, nprocs=1, start_method="fork")
    assert caught.value.signal_name == "SIGKILL" and caught.value.exit_code == -9

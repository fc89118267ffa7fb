"""The checks that need several processes, run on every rank of one ``mpiexec -n 2`` job.

``tests/test_distributed_ranks.py`` starts this file once (each start of a rank costs an
interpreter and the Numba cache) and turns each check into one test. Every rank runs every
check, in the same order, and writes after each one ``ok`` or the traceback to
``OUT_DIR/rank<r>.json``. Oracles: NumPy for the collectives (each rank can compute every
rank's inputs, they are drawn from a seed and the rank), and single-process training on the
whole batch, run on each rank, for DistributedDataParallel.
"""

from __future__ import annotations

import json
import os
import sys
import time
import traceback
from pathlib import Path
from typing import Callable

import numpy as np

import minitorch as torch
import minitorch.distributed as dist
from minitorch import nn
from minitorch.nn.parallel import DistributedDataParallel as DDP

WORLD = 2
SEED = 1234
#: DistributedDataParallel must equal whole-batch training to this, in float64 (the issue's bar)
DDP_TOLERANCE = 1e-9
TRAIN_STEPS = 5
BATCH = 8  # each of the 2 ranks takes half
FEATURES, HIDDEN, CLASSES = 4, 6, 3

CHECKS: dict[str, Callable[[], None]] = {}


def check(fn: Callable[[], None]) -> Callable[[], None]:
    CHECKS[fn.__name__] = fn
    return fn


def rank_values(rank: int, shape: tuple[int, ...], dtype: str = "float64") -> np.ndarray:
    """Rank ``rank``'s input: every rank can compute every other rank's."""
    rng = np.random.default_rng(SEED + rank)
    if dtype.startswith("int"):
        return rng.integers(-9, 10, size=shape).astype(dtype)
    return rng.uniform(0.5, 2.0, size=shape).astype(dtype)


def all_inputs(shape: tuple[int, ...], dtype: str = "float64") -> np.ndarray:
    return np.stack([rank_values(rank, shape, dtype) for rank in range(WORLD)])


def mine(shape: tuple[int, ...], dtype: str = "float64") -> torch.Tensor:
    return torch.from_numpy(rank_values(dist.get_rank(), shape, dtype).copy())


def assert_equal(actual: torch.Tensor, expected: np.ndarray, tolerance: float = 1e-12) -> None:
    got = actual.detach().cpu().numpy()
    assert got.shape == expected.shape, (got.shape, expected.shape)
    np.testing.assert_allclose(got, expected, rtol=tolerance, atol=tolerance)


def expect_error(kind: type, text: str, fn: Callable[[], object]) -> None:
    try:
        fn()
    except kind as error:
        assert text in str(error), f"{text!r} not in {str(error)!r}"
    else:
        raise AssertionError(f"expected {kind.__name__}({text!r})")


# ---- the group ----


@check
def group_rank_and_size() -> None:
    from mpi4py import MPI

    assert dist.is_initialized() and dist.is_available()
    assert dist.get_world_size() == WORLD == MPI.COMM_WORLD.Get_size()
    assert dist.get_rank() == MPI.COMM_WORLD.Get_rank()
    assert dist.get_backend() == "mpi"
    assert dist.group.WORLD is not None and dist.group.WORLD.size() == WORLD
    expect_error(ValueError, "trying to initialize the default process group twice!", dist.init_process_group)


# ---- collectives against NumPy ----

REDUCTIONS = {
    "SUM": lambda values: values.sum(axis=0),
    "AVG": lambda values: values.mean(axis=0),
    "PRODUCT": lambda values: values.prod(axis=0),
    "MIN": lambda values: values.min(axis=0),
    "MAX": lambda values: values.max(axis=0),
}


@check
def all_reduce_every_op_float64() -> None:
    for name, reduce in REDUCTIONS.items():
        tensor = mine((3, 4))
        assert dist.all_reduce(tensor, op=getattr(dist.ReduceOp, name)) is None
        assert_equal(tensor, reduce(all_inputs((3, 4))))


@check
def all_reduce_integers_and_bitwise() -> None:
    values = all_inputs((5,), "int64")
    for name, expected in (("SUM", values.sum(0)), ("MAX", values.max(0)), ("MIN", values.min(0)),
                           ("BAND", values[0] & values[1]), ("BOR", values[0] | values[1]),
                           ("BXOR", values[0] ^ values[1]), ("AVG", np.trunc(values.sum(0) / WORLD))):
        tensor = mine((5,), "int64")
        dist.all_reduce(tensor, op=dist.ReduceOp(getattr(dist.ReduceOp, name)))
        assert tensor.dtype == torch.int64
        assert_equal(tensor, expected.astype(np.int64))


@check
def all_reduce_bool_is_logical() -> None:
    rank = dist.get_rank()
    flags = torch.tensor([rank == 0, True, False])
    dist.all_reduce(flags)  # SUM on bool: any
    assert flags.tolist() == [True, True, False]
    flags = torch.tensor([rank == 0, True, False])
    dist.all_reduce(flags, op=dist.ReduceOp.MIN)  # all
    assert flags.tolist() == [False, True, False]


@check
def all_reduce_float32_and_float16() -> None:
    for dtype in ("float32", "float16"):
        tensor = mine((4,), dtype)
        dist.all_reduce(tensor)
        assert tensor.dtype == getattr(torch, dtype)
        assert_equal(tensor, all_inputs((4,), dtype).sum(0), tolerance=1e-3)


@check
def all_reduce_views_write_through() -> None:
    # a transposed view (not contiguous: staged) and a row slice (contiguous, at an offset: no copy)
    base = mine((3, 4))
    transposed = base.T
    dist.all_reduce(transposed, op=dist.ReduceOp.MAX)
    assert_equal(base, all_inputs((3, 4)).max(0))
    base = mine((3, 4))
    row = base[1]
    dist.all_reduce(row)
    expected = rank_values(dist.get_rank(), (3, 4)).copy()
    expected[1] = all_inputs((3, 4))[:, 1].sum(0)
    assert_equal(base, expected)


@check
def all_reduce_async_handle() -> None:
    tensor = mine((6,))
    work = dist.all_reduce(tensor, async_op=True)
    assert isinstance(work, dist.Work)
    assert work.wait() is True
    assert work.is_completed() and work.is_success()
    assert work.result()[0] is tensor
    assert_equal(tensor, all_inputs((6,)).sum(0))
    polled = dist.all_reduce(mine((6,)), op=dist.ReduceOp.MAX, async_op=True)
    while not polled.is_completed():
        pass
    assert_equal(polled.result()[0], all_inputs((6,)).max(0))


@check
def all_reduce_parameter_outside_autograd() -> None:
    weight = nn.Parameter(mine((2, 2)))
    dist.all_reduce(weight, op=dist.ReduceOp.AVG)
    assert weight.requires_grad and weight.is_leaf and weight.grad_fn is None
    assert_equal(weight, all_inputs((2, 2)).mean(0))


@check
def all_reduce_cuda_goes_through_host() -> None:
    if not torch.cuda.is_available():
        return
    tensor = mine((3,)).to("cuda")
    dist.all_reduce(tensor)
    assert tensor.is_cuda
    assert_equal(tensor, all_inputs((3,)).sum(0))


@check
def reduce_to_one_rank() -> None:
    for dst in range(WORLD):
        tensor = mine((2, 3))
        dist.reduce(tensor, dst=dst, op=dist.ReduceOp.AVG)
        expected = all_inputs((2, 3)).mean(0) if dist.get_rank() == dst else rank_values(dist.get_rank(), (2, 3))
        assert_equal(tensor, expected)
    expect_error(ValueError, "Must specify global_rank or group_rank", lambda: dist.reduce(mine((1,))))
    expect_error(ValueError, "Invalid destination rank 2", lambda: dist.reduce(mine((1,)), dst=2))


@check
def broadcast_from_each_rank() -> None:
    for src in range(WORLD):
        tensor = mine((2, 2))
        work = dist.broadcast(tensor, src=src, async_op=True)
        work.wait()
        assert_equal(tensor, rank_values(src, (2, 2)))
    tensor = mine((3,))
    dist.broadcast(tensor, group_src=1)
    assert_equal(tensor, rank_values(1, (3,)))
    expect_error(ValueError, "Can't specify both", lambda: dist.broadcast(mine((1,)), src=0, group_src=0))


@check
def all_gather_lists_and_tensor() -> None:
    outputs = [torch.zeros(2, 3, dtype=torch.float64) for _ in range(WORLD)]
    dist.all_gather(outputs, mine((2, 3)))
    for rank, output in enumerate(outputs):
        assert_equal(output, rank_values(rank, (2, 3)))
    gathered = torch.zeros(WORLD * 2, 3, dtype=torch.float64)
    dist.all_gather_into_tensor(gathered, mine((2, 3)))
    assert_equal(gathered, np.concatenate([rank_values(rank, (2, 3)) for rank in range(WORLD)]))
    expect_error(ValueError, "one tensor per rank", lambda: dist.all_gather([torch.zeros(3)], torch.zeros(3)))
    expect_error(ValueError, "different dtypes",
                 lambda: dist.all_gather([torch.zeros(3)] * WORLD, torch.zeros(3, dtype=torch.float64)))


@check
def gather_to_one_rank() -> None:
    rank = dist.get_rank()
    outputs = [torch.zeros(4, dtype=torch.float64) for _ in range(WORLD)] if rank == 1 else None
    dist.gather(mine((4,)), outputs, dst=1)
    if rank == 1:
        for source, output in enumerate(outputs):
            assert_equal(output, rank_values(source, (4,)))
    if rank == 0:
        expect_error(ValueError, "Argument ``gather_list`` must be specified on destination rank.",
                     lambda: dist.gather(mine((4,)), None, dst=0))
    else:
        expect_error(ValueError, "Argument ``gather_list`` must NOT be specified on non-destination ranks.",
                     lambda: dist.gather(mine((4,)), [torch.zeros(4)] * WORLD, dst=0))


@check
def scatter_from_one_rank() -> None:
    rank = dist.get_rank()
    pieces = [torch.from_numpy(rank_values(10 + target, (2, 2))) for target in range(WORLD)] if rank == 1 else None
    received = torch.zeros(2, 2, dtype=torch.float64)
    dist.scatter(received, pieces, src=1)
    assert_equal(received, rank_values(10 + rank, (2, 2)))
    if rank == 0:
        expect_error(ValueError, "Argument ``scatter_list`` must be specified on source rank.",
                     lambda: dist.scatter(received, None))


@check
def reduce_scatter_list_and_tensor() -> None:
    rank = dist.get_rank()
    inputs = all_inputs((WORLD, 3))  # rank r sends inputs[r][target] to target
    output = torch.zeros(3, dtype=torch.float64)
    dist.reduce_scatter(output, [torch.from_numpy(inputs[rank][target].copy()) for target in range(WORLD)])
    assert_equal(output, inputs[:, rank].sum(0))
    output = torch.zeros(3, dtype=torch.float64)
    dist.reduce_scatter_tensor(output, torch.from_numpy(inputs[rank].reshape(-1).copy()), op=dist.ReduceOp.AVG)
    assert_equal(output, inputs[:, rank].mean(0))


@check
def barrier_sync_and_async() -> None:
    dist.barrier()
    work = dist.barrier(async_op=True)
    assert work.wait()


@check
def mismatched_collectives_detected_in_debug_mode() -> None:
    from minitorch.distributed.debug import CollectiveChecker

    world = dist.group.WORLD
    world.checker = CollectiveChecker()  # what TORCH_DISTRIBUTED_DEBUG=DETAIL gives at init
    try:
        dist.all_reduce(torch.ones(3))  # the same on both ranks: fine
        rank = dist.get_rank()
        expect_error(RuntimeError, "Detected mismatch between collectives on ranks. Rank "
                     f"{rank} is running collective: CollectiveFingerPrint(SequenceNumber=1, OpType=ALLREDUCE, "
                     f"TensorShape=[{3 + rank}]", lambda: dist.all_reduce(torch.ones(3 + rank)))
        expect_error(RuntimeError, "OpType=BROADCAST" if rank else "OpType=ALLREDUCE",
                     lambda: dist.broadcast(torch.ones(2), src=0) if rank else dist.all_reduce(torch.ones(2)))
    finally:
        world.checker = None


# ---- point to point ----


@check
def send_recv_and_tags() -> None:
    rank, peer = dist.get_rank(), 1 - dist.get_rank()
    if rank == 0:
        dist.send(torch.from_numpy(rank_values(20, (3,))), dst=1, tag=7)
        dist.send(torch.from_numpy(rank_values(21, (3,))), dst=1, tag=8)
    else:
        later, first = torch.zeros(3, dtype=torch.float64), torch.zeros(3, dtype=torch.float64)
        assert dist.recv(first, src=0, tag=8) == 0  # tags match messages out of their order
        assert dist.recv(later, src=0, tag=7) == 0
        assert_equal(first, rank_values(21, (3,)))
        assert_equal(later, rank_values(20, (3,)))
    expect_error(ValueError, "Invalid destination rank: destination rank should not be the same as the rank of the "
                 "current process.", lambda: dist.send(torch.zeros(1), dst=rank))
    # isend/irecv both ways at once (blocking sends here could deadlock), into a non-contiguous target
    outgoing = mine((2, 3))
    incoming = torch.zeros(3, 2, dtype=torch.float64).T
    works = [dist.isend(outgoing, dst=peer), dist.irecv(incoming, src=peer)]
    for work in works:
        work.wait()
    assert_equal(incoming, rank_values(peer, (2, 3)))


@check
def recv_from_any_source() -> None:
    rank = dist.get_rank()
    if rank == 1:
        dist.send(torch.tensor([5.0, 6.0]), dst=0)
    else:
        target = torch.zeros(2)
        assert dist.recv(target) == 1
        assert target.tolist() == [5.0, 6.0]
        dist.send(torch.tensor([1.0]), dst=1)
    if rank == 1:
        work = dist.irecv(torch.zeros(1))
        work.wait()
        assert work.source_rank() == 0


@check
def recv_too_small_is_an_error() -> None:
    if dist.get_rank() == 0:
        dist.send(torch.zeros(4), dst=1)
    else:
        expect_error(Exception, "truncated", lambda: dist.recv(torch.zeros(2), src=0))


@check
def ring_all_reduce_equals_all_reduce() -> None:
    from minitorch.distributed.ring import ring_all_reduce

    for shape in ((1,), (5,), (7, 3)):
        ring = mine(shape)
        ring_all_reduce(ring)
        assert_equal(ring, all_inputs(shape).sum(0))
    transposed = mine((3, 4)).T  # not contiguous: through a copy, written back
    ring_all_reduce(transposed)
    assert_equal(transposed, all_inputs((3, 4)).sum(0).T)


# ---- DistributedDataParallel ----


def build_model(seed: int) -> nn.Sequential:
    torch.manual_seed(seed)
    return nn.Sequential(nn.Linear(FEATURES, HIDDEN), nn.Tanh(), nn.Linear(HIDDEN, HIDDEN), nn.Tanh(),
                         nn.Linear(HIDDEN, CLASSES)).double()


def batches() -> list[tuple[torch.Tensor, torch.Tensor]]:
    rng = np.random.default_rng(SEED)
    return [(torch.from_numpy(rng.normal(size=(BATCH, FEATURES))), torch.from_numpy(rng.integers(0, CLASSES, BATCH)))
            for _ in range(TRAIN_STEPS)]


def half(tensor: torch.Tensor) -> torch.Tensor:
    share = BATCH // WORLD
    return tensor[dist.get_rank() * share:(dist.get_rank() + 1) * share]


def parameters_of(model: nn.Module) -> list[np.ndarray]:
    return [param.detach().numpy().copy() for param in model.parameters()]


def train(model: nn.Module, optimizer: torch.optim.Optimizer, split: bool) -> None:
    loss_fn = nn.CrossEntropyLoss()
    for inputs, targets in batches():
        optimizer.zero_grad()
        if split:
            inputs, targets = half(inputs), half(targets)
        loss_fn(model(inputs), targets).backward()
        optimizer.step()


OPTIMIZERS = {
    "sgd_momentum": lambda params: torch.optim.SGD(params, lr=0.1, momentum=0.9),
    "adam": lambda params: torch.optim.Adam(params, lr=0.01),
}


def ddp_equals_whole_batch(optimizer_name: str, **ddp_options: object) -> None:
    reference = build_model(100)  # rank 0's model
    ddp = DDP(build_model(100 + dist.get_rank()), **ddp_options)  # each rank starts elsewhere: rank 0's wins
    for got, expected in zip(parameters_of(ddp.module), parameters_of(reference)):
        np.testing.assert_array_equal(got, expected)
    make = OPTIMIZERS[optimizer_name]
    train(reference, make(reference.parameters()), split=False)
    train(ddp, make(ddp.parameters()), split=True)
    for got, expected in zip(parameters_of(ddp.module), parameters_of(reference)):
        np.testing.assert_allclose(got, expected, rtol=0, atol=DDP_TOLERANCE)
    assert not np.allclose(parameters_of(ddp.module)[0], parameters_of(build_model(100))[0])  # it did train


@check
def ddp_sgd_momentum_equals_whole_batch() -> None:
    ddp_equals_whole_batch("sgd_momentum")


@check
def ddp_adam_equals_whole_batch() -> None:
    ddp_equals_whole_batch("adam")


@check
def ddp_small_buckets_equal_whole_batch() -> None:
    ddp_equals_whole_batch("sgd_momentum", bucket_cap_mb=100 / 2**20)  # 100 bytes: a bucket or two per layer


@check
def ddp_buckets_in_reverse_order() -> None:
    ddp = DDP(build_model(0), bucket_cap_mb=100 / 2**20)
    params = list(ddp.module.parameters())
    buckets = [bucket.indices for bucket in ddp.reducer.buckets]
    assert [index for bucket in buckets for index in bucket] == list(reversed(range(len(params))))
    for bucket in buckets:  # each closed once it reached 100 bytes (12.5 float64), the last one may be smaller
        sizes = [params[index].numel() * 8 for index in bucket]
        assert sum(sizes[:-1]) < 100
    assert len(DDP(build_model(0)).reducer.buckets) == 1  # PyTorch's defaults: one bucket for a small model


@check
def ddp_starts_buckets_during_backward() -> None:
    """The all-reduce of the last layer's bucket is on its way before backward reaches the first layer."""
    model, buckets_started = build_model(0), []
    holder: dict[str, DDP] = {}

    def record(param: torch.Tensor) -> None:  # registered before DDP's hook: runs just before it
        buckets_started.append([bucket.work is not None for bucket in holder["ddp"].reducer.buckets])

    model[0].weight.register_post_accumulate_grad_hook(record)
    holder["ddp"] = DDP(model, bucket_cap_mb=100 / 2**20)  # buckets [b2 W2] [b1 W1] [b0 W0]
    inputs, targets = batches()[0]
    nn.CrossEntropyLoss()(holder["ddp"](half(inputs)), half(targets)).backward()
    assert buckets_started == [[True, True, False]], (buckets_started, [b.indices for b in holder["ddp"].reducer.buckets])
    assert all(bucket.work.is_completed() for bucket in holder["ddp"].reducer.buckets)  # all waited for


@check
def ddp_no_sync_accumulates_then_averages() -> None:
    reference = build_model(0)
    ddp = DDP(build_model(0))
    loss_fn = nn.CrossEntropyLoss()
    data = batches()
    for inputs, targets in data[:3]:
        loss_fn(reference(inputs), targets).backward()
    with ddp.no_sync():
        for inputs, targets in data[:2]:
            loss_fn(ddp(half(inputs)), half(targets)).backward()
        local = ddp.module[0].weight.grad.numpy().copy()
    others = [torch.zeros(*local.shape, dtype=torch.float64) for _ in range(WORLD)]
    dist.all_gather(others, torch.from_numpy(local))
    assert not np.allclose(others[0].numpy(), others[1].numpy())  # not averaged inside no_sync
    inputs, targets = data[2]
    loss_fn(ddp(half(inputs)), half(targets)).backward()
    for got, expected in zip(ddp.module.parameters(), reference.parameters()):
        np.testing.assert_allclose(got.grad.numpy(), expected.grad.numpy(), rtol=0, atol=DDP_TOLERANCE)


class TwoHeads(nn.Module):
    """Head ``a`` is used on rank 0 only, head ``b`` on no rank."""

    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Linear(FEATURES, HIDDEN).double()
        self.a = nn.Linear(HIDDEN, 1).double()
        self.b = nn.Linear(HIDDEN, 1).double()

    def forward(self, inputs: torch.Tensor, use_a: bool) -> torch.Tensor:
        hidden = self.body(inputs).tanh()
        return self.a(hidden).sum() + hidden.sum() if use_a else hidden.sum()


@check
def ddp_find_unused_parameters() -> None:
    torch.manual_seed(0)
    ddp = DDP(TwoHeads(), find_unused_parameters=True)
    inputs = torch.from_numpy(rank_values(dist.get_rank(), (2, FEATURES)))
    ddp(inputs, use_a=dist.get_rank() == 0).backward()
    assert ddp.module.b.weight.grad is None and ddp.module.b.bias.grad is None  # no rank used it
    # head a: rank 0's gradient averaged with rank 1's zeros, on both ranks
    torch.manual_seed(0)
    single = TwoHeads()
    single(torch.from_numpy(rank_values(0, (2, FEATURES))), use_a=True).backward()
    np.testing.assert_allclose(ddp.module.a.weight.grad.numpy(), single.a.weight.grad.numpy() / WORLD, atol=1e-12)
    # and the next iteration runs (every bucket was reduced)
    ddp(inputs, use_a=True).backward()


@check
def ddp_unused_parameter_without_detection_is_reported() -> None:
    torch.manual_seed(0)
    ddp = DDP(TwoHeads())
    inputs = torch.from_numpy(rank_values(dist.get_rank(), (2, FEATURES)))
    ddp(inputs, use_a=True).backward()
    expect_error(RuntimeError, "Expected to have finished reduction in the prior iteration", lambda: ddp(inputs, True))


@check
def ddp_state_dict_and_buffers() -> None:
    torch.manual_seed(dist.get_rank())
    module = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2))
    module[1].running_mean.fill_(float(dist.get_rank() + 1))
    ddp = DDP(module)
    assert list(ddp.state_dict()) == ["module." + key for key in module.state_dict()]
    assert ddp.module is module
    assert module[1].running_mean.tolist() == [1.0, 1.0]  # rank 0's buffers, broadcast at construction
    ddp.load_state_dict(ddp.state_dict())
    assert sorted(dict(ddp.named_parameters())) == sorted("module." + name for name, _ in module.named_parameters())


@check
def ddp_errors() -> None:
    frozen = nn.Linear(2, 2)
    frozen.requires_grad_(False)
    expect_error(RuntimeError, "DistributedDataParallel is not needed when a module doesn't have any parameter that "
                 "requires a gradient.", lambda: DDP(frozen))
    torch.manual_seed(0)
    different = nn.Linear(2, 2 + dist.get_rank())
    expect_error(RuntimeError, "appears not to match sizes of the same param in process 0"
                 if dist.get_rank() else "", lambda: _verify_or_raise(different))
    more = nn.Sequential(*[nn.Linear(2, 2) for _ in range(1 + dist.get_rank())])
    expect_error(RuntimeError, "DDP expects same model across all ranks, but Rank", lambda: DDP(more))


def _verify_or_raise(module: nn.Module) -> None:
    from minitorch.nn.parallel.distributed import _verify_param_shapes_across_processes

    _verify_param_shapes_across_processes(dist.group.WORLD, list(module.parameters()))
    raise RuntimeError("")  # rank 0 matches itself: nothing to report


# ---- minitorch train --distributed: checkpoints by rank 0, resume equal to an uninterrupted run ----

OUT_DIR = Path(".")
QUICK_TRAIN = ["--distributed", "--dataset", "xor", "--epochs", "4", "--points", "40", "--hidden", "8",
               "--no-progress"]


class Interrupted(Exception):
    """Stands for a run killed between two epochs."""


@check
def train_resume_equals_uninterrupted() -> None:
    from minitorch import train

    def options(name: str) -> list[str]:
        return QUICK_TRAIN + ["--out", str(OUT_DIR / f"{name}.png"), "--checkpoint", str(OUT_DIR / f"{name}.pt")]

    whole = train.main(options("whole"))
    epochs_run = []
    original = train.train_epoch

    def stop_at_third(*args: object) -> tuple[float, float]:
        if len(epochs_run) == 2:
            raise Interrupted
        epochs_run.append(1)
        return original(*args)

    train.train_epoch = stop_at_third
    try:
        train.main(options("cut"))
    except Interrupted:
        pass
    finally:
        train.train_epoch = original
    assert torch.load(OUT_DIR / "cut.pt")["epoch"] == 2
    resumed = train.main(options("cut") + ["--resume"])
    for got, expected in zip(resumed.model.parameters(), whole.model.parameters()):
        np.testing.assert_array_equal(got.detach().numpy(), expected.detach().numpy())
    assert resumed.history.train_loss == whole.history.train_loss
    saved = torch.load(OUT_DIR / "whole.pt")
    assert saved["epoch"] == 4 and list(saved["model"]) == list(whole.model.state_dict())  # no "module." prefix


def main(out_dir: str) -> None:
    global OUT_DIR
    OUT_DIR = Path(out_dir)
    dist.init_process_group(backend="mpi")
    path = Path(out_dir) / f"rank{dist.get_rank()}.json"
    results: dict[str, str] = {}
    for name, fn in CHECKS.items():
        started = time.perf_counter()
        try:
            fn()
            results[name] = "ok"
            if os.environ.get("DISTRIBUTED_WORKER_TIMES"):
                print(f"{name}: {time.perf_counter() - started:.2f} s", flush=True)
        except Exception:  # noqa: BLE001 - reported per check to the test that reads the file
            results[name] = traceback.format_exc()
        path.write_text(json.dumps(results, indent=1))
        dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main(sys.argv[1])

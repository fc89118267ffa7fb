"""``minitorch.distributed`` in one process: what holds before ``init_process_group`` (PyTorch's
errors), ``ReduceOp``, the post-accumulate-grad hook DDP is built on, the bucket assignment, the
zero-copy buffers, and ``DistributedSampler`` against PyTorch's. The collectives themselves run
on 2 ranks in ``test_distributed_ranks.py``.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import minitorch
import minitorch.distributed as dist
from minitorch import nn
from minitorch.distributed import process_group
from minitorch.distributed.tensor_buffer import HostBuffer
from minitorch.nn.parallel.reducer import assign_buckets, parameters_reached
from minitorch.utils.data import DistributedSampler

# ---- before init_process_group: PyTorch's errors ----

BEFORE_INIT = {
    "get_rank": lambda lib: lib.distributed.get_rank(),
    "get_world_size": lambda lib: lib.distributed.get_world_size(),
    "all_reduce": lambda lib: lib.distributed.all_reduce(lib.ones(2)),
    "broadcast": lambda lib: lib.distributed.broadcast(lib.ones(2), src=0),
    "barrier": lambda lib: lib.distributed.barrier(),
    "send": lambda lib: lib.distributed.send(lib.ones(1), 1),
    "destroy_process_group": lambda lib: lib.distributed.destroy_process_group(),
    "DistributedDataParallel": lambda lib: lib.nn.parallel.DistributedDataParallel(lib.nn.Linear(2, 2)),
    "DistributedSampler": lambda lib: lib.utils.data.distributed.DistributedSampler(list(range(4))),
}


@pytest.mark.parametrize("name", sorted(BEFORE_INIT))
def test_use_before_init_process_group_raises_torch_error(torch_ref, name: str) -> None:
    import torch.distributed  # noqa: F401 - makes torch_ref.distributed importable as an attribute
    import torch.nn.parallel  # noqa: F401
    import torch.utils.data.distributed  # noqa: F401

    assert not dist.is_initialized() and not torch_ref.distributed.is_initialized()
    with pytest.raises(Exception) as expected:
        BEFORE_INIT[name](torch_ref)
    with pytest.raises(type(expected.value)) as got:
        BEFORE_INIT[name](minitorch)
    assert str(got.value) == str(expected.value)


def test_only_the_mpi_backend(monkeypatch: pytest.MonkeyPatch) -> None:
    for backend in ("gloo", "nccl", "NCCL"):
        with pytest.raises(ValueError, match=f"only the 'mpi' backend, not '{backend}'"):
            dist.init_process_group(backend)
    with pytest.raises(ValueError, match="Invalid backend: 'tcp'"):
        dist.init_process_group("tcp")
    monkeypatch.setattr(process_group, "is_available", lambda: False)
    with pytest.raises(RuntimeError, match="Distributed package doesn't have MPI built in"):
        dist.init_process_group()
    assert not dist.is_initialized()


def test_minitorch_imports_without_importing_mpi4py() -> None:
    """Importing mpi4py.MPI starts MPI: only init_process_group may do it."""
    code = "import sys, minitorch; print(minitorch.distributed.is_available(), 'mpi4py' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                          cwd=str(_root()))
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [str(dist.is_available()), "False"]


def _root():
    from pathlib import Path

    return Path(minitorch.__file__).resolve().parent.parent


def test_debug_detail_turns_on_the_collective_check(monkeypatch: pytest.MonkeyPatch) -> None:
    from minitorch.distributed import debug

    monkeypatch.delenv(debug.VARIABLE, raising=False)
    assert debug.enabled_checker() is None
    monkeypatch.setenv(debug.VARIABLE, "DETAIL")
    assert isinstance(debug.enabled_checker(), debug.CollectiveChecker)
    printed = debug.describe(debug.fingerprint(4, "REDUCE", minitorch.zeros(2, 3), 1, int(dist.ReduceOp.MAX)))
    assert printed == ("CollectiveFingerPrint(SequenceNumber=4, OpType=REDUCE, TensorShape=[2, 3], "
                       "TensorDtypes=minitorch.float32, Root=1, ReduceOp=MAX)")


def test_reduce_op_matches_torch(torch_ref) -> None:
    import torch.distributed as tdist

    for name in ("SUM", "AVG", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR"):
        ours, theirs = getattr(dist.ReduceOp, name), getattr(tdist.ReduceOp, name)
        assert int(ours) == int(theirs) and ours.name == theirs.name
        assert dist.ReduceOp(ours) == ours
    with pytest.raises(TypeError, match="must be a torch.distributed.ReduceOp"):
        dist.ReduceOp("sum")


# ---- the hook DDP hangs its all-reduce on ----


def test_post_accumulate_grad_hook_matches_torch(torch_ref) -> None:
    def run(lib):
        weight = lib.tensor([1.0, -2.0, 3.0], dtype=lib.float64, requires_grad=True)
        seen = []

        def hook(param):
            seen.append(param.grad.tolist())  # the summed gradient, already in .grad
            param.grad.mul_(10)

        handle = weight.register_post_accumulate_grad_hook(hook)
        ((weight * weight).sum() + (weight * 3).sum()).backward()  # two paths into one leaf: one call
        (weight * 2).sum().backward()
        handle.remove()
        (weight * 2).sum().backward()
        lib.autograd.grad((weight * weight).sum(), weight)  # no accumulation: no call
        return seen, weight.grad.tolist()

    assert run(minitorch) == run(torch_ref)


@pytest.mark.parametrize("case", ["non-leaf", "no grad"])
def test_post_accumulate_grad_hook_errors_match_torch(torch_ref, case: str) -> None:
    def register(lib):
        leaf = lib.ones(2, requires_grad=case == "non-leaf")
        (leaf * 2 if case == "non-leaf" else leaf).register_post_accumulate_grad_hook(lambda p: None)

    with pytest.raises(RuntimeError) as expected:
        register(torch_ref)
    with pytest.raises(RuntimeError, match=str(expected.value)):
        register(minitorch)


# ---- buckets, buffers ----


def test_buckets_fill_in_reverse_order_up_to_the_cap() -> None:
    sizes = [4, 2, 6, 1, 3]  # float32: 16, 8, 24, 4, 12 bytes
    params = [nn.Parameter(minitorch.zeros(n)) for n in sizes]
    # reverse order 4,3,2,1,0 with 16-byte buckets: [12+4] [24] [8+16]; the first bucket's cap is 8 bytes: [12]
    assert assign_buckets(params, bucket_cap=16, first_bucket_cap=16) == [[4, 3], [2], [1, 0]]
    assert assign_buckets(params, bucket_cap=16, first_bucket_cap=8) == [[4], [3, 2], [1, 0]]
    assert assign_buckets(params, bucket_cap=10**6, first_bucket_cap=10**6) == [[4, 3, 2, 1, 0]]
    mixed = [nn.Parameter(minitorch.zeros(2, dtype=minitorch.float64)), nn.Parameter(minitorch.zeros(2)),
             nn.Parameter(minitorch.zeros(2, dtype=minitorch.float64))]
    assert assign_buckets(mixed, bucket_cap=10**6, first_bucket_cap=10**6) == [[2, 0], [1]]  # one dtype each


def test_parameters_reached_by_the_output_graph() -> None:
    used, unused = nn.Linear(2, 2), nn.Linear(2, 2)
    out = {"logits": [used(minitorch.ones(1, 2))], "count": 3}
    reached = parameters_reached(out)
    assert {id(used.weight), id(used.bias)} <= reached
    assert not {id(unused.weight), id(unused.bias)} & reached


def test_contiguous_tensors_reach_mpi_without_a_copy() -> None:
    base = minitorch.arange(12, dtype=minitorch.float64).reshape(3, 4)
    row = HostBuffer(base[1])  # contiguous, at an offset
    assert not row.staged and np.shares_memory(row.array, base.numpy())
    row.array[:] = -1
    row.commit()
    assert base[1].tolist() == [-1.0] * 4 and base._version >= 1
    column = HostBuffer(base[:, 2])  # strided: staged through a copy, written back on commit
    assert column.staged and not np.shares_memory(column.array, base.numpy())
    column.array[:] = 7
    column.commit()
    assert base[:, 2].tolist() == [7.0] * 3


def test_ring_chunks_and_cost_model() -> None:
    from minitorch.distributed.ring import chunk_bounds, ring_all_reduce_seconds

    assert chunk_bounds(7, 3) == [(0, 3), (3, 5), (5, 7)]
    assert chunk_bounds(2, 4) == [(0, 1), (1, 2), (2, 2), (2, 2)]
    # p = 4, n = 8 bytes, alpha = 1, beta = 0.5: 2*3*1 + 2*(3/4)*8*0.5 = 6 + 6
    assert ring_all_reduce_seconds(4, 8, 1.0, 0.5) == 12.0
    assert ring_all_reduce_seconds(1, 8, 1.0, 0.5) == 0.0
    with pytest.raises(ValueError, match="ranks must be at least 1, got 0"):
        ring_all_reduce_seconds(0, 8, 1.0, 0.5)


# ---- DistributedSampler against PyTorch's ----


@pytest.mark.parametrize("size", [0, 1, 7, 8, 10])
@pytest.mark.parametrize("replicas", [1, 3, 4])
@pytest.mark.parametrize("drop_last", [False, True])
def test_sampler_without_shuffle_equals_torch(torch_ref, size: int, replicas: int, drop_last: bool) -> None:
    from torch.utils.data.distributed import DistributedSampler as TorchSampler

    data = list(range(size))
    for rank in range(replicas):
        ours = DistributedSampler(data, num_replicas=replicas, rank=rank, shuffle=False, drop_last=drop_last)
        theirs = TorchSampler(data, num_replicas=replicas, rank=rank, shuffle=False, drop_last=drop_last)
        assert list(ours) == list(theirs) and len(ours) == len(theirs)
        assert (ours.num_samples, ours.total_size) == (theirs.num_samples, theirs.total_size)


@pytest.mark.parametrize("drop_last", [False, True])
def test_sampler_with_shuffle_equals_torch_on_the_same_permutation(torch_ref, monkeypatch: pytest.MonkeyPatch,
                                                                    drop_last: bool) -> None:
    """minitorch's generator is not PyTorch's, so torch's sampler is handed minitorch's permutation
    for its seed: from there the padding, cutting and striding must agree."""
    from torch.utils.data.distributed import DistributedSampler as TorchSampler

    def minitorch_randperm(n, generator):
        drawn = minitorch.randperm(n, generator=minitorch.Generator().manual_seed(generator.initial_seed()))
        return torch_ref.tensor(drawn.tolist(), dtype=torch_ref.int64)

    monkeypatch.setattr(torch_ref, "randperm", minitorch_randperm)
    data = list(range(11))
    for epoch in (0, 3):
        for rank in range(4):
            ours = DistributedSampler(data, num_replicas=4, rank=rank, seed=5, drop_last=drop_last)
            theirs = TorchSampler(data, num_replicas=4, rank=rank, seed=5, drop_last=drop_last)
            ours.set_epoch(epoch)
            theirs.set_epoch(epoch)
            assert list(ours) == list(theirs)


def test_sampler_shares_cover_without_overlap() -> None:
    data = list(range(12))
    shares = [list(DistributedSampler(data, num_replicas=3, rank=rank, seed=1)) for rank in range(3)]
    assert sorted(sum(shares, [])) == data
    again = [list(DistributedSampler(data, num_replicas=3, rank=rank, seed=1)) for rank in range(3)]
    assert again == shares  # every rank draws the same permutation
    sampler = DistributedSampler(data, num_replicas=3, rank=0, seed=1)
    sampler.set_epoch(1)
    assert list(sampler) != shares[0]
    with pytest.raises(ValueError, match=r"Invalid rank 3, rank should be in the interval \[0, 2\]"):
        DistributedSampler(data, num_replicas=3, rank=3)

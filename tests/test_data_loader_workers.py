"""``DataLoader(num_workers > 0)``: batches made in worker processes, handed out in the sampler's
order, equal to the batches made without workers; ``get_worker_info``, seeds, ``worker_init_fn``,
iterable datasets split by worker, persistent workers, errors and timeouts as PyTorch's."""

from __future__ import annotations

import os
import time
from types import ModuleType
from typing import Any

import pytest

import minitorch
from minitorch.utils.data import DataLoader, Dataset, IterableDataset, TensorDataset, get_worker_info

WORKERS = 2


class Squares(Dataset):
    """Sample ``i`` is ``(i*i, the id of the worker that made it, that worker's pid)``."""

    def __len__(self) -> int:
        return 10

    def __getitem__(self, index: int) -> Any:
        info = get_worker_info()
        return minitorch.tensor([float(index * index)]), (info.id if info else -1), os.getpid()


class Broken(Squares):
    def __getitem__(self, index: int) -> Any:
        if index == 4:
            raise ValueError("sample 4 is broken")
        return super().__getitem__(index)


class Slow(Squares):
    def __getitem__(self, index: int) -> Any:
        time.sleep(5)
        return super().__getitem__(index)


class Counting(IterableDataset):
    """0..6, each worker taking every ``num_workers``-th number (the split PyTorch's docs show)."""

    def __iter__(self) -> Any:
        info = get_worker_info()
        start, step = (info.id, info.num_workers) if info else (0, 1)
        return iter(range(start, 7, step))


class SeedEcho(Dataset):
    def __len__(self) -> int:
        return 4

    def __getitem__(self, index: int) -> Any:
        info = get_worker_info()
        return info.seed, float(minitorch.rand(1).item())


def values(batches: list[Any]) -> list[list[float]]:
    return [batch[0].view(-1).tolist() for batch in batches]


def test_batches_come_in_sampler_order_from_several_processes() -> None:
    batches = list(DataLoader(Squares(), batch_size=3, num_workers=WORKERS))
    assert values(batches) == [[0.0, 1.0, 4.0], [9.0, 16.0, 25.0], [36.0, 49.0, 64.0], [81.0]]
    workers = [batch[1].tolist() for batch in batches]
    assert workers == [[0] * 3, [1] * 3, [0] * 3, [1]]  # dealt round-robin, as PyTorch
    pids = {pid for batch in batches for pid in batch[2].tolist()}
    assert len(pids) == WORKERS and os.getpid() not in pids


def test_shuffled_batches_equal_those_made_without_workers() -> None:
    data = TensorDataset(minitorch.arange(20.0).view(10, 2), minitorch.arange(10))

    def labels(workers: int) -> list[list[int]]:
        loader = DataLoader(data, batch_size=4, shuffle=True, num_workers=workers,
                            generator=minitorch.Generator().manual_seed(3))
        return [yb.tolist() for _, yb in loader]

    assert labels(WORKERS) == labels(0)


def test_iterable_dataset_split_by_worker_as_torch(torch_ref: ModuleType) -> None:
    ours = [b.tolist() for b in DataLoader(Counting(), batch_size=2, num_workers=WORKERS)]
    torch_data = type("TorchCounting", (torch_ref.utils.data.IterableDataset,), {
        "__iter__": lambda self: iter(range(torch_ref.utils.data.get_worker_info().id, 7,
                                            torch_ref.utils.data.get_worker_info().num_workers)),
    })
    theirs = [b.tolist() for b in torch_ref.utils.data.DataLoader(torch_data(), batch_size=2, num_workers=WORKERS)]
    assert ours == theirs == [[0, 2], [1, 3], [4, 6], [5]]


def test_each_worker_is_seeded_base_seed_plus_its_id() -> None:
    minitorch.manual_seed(0)
    first = list(DataLoader(SeedEcho(), batch_size=None, num_workers=WORKERS))
    minitorch.manual_seed(0)
    again = list(DataLoader(SeedEcho(), batch_size=None, num_workers=WORKERS))
    assert first == again  # reproducible from the main process's seed
    seeds = [seed for seed, _ in first]
    assert seeds[1] == seeds[0] + 1 and seeds[2] == seeds[0]  # sample 2 is worker 0's again
    assert first[0][1] != first[1][1]  # the workers' generators differ


def test_worker_init_fn_runs_in_each_worker(tmp_path: Any) -> None:
    def mark(worker_id: int) -> None:
        (tmp_path / f"worker-{worker_id}").write_text(str(os.getpid()))

    list(DataLoader(Squares(), batch_size=5, num_workers=WORKERS, worker_init_fn=mark))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["worker-0", "worker-1"]


def test_persistent_workers_serve_every_epoch_even_after_a_break() -> None:
    loader = DataLoader(Squares(), batch_size=4, num_workers=WORKERS, persistent_workers=True)
    first = list(loader)
    pids = {pid for batch in first for pid in batch[2].tolist()}
    for _ in loader:
        break  # an epoch left unfinished: its answers in flight must not leak into the next
    second = list(loader)
    assert values(second) == values(first)
    assert {pid for batch in second for pid in batch[2].tolist()} == pids  # the same processes
    streams = DataLoader(Counting(), batch_size=2, num_workers=WORKERS, persistent_workers=True)
    assert [b.tolist() for b in streams] == [b.tolist() for b in streams]  # each epoch's streams start over


def test_a_worker_exception_is_raised_with_its_traceback() -> None:
    with pytest.raises(ValueError) as caught:
        list(DataLoader(Broken(), batch_size=2, num_workers=WORKERS))
    message = str(caught.value)
    assert message.startswith("Caught ValueError in DataLoader worker process 0.")
    assert "Original Traceback" in message and "sample 4 is broken" in message


def test_timeout_raises_as_torch() -> None:
    with pytest.raises(RuntimeError, match="DataLoader timed out after 1 seconds"):
        list(DataLoader(Slow(), batch_size=1, num_workers=1, timeout=1))


@pytest.mark.parametrize(("options", "words"), [
    ({"num_workers": 0, "prefetch_factor": 2}, "prefetch_factor option could only be specified in multiprocessing"),
    ({"num_workers": 0, "persistent_workers": True}, "persistent_workers option needs num_workers > 0"),
])
def test_worker_options_without_workers_are_refused_as_torch(options: dict, words: str, torch_ref: ModuleType) -> None:
    for loader in (DataLoader, torch_ref.utils.data.DataLoader):
        with pytest.raises(ValueError, match=words):
            loader(list(range(4)), **options)

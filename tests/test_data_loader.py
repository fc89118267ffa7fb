"""``utils.data``: batching, collation, shuffling, splitting; PyTorch's loader as the oracle."""

from __future__ import annotations

import collections
import math
from typing import Any

import numpy as np
import pytest

import minitorch
from minitorch.utils.data import (
    BatchSampler, DataLoader, Dataset, IterableDataset, RandomSampler, SequentialSampler, Subset, TensorDataset,
    default_collate, random_split,
)

N = 23
FEATURES = 3
SEED = 5
Point = collections.namedtuple("Point", ["x", "label"])


def _tensors(lib: Any) -> tuple[Any, Any]:
    values = np.arange(N * FEATURES, dtype=np.float32).reshape(N, FEATURES)
    return lib.tensor(values), lib.tensor(np.arange(N) % 4)


def _numpy(batch: Any) -> Any:
    """A batch (from either framework) with every tensor replaced by a NumPy array."""
    if hasattr(batch, "detach"):
        return batch.detach().numpy()
    if isinstance(batch, dict):
        return {key: _numpy(value) for key, value in batch.items()}
    if isinstance(batch, (list, tuple)):
        return type(batch)(_numpy(value) for value in batch) if not hasattr(batch, "_fields") else \
            type(batch)(*(_numpy(value) for value in batch))
    return batch


def _assert_same(ours: Any, theirs: Any) -> None:
    assert type(ours) is type(theirs) or (isinstance(ours, np.ndarray) and isinstance(theirs, np.ndarray))
    if isinstance(ours, np.ndarray):
        assert ours.shape == theirs.shape
        assert ours.dtype == theirs.dtype
        np.testing.assert_array_equal(ours, theirs)
    elif isinstance(ours, dict):
        assert list(ours) == list(theirs)
        for key in ours:
            _assert_same(ours[key], theirs[key])
    elif isinstance(ours, (list, tuple)):
        assert len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            _assert_same(a, b)
    else:
        assert ours == theirs


class _Rows(Dataset):
    """A map-style dataset that is not a TensorDataset (so the loader collates sample by sample)."""

    def __init__(self, X: Any, y: Any) -> None:  # noqa: N803
        self.X, self.y = X, y

    def __getitem__(self, index: int) -> tuple[Any, Any]:
        return self.X[index], self.y[index]

    def __len__(self) -> int:
        return len(self.X)


# ---- batching (9.2) ----


@pytest.mark.task("9.2")
@pytest.mark.parametrize("batch_size", [1, 4, 23, 50])
@pytest.mark.parametrize("drop_last", [False, True])
def test_sequential_batches_match_torch(backend: str, torch_ref: Any, batch_size: int, drop_last: bool) -> None:
    ours = DataLoader(TensorDataset(*_tensors(minitorch)), batch_size=batch_size, drop_last=drop_last)
    theirs = torch_ref.utils.data.DataLoader(
        torch_ref.utils.data.TensorDataset(*_tensors(torch_ref)), batch_size=batch_size, drop_last=drop_last)
    assert len(ours) == len(theirs)
    our_batches, their_batches = [_numpy(b) for b in ours], [_numpy(b) for b in theirs]
    assert len(our_batches) == len(their_batches) == len(ours)
    for a, b in zip(our_batches, their_batches):
        _assert_same(a, b)


@pytest.mark.task("9.2")
def test_tensor_dataset_gather_equals_sample_by_sample_collation(backend: str) -> None:
    X, y = _tensors(minitorch)  # noqa: N806
    fast = list(DataLoader(TensorDataset(X, y), batch_size=5))
    slow = list(DataLoader(_Rows(X, y), batch_size=5))
    assert len(fast) == len(slow) == math.ceil(N / 5)
    for a, b in zip(fast, slow):
        _assert_same(_numpy(a), _numpy(b))


SAMPLES = {
    "tuple": [(np.float32(i) * np.ones(2, dtype=np.float32), i) for i in range(4)],
    "dict": [{"image": np.full((2, 2), i, dtype=np.float32), "label": i, "weight": 0.5 * i} for i in range(3)],
    "nested-list": [[i, [float(i), float(-i)]] for i in range(3)],
    "namedtuple": [Point(x=np.array([i, i + 1], dtype=np.float64), label=i) for i in range(3)],
    "strings": [("a", 1), ("b", 2)],
    "bools": [True, False, True],
    "numpy-scalars": [np.int32(i) for i in range(3)],
}


def _to_lib(lib: Any, sample: Any) -> Any:
    """The sample with NumPy arrays turned into ``lib`` tensors (scalars stay Python/NumPy values)."""
    if isinstance(sample, np.ndarray):
        return lib.tensor(sample)
    if isinstance(sample, dict):
        return {key: _to_lib(lib, value) for key, value in sample.items()}
    if hasattr(sample, "_fields"):
        return type(sample)(*(_to_lib(lib, value) for value in sample))
    if isinstance(sample, (list, tuple)):
        return type(sample)(_to_lib(lib, value) for value in sample)
    return sample


@pytest.mark.task("9.2")
@pytest.mark.parametrize("case", sorted(SAMPLES))
@pytest.mark.parametrize("arrays", ["tensors", "numpy"])
def test_default_collate_matches_torch(backend: str, torch_ref: Any, case: str, arrays: str) -> None:
    samples = SAMPLES[case]
    ours = samples if arrays == "numpy" else [_to_lib(minitorch, s) for s in samples]
    theirs = samples if arrays == "numpy" else [_to_lib(torch_ref, s) for s in samples]
    _assert_same(_numpy(default_collate(ours)), _numpy(torch_ref.utils.data.default_collate(theirs)))


@pytest.mark.task("9.2")
def test_collate_errors_match_torch(torch_ref: Any) -> None:
    for collate in (default_collate, torch_ref.utils.data.default_collate):
        assert collate([[1, 2], [3, 4]])[1].tolist() == [2, 4]
        with pytest.raises(RuntimeError, match="each element in list of batch should be of equal size"):
            collate([[1, 2], [3]])
        with pytest.raises(TypeError, match="batch must contain tensors, numpy arrays, numbers, dicts or lists"):
            collate([object(), object()])


@pytest.mark.task("9.2")
def test_batch_sampler_and_custom_collate(torch_ref: Any) -> None:
    for drop_last in (False, True):
        ours = list(BatchSampler(SequentialSampler(range(10)), 3, drop_last))
        theirs = list(torch_ref.utils.data.BatchSampler(range(10), 3, drop_last))
        assert ours == theirs
        assert len(BatchSampler(SequentialSampler(range(10)), 3, drop_last)) == len(theirs)
    loader = DataLoader(list(range(7)), batch_size=3, collate_fn=lambda batch: sum(batch))
    assert list(loader) == [0 + 1 + 2, 3 + 4 + 5, 6]
    by_pairs = DataLoader(list(range(6)), batch_sampler=[[0, 5], [2, 3]])
    assert [b.tolist() for b in by_pairs] == [[0, 5], [2, 3]]
    unbatched = DataLoader([np.array([1.0, 2.0]), np.array([3.0, 4.0])], batch_size=None)
    assert [b.tolist() for b in unbatched] == [[1.0, 2.0], [3.0, 4.0]]


class _Stream(IterableDataset):
    def __init__(self, count: int) -> None:
        self.count = count

    def __iter__(self) -> Any:
        return iter(range(self.count))

    def __len__(self) -> int:
        return self.count


@pytest.mark.task("9.2")
def test_iterable_dataset_is_batched_in_order(torch_ref: Any) -> None:
    for drop_last in (False, True):
        ours = [b.tolist() for b in DataLoader(_Stream(10), batch_size=4, drop_last=drop_last)]
        assert ours == [list(range(0, 4)), list(range(4, 8))] + ([] if drop_last else [[8, 9]])
        assert len(DataLoader(_Stream(10), batch_size=4, drop_last=drop_last)) == len(ours)
    with pytest.raises(ValueError, match="expected unspecified shuffle option, but got shuffle=True"):
        DataLoader(_Stream(3), shuffle=True)


def test_loader_errors_match_torch(torch_ref: Any) -> None:
    data = list(range(5))
    cases = [
        ({"batch_size": 0}, ValueError, "batch_size should be a positive integer value, but got batch_size=0"),
        ({"sampler": [0, 1], "shuffle": True}, ValueError, "sampler option is mutually exclusive with shuffle"),
        ({"batch_sampler": [[0]], "batch_size": 2}, ValueError, "batch_sampler option is mutually exclusive"),
        ({"num_workers": -1}, ValueError, "num_workers option should be non-negative"),
    ]
    for options, error, words in cases:
        for loader in (DataLoader, torch_ref.utils.data.DataLoader):
            with pytest.raises(error, match=words):
                loader(data, **options)
    for dataset in (TensorDataset, torch_ref.utils.data.TensorDataset):
        lib = minitorch if dataset is TensorDataset else torch_ref
        with pytest.raises(AssertionError, match="Size mismatch between tensors"):
            dataset(lib.zeros(3), lib.zeros(4))


# ---- shuffling and splitting (9.3) ----


def _epoch(loader: DataLoader) -> list[list[int]]:
    return [batch[1].tolist() for batch in loader]


def _indexed_loader(**options: Any) -> DataLoader:
    return DataLoader(TensorDataset(minitorch.zeros(N, 1), minitorch.arange(N)), batch_size=4, **options)


@pytest.mark.task("9.3")
def test_seeded_shuffle_gives_the_same_batches_on_rerun() -> None:
    runs = []
    for _ in range(2):
        minitorch.manual_seed(SEED)
        loader = _indexed_loader(shuffle=True)
        runs.append([_epoch(loader), _epoch(loader)])
    assert runs[0] == runs[1]
    first, second = runs[0]
    assert first != second, "two epochs should be shuffled differently"
    for epoch in (first, second):
        flat = [i for batch in epoch for i in batch]
        assert sorted(flat) == list(range(N)) and flat != list(range(N))
        assert [len(batch) for batch in epoch] == [4] * (N // 4) + [N % 4]
    minitorch.manual_seed(SEED + 1)
    assert _epoch(_indexed_loader(shuffle=True)) != first


@pytest.mark.task("9.3")
def test_generator_makes_shuffling_independent_of_the_global_seed() -> None:
    orders = []
    for global_seed in (1, 2):
        minitorch.manual_seed(global_seed)
        orders.append(_epoch(_indexed_loader(shuffle=True, generator=minitorch.Generator().manual_seed(SEED))))
    assert orders[0] == orders[1]
    generator = minitorch.Generator().manual_seed(SEED)
    state = generator.get_state()
    loader = _indexed_loader(shuffle=True, generator=generator)
    first = _epoch(loader)
    generator.set_state(state)
    assert _epoch(loader) == first


@pytest.mark.task("9.3")
def test_shuffle_drop_last_keeps_full_batches_only() -> None:
    minitorch.manual_seed(SEED)
    epoch = _epoch(_indexed_loader(shuffle=True, drop_last=True))
    assert [len(batch) for batch in epoch] == [4] * (N // 4)
    assert len({i for batch in epoch for i in batch}) == 4 * (N // 4)


@pytest.mark.task("9.3")
def test_random_sampler_with_replacement_and_num_samples() -> None:
    generator = minitorch.Generator().manual_seed(SEED)
    drawn = list(RandomSampler(range(5), replacement=True, num_samples=40, generator=generator))
    assert len(drawn) == 40 and set(drawn) <= set(range(5)) and len(set(drawn)) > 1
    more = list(RandomSampler(range(5), num_samples=12, generator=generator))
    assert len(more) == 12 and sorted(more[:5]) == list(range(5)) and sorted(more[5:10]) == list(range(5))
    with pytest.raises(ValueError, match="num_samples should be a positive integer value"):
        RandomSampler(range(5), num_samples=0)


@pytest.mark.task("9.3")
@pytest.mark.parametrize("lengths", [[10, 13], [0.3, 0.7], [0.25, 0.25, 0.5], [0.1, 0.1, 0.1, 0.7]])
def test_random_split_lengths_match_torch_and_partition(torch_ref: Any, lengths: list[float]) -> None:
    parts = random_split(range(N), lengths, generator=minitorch.Generator().manual_seed(SEED))
    reference = torch_ref.utils.data.random_split(range(N), lengths, generator=torch_ref.Generator().manual_seed(0))
    assert [len(p) for p in parts] == [len(p) for p in reference]
    assert all(isinstance(p, Subset) for p in parts)
    everything = [p[i] for p in parts for i in range(len(p))]
    assert sorted(everything) == list(range(N)) and everything != list(range(N))
    again = random_split(range(N), lengths, generator=minitorch.Generator().manual_seed(SEED))
    assert [list(p.indices) for p in again] == [list(p.indices) for p in parts]


def test_random_split_errors_match_torch(torch_ref: Any) -> None:
    for split in (random_split, torch_ref.utils.data.random_split):
        with pytest.raises(ValueError, match="Sum of input lengths does not equal the length of the input dataset!"):
            split(range(5), [2, 2])
        with pytest.raises(ValueError, match="Fraction at index 0 is not between 0 and 1"):
            split(range(5), [1.5, -0.5])


def test_concat_and_subset() -> None:
    X, y = _tensors(minitorch)  # noqa: N806
    joined = TensorDataset(X[:5], y[:5]) + TensorDataset(X[5:], y[5:])
    assert len(joined) == N
    np.testing.assert_array_equal(joined[7][0].numpy(), X[7].numpy())
    np.testing.assert_array_equal(joined[-1][0].numpy(), X[N - 1].numpy())
    subset = Subset(TensorDataset(X, y), [4, 2])
    assert len(subset) == 2 and subset[1][1].item() == y[2].item()
    with pytest.raises(NotImplementedError):
        Dataset()[0]

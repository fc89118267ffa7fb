# Datasets and loaders: a map-style Dataset returning dicts, default collation of dicts, tuples and
# numpy arrays, a custom collate_fn that pads, drop_last, samplers, random_split, TensorDataset.
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset, SequentialSampler, Subset, TensorDataset, random_split


class FaceLandmarksLike(Dataset):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, idx):
        if torch.is_tensor(idx):
            idx = idx.tolist()
        image = np.full((2, 3), idx, dtype=np.float32)
        landmarks = np.array([idx, idx * 2], dtype=np.float64).reshape(-1, 2)
        return {"image": image, "landmarks": landmarks, "name": f"img{idx}"}


ds = FaceLandmarksLike(7)
print(len(ds), ds[3]["landmarks"], ds[torch.tensor(2)]["name"])
loader = DataLoader(ds, batch_size=3, shuffle=False, num_workers=0)
for i_batch, sample_batched in enumerate(loader):
    print(i_batch, sample_batched["image"].size(), sample_batched["landmarks"].shape,
          sample_batched["landmarks"].dtype, sample_batched["name"])
print(len(loader), len(DataLoader(ds, batch_size=3, drop_last=True)))

xs = torch.arange(20.0).reshape(10, 2)
ys = torch.arange(10) % 3
tds = TensorDataset(xs, ys)
print(tds[4], len(tds))
for xb, yb in DataLoader(tds, batch_size=4):
    print(xb.sum().item(), yb.tolist())

pairs = [(torch.tensor([1, 2, 3]), 0), (torch.tensor([4, 5]), 1), (torch.tensor([6]), 1)]


def collate_batch(batch):
    seqs, labels = zip(*batch)
    lengths = torch.tensor([len(s) for s in seqs])
    padded = torch.zeros(len(seqs), int(lengths.max()), dtype=torch.long)
    for i, s in enumerate(seqs):
        padded[i, :len(s)] = s
    return padded, torch.tensor(labels), lengths


for batch in DataLoader(pairs, batch_size=3, collate_fn=collate_batch):
    print(batch)
for batch in DataLoader([(1, 2.5, "a"), (3, 4.5, "b")], batch_size=2):
    print(batch)
for batch in DataLoader([np.array([1.0, 2.0]), np.array([3.0, 4.0])], batch_size=2):
    print(batch)

print(list(SequentialSampler(range(4))), list(DataLoader(range(5), batch_size=2)))
sub = Subset(tds, [1, 3, 5])
print(len(sub), sub[1])
train_set, val_set = random_split(tds, [8, 2], generator=torch.Generator().manual_seed(42))
print(len(train_set), len(val_set), type(train_set).__name__)
train_set, val_set = random_split(tds, [0.7, 0.3])
print(len(train_set), len(val_set))

seen = []
for xb, yb in DataLoader(tds, batch_size=4, shuffle=True):
    seen += yb.tolist()
print(sorted(seen))
it = iter(DataLoader(tds, batch_size=6))
first = next(it)
print(first[0].shape, next(it)[0].shape)

# Metric learning, the way siamese-network and contrastive-learning tutorials go about it: a small
# embedding net trained on batches of P classes x K samples drawn by a custom batch sampler (plain
# Python random with a seed, so every library draws the same batches), a hand-written contrastive
# loss on pairs, TripletMarginLoss with batch-hard mining, TripletMarginWithDistanceLoss with a
# cosine distance, CosineEmbeddingLoss and MarginRankingLoss, an NT-Xent (SimCLR-style) loss from
# two views, and retrieval: cdist, topk neighbours, recall@k.
import random

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset, Sampler

from _fixed import init_fixed, wave

torch.set_default_dtype(torch.float64)

NUM_CLASSES, PER_CLASS, DIM = 4, 6, 8


class ClusterDataset(Dataset):
    """Points around one centre per class, with a deterministic wobble."""

    def __init__(self):
        centres = wave(NUM_CLASSES, DIM, freq=1.37, scale=1.5)
        wobble = wave(NUM_CLASSES * PER_CLASS, DIM, freq=0.53, scale=1.4)
        self.labels = torch.arange(NUM_CLASSES).repeat_interleave(PER_CLASS)
        self.points = centres[self.labels] + wobble

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, index):
        return self.points[index], self.labels[index]


class PKSampler(Sampler):
    """Batches of `p` classes with `k` samples each, as batch-hard triplet training wants."""

    def __init__(self, labels, p, k, batches, seed=0):
        self.by_class = {}
        for index, label in enumerate(labels.tolist()):
            self.by_class.setdefault(label, []).append(index)
        self.p, self.k, self.batches, self.seed = p, k, batches, seed

    def __len__(self):
        return self.batches

    def __iter__(self):
        rng = random.Random(self.seed)
        for _ in range(self.batches):
            batch = []
            for label in rng.sample(sorted(self.by_class), self.p):
                batch.extend(rng.sample(self.by_class[label], self.k))
            yield batch


class EmbeddingNet(nn.Module):
    def __init__(self, out_dim=3):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(DIM, 16), nn.PReLU(), nn.Linear(16, 16), nn.PReLU(), nn.Linear(16, out_dim))

    def forward(self, x):
        return self.body(x)


dataset = ClusterDataset()
sampler = PKSampler(dataset.labels, p=2, k=3, batches=4, seed=7)
loader = DataLoader(dataset, batch_sampler=sampler)
print("batches:", len(loader), [batch for batch in sampler][:2])
points, labels = next(iter(loader))
print("a batch:", tuple(points.shape), labels.tolist())


# ---- distances and similarities ----
a, b = wave(3, DIM, freq=0.4), wave(3, DIM, freq=0.4, phase=0.9)
print("pairwise_distance:", F.pairwise_distance(a, b))
print("with eps and p=1:", F.pairwise_distance(a, b, p=1.0, eps=0.0))
print("cosine_similarity:", F.cosine_similarity(a, b))
print("cosine over dim 0:", F.cosine_similarity(a, b, dim=0)[:3])
print("cdist:", torch.cdist(a, b))
print("cdist p=1:", torch.cdist(a, b, p=1))
print("modules:", nn.PairwiseDistance()(a, b)[0].item() == F.pairwise_distance(a, b)[0].item(),
      nn.CosineSimilarity(dim=1)(a, b)[1].item() == F.cosine_similarity(a, b)[1].item())


# ---- siamese pairs and a contrastive loss by hand ----
def contrastive_loss(x1, x2, same, margin=1.0):
    distance = F.pairwise_distance(x1, x2)
    return (same * distance.pow(2) + (1 - same) * F.relu(margin - distance).pow(2)).mean() / 2


siamese = init_fixed(EmbeddingNet(), scale=0.4, freq=0.77)
pairs = [(i, (i + 1) % 24) for i in range(0, 24, 2)] + [(i, (i + PER_CLASS) % 24) for i in range(0, 24, 4)]
left = torch.tensor([i for i, _ in pairs])
right = torch.tensor([j for _, j in pairs])
same = (dataset.labels[left] == dataset.labels[right]).to(torch.float64)
print("pairs:", len(pairs), "same-class:", int(same.sum().item()))
optimizer = torch.optim.Adam(siamese.parameters(), lr=0.01)
for step in range(4):
    optimizer.zero_grad()
    loss = contrastive_loss(siamese(dataset.points[left]), siamese(dataset.points[right]), same)
    loss.backward()
    optimizer.step()
    print(f"contrastive step {step}: {loss.item():.8f}")
cos_loss = nn.CosineEmbeddingLoss(margin=0.2)
print("cosine embedding loss:", cos_loss(siamese(dataset.points[left]), siamese(dataset.points[right]), 2 * same - 1).item())
print("reduction none:", F.cosine_embedding_loss(a, b, torch.tensor([1, -1, 1]), reduction="none"))


# ---- triplets with batch-hard mining ----
def batch_hard(embeddings, labels):
    distances = torch.cdist(embeddings, embeddings)
    same_label = labels.unsqueeze(0) == labels.unsqueeze(1)
    positive = distances.masked_fill(~same_label, float("-inf")).masked_fill(torch.eye(len(labels), dtype=torch.bool), float("-inf"))
    negative = distances.masked_fill(same_label, float("inf"))
    return positive.argmax(dim=1), negative.argmin(dim=1)


model = init_fixed(EmbeddingNet(), scale=0.4, freq=0.91)
triplet = nn.TripletMarginLoss(margin=2.0, p=2)
print(triplet)
optimizer = torch.optim.SGD(model.parameters(), lr=0.02, momentum=0.9)
for epoch in range(3):
    losses = []
    for points, labels in loader:
        embeddings = model(points)
        with torch.no_grad():
            hardest_positive, hardest_negative = batch_hard(embeddings, labels)
        loss = triplet(embeddings, embeddings[hardest_positive], embeddings[hardest_negative])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(round(loss.item(), 8))
    print(f"triplet epoch {epoch}: {losses}")
print("mined in the last batch:", hardest_positive.tolist(), hardest_negative.tolist())
anchor, positive, negative = wave(4, 3, freq=0.3), wave(4, 3, freq=0.3, phase=0.2), wave(4, 3, freq=0.8)
print("swap:", F.triplet_margin_loss(anchor, positive, negative, margin=1.0, swap=True).item(),
      "p=1:", F.triplet_margin_loss(anchor, positive, negative, p=1, reduction="sum").item())


def cosine_distance(x, y):
    return 1.0 - F.cosine_similarity(x, y)


with_distance = nn.TripletMarginWithDistanceLoss(distance_function=cosine_distance, margin=0.3)
print("with a cosine distance:", with_distance(anchor, positive, negative).item())
print("default distance:", F.triplet_margin_with_distance_loss(anchor, positive, negative, reduction="none"))
ranking = nn.MarginRankingLoss(margin=0.1)
print("margin ranking:", ranking(wave(5, freq=0.5), wave(5, freq=0.9), torch.tensor([1, -1, 1, 1, -1])).item())


# ---- NT-Xent on two views of each point ----
def nt_xent(z1, z2, temperature=0.5):
    z = F.normalize(torch.cat([z1, z2]), dim=1)
    similarity = z @ z.T / temperature
    n = z1.shape[0]
    similarity = similarity.masked_fill(torch.eye(2 * n, dtype=torch.bool), float("-inf"))
    targets = torch.cat([torch.arange(n, 2 * n), torch.arange(0, n)])
    return F.cross_entropy(similarity, targets)


simclr = init_fixed(EmbeddingNet(out_dim=4), scale=0.4, freq=0.67)
optimizer = torch.optim.AdamW(simclr.parameters(), lr=0.02, weight_decay=0.01)
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=4)
view1 = dataset.points + wave(24, DIM, freq=2.1, scale=0.1)
view2 = dataset.points * 0.9 + wave(24, DIM, freq=1.7, phase=0.3, scale=0.1)
for step in range(4):
    optimizer.zero_grad()
    loss = nt_xent(simclr(view1), simclr(view2))
    loss.backward()
    optimizer.step()
    scheduler.step()
    print(f"nt-xent step {step}: {loss.item():.8f} lr {scheduler.get_last_lr()[0]:.6f}")


# ---- retrieval: nearest neighbours and recall@k ----
def recall_at_k(embeddings, labels, k):
    distances = torch.cdist(embeddings, embeddings)
    distances.fill_diagonal_(float("inf"))
    neighbours = distances.topk(k, dim=1, largest=False).indices
    hits = (labels[neighbours] == labels.unsqueeze(1)).any(dim=1)
    return hits.float().mean().item(), neighbours


model.eval()
with torch.no_grad():
    gallery = model(dataset.points)
for k in (1, 3):
    recall, neighbours = recall_at_k(gallery, dataset.labels, k)
    print(f"recall@{k}: {recall:.4f}")
print("neighbours of the first points:", neighbours[:4].tolist())
values, indices = torch.cdist(gallery[:2], gallery).topk(3, largest=False, sorted=True)
print("closest three:", indices.tolist(), values[:, 0].tolist())
normalized = F.normalize(gallery, p=2, dim=1)
print("normalized norms:", [round(v, 4) for v in normalized.norm(dim=1)[:3].tolist()])  # 1 up to float32 rounding
centroids = torch.stack([gallery[dataset.labels == c].mean(0) for c in range(NUM_CLASSES)])
predicted = torch.cdist(gallery, centroids).argmin(dim=1)
print("nearest-centroid accuracy:", (predicted == dataset.labels).float().mean().item())

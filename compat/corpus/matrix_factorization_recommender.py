# A recommender as the collaborative-filtering tutorials build it: users and items as
# nn.Embedding tables with per-user and per-item biases, scored by a dot product and trained on
# implicit feedback with BCEWithLogitsLoss against sampled negatives, a user profile pooled from
# the items seen with nn.EmbeddingBag (offsets, per_sample_weights), then top-k recommendations
# with the seen items masked out, scored by hit rate, recall@k and NDCG@k.
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_default_dtype(torch.float64)

N_USERS, N_ITEMS, DIM, K = 12, 20, 6, 5

# a planted low-rank taste: users and items on 2 latent genres, a user likes an item when they agree
user_taste = torch.randn(N_USERS, 2)
item_genre = torch.randn(N_ITEMS, 2)
affinity = user_taste @ item_genre.T
liked = affinity > affinity.quantile(0.6)
print(liked.shape, liked.sum().item(), liked.sum(1).tolist())

# leave one liked item per user out as its test item, the rest are the training interactions
first_liked = liked.float().argmax(dim=1)
test_items = torch.stack([row.nonzero().squeeze(1)[-1] for row in liked])
train = liked.clone()
train[torch.arange(N_USERS), test_items] = False
users, items = train.nonzero(as_tuple=True)
print(users[:8].tolist(), items[:8].tolist(), test_items.tolist(), first_liked[:4].tolist())


class MatrixFactorization(nn.Module):
    def __init__(self, n_users, n_items, dim):
        super().__init__()
        self.user = nn.Embedding(n_users, dim)
        self.item = nn.Embedding(n_items, dim)
        self.user_bias = nn.Embedding(n_users, 1)
        self.item_bias = nn.Embedding(n_items, 1)
        nn.init.normal_(self.user.weight, std=0.1)
        nn.init.normal_(self.item.weight, std=0.1)
        nn.init.zeros_(self.user_bias.weight)
        nn.init.zeros_(self.item_bias.weight)

    def forward(self, u, i):
        dot = (self.user(u) * self.item(i)).sum(dim=1)
        return dot + self.user_bias(u).squeeze(1) + self.item_bias(i).squeeze(1)

    def all_scores(self):
        return self.user.weight @ self.item.weight.T + self.user_bias.weight + self.item_bias.weight.T


model = MatrixFactorization(N_USERS, N_ITEMS, DIM)
probe = model.user(users[:2])
print(probe.shape, probe.grad_fn.name(), type(probe.grad_fn.next_functions[0][0]).__name__)
criterion = nn.BCEWithLogitsLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=0.05, weight_decay=1e-4)
for epoch in range(60):
    # one random negative per positive, drawn among the items the user did not interact with
    neg_probs = (~train).float()[users]
    negatives = torch.multinomial(neg_probs, 1).squeeze(1)
    u = torch.cat([users, users])
    i = torch.cat([items, negatives])
    labels = torch.cat([torch.ones(users.numel()), torch.zeros(users.numel())])
    loss = criterion(model(u, i), labels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if epoch % 20 == 19:
        print(f"epoch {epoch + 1}: loss {loss.item():.6f}")

with torch.no_grad():
    scores = model.all_scores()
    print(scores.shape, torch.allclose(scores[users, items], model(users, items)))
    masked = scores.masked_fill(train, float("-inf"))
    top_scores, top_items = masked.topk(K, dim=1)
    print(top_items[:3].tolist(), top_scores[0])

    # hit rate and recall@K against the held-out item, NDCG@K with the position of the hit
    hits = top_items == test_items.unsqueeze(1)
    hit_rate = hits.any(dim=1).float().mean()
    positions = torch.arange(1, K + 1, dtype=torch.float64)
    discounts = 1.0 / torch.log2(positions + 1)
    ndcg = (hits.float() * discounts).sum(dim=1).mean()
    print(f"hit@{K} {hit_rate.item():.4f} ndcg@{K} {ndcg.item():.6f}", hits.nonzero().tolist()[:4])

    # rank of each test item among all the unseen items: count of unseen items scored higher
    test_scores = masked.gather(1, test_items.unsqueeze(1))
    ranks = (masked > test_scores).sum(dim=1) + 1
    print("ranks", ranks.tolist(), "mrr", (1.0 / ranks.double()).mean())
    print("auc-like", (scores[liked].mean() - scores[~liked].mean()).item() > 0)

# a user profile pooled from the training items with nn.EmbeddingBag: offsets mark each user's
# bag in one flat list of item ids, and per_sample_weights down-weight long histories
bag = nn.EmbeddingBag(N_ITEMS, DIM, mode="sum")
bag.weight.data.copy_(model.item.weight.data)
counts = train.sum(dim=1)
offsets = torch.cat([torch.zeros(1, dtype=torch.long), counts.cumsum(0)[:-1]])
weights = (1.0 / counts.double()).repeat_interleave(counts)
profiles = bag(items, offsets, per_sample_weights=weights)
print(offsets.tolist(), profiles.shape, weights[:5])
manual = torch.zeros(N_USERS, DIM).index_add_(0, users, model.item.weight.data[items] * weights.unsqueeze(1))
print(torch.allclose(profiles, manual), profiles[0])
mean_bag = nn.EmbeddingBag.from_pretrained(model.item.weight.data, mode="mean")
print(torch.allclose(mean_bag(items, offsets), profiles))
max_bag = F.embedding_bag(items, model.item.weight.data, offsets, mode="max")
print(max_bag[1], max_bag.shape)

# item-to-item recommendations by cosine similarity of the profile with the item table
sims = F.cosine_similarity(profiles.unsqueeze(1), model.item.weight.data.unsqueeze(0), dim=2)
print(sims.shape, sims.masked_fill(train, -math.inf).argmax(dim=1).tolist())
print(sims.sort(dim=1, descending=True).indices[:2, :4].tolist())

# Clustering and nearest-neighbour classification written with tensor ops, as the "k-means in
# PyTorch" posts and kNN notebooks do: Gaussian blobs, k-means++ seeding with torch.multinomial,
# Lloyd iterations with cdist/argmin and centroid updates by index_add_ and bincount, inertia and
# a silhouette score, then a kNN classifier voting with torch.mode and with distance-weighted
# scatter_add_, and a confusion matrix from bincount.
import torch

torch.manual_seed(0)
torch.set_default_dtype(torch.float64)

N_PER, K, DIM = 30, 3, 2
centers_true = torch.tensor([[0.0, 0.0], [4.0, 4.0], [-4.0, 3.0]])
X = torch.cat([c + torch.randn(N_PER, DIM) for c in centers_true])
y = torch.arange(K).repeat_interleave(N_PER)
perm = torch.randperm(X.shape[0])
X, y = X[perm], y[perm]
print(X.shape, y[:10].tolist(), X.mean(0), X.std(0, unbiased=True))


def kmeans_pp_init(x, k):
    """k-means++: each next center drawn with probability proportional to its squared distance."""
    first = torch.randint(x.shape[0], (1,))
    chosen = [x[first].squeeze(0)]
    for _ in range(1, k):
        d2 = torch.cdist(x, torch.stack(chosen)).pow(2).min(dim=1).values
        idx = torch.multinomial(d2 / d2.sum(), 1)
        chosen.append(x[idx].squeeze(0))
    return torch.stack(chosen)


def kmeans(x, k, iters=20, tol=1e-8):
    centroids = kmeans_pp_init(x, k)
    for it in range(iters):
        assign = torch.cdist(x, centroids).argmin(dim=1)
        sums = torch.zeros(k, x.shape[1]).index_add_(0, assign, x)
        counts = torch.bincount(assign, minlength=k).clamp(min=1)
        new = sums / counts.unsqueeze(1)
        shift = (new - centroids).norm(dim=1).max()
        centroids = new
        if shift < tol:
            break
    return centroids, assign, it


centroids, assign, iterations = kmeans(X, K)
order = centroids[:, 0].argsort()
print(centroids[order], iterations, torch.bincount(assign, minlength=K)[order].tolist())
inertia = (X - centroids[assign]).pow(2).sum()
print(f"inertia {inertia.item():.6f}")

# the same assignment step with explicit broadcasting, and squared distances by the expansion
diff = X.unsqueeze(1) - centroids.unsqueeze(0)
sq = (X * X).sum(1, keepdim=True) - 2 * X @ centroids.T + (centroids * centroids).sum(1)
print(torch.equal(diff.pow(2).sum(-1).argmin(1), assign), torch.allclose(sq, diff.pow(2).sum(-1)))
print(torch.cdist(X[:3], centroids, p=1), torch.cdist(X[:2], centroids, p=float("inf")))

# silhouette: mean intra-cluster distance against the nearest other cluster's mean distance
D = torch.cdist(X, X)
onehot = torch.nn.functional.one_hot(assign, K).double()
sizes = onehot.sum(0)
mean_to = D @ onehot / sizes
own = mean_to.gather(1, assign.unsqueeze(1)).squeeze(1) * sizes[assign] / (sizes[assign] - 1)
other = mean_to.scatter(1, assign.unsqueeze(1), float("inf")).min(dim=1).values
silhouette = ((other - own) / torch.maximum(own, other)).mean()
print(f"silhouette {silhouette.item():.6f}")

# the cluster labels against the truth: a contingency table by bincount of the pair index
table = torch.bincount(y * K + assign, minlength=K * K).view(K, K)
print(table.tolist(), table.max(dim=1).values.sum().item() / y.numel())

# kNN classification on a train/test split: majority vote with torch.mode
n_train = 60
Xtr, ytr, Xte, yte = X[:n_train], y[:n_train], X[n_train:], y[n_train:]
dist = torch.cdist(Xte, Xtr)
knn_d, knn_i = dist.topk(5, dim=1, largest=False)
votes = ytr[knn_i]
pred, _ = torch.mode(votes, dim=1)
print(knn_d[0], knn_i[0].tolist(), votes[:3].tolist(), pred[:10].tolist())
print(f"knn accuracy {(pred == yte).double().mean().item():.4f}")

# distance-weighted votes accumulated with scatter_add_, then argmax
weights = 1.0 / (knn_d + 1e-9)
scores = torch.zeros(Xte.shape[0], K).scatter_add_(1, votes, weights)
print(scores[0], scores.argmax(1).eq(pred).sum().item(), scores.sum(1)[:3])

# the k-th nearest neighbour distance with kthvalue, and a radius count
kth, kth_idx = torch.kthvalue(dist, 3, dim=1)
print(torch.equal(kth, knn_d[:, 2]), kth_idx[:5].tolist())
print((dist < 1.5).sum(dim=1)[:10].tolist())

# a confusion matrix from bincount and per-class recall
confusion = torch.bincount(yte * K + pred, minlength=K * K).reshape(K, K)
print(confusion.tolist(), (confusion.diag() / confusion.sum(1)).tolist())

# leave-one-out kNN on all points: the diagonal masked with fill_diagonal_
D_loo = D.clone().fill_diagonal_(float("inf"))
nn_idx = D_loo.argmin(dim=1)
print(f"1-nn loo accuracy {(y[nn_idx] == y).double().mean().item():.4f}", torch.unique(y[nn_idx], return_counts=True))

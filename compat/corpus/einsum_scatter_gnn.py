# A tiny graph network as GNN tutorials write it without a graph library: messages gathered
# along edges, summed and averaged into nodes with scatter_add/scatter_reduce, attention scores
# with einsum, and a few training steps. Also diag/diagonal, cdist and cosine_similarity.
import torch
from _fixed import init_fixed, wave

torch.set_default_dtype(torch.float64)

# a ring of 6 nodes plus two chords, edges in both directions
src = torch.tensor([0, 1, 2, 3, 4, 5, 0, 2, 1, 2, 3, 4, 5, 0, 3, 5])
dst = torch.tensor([1, 2, 3, 4, 5, 0, 3, 5, 0, 1, 2, 3, 4, 5, 0, 2])
num_nodes = 6
x = wave(num_nodes, 4, freq=0.9)
target = wave(num_nodes, 2, freq=0.4, phase=1.0)

degree = torch.zeros(num_nodes).scatter_add_(0, dst, torch.ones(dst.shape[0]))
print("degree:", degree)


class MeanAggregate(torch.nn.Module):
    def __init__(self, d_in, d_out):
        super().__init__()
        self.lin_self = torch.nn.Linear(d_in, d_out)
        self.lin_neigh = torch.nn.Linear(d_in, d_out)

    def forward(self, h):
        messages = h[src]  # (edges, d_in)
        index = dst.unsqueeze(1).expand_as(messages)
        summed = torch.zeros(num_nodes, h.shape[1]).scatter_add(0, index, messages)
        mean = torch.zeros(num_nodes, h.shape[1]).scatter_reduce(0, index, messages, reduce="mean", include_self=False)
        assert torch.allclose(mean, summed / degree.unsqueeze(1))
        return torch.tanh(self.lin_self(h) + self.lin_neigh(mean))


class EdgeAttention(torch.nn.Module):
    def __init__(self, d):
        super().__init__()
        self.q = torch.nn.Linear(d, d, bias=False)
        self.k = torch.nn.Linear(d, d, bias=False)

    def forward(self, h):
        q, k = self.q(h), self.k(h)
        scores = torch.einsum("ed,ed->e", q[dst], k[src]) / h.shape[1] ** 0.5
        # softmax over each node's incoming edges: subtract the per-node max, normalise by the per-node sum
        node_max = torch.full((num_nodes,), -1e9).scatter_reduce(0, dst, scores, reduce="amax")
        weights = torch.exp(scores - node_max[dst])
        totals = torch.zeros(num_nodes).index_add(0, dst, weights)
        alpha = weights / totals[dst]
        return torch.zeros_like(h).index_add(0, dst, alpha.unsqueeze(1) * h[src]), alpha


layer1 = init_fixed(MeanAggregate(4, 3))
attention = init_fixed(EdgeAttention(3), freq=0.5)
head = init_fixed(torch.nn.Linear(3, 2), freq=1.3)
params = list(layer1.parameters()) + list(attention.parameters()) + list(head.parameters())
optimizer = torch.optim.SGD(params, lr=0.1)

for step in range(5):
    h = layer1(x)
    mixed, alpha = attention(h)
    out = head(mixed + h)
    loss = ((out - target) ** 2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"step {step}: loss {loss.item():.6f}")

print("attention per edge:", alpha.detach())
print("sum of attention into each node:", torch.zeros(num_nodes).index_add(0, dst, alpha.detach()))

# the same bilinear form three ways
w = wave(4, 4, freq=0.3)
print(torch.einsum("ni,ij,nj->n", x, w, x))
print(torch.einsum("ni,ij,nj", x, w, x).item())
print(torch.diagonal(x @ w @ x.T), torch.diag(x @ w @ x.T).sum())
print(torch.einsum("ii", w), torch.einsum("ij->j", w), torch.einsum("bi,bj->bij", x[:2], x[:2]).shape)

# one-hot labels with scatter_, pairwise distances, similarities
labels = torch.tensor([2, 0, 1, 1, 0, 2])
one_hot = torch.zeros(num_nodes, 3).scatter_(1, labels.unsqueeze(1), 1.0)
print(one_hot)
print(torch.cdist(x, x).round(decimals=4))
print(torch.cosine_similarity(x[src], x[dst], dim=1))
print(x.unfold(0, 3, 2).shape, torch.kron(torch.eye(2), w[:2, :2]))

# Indexing: boolean masks, integer tensors, mixed with slices, assignment through them, and the
# gather/where/masked_fill family.
import torch

x = torch.arange(12.0).reshape(3, 4) - 5
print(x)
mask = x > 0
print(mask, mask.dtype, mask.sum())
print(x[mask])
print(x[x < -2])
y = x.clone()
y[y < 0] = 0
print(y)
y[mask] = torch.arange(float(mask.sum()))
print(y)

idx = torch.tensor([2, 0])
print(x[idx], x[:, idx], x[idx, idx], x[[0, 2]], x[[0, 1], [1, 2]])
print(x[torch.tensor([True, False, True])])
print(x[1:, torch.tensor([0, 3])], x[..., torch.tensor(1)], x[range(3), [0, 1, 2]])
rows = torch.arange(3)
cols = torch.tensor([3, 2, 1])
print(x[rows, cols])
z = torch.zeros(3, 4)
z[rows, cols] = 1.0
z[0, :] += 5
print(z)

print(torch.where(x > 0, x, torch.zeros_like(x)), torch.where(x > 0))
print(x.masked_fill(x < 0, -1.0), x.masked_fill(mask, float("-inf")))
print(torch.masked_select(x, mask), x.nonzero()[:3], (x == 0).nonzero())
print(torch.gather(x, 1, torch.tensor([[0], [1], [2]])), x.gather(0, torch.tensor([[2, 1, 0, 0]])))
print(x.index_select(0, torch.tensor([2, 1])), x.index_select(1, torch.tensor([0])))
emb = torch.arange(10.0).reshape(5, 2)
tokens = torch.tensor([[1, 2, 4], [0, 0, 3]])
print(emb[tokens].shape, emb[tokens])
print(torch.any(mask), torch.all(mask), mask.any(dim=1), mask.all(dim=0))

w = torch.ones(4, requires_grad=True)
out = (w * torch.arange(4.0))[torch.tensor([0, 2, 2])].sum()
out.backward()
print(w.grad)
v = torch.arange(6.0, requires_grad=True)
v[v > 2].pow(2).sum().backward()
print(v.grad)
scores = torch.tensor([[0.1, 0.9], [0.8, 0.2], [0.4, 0.6]])
target = torch.tensor([1, 0, 0])
print(scores[torch.arange(3), target], -scores[range(3), target].log().mean())
one_hot = torch.zeros(3, 2)
one_hot[torch.arange(3), target] = 1
print(one_hot, one_hot.scatter(1, target.unsqueeze(1), 5.0))

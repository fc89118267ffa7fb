# Matrix products in all their spellings: @, matmul broadcasting, mm, bmm, mv, dot, outer, einsum,
# plus eye/tril/triu/diag and transposes.
import torch

torch.set_default_dtype(torch.float64)
A = torch.arange(6.0).reshape(2, 3) / 4
B = torch.arange(12.0).reshape(3, 4) / 5 - 1
v = torch.tensor([1.0, -2.0, 0.5])
print(A @ B)
print(torch.mm(A, B), A.mm(B).shape, torch.matmul(A, B).sum())
print(torch.mv(A, v), A @ v, v @ B, torch.dot(v, v), v.dot(v))
print(torch.outer(v, v[:2]), torch.einsum("i,j->ij", v, v[:2]))

batch = torch.arange(24.0).reshape(2, 3, 4) / 10
other = torch.arange(16.0).reshape(2, 4, 2) / 10
print(torch.bmm(batch, other), batch.bmm(other).shape)
print(torch.matmul(batch, torch.ones(4, 1)).shape, (batch @ torch.ones(4)).shape, (torch.ones(3) @ batch).shape)
print(torch.matmul(A, batch[:, :3, :]), torch.matmul(batch, B.T).shape)

print(torch.einsum("ij,jk->ik", A, B))
print(torch.einsum("bij,bjk->bik", batch, other).shape, torch.einsum("bij->bji", batch).shape)
print(torch.einsum("ii->", torch.eye(3) * 2), torch.einsum("ii->i", B[:, :3]), torch.einsum("ij->", A))
print(torch.einsum("bi,bi->b", A, A), torch.einsum("i,i", v, v), torch.einsum("...j,j->...", batch, torch.ones(4)))
q = torch.arange(2 * 3 * 2 * 4.0).reshape(2, 3, 2, 4) / 20
k = q.flip(-1)
print(torch.einsum("bhqd,bhkd->bhqk", q, k).shape, torch.einsum("bhqd,bhkd->bhqk", q, k)[0, 0])

print(torch.eye(3), torch.eye(2, 3))
M = torch.arange(1.0, 10.0).reshape(3, 3)
print(torch.tril(M), torch.triu(M, diagonal=1), M.tril(-1), torch.diag(M), torch.diag(v), M.diagonal())
print(M.t(), M.T, M.mT.shape, M.transpose(0, 1).contiguous().view(-1))
print(torch.linalg.norm(M), torch.linalg.vector_norm(v), torch.trace(M))

W = torch.ones(3, 3, requires_grad=True)
(torch.einsum("ij,jk->ik", W, M) ** 2).sum().backward()
print(W.grad)
x = torch.ones(2, 3, requires_grad=True)
torch.bmm(x.unsqueeze(1), batch[:, :3, :]).sum().backward()
print(x.grad)

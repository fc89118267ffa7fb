# Tensor basics as the beginner tutorials show them: creation, attributes, views, joining, printing.
import numpy as np
import torch

data = [[1, 2], [3, 4]]
x_data = torch.tensor(data)
print(x_data)
np_array = np.array(data)
x_np = torch.from_numpy(np_array)
print(x_np)

x_ones = torch.ones_like(x_data)
print(f"Ones Tensor: \n {x_ones} \n")
x_full = torch.full_like(x_data, 7)
print(x_full)

shape = (2, 3,)
zeros_tensor = torch.zeros(shape)
ones_tensor = torch.ones(shape)
print(f"Ones Tensor: \n {ones_tensor} \n")
print(f"Zeros Tensor: \n {zeros_tensor}")

tensor = torch.arange(12.0).reshape(3, 4)
print(f"Shape of tensor: {tensor.shape}")
print(f"Datatype of tensor: {tensor.dtype}")
print(f"Device tensor is stored on: {tensor.device}")
print(tensor.size(), tensor.size(1), tensor.dim(), tensor.ndim, tensor.numel(), len(tensor))

print(f"First row: {tensor[0]}")
print(f"First column: {tensor[:, 0]}")
print(f"Last column: {tensor[..., -1]}")
tensor[:, 1] = 0
print(tensor)

t1 = torch.cat([tensor, tensor, tensor], dim=1)
print(t1)
print(torch.stack([tensor[0], tensor[1]]).shape, torch.stack([tensor[0], tensor[1]], dim=1).shape)

y1 = tensor @ tensor.T
y2 = tensor.matmul(tensor.T)
y3 = torch.rand_like(y1)
torch.matmul(tensor, tensor.T, out=y3)
print(y1, torch.equal(y1, y2), torch.equal(y1, y3))
z1 = tensor * tensor
z2 = tensor.mul(tensor)
z3 = torch.empty_like(tensor)
torch.mul(tensor, tensor, out=z3)
print(z1, torch.equal(z1, z3), torch.equal(z1, z2))

agg = tensor.sum()
agg_item = agg.item()
print(agg_item, type(agg_item))
print(f"{tensor} \n")
tensor.add_(5)
print(tensor)

t = torch.ones(5)
print(f"t: {t}")
n = t.numpy()
print(f"n: {n}")
t.add_(1)
print(f"t: {t}")
print(f"n: {n}")
n = np.ones(5)
t = torch.from_numpy(n)
np.add(n, 1, out=n)
print(f"t: {t}")
print(f"n: {n}")

x = torch.arange(24).view(2, 3, 4)
print(x.permute(2, 0, 1).shape, x.transpose(0, 1).shape, x.flatten().shape, x.flatten(1).shape)
print(x.view(-1, 4).shape, x.reshape(4, -1).shape, x.unsqueeze(0).shape, x.unsqueeze(-1).shape)
print(torch.zeros(1, 3, 1).squeeze().shape, torch.zeros(1, 3, 1).squeeze(0).shape)
print(x[:, None].shape, x[..., 0], x[1, 2, 3].item(), x[-1, -1].tolist())
print(x.contiguous().is_contiguous(), x.transpose(1, 2).is_contiguous())
print(torch.linspace(0, 1, steps=5), torch.arange(1, 10, 3), torch.eye(3))
print(torch.zeros(2, 2, dtype=torch.long), torch.ones(2, dtype=torch.bool))
print(x.clone().float().mean(), x.float().std(), x.max(), x.min())
print(torch.tensor(3.5), torch.tensor([]), torch.tensor([[1.5, -2.25], [1e-3, 100.0]]))

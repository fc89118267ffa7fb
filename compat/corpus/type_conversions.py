# dtypes: .type(), legacy tensor types, .float()/.long(), default dtype, numpy sharing.
import numpy as np
import torch

x = torch.tensor([1.7, -2.2, 3.9])
print(x.dtype, x.type())
print(x.type(torch.int64), x.type(torch.LongTensor), x.type("torch.IntTensor"))
print(x.long(), x.int(), x.double(), x.float().dtype, x.half().dtype, x.bool())
print(x.to(torch.float64), x.to(dtype=torch.int32), x.type(torch.float).dtype)

labels = torch.tensor([0, 1, 1, 0])
predicted = torch.tensor([0, 1, 0, 0])
print((predicted == labels).type(torch.float).mean(), (predicted == labels).float().sum().item())
print((predicted == labels).type(torch.FloatTensor))

ft = torch.FloatTensor([[1, 2], [3, 4]])
lt = torch.LongTensor([3, 1, 2])
bt = torch.BoolTensor([True, False])
dt = torch.DoubleTensor(2, 3).zero_()
print(ft, ft.dtype, lt, lt.dtype, bt, dt)
print(torch.Tensor([1, 2, 3]), torch.Tensor(2, 2).shape)
print(ft.type_as(lt), lt.type_as(ft))

print(torch.get_default_dtype())
torch.set_default_dtype(torch.float64)
print(torch.get_default_dtype(), torch.tensor([1.5]).dtype, torch.zeros(1).dtype, torch.arange(3).dtype)
torch.set_default_dtype(torch.float32)
print(torch.tensor([1, 2]).dtype, torch.tensor([1.0, 2]).dtype, torch.tensor(True).dtype)
print(torch.tensor([1, 2]) / 2, (torch.tensor([1, 2]) * 1.5).dtype, torch.tensor([1, 2], dtype=torch.float).dtype)

print(torch.float is torch.float32, torch.double is torch.float64, torch.long is torch.int64)
print(torch.float32.is_floating_point, torch.int64.is_floating_point, x.is_floating_point())

a = np.arange(6, dtype=np.float32).reshape(2, 3)
t = torch.from_numpy(a)
a[0, 0] = 100
print(t)
t2 = torch.tensor(a)
a[0, 1] = -1
print(t2, torch.as_tensor(a)[0, 1].item())
print(t.numpy().dtype, torch.from_numpy(np.array([1, 2])).dtype, t.tolist())

# Elementwise math, reductions and comparisons, printed in float64.
import math

import torch

torch.set_default_dtype(torch.float64)
x = torch.linspace(-2, 2, 9)
print(x)
print(torch.sin(x))
print(torch.cos(x))
print(torch.exp(x), torch.log(x.abs() + 1), torch.sqrt(x.abs()))
print(torch.tanh(x), torch.sigmoid(x), torch.relu(x))
print(x.pow(2), x ** 3, 2 ** x, x.abs(), -x)
print(torch.clamp(x, min=-1.0, max=1.5), x.clamp(min=0), x.clip(-0.5, 0.5))
print(torch.round(x * 1.3), torch.floor(x * 1.3), torch.ceil(x * 1.3), x.sign())
print(torch.square(x), x.exp().log(), torch.acos(x / 2), torch.pi)

m = torch.arange(12.0).reshape(3, 4) / 3
print(m.sum(), m.sum(0), m.sum(dim=1), m.sum(1, keepdim=True))
print(m.mean(), m.mean(dim=0), torch.mean(m, 1))
print(m.std(), m.var(dim=1), m.std(0, unbiased=False))
values, indices = torch.max(m, 1)
print(values, indices)
print(torch.max(m), m.max(dim=0).values, m.argmax(), m.argmax(dim=1), torch.argmax(m, dim=0))
print(m.min(), torch.min(m, dim=1)[1], m.argmin(dim=1))
print(m.norm(), torch.norm(m), m.prod(), m.cumsum(dim=1))
print(torch.topk(m.flatten(), 3))

a = torch.tensor([1.0, 2.0, 3.0])
b = torch.tensor([1.0, 5.0, 3.0])
print(a == b, a.eq(b), a < b, a >= b, (a == b).sum(), (a == b).all(), (a != b).any())
print(torch.where(a > 1.5, a, b), torch.maximum(a, b), torch.minimum(a, b))
print(torch.add(a, b), torch.sub(a, b), torch.mul(a, 2), torch.div(a, b), a / 2, 1 / a, a // 2, a % 2)
print(torch.dot(a, b), torch.allclose(a, a + 1e-9), torch.isclose(a, b))

c = a.clone()
c.add_(1)
c.mul_(2)
c.sub_(1)
c.div_(2)
print(c)
c.zero_()
c.fill_(3.25)
print(c, c.sum().item() == 9.75)
print(torch.exp(torch.tensor(1.0)).item() == math.e)

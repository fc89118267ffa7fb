# The same cubic fit, with autograd computing the gradients and an update under no_grad.
import math

import torch

dtype = torch.float64
x = torch.linspace(-math.pi, math.pi, 500, dtype=dtype)
y = torch.sin(x)

a = torch.tensor(0.1, dtype=dtype, requires_grad=True)
b = torch.tensor(-0.2, dtype=dtype, requires_grad=True)
c = torch.tensor(0.05, dtype=dtype, requires_grad=True)
d = torch.tensor(0.01, dtype=dtype, requires_grad=True)

learning_rate = 2e-6
for t in range(1500):
    y_pred = a + b * x + c * x ** 2 + d * x ** 3
    loss = (y_pred - y).pow(2).sum()
    if t % 300 == 299:
        print(t, round(loss.item(), 8))
    loss.backward()

    with torch.no_grad():
        a -= learning_rate * a.grad
        b -= learning_rate * b.grad
        c -= learning_rate * c.grad
        d -= learning_rate * d.grad
        a.grad = None
        b.grad = None
        c.grad = None
        d.grad = None

print(f"Result: y = {a.item():.6f} + {b.item():.6f} x + {c.item():.6f} x^2 + {d.item():.6f} x^3")
print(a.is_leaf, a.requires_grad, a.grad)
print(loss.grad_fn.name())

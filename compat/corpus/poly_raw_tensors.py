# Fit a cubic to sin(x) with plain tensors and hand-written gradients (no autograd).
import math

import torch

dtype = torch.float64
device = torch.device("cpu")

x = torch.linspace(-math.pi, math.pi, 500, device=device, dtype=dtype)
y = torch.sin(x)

# fixed starting coefficients instead of random ones, so every library starts alike
a = torch.tensor(0.1, device=device, dtype=dtype)
b = torch.tensor(-0.2, device=device, dtype=dtype)
c = torch.tensor(0.05, device=device, dtype=dtype)
d = torch.tensor(0.01, device=device, dtype=dtype)

learning_rate = 2e-6
for t in range(1500):
    y_pred = a + b * x + c * x ** 2 + d * x ** 3
    loss = (y_pred - y).pow(2).sum().item()
    if t % 300 == 299:
        print(t, round(loss, 8))

    grad_y_pred = 2.0 * (y_pred - y)
    grad_a = grad_y_pred.sum()
    grad_b = torch.matmul(input=grad_y_pred, other=x)
    grad_c = torch.matmul(grad_y_pred, x.pow(2))
    grad_d = (grad_y_pred * x ** 3).sum()

    a -= learning_rate * grad_a
    b -= learning_rate * grad_b
    c -= learning_rate * grad_c
    d -= learning_rate * grad_d

print(f"Result: y = {a.item():.6f} + {b.item():.6f} x + {c.item():.6f} x^2 + {d.item():.6f} x^3")
print(a.dtype, a.shape, a.requires_grad)

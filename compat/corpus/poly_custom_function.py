# A custom autograd Function (a Legendre polynomial) inside a training loop.
import math

import torch


class Legendre3(torch.autograd.Function):
    """P3(x) = (5x^3 - 3x) / 2, with its derivative written by hand."""

    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return 0.5 * (5 * input ** 3 - 3 * input)

    @staticmethod
    def backward(ctx, grad_output):
        (input,) = ctx.saved_tensors
        return grad_output * 1.5 * (5 * input ** 2 - 1)


dtype = torch.double
x = torch.linspace(-math.pi, math.pi, 400, dtype=dtype)
y = torch.sin(x)

a = torch.full((), 0.0, dtype=dtype, requires_grad=True)
b = torch.full((), -1.0, dtype=dtype, requires_grad=True)
c = torch.full((), 0.0, dtype=dtype, requires_grad=True)
d = torch.full((), 0.3, dtype=dtype, requires_grad=True)

learning_rate = 5e-6
P3 = Legendre3.apply
for t in range(1000):
    y_pred = a + b * P3(c + d * x)
    loss = (y_pred - y).pow(2).sum()
    if t % 200 == 199:
        print(t, f"{loss.item():.8f}")
    loss.backward()
    with torch.no_grad():
        for p in (a, b, c, d):
            p -= learning_rate * p.grad
            p.grad = None

print(f"Result: y = {a.item():.6f} + {b.item():.6f} * P3({c.item():.6f} + {d.item():.6f} x)")
out = P3(torch.tensor([0.5, -1.0], dtype=dtype, requires_grad=True))
print(out)
print(type(out.grad_fn).__name__)

# gradcheck-style comparison with a central difference
z = torch.tensor([0.3, 0.7], dtype=dtype, requires_grad=True)
P3(z).sum().backward()
h = 1e-6
numeric = (P3(z.detach() + h) - P3(z.detach() - h)) / (2 * h)
print(torch.allclose(z.grad, numeric, atol=1e-6), z.grad)

# A custom nn.Module with scalar Parameters, and a "dynamic" net whose depth is drawn per step.
import math
import random

import torch


class Polynomial3(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Parameter(torch.tensor(0.0))
        self.b = torch.nn.Parameter(torch.tensor(0.5))
        self.c = torch.nn.Parameter(torch.tensor(0.0))
        self.d = torch.nn.Parameter(torch.tensor(-0.05))

    def forward(self, x):
        return self.a + self.b * x + self.c * x ** 2 + self.d * x ** 3

    def string(self):
        return f"y = {self.a.item():.5f} + {self.b.item():.5f} x + {self.c.item():.5f} x^2 + {self.d.item():.5f} x^3"


class DynamicNet(Polynomial3):
    """Reuses the cubic term's weight for 0 to 2 extra powers, chosen at random each step."""

    def __init__(self):
        super().__init__()
        self.e = torch.nn.Parameter(torch.tensor(0.0))

    def forward(self, x):
        y = self.a + self.b * x + self.c * x ** 2 + self.d * x ** 3
        for exp in range(4, random.randint(4, 6)):
            y = y + self.e * x ** exp
        return y


torch.set_default_dtype(torch.float64)
x = torch.linspace(-math.pi, math.pi, 400)
y = torch.sin(x)
random.seed(0)  # Python's generator: the same draws under any library

for model, lr, steps in [(Polynomial3(), 1e-6, 1200), (DynamicNet(), 1e-8, 600)]:
    criterion = torch.nn.MSELoss(reduction="sum")
    optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    for t in range(steps):
        loss = criterion(model(x), y)
        if t % 300 == 299:
            print(type(model).__name__, t, f"{loss.item():.6f}")
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(model.string())
    print([name for name, _ in model.named_parameters()], sum(p.numel() for p in model.parameters()))
    print(model.d)

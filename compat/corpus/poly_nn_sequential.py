# The cubic fit with nn.Sequential, a loss module and a manual update of model.parameters().
import math

import torch

x = torch.linspace(-math.pi, math.pi, 500, dtype=torch.float64)
y = torch.sin(x)

p = torch.tensor([1, 2, 3])
xx = x.unsqueeze(-1).pow(p)
print(xx.shape)

model = torch.nn.Sequential(torch.nn.Linear(3, 1), torch.nn.Flatten(0, 1)).double()
with torch.no_grad():
    model[0].weight.copy_(torch.tensor([[0.2, -0.1, 0.05]]))
    model[0].bias.fill_(0.1)
loss_fn = torch.nn.MSELoss(reduction="sum")

learning_rate = 2e-6
for t in range(1500):
    y_pred = model(xx)
    loss = loss_fn(y_pred, y)
    if t % 300 == 299:
        print(t, round(loss.item(), 8))
    model.zero_grad()
    loss.backward()
    with torch.no_grad():
        for param in model.parameters():
            param -= learning_rate * param.grad

linear_layer = model[0]
print(
    f"Result: y = {linear_layer.bias.item():.6f} + {linear_layer.weight[:, 0].item():.6f} x"
    f" + {linear_layer.weight[:, 1].item():.6f} x^2 + {linear_layer.weight[:, 2].item():.6f} x^3"
)
print(model)
print(loss.grad_fn)

# Polynomial regression as in the examples repository: polynomial features with torch.cat, a single
# nn.Linear, smooth_l1_loss, and updates through param.data.add_(-lr * param.grad).
import math

import torch
import torch.nn.functional as F

torch.set_default_dtype(torch.float64)
POLY_DEGREE = 4
W_target = torch.tensor([[0.5], [-1.2], [0.3], [0.8]])
b_target = torch.tensor([0.7])


def make_features(x):
    x = x.unsqueeze(1)
    return torch.cat([x ** i for i in range(1, POLY_DEGREE + 1)], 1)


def f(x):
    return x.mm(W_target) + b_target.item()


def poly_desc(W, b):
    result = "y = "
    for i, w in enumerate(W):
        result += "{:+.2f} x^{} ".format(w, i + 1)
    result += "{:+.2f}".format(b[0])
    return result


def get_batch(step, batch_size=32):
    random = torch.linspace(-1, 1, batch_size) * math.cos(step * 0.1)
    x = make_features(random)
    y = f(x)
    return x, y


fc = torch.nn.Linear(W_target.size(0), 1)
with torch.no_grad():
    fc.weight.zero_()
    fc.bias.zero_()
for batch_idx in range(1, 2000):
    batch_x, batch_y = get_batch(batch_idx)
    fc.zero_grad()
    output = F.smooth_l1_loss(fc(batch_x), batch_y)
    loss = output.item()
    output.backward()
    for param in fc.parameters():
        param.data.add_(-0.1 * param.grad)
    if loss < 1e-5:
        break
print("Loss: {:.6f} after {} batches".format(loss, batch_idx))
print("==> Learned function:\t" + poly_desc(fc.weight.view(-1), fc.bias))
print("==> Actual function:\t" + poly_desc(W_target.view(-1), b_target))
print(F.smooth_l1_loss(torch.tensor([0.0, 2.0]), torch.tensor([0.5, 0.0]), beta=0.5))
print(F.l1_loss(torch.tensor([0.0, 2.0]), torch.tensor([0.5, 0.0])), F.mse_loss(torch.tensor([0.0, 2.0]), torch.tensor([0.5, 0.0]), reduction="sum"))

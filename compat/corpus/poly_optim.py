# The cubic fit with torch.optim: RMSprop, SGD with momentum and Adam on the same model.
import math

import torch

torch.set_default_dtype(torch.float64)
x = torch.linspace(-math.pi, 2.0, 500)  # not symmetric: no coefficient has a zero gradient
y = torch.sin(x)
xx = x.unsqueeze(-1).pow(torch.tensor([1, 2, 3]))


def make_model():
    model = torch.nn.Sequential(torch.nn.Linear(3, 1), torch.nn.Flatten(0, 1))
    with torch.no_grad():
        model[0].weight.copy_(torch.tensor([[0.2, -0.1, 0.05]]))
        model[0].bias.zero_()
    return model


for name, make_optimizer, steps in [
    # steps stop before the adaptive methods reach the optimum, where they hop around it and
    # amplify round-off (any two libraries then part ways)
    ("RMSprop", lambda params: torch.optim.RMSprop(params, lr=1e-3), 400),
    ("SGD", lambda params: torch.optim.SGD(params, lr=1e-6, momentum=0.9), 1000),
    ("Adam", lambda params: torch.optim.Adam(params, lr=1e-2), 200),
]:
    model = make_model()
    loss_fn = torch.nn.MSELoss(reduction="sum")
    optimizer = make_optimizer(model.parameters())
    for t in range(steps):
        loss = loss_fn(model(xx), y)
        if (t + 1) % (steps // 4) == 0:
            print(name, t, f"{loss.item():.8f}")
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    w = model[0].weight.detach().squeeze()
    print(name, "result", [round(v, 6) for v in w.tolist()], round(model[0].bias.item(), 6))

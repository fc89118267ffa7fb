# Every common optimizer on the same small least-squares problem, with weight decay and param groups.
import torch
import torch.nn as nn
import torch.optim as optim

from _fixed import wave

torch.set_default_dtype(torch.float64)
x = wave(20, 2, freq=1.0, phase=1.5)
y = (x @ torch.tensor([[2.0], [-3.0]]) + 0.5).squeeze(1)


def run(make_optimizer, steps=60):
    model = nn.Linear(2, 1)
    with torch.no_grad():
        model.weight.zero_()
        model.bias.zero_()
    optimizer = make_optimizer(model)
    for _ in range(steps):
        optimizer.zero_grad()
        loss = ((model(x).squeeze(1) - y) ** 2).mean()
        loss.backward()
        optimizer.step()
    return [round(v, 6) for v in model.weight.flatten().tolist() + model.bias.tolist()], round(loss.item(), 8)


configs = {
    "SGD": lambda m: optim.SGD(m.parameters(), lr=0.1),
    "SGD momentum nesterov": lambda m: optim.SGD(m.parameters(), lr=0.05, momentum=0.9, nesterov=True),
    "SGD weight_decay": lambda m: optim.SGD(m.parameters(), lr=0.1, weight_decay=1e-2),
    "Adam": lambda m: optim.Adam(m.parameters(), lr=0.1),
    "Adam betas": lambda m: optim.Adam(m.parameters(), lr=0.1, betas=(0.8, 0.99), weight_decay=1e-3),
    "AdamW": lambda m: optim.AdamW(m.parameters(), lr=0.1),
    "RMSprop": lambda m: optim.RMSprop(m.parameters(), lr=0.01),
    "Adagrad": lambda m: optim.Adagrad(m.parameters(), lr=0.5),
    "Adadelta": lambda m: optim.Adadelta(m.parameters(), lr=1.0),
    "param groups": lambda m: optim.SGD([{"params": m.weight}, {"params": m.bias, "lr": 0.01}], lr=0.1),
}
for name, make in configs.items():
    print(name, *run(make))

model = nn.Linear(2, 1)
optimizer = optim.Adam(model.parameters(), lr=1e-3)
print(optimizer)
print(len(optimizer.param_groups), sorted(optimizer.param_groups[0].keys()))
optimizer.param_groups[0]["lr"] = 0.5
print(optimizer.state_dict()["param_groups"][0]["lr"])

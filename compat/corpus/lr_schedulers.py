# Learning-rate schedulers as tutorials use them: StepLR after each epoch, MultiStepLR,
# ExponentialLR, CosineAnnealingLR, LambdaLR, OneCycleLR and ReduceLROnPlateau.
import torch
from torch import nn, optim
from torch.optim import lr_scheduler

torch.set_default_dtype(torch.float64)


def make():
    model = nn.Linear(2, 1)
    with torch.no_grad():
        model.weight.copy_(torch.tensor([[0.5, -0.5]]))
        model.bias.fill_(0.1)
    return model


x = torch.tensor([[1.0, 2.0], [3.0, -1.0], [0.5, 0.5]])
y = torch.tensor([[1.0], [0.0], [2.0]])

schedules = {
    "StepLR": lambda o: lr_scheduler.StepLR(o, step_size=2, gamma=0.5),
    "MultiStepLR": lambda o: lr_scheduler.MultiStepLR(o, milestones=[2, 5], gamma=0.1),
    "ExponentialLR": lambda o: lr_scheduler.ExponentialLR(o, gamma=0.9),
    "CosineAnnealingLR": lambda o: lr_scheduler.CosineAnnealingLR(o, T_max=6),
    "LambdaLR": lambda o: lr_scheduler.LambdaLR(o, lr_lambda=lambda epoch: 0.95 ** epoch),
    "OneCycleLR": lambda o: lr_scheduler.OneCycleLR(o, max_lr=0.2, total_steps=7),
}
for name, make_scheduler in schedules.items():
    model = make()
    optimizer = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    scheduler = make_scheduler(optimizer)
    lrs = []
    for epoch in range(7):
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        lrs.append(round(scheduler.get_last_lr()[0], 8))
        scheduler.step()
    print(name, lrs, round(optimizer.param_groups[0]["lr"], 8), round(loss.item(), 8))

model = make()
optimizer = optim.Adam(model.parameters(), lr=0.05)
plateau = lr_scheduler.ReduceLROnPlateau(optimizer, mode="min", factor=0.5, patience=1)
for epoch in range(8):
    val_loss = 1.0 if epoch < 2 else 0.9
    plateau.step(val_loss)
    print(epoch, optimizer.param_groups[0]["lr"])
print(type(scheduler).__name__, scheduler.state_dict()["last_epoch"])

# Saving and loading: state_dict contents, optimizer state_dict, a checkpoint dictionary, a whole
# model, and loading into a fresh model for inference.
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

from _fixed import init_fixed, wave

torch.set_default_dtype(torch.float64)


class TheModelClass(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 4, 3)
        self.pool = nn.MaxPool2d(2, 2)
        self.bn = nn.BatchNorm2d(4)
        self.fc1 = nn.Linear(4 * 3 * 3, 5)
        self.fc2 = nn.Linear(5, 2)

    def forward(self, x):
        x = self.pool(F.relu(self.bn(self.conv1(x))))
        x = x.view(-1, 4 * 3 * 3)
        x = F.relu(self.fc1(x))
        return self.fc2(x)


def fixed(model):
    return init_fixed(model, scale=0.3, freq=1.3)


model = fixed(TheModelClass())
optimizer = optim.SGD(model.parameters(), lr=0.001, momentum=0.9)
x = wave(2, 3, 8, 8, freq=0.1, phase=1.5)
loss = model(x).pow(2).sum()
loss.backward()
optimizer.step()

print("Model's state_dict:")
for param_tensor in model.state_dict():
    print(param_tensor, "\t", model.state_dict()[param_tensor].size())
print("Optimizer's state_dict:")
for var_name in optimizer.state_dict():
    print(var_name, "\t", len(optimizer.state_dict()[var_name]))
print(optimizer.state_dict()["param_groups"])
state = optimizer.state_dict()["state"]
print({k: (list(v), tuple(v["momentum_buffer"].shape)) for k, v in state.items()})
print(state[7]["momentum_buffer"])

torch.save(model.state_dict(), "weights.pt")
fresh = TheModelClass()
result = fresh.load_state_dict(torch.load("weights.pt", weights_only=True))
print(result)
fresh.eval()
print(fresh(x))
print(torch.equal(fresh.fc2.weight, model.fc2.weight), fresh.bn.num_batches_tracked)

EPOCH, LOSS = 5, 0.4
torch.save({
    "epoch": EPOCH,
    "model_state_dict": model.state_dict(),
    "optimizer_state_dict": optimizer.state_dict(),
    "loss": LOSS,
}, "checkpoint.tar")
model2 = TheModelClass()
optimizer2 = optim.SGD(model2.parameters(), lr=0.5)
checkpoint = torch.load("checkpoint.tar", weights_only=True)
model2.load_state_dict(checkpoint["model_state_dict"])
optimizer2.load_state_dict(checkpoint["optimizer_state_dict"])
print(checkpoint["epoch"], checkpoint["loss"], optimizer2.param_groups[0]["lr"], optimizer2.param_groups[0]["momentum"])
model2.train()
print(sorted(checkpoint.keys()), len(optimizer2.state_dict()["state"]))

torch.save(model, "whole_model.pt")
model3 = torch.load("whole_model.pt", weights_only=False)
model3.eval()
print(type(model3).__name__, torch.equal(model3(x), fresh(x)))

tensors = {"a": torch.arange(3), "b": [torch.ones(2), 7], "c": "text"}
torch.save(tensors, "tensors.pt")
print(torch.load("tensors.pt"))

missing = fresh.load_state_dict({k: v for k, v in model.state_dict().items() if not k.startswith("fc2")}, strict=False)
print(missing.missing_keys, missing.unexpected_keys)
try:
    fresh.load_state_dict({"fc1.weight": torch.zeros(5, 36)})
except RuntimeError as error:
    print(type(error).__name__, str(error).splitlines()[0])

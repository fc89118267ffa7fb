# "What is torch.nn really", CNN part: a Lambda module, view-reshaping, avg pooling, nn.Sequential
# with AdaptiveAvgPool2d, and a wrapped DataLoader that preprocesses batches.
import torch
import torch.nn.functional as F
from torch import nn, optim
from torch.utils.data import DataLoader, TensorDataset

from _fixed import init_fixed, wave

torch.set_default_dtype(torch.float64)
n = 48
labels = torch.arange(n) % 3
x_train = torch.stack([wave(64, freq=0.2 * (int(c) + 1), phase=0.1 * i) for i, c in enumerate(labels)])
y_train = labels
train_dl = DataLoader(TensorDataset(x_train[:36], y_train[:36]), batch_size=12)
valid_dl = DataLoader(TensorDataset(x_train[36:], y_train[36:]), batch_size=12)


class Lambda(nn.Module):
    def __init__(self, func):
        super().__init__()
        self.func = func

    def forward(self, x):
        return self.func(x)


def preprocess(x, y):
    return x.view(-1, 1, 8, 8), y


class WrappedDataLoader:
    def __init__(self, dl, func):
        self.dl = dl
        self.func = func

    def __len__(self):
        return len(self.dl)

    def __iter__(self):
        for b in self.dl:
            yield (self.func(*b))


train_dl = WrappedDataLoader(train_dl, preprocess)
valid_dl = WrappedDataLoader(valid_dl, preprocess)


class Mnist_CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 4, kernel_size=3, stride=2, padding=1)
        self.conv2 = nn.Conv2d(4, 4, kernel_size=3, stride=2, padding=1)
        self.conv3 = nn.Conv2d(4, 3, kernel_size=3, stride=2, padding=1)

    def forward(self, xb):
        xb = F.relu(self.conv1(xb))
        xb = F.relu(self.conv2(xb))
        xb = F.relu(self.conv3(xb))
        xb = F.avg_pool2d(xb, 1)
        return xb.view(-1, xb.size(1))


def fixed_start(model):
    return init_fixed(model, scale=0.4, freq=0.9)


def fit(epochs, model, opt):
    for epoch in range(epochs):
        model.train()
        for xb, yb in train_dl:
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            opt.step()
            opt.zero_grad()
        model.eval()
        with torch.no_grad():
            losses = [F.cross_entropy(model(xb), yb, reduction="sum").item() for xb, yb in valid_dl]
        print(epoch, f"{sum(losses) / 12:.10f}")


model = fixed_start(Mnist_CNN())
fit(3, model, optim.SGD(model.parameters(), lr=0.1, momentum=0.9))

model = fixed_start(nn.Sequential(
    nn.Conv2d(1, 4, kernel_size=3, stride=2, padding=1),
    nn.ReLU(),
    nn.Conv2d(4, 4, kernel_size=3, stride=2, padding=1),
    nn.ReLU(),
    nn.Conv2d(4, 3, kernel_size=3, stride=2, padding=1),
    nn.ReLU(),
    nn.AdaptiveAvgPool2d(1),
    Lambda(lambda x: x.view(x.size(0), -1)),
))
print(model)
fit(3, model, optim.SGD(model.parameters(), lr=0.1, momentum=0.9))
xb, yb = next(iter(valid_dl))
print(model(xb).argmax(dim=1), yb)

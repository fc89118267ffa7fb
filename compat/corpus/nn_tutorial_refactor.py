# "What is torch.nn really", second half: the same model refactored step by step with
# F.cross_entropy, nn.Module + nn.Parameter, nn.Linear, optim, TensorDataset and DataLoader.
import math

import torch
import torch.nn.functional as F
from torch import nn, optim
from torch.utils.data import DataLoader, TensorDataset

from _fixed import init_fixed, wave

torch.set_default_dtype(torch.float64)
n, d, classes = 120, 20, 4
x_train = wave(n, d, freq=0.37) * wave(n, d, freq=0.011, phase=1.5)
y_train = (x_train[:, :classes] * torch.tensor([1.0, -1.0, 0.5, 2.0])).argmax(dim=1)
x_valid, y_valid = x_train[90:], y_train[90:]
x_train, y_train = x_train[:90], y_train[:90]
bs, lr, epochs = 16, 0.5, 3
loss_func = F.cross_entropy


def start_weights(module):
    init_fixed(module, scale=1 / math.sqrt(d), freq=1.0)


class Mnist_Logistic(nn.Module):
    def __init__(self):
        super().__init__()
        self.weights = nn.Parameter(torch.randn(d, classes) / math.sqrt(d))
        self.bias = nn.Parameter(torch.zeros(classes))

    def forward(self, xb):
        return xb @ self.weights + self.bias


model = Mnist_Logistic()
start_weights(model)
print(loss_func(model(x_train[:bs]), y_train[:bs]))


def fit_manual():
    for epoch in range(epochs):
        for i in range((len(x_train) - 1) // bs + 1):
            start_i = i * bs
            xb, yb = x_train[start_i:start_i + bs], y_train[start_i:start_i + bs]
            loss = loss_func(model(xb), yb)
            loss.backward()
            with torch.no_grad():
                for p in model.parameters():
                    p -= p.grad * lr
                model.zero_grad()


fit_manual()
print(loss_func(model(x_train), y_train))


class Mnist_Linear(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(d, classes)

    def forward(self, xb):
        return self.lin(xb)


def get_model():
    model = Mnist_Linear()
    start_weights(model)
    return model, optim.SGD(model.parameters(), lr=lr)


model, opt = get_model()
train_ds = TensorDataset(x_train, y_train)
print(len(train_ds), train_ds[0][0].shape, train_ds[0][1])
train_dl = DataLoader(train_ds, batch_size=bs)
valid_dl = DataLoader(TensorDataset(x_valid, y_valid), batch_size=bs * 2)

for epoch in range(epochs):
    model.train()
    for xb, yb in train_dl:
        pred = model(xb)
        loss = loss_func(pred, yb)
        loss.backward()
        opt.step()
        opt.zero_grad()
    model.eval()
    with torch.no_grad():
        valid_loss = sum(loss_func(model(xb), yb) for xb, yb in valid_dl)
    print(epoch, valid_loss / len(valid_dl))


def loss_batch(model, loss_func, xb, yb, opt=None):
    loss = loss_func(model(xb), yb)
    if opt is not None:
        loss.backward()
        opt.step()
        opt.zero_grad()
    return loss.item(), len(xb)


def fit(epochs, model, loss_func, opt, train_dl, valid_dl):
    for epoch in range(epochs):
        model.train()
        for xb, yb in train_dl:
            loss_batch(model, loss_func, xb, yb, opt)
        model.eval()
        with torch.no_grad():
            losses, nums = zip(*[loss_batch(model, loss_func, xb, yb) for xb, yb in valid_dl])
        val_loss = sum(l * n for l, n in zip(losses, nums)) / sum(nums)
        print(epoch, round(val_loss, 10))


model, opt = get_model()
fit(epochs, model, loss_func, opt, train_dl, valid_dl)
print(model.lin.weight.shape, model.lin.bias)

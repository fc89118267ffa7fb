# "What is torch.nn really", first half: logistic regression with hand-made weights, log_softmax
# and negative log-likelihood written out, and a manual SGD loop.
import math

import torch

from _fixed import wave

torch.set_default_dtype(torch.float64)
n, d, classes = 120, 20, 4
x_train = wave(n, d, freq=0.37) * wave(n, d, freq=0.011, phase=1.5)
y_train = (x_train[:, :classes] * torch.tensor([1.0, -1.0, 0.5, 2.0])).argmax(dim=1)
print(x_train.shape, y_train.shape, y_train.min(), y_train.max(), y_train[:10])

weights = wave(d, classes, freq=1.0, phase=1.5) / math.sqrt(d)
weights.requires_grad_()
bias = torch.zeros(classes, requires_grad=True)


def log_softmax(x):
    return x - x.exp().sum(-1).log().unsqueeze(-1)


def model(xb):
    return log_softmax(xb @ weights + bias)


bs = 32
xb = x_train[0:bs]
preds = model(xb)
print(preds[0], preds.shape)


def nll(input, target):
    return -input[range(target.shape[0]), target].mean()


loss_func = nll
yb = y_train[0:bs]
print(loss_func(preds, yb))


def accuracy(out, yb):
    preds = torch.argmax(out, dim=1)
    return (preds == yb).float().mean()


print(accuracy(preds, yb))

lr = 0.5
epochs = 3
for epoch in range(epochs):
    for i in range((n - 1) // bs + 1):
        start_i = i * bs
        end_i = start_i + bs
        xb = x_train[start_i:end_i]
        yb = y_train[start_i:end_i]
        pred = model(xb)
        loss = loss_func(pred, yb)
        loss.backward()
        with torch.no_grad():
            weights -= weights.grad * lr
            bias -= bias.grad * lr
            weights.grad.zero_()
            bias.grad.zero_()
    print(epoch, loss_func(model(x_train), y_train).item(), accuracy(model(x_train), y_train).item())

print(loss_func(model(xb), yb), accuracy(model(xb), yb))
print(weights.grad.abs().sum(), bias)

# Stochastic Weight Averaging as the PyTorch SWA recipe writes it: an MLP with BatchNorm trained
# with SGD and cosine annealing, then AveragedModel + SWALR from swa_start and update_bn at the end;
# the hidden block runs under torch.utils.checkpoint (its activations recomputed in backward),
# and checkpoint_sequential gives the gradients of the plain run.
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.optim.swa_utils import SWALR, AveragedModel, get_ema_multi_avg_fn, update_bn
from torch.utils.checkpoint import checkpoint, checkpoint_sequential
from torch.utils.data import DataLoader, TensorDataset

from _fixed import init_fixed, wave

torch.set_default_dtype(torch.float64)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Linear(4, 16), nn.BatchNorm1d(16), nn.ReLU())
        self.hidden = nn.Sequential(nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 16), nn.ReLU())
        self.head = nn.Linear(16, 3)

    def forward(self, x):
        h = self.stem(x)
        h = checkpoint(self.hidden, h, use_reentrant=False)
        return self.head(h)


x = wave(96, 4, freq=0.37, scale=1.5)
y = (x[:, 0] > 0).long() + (x[:, 1] + x[:, 2] > 0.5).long()
loader = DataLoader(TensorDataset(x, y), batch_size=16, shuffle=False)

model = init_fixed(Net(), scale=0.4, freq=0.9)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=20)
swa_model = AveragedModel(model)
ema_model = AveragedModel(model, multi_avg_fn=get_ema_multi_avg_fn(0.9))
swa_scheduler = SWALR(optimizer, swa_lr=0.05, anneal_epochs=3, anneal_strategy="cos")
swa_start = 5

for epoch in range(10):
    model.train()
    total = 0.0
    for inputs, targets in loader:
        optimizer.zero_grad()
        loss = F.cross_entropy(model(inputs), targets)
        loss.backward()
        optimizer.step()
        total += loss.item() * len(targets)
    ema_model.update_parameters(model)
    if epoch >= swa_start:
        swa_model.update_parameters(model)
        swa_scheduler.step()
    else:
        scheduler.step()
    print(epoch, f"{total / len(x):.8f}", f"{optimizer.param_groups[0]['lr']:.8f}")

update_bn(loader, swa_model)
update_bn(loader, ema_model)
print("n_averaged", swa_model.n_averaged.item(), ema_model.n_averaged.item())
print(list(swa_model.state_dict().keys())[:4])
print("bn mean", [round(v, 6) for v in swa_model.module.stem[1].running_mean[:4].tolist()])
print("bn momentum", swa_model.module.stem[1].momentum, swa_model.training)


def evaluate(net):
    net.eval()
    with torch.no_grad():
        logits = net(x)
        accuracy = (logits.argmax(1) == y).double().mean().item()
        return f"{F.cross_entropy(logits, y).item():.8f}", f"{accuracy:.4f}"


print("model", *evaluate(model))
print("swa", *evaluate(swa_model))
print("ema", *evaluate(ema_model))

# checkpoint_sequential over the hidden block: the same gradients as the plain run
h = model.stem(x).detach().requires_grad_()
plain = model.hidden(h)
(g_plain,) = torch.autograd.grad(plain.pow(2).sum(), h)
for segments in (1, 2, 4):
    h.grad = None
    out = checkpoint_sequential(model.hidden, segments, h, use_reentrant=True)
    out.pow(2).sum().backward()
    print(segments, torch.allclose(h.grad, g_plain, rtol=1e-12, atol=1e-14), f"{h.grad.abs().sum().item():.8f}")

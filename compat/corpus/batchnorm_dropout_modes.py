# train() and eval(): BatchNorm running statistics, Dropout scaling and zeroing, the .training flag
# through nested modules, and a BatchNorm1d MLP trained a few steps.
import torch
import torch.nn as nn

from _fixed import init_fixed

torch.set_default_dtype(torch.float64)
x = torch.linspace(-2, 3, 24).reshape(6, 4)

bn = nn.BatchNorm1d(4)
print(bn, bn.running_mean, bn.running_var, bn.num_batches_tracked)
y = bn(x)
print(y.mean(0).abs().max() < 1e-12, y.detach()[0])
print(bn.running_mean, bn.running_var, bn.num_batches_tracked)
bn.eval()
print(bn(x).detach()[0], bn.training)

bn2 = nn.BatchNorm2d(3, momentum=0.5)
img = torch.arange(2 * 3 * 2 * 2.0).reshape(2, 3, 2, 2)
out = bn2(img)
print(out.detach()[0, 0], bn2.running_mean, bn2.running_var)

drop = nn.Dropout(p=0.5)
ones = torch.ones(1000)
dropped = drop(ones)
kept = dropped[dropped != 0]
print(drop, torch.unique(kept), 0.4 < (dropped == 0).double().mean().item() < 0.6)
drop.eval()
print(torch.equal(drop(ones), ones))
print(nn.functional.dropout(ones, p=0.3, training=False).sum())

model = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Dropout(0.2), nn.Linear(8, 2))
print([m.training for m in model.modules()])
model.eval()
print([m.training for m in model.modules()], model.training)
model.train()
print(model[1].training)
model.train(False)
print(model[1].training)

net = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 1))
init_fixed(net, scale=0.5, freq=0.9)
target = x.sum(1, keepdim=True)
opt = torch.optim.SGD(net.parameters(), lr=0.05)
for step in range(30):
    net.train()
    loss = nn.functional.mse_loss(net(x), target)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 10 == 9:
        net.eval()
        with torch.no_grad():
            print(step, f"{loss.item():.8f}", f"{nn.functional.mse_loss(net(x), target).item():.8f}")
print(net[1].running_mean, net[1].num_batches_tracked)

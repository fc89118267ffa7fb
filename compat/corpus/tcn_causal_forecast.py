# A small temporal convolutional network (TCN) forecaster in the manner of the TCN paper's code
# and time-series tutorials: sliding windows cut with Tensor.unfold, residual blocks of dilated
# Conv1d layers made causal by trimming the right padding (a "chomp") or by left F.pad, weight
# normalisation, early stopping on a validation split with a ReduceLROnPlateau scheduler and
# gradient clipping, then a recursive multi-step forecast.
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils import parametrizations

torch.manual_seed(0)
torch.set_default_dtype(torch.float64)

WINDOW, HORIZON = 24, 1
t = torch.arange(0, 240, dtype=torch.float64)
series = torch.sin(2 * torch.pi * t / 24) + 0.5 * torch.sin(2 * torch.pi * t / 7) + 0.1 * torch.randn(t.shape)
mean, std = series[:180].mean(), series[:180].std()
z = (series - mean) / std
print(series.shape, f"{mean.item():.6f} {std.item():.6f}")

# windows of WINDOW+HORIZON with stride 1: inputs are the first WINDOW values, the target the next
windows = z.unfold(0, WINDOW + HORIZON, 1)
x_all, y_all = windows[:, :WINDOW].unsqueeze(1), windows[:, WINDOW:]
print(windows.shape, windows.stride(), x_all.shape, y_all.shape, torch.equal(windows[3, 0], z[3]))
n_train = 150
x_train, y_train = x_all[:n_train], y_all[:n_train]
x_val, y_val = x_all[n_train:], y_all[n_train:]


class Chomp1d(nn.Module):
    def __init__(self, size):
        super().__init__()
        self.size = size

    def forward(self, x):
        return x[:, :, :-self.size].contiguous()


class TemporalBlock(nn.Module):
    def __init__(self, c_in, c_out, kernel, dilation, dropout=0.1):
        super().__init__()
        pad = (kernel - 1) * dilation
        self.conv1 = parametrizations.weight_norm(nn.Conv1d(c_in, c_out, kernel, padding=pad, dilation=dilation))
        self.conv2 = parametrizations.weight_norm(nn.Conv1d(c_out, c_out, kernel, padding=pad, dilation=dilation))
        self.net = nn.Sequential(self.conv1, Chomp1d(pad), nn.ReLU(), nn.Dropout(dropout),
                                 self.conv2, Chomp1d(pad), nn.ReLU(), nn.Dropout(dropout))
        self.downsample = nn.Conv1d(c_in, c_out, 1) if c_in != c_out else None

    def forward(self, x):
        res = x if self.downsample is None else self.downsample(x)
        return F.relu(self.net(x) + res)


class TCN(nn.Module):
    def __init__(self, channels, kernel=3):
        super().__init__()
        layers = []
        for i, c_out in enumerate(channels):
            c_in = 1 if i == 0 else channels[i - 1]
            layers.append(TemporalBlock(c_in, c_out, kernel, dilation=2 ** i))
        self.blocks = nn.Sequential(*layers)
        self.head = nn.Linear(channels[-1], HORIZON)

    def forward(self, x):
        return self.head(self.blocks(x)[:, :, -1])


model = TCN([8, 8, 8])
print(sum(p.numel() for p in model.parameters()), [n for n, _ in model.named_parameters()][:4])
print(model.blocks[0].conv1.parametrizations.weight.original0.shape, model.blocks[1].conv1.dilation)
receptive = 1 + 2 * (3 - 1) * sum(2 ** i for i in range(3))
print("receptive field", receptive)

# causality: changing the last input step must not change earlier outputs of the blocks
model.eval()
probe = x_train[:1].clone()
out_a = model.blocks(probe)
probe[0, 0, -1] += 1.0
out_b = model.blocks(probe)
print(torch.equal(out_a[..., :-1], out_b[..., :-1]), (out_a[..., -1] - out_b[..., -1]).abs().sum() > 0)

# the same causal convolution with left padding instead of a chomp
conv = model.blocks[1].conv1
left = F.conv1d(F.pad(out_a, (conv.padding[0], 0)), conv.weight, conv.bias, dilation=conv.dilation)
print(torch.allclose(left, conv(out_a)[..., :-conv.padding[0]]))

optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode="min", factor=0.5, patience=2)
best_val, best_state, bad_epochs, patience = float("inf"), None, 0, 5
for epoch in range(25):
    model.train()
    perm = torch.randperm(n_train)
    for start in range(0, n_train, 32):
        idx = perm[start:start + 32]
        loss = F.mse_loss(model(x_train[idx]), y_train[idx])
        optimizer.zero_grad()
        loss.backward()
        total_norm = nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
        optimizer.step()
    model.eval()
    with torch.no_grad():
        val = F.mse_loss(model(x_val), y_val).item()
    scheduler.step(val)
    if val < best_val - 1e-4:
        best_val, best_state, bad_epochs = val, copy.deepcopy(model.state_dict()), 0
    else:
        bad_epochs += 1
    if epoch % 5 == 4:
        print(f"epoch {epoch + 1}: train {loss.item():.6f} val {val:.6f} lr {optimizer.param_groups[0]['lr']:.5f}")
    if bad_epochs >= patience:
        print("early stop at epoch", epoch + 1)
        break

model.load_state_dict(best_state)
model.eval()
print(f"best val {best_val:.6f}", sorted(best_state)[:3], scheduler.get_last_lr())

# recursive forecast: feed each prediction back as the newest input
with torch.no_grad():
    context = z[-WINDOW - 12:-12].view(1, 1, -1)
    preds = []
    for _ in range(12):
        step = model(context)
        preds.append(step.item())
        context = torch.cat([context[:, :, 1:], step.view(1, 1, 1)], dim=2)
    forecast = torch.tensor(preds) * std + mean
    print(forecast[:4], F.l1_loss(forecast, series[-12:]))

# removing the weight normalisation keeps the function
with torch.no_grad():
    before = model(x_val[:4])
    for block in model.blocks:
        torch.nn.utils.parametrize.remove_parametrizations(block.conv1, "weight")
        torch.nn.utils.parametrize.remove_parametrizations(block.conv2, "weight")
    print(torch.allclose(before, model(x_val[:4])), type(model.blocks[0].conv1.weight).__name__)

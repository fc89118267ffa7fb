# A one-step-ahead forecaster in the manner of the time-series tutorials: the series is cut
# into overlapping windows with as_strided, targets are taken with broadcast index arithmetic,
# a small 1-D conv + GRU model is trained for a few steps, and the bookkeeping is written the
# way such notebooks write it: weights initialised through .data, counters updated with //=
# and %=, a running loss taken from a reduction and changed in place, and integer bucket
# indices made with div(..., rounding_mode='floor').
import torch
import torch.nn as nn
import torch.nn.functional as F

from _fixed import init_fixed, wave

torch.set_default_dtype(torch.float64)
torch.set_num_threads(2)
print("threads", torch.get_num_threads(), torch.get_float32_matmul_precision())

series = wave(400, freq=0.09) + 0.3 * wave(400, freq=0.023, phase=1.0)
window, horizon = 24, 1
count = (series.numel() - window - horizon) // 4 + 1
# windows of 24 values starting every 4 steps: a view that reads the series in place
inputs = series.as_strided((count, window), (4, 1))
starts = torch.arange(count) * 4
targets = series[starts + window + horizon - 1]
print(inputs.shape, inputs.stride(), inputs._is_view(), targets.shape, targets._is_view())
print(torch.broadcast_shapes(inputs.shape, (1, window)), [t.shape for t in torch.broadcast_tensors(starts[:, None], torch.arange(3))])

# buckets of the target for a coarse accuracy: floor division keeps integers
buckets = torch.div((targets * 10).long(), 3, rounding_mode="floor")
print(buckets.dtype, buckets[:8].tolist(), torch.div(torch.tensor([-7, 7]), 2, rounding_mode="trunc").tolist())


class Forecaster(nn.Module):
    def __init__(self, hidden=16):
        super().__init__()
        self.conv = nn.Conv1d(1, 8, kernel_size=5, padding=2)
        self.gru = nn.GRU(8, hidden, batch_first=True)
        self.head = nn.Linear(hidden, 1)

    def forward(self, x):
        h = F.relu(self.conv(x.unsqueeze(1)))          # (n, 8, window)
        out, last = self.gru(h.transpose(1, 2))         # (n, window, hidden)
        return self.head(out[:, -1]).squeeze(-1)


model = init_fixed(Forecaster(), scale=0.2, freq=0.37)
with torch.no_grad():
    model.head.bias.data.fill_(0.05)
    model.conv.weight.data[0].mul_(0.5)           # a row of a weight, through .data
    model.gru.bias_hh_l0.data[:16].zero_()
print(model.head.bias.item(), round(model.conv.weight[0].sum().item(), 8), model.gru.bias_hh_l0[:16].abs().sum().item())

optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)
running = torch.zeros(())
seen = torch.tensor([0])
for step in range(6):
    batch = slice((step % 3) * 24, (step % 3) * 24 + 24)
    optimizer.zero_grad()
    prediction = model(inputs[batch])
    loss = F.mse_loss(prediction, targets[batch])
    loss.backward()
    optimizer.step()
    per_sample = (prediction.detach() - targets[batch]).pow(2).sum(0)
    per_sample.div_(24)                             # in place on a reduction's result
    running = running * 0.9 + per_sample * 0.1
    seen += 24
    print(step, round(loss.item(), 10), round(running.item(), 10), seen.item())

epochs_done = seen.clone()
epochs_done //= count
leftover = seen.clone()
leftover %= count
print(epochs_done.tolist(), leftover.tolist(), seen.tolist())

with torch.no_grad():
    errors = (model(inputs) - targets).abs()
    worst = errors.topk(3).indices
    print(worst.tolist(), round(errors.mean().item(), 8), errors.argmax().item(), errors.argmax()._is_view())
    print(round(errors.sum(()).item(), 8), errors.all(()).shape, bool(errors.gt(0).all((0,))))

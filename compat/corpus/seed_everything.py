# The reproducibility preamble that training scripts and notebooks start with (seed every
# generator, ask cuDNN and PyTorch for deterministic algorithms, pick the device), then a short
# training run and a few of the tensor helpers such scripts reach for: concatenate, unflatten,
# logcumsumexp, a Hann window, trapezoid, mode, index_put_ with accumulation.
import os
import random

import numpy as np
import torch
import torch.nn as nn

from _fixed import init_fixed, wave


def seed_everything(seed: int = 42) -> None:
    random.seed(seed)
    os.environ["PYTHONHASHSEED"] = str(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.cuda.manual_seed(seed)
    torch.cuda.manual_seed_all(seed)
    torch.backends.cudnn.deterministic = True
    torch.backends.cudnn.benchmark = False
    torch.use_deterministic_algorithms(True, warn_only=True)


seed_everything()
print(torch.are_deterministic_algorithms_enabled(), torch.is_deterministic_algorithms_warn_only_enabled(),
      torch.backends.cudnn.deterministic, torch.backends.cudnn.benchmark, torch.get_deterministic_debug_mode())
device = torch.device("cuda" if torch.cuda.is_available() else "mps" if torch.backends.mps.is_available() else "cpu")
print("device", device, "cudnn", torch.backends.cudnn.is_available())

model = nn.Sequential(nn.Linear(6, 12), nn.GELU(), nn.Linear(12, 1)).to(device)
init_fixed(model, scale=0.3, freq=0.71)
optimizer = torch.optim.AdamW(model.parameters(), lr=5e-3, weight_decay=1e-2)
x = wave(32, 6, freq=0.29).to(device)
y = (x[:, :3].sum(1, keepdim=True) - x[:, 3:].prod(1, keepdim=True)).to(device)
for epoch in range(6):
    optimizer.zero_grad(set_to_none=True)
    loss = nn.functional.smooth_l1_loss(model(x), y)
    loss.backward()
    optimizer.step()
    print(f"epoch {epoch} loss {loss.item():.9f}")

with torch.inference_mode():
    print("inference", torch.is_inference_mode_enabled(), model(x[:2]).requires_grad)
print("after", torch.is_inference_mode_enabled())

parts = [wave(2, 3, freq=0.5), wave(1, 3, freq=0.9)]
joined = torch.concatenate(parts, dim=0)
print(joined.shape, torch.concat(parts).sum())
print(joined.flatten().unflatten(0, (3, 3)).shape, joined.unflatten(1, (1, 3)).shape)
scores = torch.tensor([[-1000.0, 0.0, 1000.0], [0.1, 0.2, 0.3]])
print(torch.logcumsumexp(scores, dim=1), scores.logcumsumexp(0))
window = torch.hann_window(8)
print(window, torch.hann_window(8, periodic=False))
print(torch.hamming_window(5), torch.trapezoid(window), torch.trapezoid(wave(5), dx=0.5))
print(torch.mode(torch.tensor([[1, 2, 2, 3], [4, 4, 1, 1]]), dim=1))
counts = torch.zeros(5)
counts.index_put_((torch.tensor([0, 2, 2, 4]),), torch.tensor([1.0, 2.0, 3.0, 4.0]), accumulate=True)
print(counts, torch.signbit(torch.tensor([-0.0, 0.0, -2.0])), torch.copysign(torch.tensor([1.0, 2.0]), -1.0))
